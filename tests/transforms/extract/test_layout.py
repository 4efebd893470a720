"""The PDF layout pass (``transforms/extract/layout.py``) on PDFs made here and on the
shared corpus, through real PDFium and real Tika."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from ragbeam.transforms.extract.backends import EmbeddedTika
from ragbeam.transforms.extract.layout import LayoutLine, align_lines, page_layouts
from ragbeam.transforms.extract.xhtml import parse_tika_xhtml

from conftest import REPO

HEADING = "Harbour Maintenance"
BODY = ("The northern quay cranes were inspected in March.",
        "Each crane was greased and its brakes were tested.")


def _serialise(objects: dict[int, bytes], kids: list[int]) -> bytes:
    if "furniture_generated" not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            "furniture_generated", REPO / "benchmarks" / "furniture_generated.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return sys.modules["furniture_generated"].serialise_pdf(objects, kids)


def report_pdf() -> bytes:
    """Page 1: a 20 pt bold heading over two 10 pt body lines; page 2: a grey image
    over the lower half of the page and one body line."""
    image = bytes([128]) * 100
    objects = {
        3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        4: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold >>",
        5: (b"<< /Type /XObject /Subtype /Image /Width 10 /Height 10 /ColorSpace /DeviceGray "
            b"/BitsPerComponent 8 /Length 100 >>\nstream\n" + image + b"\nendstream"),
    }
    resources = b"<< /Font << /F1 3 0 R /F2 4 0 R >> /XObject << /Im1 5 0 R >> >>"
    first = (b"BT /F2 20 Tf 72 700 Td (%s) Tj ET\n" % HEADING.encode()
             + b"\n".join(b"BT /F1 10 Tf 72 %d Td (%s) Tj ET" % (660 - 14 * i, line.encode())
                          for i, line in enumerate(BODY)))
    second = b"q 612 0 0 396 0 0 cm /Im1 Do Q\nBT /F1 10 Tf 72 700 Td (%s) Tj ET" % BODY[0].encode()
    kids = []
    for stream in (first, second):
        number = max(objects) + 1
        objects[number] = (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources "
                           + resources + b" /Contents %d 0 R >>" % (number + 1))
        objects[number + 1] = b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream"
        kids.append(number)
    return _serialise(objects, kids)


def _tika_pages(data: bytes) -> list[str]:
    parsed = parse_tika_xhtml(EmbeddedTika().extract(data, "r.pdf")[0])
    pages: dict[int, list[str]] = {}
    for block in parsed.blocks:
        if block.page:
            pages.setdefault(block.page, []).append(parsed.raw_text[block.raw_start:block.raw_end])
    return ["\n".join(pages.get(n, [])) for n in range(1, max(pages) + 1)]


def test_lines_carry_box_font_size_weight_and_their_offsets_in_tikas_text():
    data = report_pdf()
    tika = _tika_pages(data)
    first, second = page_layouts(data, tika)
    assert (first.page, first.width, first.height) == (1, 612, 792)
    heading, *body = first.lines
    assert heading.text == HEADING and heading.font_size == 20 and heading.bold
    assert [line.text for line in body] == list(BODY)
    assert all(line.font_size == 10 and not line.bold for line in body)
    assert 72 <= heading.x0 <= 75 and heading.y0 < 705 < heading.y1  # glyph boxes
    assert heading.y0 > body[0].y1 > body[1].y1  # top to bottom
    for line in first.lines:  # every character keeps its exact offset on its page
        assert tika[0][line.tika_start:line.tika_end] == line.text
    assert first.image_share == 0 and first.unmapped_share == 0
    assert second.image_share == pytest.approx(0.5, abs=0.01)
    assert tika[1][second.lines[0].tika_start:second.lines[0].tika_end] == BODY[0]


def test_alignment_ignores_spacing_ligatures_and_accents_and_keeps_order():
    def line(text: str) -> LayoutLine:
        return LayoutLine(text, 0, 0, 1, 1, 10, 400)

    tika = "Summary\nThe  ﬁrst Oğuz line.\nSummary\nnot in the layout"
    aligned = align_lines((line("Summary"), line("The first Og\u02d8uz line."),
                           line("PDFium only"), line("Summary")), tika)
    assert [(a.tika_start, a.tika_end) for a in aligned] == [
        (0, 7), (8, 28), (None, None), (29, 36)]  # the repeated line maps to its own place


def test_shared_corpus_lines_align_to_tika(corpus_dir):
    data = (corpus_dir / "pdf/dpr-multi-column.pdf").read_bytes()
    tika = _tika_pages(data)
    layouts = page_layouts(data, tika)
    lines = [line for layout in layouts for line in layout.lines]
    assert len(layouts) == 13 and len(lines) > 900
    aligned = [line for line in lines if line.tika_start is not None]
    assert len(aligned) / len(lines) > 0.95
    title = layouts[0].lines[0]
    assert title.text.startswith("Dense Passage Retrieval") and title.bold
    body_size = sorted(line.font_size for line in lines)[len(lines) // 2]
    assert title.font_size > body_size
