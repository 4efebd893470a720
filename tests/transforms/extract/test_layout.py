"""The PDF layout pass (``transforms/extract/layout.py``) on PDFs made here and on the
shared corpus, through real PDFium and real Tika."""

from __future__ import annotations

import os
from collections import Counter

import pytest
from made_pdfs import serialise

from ragbeam.transforms.extract import layout as layout_module
from ragbeam.transforms.extract.backends import EmbeddedTika
from ragbeam.transforms.extract.layout import page_layouts, pdf_layout, squeeze, tika_page_lines
from ragbeam.transforms.extract.xhtml import parse_tika_xhtml
from ragbeam.transforms.types import LineStyle

HEADING = "Harbour Maintenance"
BODY = ("The northern quay cranes were inspected in March.",
        "Each crane was greased and its brakes were tested.")



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
    return serialise(objects, kids)


def _layout(data: bytes):
    """Tika's parse and the layout pass; where the C pass is built, the pure-Python pass
    (the definition) must give the same bytes."""
    parsed = parse_tika_xhtml(EmbeddedTika().extract(data, "r.pdf")[0])
    layout = pdf_layout(data, parsed.raw_text, parsed.blocks)
    if layout_module.native_lines() is not None:
        assert repr(_python_layout(data, parsed)) == repr(layout)
    return parsed, layout


def _python_layout(data: bytes, parsed):
    saved = os.environ.get(layout_module.NATIVE_ENV)
    os.environ[layout_module.NATIVE_ENV] = "0"
    try:
        return pdf_layout(data, parsed.raw_text, parsed.blocks)
    finally:
        if saved is None:
            del os.environ[layout_module.NATIVE_ENV]
        else:
            os.environ[layout_module.NATIVE_ENV] = saved


def _styles(parsed, layout, page: int = 1) -> dict[str, LineStyle]:
    return {parsed.raw_text[s.raw_start:s.raw_end]: s for s in layout.lines if s.page == page}


def test_every_tika_line_gets_its_box_font_size_and_weight():
    parsed, layout = _layout(report_pdf())
    assert layout.page_sizes == ((612, 792), (612, 792))
    styles = _styles(parsed, layout)
    heading, first, second = styles[HEADING], styles[BODY[0]], styles[BODY[1]]
    assert (heading.page, heading.size, heading.bold) == (1, 20, True)
    assert all((s.size, s.bold) == (10, False) for s in (first, second))
    # Positions from the top-left of the page: the heading's baseline is 700 pt up.
    assert 72 <= heading.x0 <= 75 and heading.top < 792 - 700 < heading.bottom
    assert heading.bottom < first.top < first.bottom < second.top
    assert heading.x1 > heading.x0 + 150  # the box spans the line, not one glyph
    # Each style points at exactly its Tika line, so cleaning finds it by offsets.
    assert layout.style_of(heading.raw_start, heading.raw_end) == heading
    assert layout.style_of(heading.raw_end + 1, heading.raw_end + 2) is None
    assert list(_styles(parsed, layout, page=2)) == [BODY[0]]


def test_a_font_set_at_one_point_and_scaled_by_the_text_matrix_has_its_displayed_size():
    """Many producers set every font at 1 pt and scale it with Tm: the size is what
    the page shows (PDFium's font size alone says 1)."""
    objects = {3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"}
    stream = (b"BT /F1 1 Tf 7.5 0 0 7.5 72 740 Tm (Frumin and Zhao 53) Tj ET\n"
              + b"\n".join(b"BT /F1 1 Tf 10 0 0 10 72 %d Tm (%s) Tj ET" % (700 - 14 * i, t.encode())
                          for i, t in enumerate(BODY)))
    objects[4] = (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
                  b"/Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>")
    objects[5] = b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream"
    parsed, layout = _layout(serialise(objects, [4]))
    styles = _styles(parsed, layout)
    assert styles["Frumin and Zhao 53"].size == 7.5
    assert all(styles[line].size == 10 for line in BODY)


def test_page_layouts_measure_images_and_unmapped_glyphs():
    first, second = page_layouts(report_pdf(), with_images=True)
    assert first.image_share == 0 and first.unmapped_share == 0
    assert second.image_share == pytest.approx(0.5, abs=0.01)
    assert [line.text for line in first.lines] == [HEADING, *BODY]


def test_squeeze_folds_spacing_ligatures_and_accents():
    assert squeeze("The  ﬁrst Oğuz line.") == squeeze("The first Og\u02d8uz line") \
        == "thefirstoguzline"
    assert squeeze("3.2 Results") == "32results"


def test_a_repeated_line_is_styled_where_it_is_and_a_rotated_stamp_is_marked():
    """The same text twice on a page maps to each occurrence in order; a line set at
    90 degrees in the margin is marked rotated."""
    objects = {3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"}
    lines = ["Summary", "The harbour master keeps the tide tables.", "Summary",
             "The pilots board at the outer mark."]
    stream = b"\n".join(b"BT /F1 11 Tf 72 %d Td (%s) Tj ET" % (700 - 40 * i, t.encode())
                        for i, t in enumerate(lines))
    stream += b"\nBT /F1 9 Tf 0 1 -1 0 30 300 Tm (RECEIVED 12 MAR 2024) Tj ET"
    objects[4] = (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources "
                  b"<< /Font << /F1 3 0 R >> >> /Contents 5 0 R >>")
    objects[5] = b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream"
    parsed, layout = _layout(serialise(objects, [4]))
    summaries = [s for s in layout.lines if parsed.raw_text[s.raw_start:s.raw_end] == "Summary"]
    assert len(summaries) == 2 and summaries[0].top < 100 < summaries[1].top
    stamp = [s for s in layout.lines if s.rotated]
    assert stamp and all(s.x1 < 45 for s in stamp)  # up the left margin
    assert not any(s.rotated for s in summaries)


def test_text_drawn_turned_on_a_page_displayed_turned_is_horizontal():
    """A landscape page stored portrait with /Rotate 90 draws its lines at 270 degrees
    so that they read across the displayed page: those are not rotated; a line
    drawn level in user space runs up the displayed page and is."""
    objects = {3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"}
    stream = b"\n".join(b"BT /F1 11 Tf 0 -1 1 0 %d 700 Tm (%s) Tj ET" % (100 + 20 * i, t.encode())
                         for i, t in enumerate(BODY))
    stream += b"\nBT /F1 9 Tf 500 100 Td (RECEIVED 12 MAR 2024) Tj ET"
    objects[4] = (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Rotate 90 "
                  b"/Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>")
    objects[5] = b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream"
    parsed, layout = _layout(serialise(objects, [4]))
    styles = _styles(parsed, layout)
    assert layout.page_sizes == ((792, 612),)
    assert not any(styles[line].rotated for line in BODY)
    assert all(styles[line].x1 - styles[line].x0 > 150 for line in BODY)  # across the page
    stamp = [style for line, style in styles.items() if line not in BODY]
    assert stamp and all(style.rotated for style in stamp)  # Tika cuts it into glyphs


def test_shared_corpus_lines_are_placed_and_the_title_is_larger_than_the_body(corpus_dir):
    data = (corpus_dir / "pdf/dpr-multi-column.pdf").read_bytes()
    parsed, layout = _layout(data)
    tika_lines = sum(len(lines) for lines in tika_page_lines(parsed.raw_text,
                                                             parsed.blocks).values())
    assert len(layout.page_sizes) == 13 and tika_lines > 1000
    assert len(layout.lines) / tika_lines > 0.9
    title = layout.lines[0]
    assert parsed.raw_text[title.raw_start:title.raw_end].startswith("Dense Passage Retrieval")
    assert title.bold and title.page == 1
    sized = sorted(s.size for s in layout.lines if s.size)
    assert title.size > sized[len(sized) // 2]
    # Two columns: lines of the right column start right of the page's middle.
    assert any(s.x0 > 300 for s in layout.lines if s.page == 2)


def test_characters_found_for_a_line_are_never_given_to_two_lines():
    from ragbeam.transforms.extract.layout import TikaLine, _align

    text = "Tide tables 7\r\nn\r\nThe pilots board"
    ranges = [(0, 12), (15, 15), (18, 33)]
    tika = [TikaLine(0, 13, "Tide tables 7"), TikaLine(14, 15, "7"), TikaLine(16, 17, "n"),
            TikaLine(18, 19, "n"), TikaLine(20, 36, "The pilots board")]
    found = _align(text, ranges, tika)
    assert found[0] == (0, 12) and found[4] == (18, 33)
    assert found[1] is None  # its "7" is the whole-matched line's own
    assert sum(span == (15, 15) for span in found) == 1


def test_the_c_pass_gives_the_python_pass_bytes_on_every_corpus_pdf(corpus_dir):
    """``_pdfium_lines.c`` is the pure-Python pass's per-line work in C: on every PDF of
    the shared corpus (two columns, tables, Chinese, a scan, outlines) the same
    ``PdfLayout`` to the last bit (``repr``: -0.0, bools and float digits alike)."""
    if layout_module.native_lines() is None:
        reason = ("the C pass fills LineStyle fields " + ", ".join(layout_module.NATIVE_FIELDS)
                  + f", not {', '.join(LineStyle._fields)}: fill the new ones on the C "
                  "pass too (the Python pass runs until then)"
                  if LineStyle._fields != layout_module.NATIVE_FIELDS
                  else "the C extension is not built here (pip install -e . builds it)")
        pytest.skip(reason)
    tika = EmbeddedTika()
    pdfs = sorted((corpus_dir / "pdf").glob("*.pdf"))
    assert len(pdfs) >= 8
    spaced = 0
    for path in pdfs:
        data = path.read_bytes()
        parsed = parse_tika_xhtml(tika.extract(data, path.name)[0])
        native = pdf_layout(data, parsed.raw_text, parsed.blocks)
        assert repr(native) == repr(_python_layout(data, parsed)), path.name
        spaced += sum(1 for line in native.lines if line.spaces)
    # The spaces Tika missed (filled after the C pass, by the Python pass's rule) are
    # among what is compared: the two-column paper sets no space glyphs.
    assert spaced > 0


def test_a_line_style_the_c_pass_does_not_fill_turns_it_off(monkeypatch):
    monkeypatch.setattr(layout_module, "NATIVE_FIELDS", (*LineStyle._fields, "a_new_rule"))
    assert layout_module._configure_native() is None


def test_the_c_scans_give_the_python_definitions_lists():
    """The C pass's text scans (``squeeze``, and ``run_together_lines``'s letter runs and
    camel-case leads) give what their Python definitions give, on text that folds
    (ligatures, accents, final sigma, dotted capital I, numerals that are not digits)."""
    native = layout_module.native_lines()
    if native is None:
        pytest.skip("the C extension is not built here (pip install -e . builds it)")
    texts = ["The  ﬁrst Oğuz line. The first line, the last.", "ΟΔΟΣ ΣΑΣ",
             "İstanbul ǅemal Straße", "x²½Ⅳ a_b",
             "١٢٣ abc relatedCTCconfiguration", "éA ßB 中A 1A _A", "", "ABC", "aBcD\u2163E",
             "3.2 Results", "ﬀ ﬃ ﬄ ﬅ"]
    for text in texts:
        assert native.squeeze(text) == squeeze(text), text
        runs, counts = native.letter_counts(text)
        assert runs == layout_module._LETTER_RUN.findall(text), text
        assert list(counts.items()) == list(Counter(runs).items()), text
        assert native.camel_leads(text) == layout_module._camel_leads(text), text
