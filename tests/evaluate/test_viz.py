"""Viz building blocks: segments at chunk edges, sections, removed furniture by diff."""

from __future__ import annotations

import itertools

from ragbeam.evaluate.furniture import removed_fragments
from ragbeam.evaluate.viz import section_breaks, segments


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


def test_the_page_template_is_drawn_on_a_picture_of_its_pages():
    """viz's page picture: every placed line a box, the template's red with its group;
    ``clean.document.page_template`` gives the lines and groups of a real PDF."""
    from ragbeam.evaluate.viz import template_pictures
    from ragbeam.transforms.clean.document import page_template

    from pdfs import Text, body, extracted, make_pdf

    pages = [[Text("Harbour Authority Annual Report", 72, 760, 9), *body(p),
              Text(str(p + 1), 300, 40, 9)] for p in range(4)]
    sizes, lines = page_template(extracted(make_pdf(pages)))
    grouped = {(line.page, line.text): line.group for line in lines if line.group}
    assert grouped[(1, "Harbour Authority Annual Report")].startswith("text: ")
    assert grouped[(2, "2")] == "page number"
    assert sum(1 for line in lines if line.group) == 8
    svg = template_pictures(sizes, lines)
    assert svg.count("<svg") == 4 and svg.count('class="tpl"') == 8
    assert "text: harbour authority annual report: Harbour Authority Annual Report" in svg
