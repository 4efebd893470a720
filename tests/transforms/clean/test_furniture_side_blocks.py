"""A journal's running head set as a block in the outer side margin of a two-sided
layout (``JRNL`` / ``32,2`` / folio on even pages, ``AI-enabled`` / ``industry`` /
``classification`` / folio on odd ones), a download stamp across every page's foot,
and captions set in the side margin beside tables (body)."""

from __future__ import annotations

from ragbeam.transforms.clean.furniture import PageLine, edge_order, find_page_furniture
from ragbeam.transforms.clean.furniture.lines import page_frames, placed_lines
from ragbeam.transforms.clean.furniture.template import heads_its_text

PAGE = (493.0, 680.0)
BODY = 9.5
HEAD = 12.0
_WORDS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota",
          "kappa")
_TOPICS = ("wages", "prices", "rents", "loans", "bonds", "taxes", "sales", "costs", "debts",
           "fees", "goods", "trade", "firms", "banks", "funds", "risks", "rates", "yields",
           "stocks", "assets")
STAMP = "Downloaded from http://www.example.org/journal/article-pdf/32/2/406.pdf on 19 October"


def _line(text: str, x0: float, top: float, x1: float, size: float = BODY) -> PageLine:
    return PageLine(text, box=(x0, top, x1, top + 0.8 * size), size=size)


def _page(p: int, caption: list[str] = ()) -> list[PageLine]:
    """Page ``p`` (index 0 is page 1, a verso here): its text block shifted to the
    inner side, the head block in the outer margin, Tika's order as Emerald's: text,
    block, stamp; ``caption``: a side-margin caption's lines low on the page."""
    verso = p % 2 == 0
    left, right = (99.0, 445.0) if verso else (48.0, 394.0)
    text = [_line(f"The {_WORDS[p]} section says what {_TOPICS[k]} mean for the firms here.",
                  left, 82.0 + 11 * k, right) for k in range(len(_TOPICS))]
    outer = 20.0 if verso else 411.0
    caption_lines = [_line(words, outer, 500.0 + 9 * k, outer + 60.0, 8.0)
                     for k, words in enumerate(caption)]
    if verso:
        block = [_line("JRNL", 20.0, 82.0, 47.0, HEAD), _line("32,2", 20.0, 94.0, 39.0, HEAD),
                 _line(str(406 + p), 20.0, 149.0, 41.0, HEAD)]
    else:
        block = [_line("AI-enabled", 421.0, 82.0, 473.0, HEAD),
                 _line("industry", 433.0, 94.0, 473.0, HEAD),
                 _line("classification", 411.0, 109.0, 473.0, HEAD),
                 _line(str(406 + p), 452.0, 149.0, 473.0, HEAD)]
    return [*text, *caption_lines, *block, _line(STAMP, 3.0, 670.0, 482.0, 6.0)]


def test_a_lone_wide_line_and_margin_notes_are_no_edge_of_the_text_frame():
    page = _page(0, ["Table 2.", "Comparison of results", "with the SIC codes and the",
                     "classification"])
    assert placed_lines(page)[1] == (99.0, 445.0)  # not the stamp's 3-482, nor 20


def test_odd_and_even_pages_shifted_apart_have_their_own_frames():
    frames = [(99.0, 445.0), (48.0, 394.0)] * 3
    assert page_frames(frames) == frames
    # One text block, a page's edges a little apart: the document's frame everywhere.
    assert page_frames([(72.0, 540.0), (74.0, 541.0)] * 3) == [(74.0, 541.0)] * 6
    # Moved one way on one side only (a wider table on the odd pages): no two-sided shift.
    assert page_frames([(72.0, 540.0), (72.0, 560.0)] * 3) == [(72.0, 560.0)] * 6
    # Slides, each framing its own text: the medians of odd and even ones fall apart by
    # chance, but few slides stand at their parity's.
    slides = [(33.0, 831.0), (49.0, 846.0), (13.0, 915.0), (17.0, 718.0), (54.0, 923.0),
              (23.0, 938.0)]
    assert len(set(page_frames(slides))) == 1


def test_a_side_margin_head_block_goes_whole_with_its_folio_and_side_captions_stay():
    caption = ["Table 2.", "Comparison of", "clustering results with", "classification"]
    pages = [_page(p, caption if p == 4 else ["Table 3.", "Distribution of", "industry"]
                   if p == 5 else []) for p in range(10)]
    found = find_page_furniture(pages, [PAGE] * len(pages)).lines
    removed = {(p, pages[p][i].text) for p, i in found}
    block = {(p, text) for p in range(10) for text in (
        ("JRNL", "32,2") if p % 2 == 0 else ("AI-enabled", "industry", "classification"))}
    folios = {(p, str(406 + p)) for p in range(10)}
    assert block | folios | {(p, STAMP) for p in range(10)} == removed
    # The captions' words a head repeats stand at their table's height: kept.
    kept = [pages[p][i] for p in (4, 5) for i in range(len(pages[p])) if (p, i) not in found]
    assert [line.text for line in kept if line.size == 8.0] == [*caption, "Table 3.",
                                                               "Distribution of", "industry"]


def test_a_larger_number_stacked_under_the_template_in_its_column_stands_with_it():
    # In edge order the folio stands between the text's rows, the block's other lines
    # rows above it: no neighbour of it is template.
    pages = [[page[i] for i in edge_order(page)] for page in map(_page, range(4))]
    folios = [(p, i) for p in range(4) for i, line in enumerate(pages[p])
              if line.text == str(406 + p)]
    block = {(p, i) for p in range(4) for i, line in enumerate(pages[p])
             if line.size == HEAD and (p, i) not in folios}
    assert all((p, i - 1) not in block and (p, i + 1) not in block for p, i in folios)
    assert not heads_its_text(pages, folios, BODY, block)
    assert heads_its_text(pages, folios, BODY, set())  # alone: a user's numbered heading
