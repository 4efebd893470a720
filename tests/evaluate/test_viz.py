"""Viz building blocks: segments at chunk edges, sections, page starts, line boxes on
page pictures, removed furniture, heading labels, and the page's text read back."""

from __future__ import annotations

import itertools
from html.parser import HTMLParser

from ragbeam.evaluate.furniture import removed_fragments
from ragbeam.evaluate.pages import (
    Span,
    chunk_line_boxes,
    page_starts,
    removed_line_boxes,
    render_page_images,
)
from ragbeam.evaluate.run_data import ChunkRecord, DocumentRecord, RunData
from ragbeam.evaluate.viz import heading_label, render_viz, section_breaks, segments

from pdfs import Text, body, extracted, make_pdf


def test_segments_cut_at_every_chunk_edge_and_know_their_chunks():
    # chunk 0 = [0, 10), chunk 1 = [6, 15) overlaps it; [15, 20) is uncovered.
    segs = segments(20, [(0, 10), (6, 15)])
    assert segs == [(0, 6, (0,)), (6, 10, (0, 1)), (10, 15, (1,)), (15, 20, ())]
    # Segments tile the text exactly once.
    assert [s[0] for s in segs[1:]] == [s[1] for s in segs[:-1]]


def test_extra_cuts_split_segments_without_changing_coverage():
    segs = segments(10, [(0, 10)], extra_cuts=[4])
    assert segs == [(0, 4, (0,)), (4, 10, (0,))]


def test_section_breaks_fall_after_line_breaks():
    text = ("x" * 50 + "\n") * 100
    breaks = section_breaks(text, every=500)
    assert breaks and all(text[b - 1] == "\n" for b in breaks)
    assert all(b2 - b1 >= 500 for b1, b2 in itertools.pairwise(breaks))
    assert section_breaks("no newline " * 1000, every=100) == []


def test_removed_fragments_are_the_words_only_the_uncleaned_text_has():
    kept = "Intro text here.\n12\nMore body text.\nRunning Head 13\nEnd."
    cleaned = "Intro text here.\nMore body text.\nEnd."
    pages = {kept.index("12"): 1, kept.index("Running"): 2}
    assert removed_fragments(kept, cleaned, lambda s, e: pages.get(s)) == [
        (1, "12"), (2, "Running Head 13")]
    assert removed_fragments(cleaned, cleaned) == []


def test_a_page_begins_once_where_its_first_line_is():
    spans = [Span(0, 10, 1, 0, 10), Span(12, 20, 1, 11, 19), Span(22, 30, 2, 20, 28),
             Span(32, 40, 1, 29, 37),  # a float of page 1 read after page 2's text
             Span(42, 50, None, -1, -1), Span(52, 60, 4, 40, 48)]
    assert page_starts(spans) == [(0, 1), (22, 2), (52, 4)]  # page 3 has no text


def test_heading_label_keeps_the_nearest_headings():
    assert heading_label(("Intro",)) == "Intro"
    assert heading_label(("Part One", "Chapter 2", "Results")) == "Part One › Chapter 2 › Results"
    path = ("WINTER SPORTS IN SWITZERLAND", "THE SUN-SEEKER", "Skating")
    assert heading_label(path, width=30) == "… › THE SUN-SEEKER › Skating"
    assert heading_label(("x" * 80,), width=20) == "x" * 19 + "…"


def test_chunk_lines_and_removed_lines_are_placed_on_a_real_pdf_page(tmp_path):
    """A PDF read as a run reads it (Tika, PDFium's layout): each cleaned line's box gets
    the chunks holding its characters; the page template's removed lines keep their
    group; PDFium renders each page as a picture of the page's size."""
    from ragbeam.transforms.clean.document import CleanOptions, clean_document, page_template

    pages = [[Text("Harbour Authority Annual Report", 72, 760, 9), *body(p),
              Text(str(p + 1), 300, 40, 9)] for p in range(4)]
    data = make_pdf(pages)
    doc = extracted(data)
    cleaned = clean_document(doc, CleanOptions())
    spans = [Span(s.start, s.end, s.page, s.raw_start, s.raw_end) for s in cleaned.spans]
    # Two chunks: page 1 and 2's text, then the rest; a third overlapping both.
    cut = next(s.start for s in cleaned.spans if s.page == 3)
    chunks = [(0, cut), (cut, len(cleaned.text)), (cut - 5, cut + 5)]
    boxes = chunk_line_boxes(spans, doc.layout, segments(len(cleaned.text), chunks))
    assert len(boxes) == sum(1 for s in spans if s.page)  # every line placed, once
    assert all(0 in b.chunks and 1 not in b.chunks for b in boxes if b.page <= 2)
    assert all(1 in b.chunks and 0 not in b.chunks for b in boxes if b.page >= 3)
    overlap = sorted((b.page, b.top) for b in boxes if 2 in b.chunks)
    assert [page for page, _ in overlap] == [2, 3]  # page 2's last line, page 3's first
    first = min((b for b in boxes if b.page == 1), key=lambda b: b.top)
    # PDF user space (y up from the bottom) → the displayed page (top down): 792 - 700.
    assert 792 - 700 - 12 < first.top < first.bottom < 792 - 700 + 4 and 71 < first.x0 < 74
    assert all(0 < b.x0 < b.x1 <= 612 and 0 < b.top < b.bottom <= 792 for b in boxes)

    sizes, lines = page_template(doc)
    assert sizes == ((612.0, 792.0),) * 4
    removed = removed_line_boxes(lines)
    assert len(removed) == 8  # the running head and the page number of each page
    assert {(b.page, b.removed) for b in removed if b.text == "2"} == {(2, "page number")}
    assert all(b.removed.startswith("text: ") for b in removed if b.text.startswith("Harbour"))
    head = next(b for b in removed if b.page == 1 and b.text.startswith("Harbour"))
    assert 792 - 760 - 10 < head.top < 792 - 760 + 3

    names = render_page_images(data, tmp_path / "pages", dpi=50)
    assert names == ["p0001.webp", "p0002.webp", "p0003.webp", "p0004.webp"]
    from PIL import Image

    with Image.open(tmp_path / "pages" / "p0002.webp") as image:
        assert image.size == (round(612 * 50 / 72), round(792 * 50 / 72))
        assert image.convert("L").getextrema()[0] < 100  # text drawn: dark pixels


class _DocText(HTMLParser):
    """The text content of ``<div id="doc">``, as a browser's ``textContent``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth, self.parts = 0, []

    def handle_starttag(self, tag, attrs):
        if self.depth or dict(attrs).get("id") == "doc":
            self.depth += tag not in ("br",)

    def handle_endtag(self, tag):
        if self.depth:
            self.depth -= 1

    def handle_data(self, data):
        if self.depth:
            self.parts.append(data)


def _chunk(doc_id: str, index: int, start: int, end: int, text: str,
           heading: tuple[str, ...], pages: tuple[int, int]) -> ChunkRecord:
    return ChunkRecord(f"c{index}", doc_id, None, index, "chunk", "recursive",
                       text[start:end], "", start, end, pages[0], pages[1], heading,
                       (end - start) // 4, end - start, "file:///x.pdf", "application/pdf")


def test_the_page_reads_back_as_the_documents_text_with_labels_drawn_by_css():
    """Page rules, chunk markers and heading paths are drawn from attributes, so the
    text column's text is the document's text, character for character."""
    text = "Intro\n\nFirst <para> & more.\n\nSecond page text.\n\nThird."
    starts = [0, text.index("First"), text.index("Second"), text.index("Third")]
    chunks = [_chunk("d", 0, 0, starts[2], text, ("Intro",), (1, 1)),
              _chunk("d", 1, starts[2], len(text), text, ("Intro", "Part <b>"), (2, 3))]
    spans = [Span(s, text.find("\n", s) if "\n" in text[s:] else len(text), p, s, s + 1)
             for s, p in zip(starts, (1, 1, 2, 3), strict=True)]
    run = RunData("out", chunks, [], {}, {"d": text})
    doc = DocumentRecord("d", "file:///x.pdf", "ok", "application/pdf", "X", "recursive",
                         len(text), 2, 3, {})
    html = render_viz(run, doc, spans)
    parser = _DocText()
    parser.feed(html)
    assert "".join(parser.parts) == text
    assert html.count('class="pb"') == 3 and 'id="pb-2" href="#pg-2" data-page="2"' in html
    assert html.count('class="cut"') == 2
    assert 'data-h="Intro › Part &lt;b&gt;"' in html  # escaped, whole (it fits)
    assert '<span class="hp">Intro › Part &lt;b&gt;</span>' in html
    assert "p. 2–3" in html and 'href="#chunk-1"' in html
