"""OCR through Tika's Tesseract, and the PDF fallback extractor, for real.

Every input is either in the shared corpus or made here: a PNG drawn with
Pillow, a PDF whose second page is only a picture of text, a PDF whose page
tree is lost (Tika fails on it with TIKA-198, as on the py-pdf sample with
unreadable metadata; its pages are intact), and a 43-page scan of the corpus's
own PDFs (``benchmarks/scanned_pdf.py``).
"""

from __future__ import annotations

import contextlib
import html
import importlib.util
import io
import json
import os
import re
import shutil
import subprocess
import sys
import time

import pytest
from made_documents import HARBOUR_LINES, HARBOUR_POOR, LayeredPage, pdf_with_layers
from reliability.hostile import pdf_with_pages

from ragbeam.transforms.clean.document import CleanOptions, clean_document
from ragbeam.transforms.errors import incomplete_reason, is_transient
from ragbeam.transforms.extract.backends import (
    PDF_FALLBACK,
    EmbeddedTika,
    ExtractionError,
    OcrSettings,
    TikaServer,
    ocr_unavailable,
    pdf_fallback,
)
from ragbeam.transforms.extract.document import EmptyDocumentError, build_extracted_document
from ragbeam.transforms.extract.ocr import POOR_LAYER_REASON, page_texts
from ragbeam.transforms.types import FetchedFile, SourceFile

from conftest import REPO, SAMPLES, TEST_EXTRACT_TIMEOUT
from helpers import read_table, run_cli
from tika_server import tika_like_server

INVOICE_LINES = ("Quarterly invoice for harbour cranes", "Payment due within thirty days")
SCANNED_PAGE_LINES = ("Tide gauge maintenance report", "The northern buoy was replaced")
TEXT_PAGES = ("Station handbook page one about sensors.", "Page three lists the crew.")
LOST_TREE_PAGES = ["Alpha sensors were calibrated.", "Beta loggers were replaced.",
                   "Gamma buoys were inspected."]


def _tesseract_ready() -> None:
    """Tesseract with English: CI installs it (make ocr); elsewhere its absence skips."""
    ocr_unavailable.cache_clear()
    problem = ocr_unavailable("eng")
    if problem is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"Tesseract must be installed in CI (make ocr): {problem}")
    pytest.skip(problem)


@pytest.fixture(scope="module")
def ocr_tika() -> EmbeddedTika:
    _tesseract_ready()
    return EmbeddedTika(ocr=OcrSettings())


def _picture_of_text(lines: tuple[str, ...], size: tuple[int, int] = (1400, 400)):
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("L", size, 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=44)
    for i, line in enumerate(lines):
        draw.text((50, 60 + 90 * i), line, fill=0, font=font)
    return image


def _encoded(image, fmt: str) -> bytes:
    out = io.BytesIO()
    image.save(out, fmt)
    return out.getvalue()


def _pdf(pages: list[str | bytes], image_size: tuple[int, int] = (1275, 1650)) -> bytes:
    """A PDF whose pages are a line of text (Helvetica) or a full-page JPEG (a scan)."""
    objects: dict[int, bytes] = {
        3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"}
    kids = []
    for page in pages:
        number = max(objects) + 1
        if isinstance(page, str):
            stream = f"BT /F1 12 Tf 72 720 Td ({page}) Tj ET".encode("latin-1")
            resources = b"<< /Font << /F1 3 0 R >> >>"
        else:
            image = number + 2
            width, height = image_size
            objects[image] = (b"<< /Type /XObject /Subtype /Image /Width %d /Height %d "
                              b"/ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /DCTDecode "
                              b"/Length %d >>\nstream\n" % (width, height, len(page))
                              + page + b"\nendstream")
            stream = b"q 612 0 0 792 0 0 cm /Im1 Do Q"
            resources = b"<< /XObject << /Im1 %d 0 R >> >>" % image
        objects[number] = (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
                           b"/Resources " + resources + b" /Contents %d 0 R >>" % (number + 1))
        objects[number + 1] = (b"<< /Length %d >>\nstream\n" % len(stream) + stream
                               + b"\nendstream")
        kids.append(number)
    return _generator().serialise_pdf(objects, kids)


def _generator():
    """benchmarks/furniture_generated.py, whose PDF writer the generated documents use."""
    if "furniture_generated" not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            "furniture_generated", REPO / "benchmarks" / "furniture_generated.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
    return sys.modules["furniture_generated"]


QUAY_LINES = ("The harbour master inspected every crane on the northern quay.",
              "Each crane was greased and its brakes were tested under load.",
              "The tide gauge at the pier head was cleaned and calibrated.")
# Type 1 fonts for _pdf_with_fonts: Helvetica; Helvetica whose ToUnicode map sends
# every printable code into the private use area (a text layer of garbage that
# renders as good text); Helvetica with 20 glyph names no Unicode map knows.
_FONTS = {
    b"F1": b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    b"F2": b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode %(cmap)d 0 R >>",
    b"F3": (b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Type /Encoding "
            b"/Differences [161 " + b" ".join(b"/zzq%d" % i for i in range(20)) + b"] >> >>"),
}
_PUA_CMAP = (b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Pua def "
             b"1 begincodespacerange <00> <FF> endcodespacerange 1 beginbfrange <20> <7E> "
             b"<E020> endbfrange endcmap CMapName currentdict /CMap defineresource pop end end")
UNMAPPED_GLYPHS = bytes(range(161, 181))


def _pdf_with_fonts(pages: list[list[tuple[bytes, bytes]]]) -> bytes:
    """A PDF whose pages are lines, each ``(font, text)`` with a font of ``_FONTS``."""
    objects = {3: b"<< /Length %d >>\nstream\n" % len(_PUA_CMAP) + _PUA_CMAP + b"\nendstream"}
    fonts = {}
    for name, font in _FONTS.items():
        fonts[name] = max(objects) + 1
        objects[fonts[name]] = font % {b"cmap": 3} if b"%(cmap)d" in font else font
    resources = (b"<< /Font << " + b" ".join(b"/%s %d 0 R" % item for item in fonts.items())
                 + b" >> >>")
    kids = []
    for lines in pages:
        number = max(objects) + 1
        stream = b"\n".join(b"BT /%s 14 Tf 72 %d Td (%s) Tj ET" % (font, 700 - 20 * i, text)
                             for i, (font, text) in enumerate(lines))
        objects[number] = (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources "
                           + resources + b" /Contents %d 0 R >>" % (number + 1))
        objects[number + 1] = (b"<< /Length %d >>\nstream\n" % len(stream) + stream
                               + b"\nendstream")
        kids.append(number)
    return _generator().serialise_pdf(objects, kids)


def unmapped_glyphs_pdf() -> bytes:
    """A born-digital page with 20 glyphs without a Unicode mapping among ~200 good
    characters (as math or check boxes make): Tika's AUTO test OCR'd such pages."""
    return _pdf_with_fonts([[(b"F1", line.encode()) for line in QUAY_LINES]
                            + [(b"F3", UNMAPPED_GLYPHS)]])


def garbage_layer_pdf() -> bytes:
    """Page 1 a good text layer; page 2 renders the same kind of text, but its text
    layer is private-use characters (a broken ToUnicode map)."""
    return _pdf_with_fonts([[(b"F1", TEXT_PAGES[0].encode())],
                            [(b"F2", line.encode()) for line in QUAY_LINES]])


def mixed_pdf() -> bytes:
    """Page 1 and 3 have a text layer; page 2 is a scan (a picture of two lines)."""
    scan = _picture_of_text(SCANNED_PAGE_LINES, size=(1275, 1650))
    return _pdf([TEXT_PAGES[0], _encoded(scan, "JPEG"), TEXT_PAGES[1]])


def pdf_with_lost_page_tree() -> bytes:
    """A valid PDF whose page-tree object is overwritten with zeros; pages intact."""
    pdf = pdf_with_pages(LOST_TREE_PAGES)
    tree = re.search(rb"(?m)^2 0 obj\n.*?endobj\n", pdf, re.S)
    assert tree is not None
    return pdf[:tree.start()] + bytes(tree.end() - tree.start()) + pdf[tree.end():]


def _document(data: bytes, name: str, xhtml: str, metadata):
    fetched = FetchedFile(SourceFile(f"/in/{name}", "d", len(data)), data, "h")
    return build_extracted_document(fetched, xhtml, metadata)


def _words(text: str) -> str:
    return " ".join(text.split())


# --- OCR -----------------------------------------------------------------------------

def test_scanned_pdf_is_read_by_ocr_and_keeps_its_page(ocr_tika, corpus_dir):
    data = (corpus_dir / "pdf/scanned-no-text-layer.pdf").read_bytes()
    xhtml, metadata = ocr_tika.extract(data, "scanned.pdf")
    assert metadata["ocr_pages"] == ["1"] and metadata["extractor"] == ["iscc-tika"]
    doc = clean_document(_document(data, "scanned.pdf", xhtml, metadata), CleanOptions())
    assert "Docling bundles PDF document conversion to JSON and Markdown" in _words(doc.text)
    assert {span.page for span in doc.spans} == {1}


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "TIFF"])
def test_image_made_here_is_read_by_ocr(ocr_tika, fmt):
    data = _encoded(_picture_of_text(INVOICE_LINES), fmt)
    xhtml, metadata = ocr_tika.extract(data, f"invoice.{fmt.lower()}")
    assert metadata["ocr_pages"] == ["1"]
    text = _words(_document(data, "invoice", xhtml, metadata).raw_text)
    for line in INVOICE_LINES:
        assert line in text


def test_ocr_reads_only_the_page_without_text_and_pages_stay_right(ocr_tika):
    data = mixed_pdf()
    plain_xhtml, _ = EmbeddedTika().extract(data, "mixed.pdf")
    xhtml, metadata = ocr_tika.extract(data, "mixed.pdf")
    assert metadata["ocr_pages"] == ["1"]
    assert xhtml.count('<div class="ocr">') == 1
    assert metadata["ocr_page_list"] == ["2"]
    assert json.loads(metadata["ocr_reasons"][0]) == {"2": "no text layer (0 usable characters)"}
    doc = clean_document(_document(data, "mixed.pdf", xhtml, metadata), CleanOptions())
    for page, line in ((1, TEXT_PAGES[0]), (2, SCANNED_PAGE_LINES[0]),
                       (2, SCANNED_PAGE_LINES[1]), (3, TEXT_PAGES[1])):
        start = doc.text.index(line)
        assert doc.pages_of(start, start + len(line)) == (page, page), line
    assert SCANNED_PAGE_LINES[0] not in plain_xhtml


def test_a_blank_page_is_not_ocrd_a_scan_beside_it_is(ocr_tika):
    """A page with no text, no image and no drawing (a blank verso, a page left for
    notes) has nothing for Tesseract: it is not sent to OCR; the scan is."""
    scan = _picture_of_text(SCANNED_PAGE_LINES, size=(1275, 1650))
    data = _pdf([TEXT_PAGES[0], b"", _encoded(scan, "JPEG")])
    # The empty bytes page above is a page whose content draws nothing at all.
    data = data.replace(b"q 612 0 0 792 0 0 cm /Im1 Do Q", b"", 1)
    _, metadata = ocr_tika.extract(data, "blank.pdf")
    assert metadata["ocr_page_list"] == ["3"]
    assert set(json.loads(metadata["ocr_reasons"][0])) == {"3"}


def test_a_born_digital_page_with_unmapped_glyphs_keeps_its_text_layer_unocrd(ocr_tika):
    """Tika's AUTO test (> 10 unmapped glyphs) sent this page to OCR and its OCR text
    was appended beside the layer: the page was indexed twice. 20 of ~200 glyphs
    unmapped is a usable layer: the default extracts exactly what --ocr off does."""
    data = unmapped_glyphs_pdf()
    off_xhtml, off_metadata = EmbeddedTika(ocr=OcrSettings(mode="off")).extract(data, "u.pdf")
    assert int(off_metadata["pdf:unmappedUnicodeCharsPerPage"][0]) > 10  # Tika's test: OCR
    xhtml, metadata = ocr_tika.extract(data, "u.pdf")
    assert xhtml == off_xhtml
    assert metadata["ocr_pages"] == ["0"] and "ocr_reasons" not in metadata
    assert QUAY_LINES[0] in _words(_document(data, "u.pdf", xhtml, metadata).raw_text)


def test_a_garbage_text_layer_is_replaced_by_the_pages_ocr_text(ocr_tika):
    data = garbage_layer_pdf()
    off_xhtml, _ = EmbeddedTika(ocr=OcrSettings(mode="off")).extract(data, "g.pdf")
    assert "\ue054" in off_xhtml  # 'T' of page 2, sent to the private use area
    xhtml, metadata = ocr_tika.extract(data, "g.pdf")
    assert metadata["ocr_pages"] == ["1"] and metadata["ocr_page_list"] == ["2"]
    assert json.loads(metadata["ocr_reasons"][0]) == {"2": "no text layer (0 usable characters)"}
    doc = clean_document(_document(data, "g.pdf", xhtml, metadata), CleanOptions())
    assert not re.search("[\ue000-\uf8ff]", doc.text)  # replaced, not appended
    assert TEXT_PAGES[0] in doc.text and QUAY_LINES[2] in _words(doc.text)
    start = doc.text.index("harbour master")
    assert doc.pages_of(start, start + 5) == (2, 2)
    assert doc.text.count("harbour master") == 1


DOCK_LINES = ("The dock office keeps a record of every ship that enters",
              "the harbour, and of the cargo it carries. Each morning the",
              "clerk writes down the names of the vessels waiting outside",
              "the breakwater, and the pilots are sent to them in the order",
              "in which they arrived, unless the harbour master decides",
              "that a ship with a perishable cargo should go first.")


def test_a_poor_ocr_layer_is_read_again_a_good_one_and_born_digital_text_are_kept(ocr_tika):
    """Page 1: a scan whose OCR layer is good (one slip, 'arrlved', which stays: no OCR
    cost); page 2: a scan whose layer is poor (read again, the layer replaced); page
    3: born-digital text as garbled as page 2's layer, but no scan: its text is the text."""
    good_layer = " ".join(DOCK_LINES).replace("arrived", "arrlved")
    data = pdf_with_layers([LayeredPage(good_layer, DOCK_LINES),
                            LayeredPage(HARBOUR_POOR, HARBOUR_LINES),
                            LayeredPage(HARBOUR_POOR)])
    xhtml, metadata = ocr_tika.extract(data, "layers.pdf")
    assert metadata["ocr_page_list"] == ["2"]
    reasons = json.loads(metadata["ocr_reasons"][0])
    assert list(reasons) == ["2"] and reasons["2"].startswith(POOR_LAYER_REASON)
    pages = [_words(html.unescape(text)) for text in page_texts(xhtml)]
    assert "arrlved" in pages[0]
    assert "Comrnittee" not in pages[1] and HARBOUR_LINES[0] in pages[1]
    assert "committee may have to decide" in pages[1]
    assert "Tbe harbour rnaster" in pages[2]


def test_a_born_digital_pdf_never_reads_the_word_list(ocr_tika, monkeypatch):
    """Pages of 40 and more words, garbled as a poor OCR layer, but no scan: the scan test
    (PDFium) comes first, so the process never reads Tesseract's word list (~0.47 CPU s,
    ~22 MB) for them, and nothing goes to OCR."""
    from ragbeam.transforms.extract import ocr

    read: list[str] = []
    real = ocr.pack_words
    monkeypatch.setattr(ocr, "pack_words", lambda pack: read.append(pack) or real(pack))
    monkeypatch.setattr(ocr, "_read_packs", set())
    monkeypatch.setattr(ocr, "_scan_test_pages_left", ocr.SCAN_TEST_PAGES)
    data = pdf_with_layers([LayeredPage(HARBOUR_POOR), LayeredPage(" ".join(DOCK_LINES))])
    xhtml, metadata = ocr_tika.extract(data, "born-digital.pdf")
    assert read == [] and "ocr_reasons" not in metadata
    assert "Tbe harbour rnaster" in page_texts(xhtml)[0]
    assert ocr._scan_test_pages_left == ocr.SCAN_TEST_PAGES - 2


def test_ocr_off_and_documents_that_need_no_ocr_are_extracted_as_before(corpus_dir):
    _tesseract_ready()
    plain = EmbeddedTika()
    off = EmbeddedTika(ocr=OcrSettings(mode="off"))
    auto = EmbeddedTika(ocr=OcrSettings())
    text_pdf = (SAMPLES / "boating-safety.pdf").read_bytes()
    expected, expected_metadata = plain.extract(text_pdf, "b.pdf")
    for backend in (off, auto):
        xhtml, metadata = backend.extract(text_pdf, "b.pdf")
        assert xhtml == expected
        assert {k: v for k, v in metadata.items() if k != "ocr_pages"} == expected_metadata
    scanned = (corpus_dir / "pdf/scanned-no-text-layer.pdf").read_bytes()
    xhtml, metadata = off.extract(scanned, "s.pdf")
    assert "ocr_pages" not in metadata
    with pytest.raises(EmptyDocumentError, match="needs OCR"):
        _document(scanned, "s.pdf", xhtml, metadata)


def test_ocr_only_reads_every_page_from_its_image(corpus_dir):
    _tesseract_ready()
    data = mixed_pdf()
    xhtml, metadata = EmbeddedTika(ocr=OcrSettings(mode="only")).extract(data, "m.pdf")
    assert metadata["ocr_pages"] == ["3"]
    assert xhtml.count('<div class="ocr">') == 3


def dense_page(seed: int = 0):
    """A full page of small text: Tesseract needs seconds of CPU for it."""
    from PIL import ImageDraw, ImageFont

    words = ("harbour", "crane", "invoice", "tide", "gauge", "buoy", "anchor", "ledger")
    image = _picture_of_text((), size=(1275, 1650))
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=28)
    for i in range(30):
        line = " ".join(words[(seed + i + j) % len(words)] for j in range(9))
        draw.text((60, 60 + 50 * i), line, fill=0, font=font)
    return image


def test_a_page_over_its_cpu_limit_marks_the_document_incomplete_and_transient():
    """A page OCR could not finish keeps the rest of the document, says which page
    is missing without any time figure, and is marked for the next run to retry;
    a document with nothing else to show fails with the same transient type."""
    from ragbeam.transforms.errors import INCOMPLETE_KEY, OCR_TIME_LIMIT, is_transient
    from ragbeam.transforms.extract.ocr import OcrTimeLimit

    _tesseract_ready()
    scan = _encoded(dense_page(), "JPEG")
    data = _pdf([TEXT_PAGES[0], scan])
    tika = EmbeddedTika(ocr=OcrSettings(page_timeout_s=1))  # Tesseract needs several
    xhtml, metadata = tika.extract(data, "cut.pdf")
    assert metadata[INCOMPLETE_KEY] == [OCR_TIME_LIMIT] and is_transient(OCR_TIME_LIMIT)
    note = metadata["ocr_note"][0]
    assert note.startswith("page 2 not read") and not re.search(r"\d+(\.\d+)? ?s\b", note)
    doc = _document(data, "cut.pdf", xhtml, metadata)
    assert TEXT_PAGES[0] in doc.raw_text and doc.metadata[INCOMPLETE_KEY] == OCR_TIME_LIMIT
    only_scan = _pdf([scan])
    xhtml, metadata = tika.extract(only_scan, "scan.pdf")
    with pytest.raises(OcrTimeLimit, match="page 1 not read"):
        _document(only_scan, "scan.pdf", xhtml, metadata)
    # Given the time, the same page is read.
    xhtml, metadata = EmbeddedTika(ocr=OcrSettings()).extract(data, "cut.pdf")
    assert INCOMPLETE_KEY not in metadata and metadata["ocr_pages"] == ["1"]
    assert "harbour crane invoice" in _words(_document(data, "c.pdf", xhtml, metadata).raw_text)


def test_pages_of_one_document_are_read_several_at_once():
    """With two workers, two pages of one scan are read at the same time (the real
    read_page, counted around)."""
    import threading

    from ragbeam.transforms.extract.ocr import read_page, read_pages

    _tesseract_ready()
    data = _pdf([_encoded(_picture_of_text((f"Page {n} of the log",), size=(1275, 1650)),
                          "JPEG") for n in range(1, 5)])
    lock, running, most = threading.Lock(), [0], [0]

    def counted(*args):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        try:
            return read_page(*args)
        finally:
            with lock:
                running[0] -= 1

    results = read_pages(data, "application/pdf", [1, 2, 3, 4], "eng", 20, workers=2,
                         read=counted)
    assert most[0] == 2
    assert [r.page for r in results] == [1, 2, 3, 4]
    assert [f"Page {n} of the log" in _words(r.text or "") for n, r in
            enumerate(results, start=1)] == [True] * 4


def test_without_tesseract_the_run_warns_once_and_keeps_text_layers(tmp_path, capsys,
                                                                     monkeypatch, corpus_dir):
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(corpus_dir / "pdf/scanned-no-text-layer.pdf", folder / "scanned.pdf")
    (folder / "mixed.pdf").write_bytes(mixed_pdf())
    # The interpreter stays reachable (its absolute path); Tesseract is not on PATH.
    monkeypatch.setenv("PATH", os.path.dirname(sys.executable))
    ocr_unavailable.cache_clear()
    try:
        out = tmp_path / "out"
        summary = run_cli(["--input", str(folder), "--output", str(out),
                           "--extract-timeout", TEST_EXTRACT_TIMEOUT])
    finally:
        ocr_unavailable.cache_clear()
    warnings = [line for line in capsys.readouterr().err.splitlines() if "OCR" in line]
    assert len(warnings) == 1 and "tesseract not found on PATH" in warnings[0], warnings
    docs = {os.path.basename(d["source_uri"]): d for d in read_table(out, "documents").to_pylist()}
    assert docs["scanned.pdf"]["status"] == "error"
    assert "OCR, which is unavailable: tesseract not found" in docs["scanned.pdf"]["error"]
    # Flagged for a later run with Tesseract: the error and the incompleteness are transient.
    assert dict(docs["scanned.pdf"]["metadata"])["error_type"] == "OcrUnavailable"
    assert is_transient("OcrUnavailable")
    mixed = docs["mixed.pdf"]
    assert mixed["status"] == "ok" and TEXT_PAGES[0] in mixed["text"]
    mixed_meta = dict(mixed["metadata"])
    assert "unavailable" in mixed_meta["ocr_note"]
    assert mixed_meta["incomplete"] == "OcrUnavailable"
    assert incomplete_reason(mixed_meta) == "OcrUnavailable"
    assert json.loads(mixed_meta["ocr_reasons"]) == {"2": "no text layer (0 usable characters)"}
    assert summary["extraction_coverage"]["ocr_pages"] == 0


def test_pipeline_ocr_and_fallback_reach_documents_chunks_and_run_json(tmp_path, corpus_dir):
    _tesseract_ready()
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(corpus_dir / "pdf/scanned-no-text-layer.pdf", folder / "scanned.pdf")
    (folder / "invoice.png").write_bytes(_encoded(_picture_of_text(INVOICE_LINES), "PNG"))
    (folder / "mixed.pdf").write_bytes(mixed_pdf())
    (folder / "unmapped.pdf").write_bytes(unmapped_glyphs_pdf())
    (folder / "lost-page-tree.pdf").write_bytes(pdf_with_lost_page_tree())
    shutil.copy(SAMPLES / "faq.txt", folder / "faq.txt")
    runs = {}
    for mode in ("auto", "off"):
        out = tmp_path / mode
        # Chunks of about a page's text, so a chunk's pages say where its text came from.
        runs[mode] = (out, run_cli(["--input", str(folder), "--output", str(out), "--ocr", mode,
                                    "--chunk-size", "45", "--size-unit", "chars",
                                    "--extract-timeout", TEST_EXTRACT_TIMEOUT]))
    out, summary = runs["auto"]
    docs = {os.path.basename(d["source_uri"]): d for d in read_table(out, "documents").to_pylist()}
    assert all(d["status"] == "ok" for d in docs.values()), docs
    meta = {name: dict(d["metadata"]) for name, d in docs.items()}
    assert {n: m.get("ocr_pages") for n, m in meta.items()} == {
        "scanned.pdf": "1", "invoice.png": "1", "mixed.pdf": "1", "unmapped.pdf": "0",
        "lost-page-tree.pdf": None, "faq.txt": "0"}
    assert {n: m.get("ocr_page_list") for n, m in meta.items() if m.get("ocr_page_list")} == {
        "scanned.pdf": "1", "invoice.png": "0", "mixed.pdf": "2"}
    assert meta["lost-page-tree.pdf"]["extractor"] == PDF_FALLBACK
    assert "TIKA-198" in meta["lost-page-tree.pdf"]["extract_fallback_reason"]
    assert meta["mixed.pdf"]["extractor"] == "iscc-tika"
    assert summary["extraction_coverage"] == {"ocr_documents": 3, "ocr_pages": 3,
                                              "ocr_incomplete_documents": 0,
                                              "pdf_fallbacks": 1}
    assert summary["config"]["ocr"]["mode"] == "auto"
    chunks = read_table(out, "chunks").to_pylist()
    by_doc = {d["doc_id"]: name for name, d in docs.items()}
    pages_of_line = {}
    for chunk in chunks:
        for line in (*SCANNED_PAGE_LINES, *LOST_TREE_PAGES):
            if line in _words(chunk["text"]):
                pages_of_line[line] = (by_doc[chunk["doc_id"]], chunk["page_start"],
                                       chunk["page_end"])
    assert pages_of_line[SCANNED_PAGE_LINES[0]] == ("mixed.pdf", 2, 2)
    for page, line in enumerate(LOST_TREE_PAGES, start=1):
        assert pages_of_line[line] == ("lost-page-tree.pdf", page, page)
    # --ocr off: today's behaviour; only the fallback still rescues the damaged PDF.
    out_off, summary_off = runs["off"]
    off = {os.path.basename(d["source_uri"]): d
           for d in read_table(out_off, "documents").to_pylist()}
    # An image read without OCR cannot be indexed by design: unsupported, not failed.
    assert off["scanned.pdf"]["status"] == "error"
    assert off["invoice.png"]["status"] == "unsupported"
    assert SCANNED_PAGE_LINES[0] not in off["mixed.pdf"]["text"]
    assert off["lost-page-tree.pdf"]["text"] == docs["lost-page-tree.pdf"]["text"]
    assert off["faq.txt"]["text"] == docs["faq.txt"]["text"]
    assert off["unmapped.pdf"]["text"] == docs["unmapped.pdf"]["text"]  # no OCR copy
    assert summary_off["extraction_coverage"]["ocr_pages"] == 0
    assert summary_off["config"]["ocr"] == {"mode": "off"}
    assert summary_off["config_hash"] != summary["config_hash"]
    assert json.loads((out / "run.json").read_text())["extraction_coverage"]["ocr_pages"] == 3


# --- OCR under load, incomplete OCR, long scans (issue 23) ------------------------
# OCR's limits count CPU seconds, so a tight --ocr-page-timeout that a page meets on
# an idle machine it also meets on a saturated one (a wall-clock limit would not);
# a document whose OCR a limit stopped is ok, marked incomplete, and read again by
# the next incremental run; a 43-page scan is read whole with the default options.

@contextlib.contextmanager
def cpu_hogs(per_core: int = 1):
    """Busy loops on every core (``per_core`` each) while the block runs."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
            for _ in range(per_core * len(os.sched_getaffinity(0)))]
    try:
        yield
    finally:
        for hog in hogs:
            hog.kill()
        for hog in hogs:
            hog.wait()


def _chunks(out) -> list[tuple[str, str, int | None, int | None]]:
    return sorted((c["chunk_id"], c["text"], c["page_start"], c["page_end"])
                  for c in read_table(out, "chunks").to_pylist())


def _documents(out) -> dict[str, dict]:
    return {os.path.basename(d["source_uri"]): d
            for d in read_table(out, "documents").to_pylist()}


@pytest.mark.slow
def test_the_same_chunks_on_an_idle_and_a_saturated_machine(tmp_path, corpus_dir):
    _tesseract_ready()
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(corpus_dir / "pdf/scanned-no-text-layer.pdf", folder / "scanned.pdf")
    shutil.copy(corpus_dir / "pdf/llncsdoc.pdf", folder / "llncsdoc.pdf")
    (folder / "mixed.pdf").write_bytes(mixed_pdf())
    (folder / "invoice.png").write_bytes(_encoded(_picture_of_text(INVOICE_LINES), "PNG"))
    # Each page needs about a CPU second, far below this limit; beside the hogs it
    # takes several times that on the wall clock.
    args = ["--input", str(folder), "--ocr-page-timeout", "6",
            "--extract-timeout", TEST_EXTRACT_TIMEOUT]
    idle = tmp_path / "idle"
    run_cli([*args, "--output", str(idle)])
    loaded = tmp_path / "loaded"
    with cpu_hogs():
        summary = run_cli([*args, "--output", str(loaded)])
    assert summary["extraction_coverage"]["ocr_incomplete_documents"] == 0
    assert summary["extraction_coverage"]["ocr_pages"] == 3
    assert _chunks(loaded) == _chunks(idle)
    assert {n: d["text"] for n, d in _documents(loaded).items()} == {
        n: d["text"] for n, d in _documents(idle).items()}
    text = _words(" ".join(c[1] for c in _chunks(loaded)))
    assert SCANNED_PAGE_LINES[0] in text and INVOICE_LINES[0] in text


@pytest.mark.slow
def test_ocr_cut_by_a_limit_is_marked_and_read_by_the_next_run(tmp_path):
    _tesseract_ready()
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "report.pdf").write_bytes(_pdf([TEXT_PAGES[0], _encoded(dense_page(), "JPEG")]))
    first = tmp_path / "first"
    summary = first_summary = run_cli(["--input", str(folder), "--output", str(first),
                       "--ocr-page-timeout", "1"])  # Tesseract needs several seconds
    report = _documents(first)["report.pdf"]
    metadata = dict(report["metadata"])
    assert report["status"] == "ok" and TEXT_PAGES[0] in report["text"]
    assert metadata["incomplete"] == "OcrTimeLimit"
    assert not re.search(r"\d s\b", metadata["ocr_note"])  # no time figure
    assert summary["extraction_coverage"]["ocr_incomplete_documents"] == 1
    # Same bytes, same config (time limits are not fingerprinted): retried all the same.
    second = tmp_path / "second"
    summary = run_cli(["--input", str(folder), "--output", str(second),
                       "--previous", str(first)])
    report = _documents(second)["report.pdf"]
    assert report["status"] == "ok" and "incomplete" not in dict(report["metadata"])
    assert "harbour crane invoice" in _words(report["text"])
    assert summary["config_hash"] == first_summary["config_hash"]
    assert summary["extraction_coverage"]["ocr_incomplete_documents"] == 0
    # Complete now: the run after carries it over.
    third = tmp_path / "third"
    run_cli(["--input", str(folder), "--output", str(third), "--previous", str(second)])
    assert _documents(third)["report.pdf"]["status"] == "unchanged"


@pytest.mark.slow
def test_documents_run_without_tesseract_are_read_by_a_later_run_with_it(tmp_path, monkeypatch,
                                                                        corpus_dir):
    """No Tesseract: the mixed PDF keeps its text layers and the scan is an error, both
    transient (OcrUnavailable); the next incremental run, with Tesseract on PATH and the
    same config, reads their pages."""
    _tesseract_ready()
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(corpus_dir / "pdf/scanned-no-text-layer.pdf", folder / "scanned.pdf")
    (folder / "mixed.pdf").write_bytes(mixed_pdf())
    first = tmp_path / "first"
    with monkeypatch.context() as patched:
        patched.setenv("PATH", os.path.dirname(sys.executable))
        ocr_unavailable.cache_clear()
        try:
            first_summary = run_cli(["--input", str(folder), "--output", str(first)])
        finally:
            ocr_unavailable.cache_clear()
    before = _documents(first)
    assert before["scanned.pdf"]["status"] == "error"
    assert dict(before["mixed.pdf"]["metadata"])["incomplete"] == "OcrUnavailable"
    second = tmp_path / "second"
    summary = run_cli(["--input", str(folder), "--output", str(second), "--previous", str(first)])
    after = _documents(second)
    assert summary["config_hash"] == first_summary["config_hash"]
    assert after["scanned.pdf"]["status"] == after["mixed.pdf"]["status"] == "ok"
    assert "incomplete" not in dict(after["mixed.pdf"]["metadata"])
    assert dict(after["mixed.pdf"]["metadata"])["ocr_page_list"] == "2"
    assert SCANNED_PAGE_LINES[0] in _words(after["mixed.pdf"]["text"])
    assert "Docling bundles PDF" in _words(after["scanned.pdf"]["text"])


def _scanned_pdf_module():
    """benchmarks/scanned_pdf.py, which makes the scans of ``benchmarks/ocr_cores.py``."""
    spec = importlib.util.spec_from_file_location(
        "scanned_pdf", REPO / "benchmarks" / "scanned_pdf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SCAN_PAGES = 12  # ~2.7 CPU seconds of OCR each: over 15 s on two cores at any load


@pytest.mark.slow
def test_a_long_scan_is_read_whole_past_the_extraction_time_limit(tmp_path):
    """OCR runs outside --extract-timeout, each page under its own CPU limit, spread over
    the extraction processes (issue 23: a 43-page scan was cut by the document's limit).
    The limit here is a few times what the scan's text layer and a fresh extraction
    child take on this machine now (measured first), so the text layer meets it at any
    load while the pages' OCR, with the default OCR options, outlasts it."""
    _tesseract_ready()
    if shutil.which("pdftoppm") is None:
        pytest.skip("poppler-utils (make ocr) makes the scan")
    scans = _scanned_pdf_module()
    if not all(source.exists() for source in scans.DEFAULT_SOURCES):
        pytest.skip("the shared corpus's PDFs make the scan")
    from helpers import cold_start_seconds

    folder = tmp_path / "in"
    folder.mkdir()
    data = scans.scanned_pdf(SCAN_PAGES)
    (folder / "scan.pdf").write_bytes(data)
    started = time.monotonic()
    EmbeddedTika(ocr=OcrSettings(mode="off")).extract(data, "scan.pdf")
    text_layer_s = time.monotonic() - started + cold_start_seconds()
    limit = max(5.0, 4 * text_layer_s)
    out = tmp_path / "out"
    summary = run_cli(["--input", str(folder), "--output", str(out), "--extract-processes",
                       "2", "--extract-timeout", f"{limit:.1f}"])
    print(f"{SCAN_PAGES}-page scan, --extract-timeout {limit:.1f} s")
    scan = _documents(out)["scan.pdf"]
    metadata = dict(scan["metadata"])
    assert scan["status"] == "ok" and scan["page_count"] == SCAN_PAGES, scan["error"]
    assert metadata["ocr_pages"] == str(SCAN_PAGES) and "incomplete" not in metadata, metadata
    assert summary["extraction_coverage"]["ocr_pages"] == SCAN_PAGES
    pages = set()
    for chunk in read_table(out, "chunks").to_pylist():
        pages.update(range(chunk["page_start"], chunk["page_end"] + 1))
    assert pages == set(range(1, SCAN_PAGES + 1))
    # OCR'd words against the pages' own text layers: nearly all found.
    truth = {word for pdf, page in scans.source_pages(scans.DEFAULT_SOURCES, SCAN_PAGES)
             for word in re.findall(r"[A-Za-z]{5,}", scans.page_text(pdf, page))}
    read = set(re.findall(r"[A-Za-z]{5,}", scan["text"]))
    assert len(truth & read) / len(truth) >= 0.9


# --- PDF fallback --------------------------------------------------------------------

def test_tika_rejects_the_pdf_and_the_fallback_reads_every_page():
    import iscc_tika

    data = pdf_with_lost_page_tree()
    with pytest.raises(Exception, match="TIKA-198"):
        iscc_tika.Extractor().set_xml_output(True).extract_bytes_to_string(bytearray(data))
    xhtml, metadata = EmbeddedTika().extract(data, "lost.pdf")
    assert metadata["extractor"] == [PDF_FALLBACK]
    doc = _document(data, "lost.pdf", xhtml, metadata)
    assert doc.page_count == 3
    assert [(b.page, b.text) for b in doc.blocks] == list(enumerate(LOST_TREE_PAGES, start=1))


def test_the_fallback_also_follows_a_tika_server_that_rejects_a_pdf():
    with tika_like_server() as (url, _):
        xhtml, metadata = TikaServer(url).extract(pdf_with_lost_page_tree(), "lost.pdf")
    assert metadata["extractor"] == [PDF_FALLBACK]
    assert LOST_TREE_PAGES[2] in xhtml


def test_files_both_extractors_fail_on_stay_errors_and_encrypted_pdfs_are_not_retried(
        corpus_dir):
    with pytest.raises(ExtractionError, match=r"TIKA-198.*pdfminer.six fallback: no text"):
        EmbeddedTika().extract((corpus_dir / "bad/truncated-llncsdoc.pdf").read_bytes(), "t.pdf")
    with pytest.raises(ExtractionError, match=r"pdfminer.six fallback: PSEOF"):
        EmbeddedTika().extract((SAMPLES / "corrupt.pdf").read_bytes(), "corrupt.pdf")
    encrypted = (corpus_dir / "bad/password-protected.pdf").read_bytes()
    with pytest.raises(ExtractionError) as caught:
        pdf_fallback(encrypted, "Tika said no", ValueError())
    assert str(caught.value) == "Tika said no"  # not even tried
    with pytest.raises(ExtractionError, match=r"^not a pdf$"):
        pdf_fallback(b"plain text", "not a pdf", ValueError())


# --- options -------------------------------------------------------------------------

@pytest.mark.parametrize(("args", "message"), [
    (["--ocr-timeout", "0"], r"ocr_timeout: Input should be greater than 0"),
    (["--ocr-languages", "eng;rm -rf"], "Tesseract language codes"),
    (["--ocr-page-timeout", "0"], r"ocr_page_timeout: Input should be greater than 0"),
])
def test_bad_ocr_options_are_usage_errors(tmp_path, capsys, args, message):
    from ragbeam.pipeline.cli import main

    code = main(["run", "--input", str(SAMPLES / "faq.txt"), "--output", str(tmp_path / "o"),
                 *args])
    assert code == 2
    assert message in capsys.readouterr().err


def test_ocr_options_reach_the_extraction_process_and_the_fingerprint():
    from ragbeam.pipeline.run import request_from_argv

    config = request_from_argv(["--input", "x", "--output", "o", "--extract-timeout", "40",
                                "--ocr", "only", "--ocr-languages", "eng+deu",
                                "--ocr-page-timeout", "9"]).config
    ocr = config.extract.backend_spec[1]["ocr"]
    assert ocr == {"mode": "only", "languages": "eng+deu", "page_timeout_s": 9,
                   "document_timeout_s": None}
    # Time limits reach the child but are not fingerprinted, like --extract-timeout.
    assert config.fingerprint_fields()["ocr"] == {"mode": "only", "languages": "eng+deu"}
    slower = request_from_argv(["--input", "x", "--output", "o", "--extract-timeout", "90",
                                "--ocr", "only", "--ocr-languages", "eng+deu",
                                "--ocr-page-timeout", "30"]).config
    assert slower.config_hash == config.config_hash
    server = request_from_argv(
        ["--input", "x", "--output", "o", "--tika-server", "http://t"]).config
    assert "ocr" not in server.fingerprint_fields()  # the server OCRs as it is configured
