"""A footnote block between a paragraph's halves across a column or page break is placed
after the paragraph (``transforms/clean/footnotes.py``, ``linejoin.assemble``)."""

from __future__ import annotations

from ragbeam.transforms.clean.base import CleanLine
from ragbeam.transforms.clean.document import CleanOptions, clean_document
from ragbeam.transforms.clean.footnotes import held_footnotes
from ragbeam.transforms.types import (
    BlockKind,
    ExtractedDocument,
    LineStyle,
)

from helpers import styled_pdf

BODY, NOTE = 10.9, 9.0
CHAR = 4.7  # a character's width in points, at either size (the column's edge decides)

# Left column (x 72-290): a paragraph that runs on into the right column (x 307-525).
LEFT = [
    "Table 2 compares different passage retrieval systems on",
    "five QA datasets, using the top-k accuracy for k of twenty",
    "and one hundred. The gap is especially large when k is",
    "small, for top-20 accuracy on Natural Questions. When",
    "training with the smallest number of examples per mul-",
]
RIGHT = [
    "tiple datasets, TREC, the smallest dataset of the five,",
    "benefits greatly from more training examples while the",
    "others improve modestly and one degrades slightly in all.",
    "Results can be improved further in some cases by using",
    "both retrievers together in every one of the settings.",
]
FOOTNOTE = [
    "8SQuAD is limited to a small set of Wikipedia documents",
    "and thus introduces unwanted bias in what it measures.",
]


def _line(text: str, page: int, x0: float, top: float, size: float, block: int):
    return text, page, x0, top, size, block


def _page(left: list[str], footnote: list[str], right: list[str], *, page: int = 1,
          note_size: float = NOTE, note_top: float = 700.0) -> list[tuple]:
    """A two-column page: the left column, a footnote under it, the right column (each
    column one Tika block, the footnote another), in Tika's reading order."""
    lines = [_line(t, page, 72.0, 600.0 + 13.5 * i, BODY, 0) for i, t in enumerate(left)]
    lines += [_line(t, page, 72.0, note_top + 10.0 * i, note_size, 1)
              for i, t in enumerate(footnote)]
    lines += [_line(t, page, 307.0, 80.0 + 13.5 * i, BODY, 2) for i, t in enumerate(right)]
    return lines


def _pdf(lines: list[tuple]) -> ExtractedDocument:
    """A PDF of these (text, page, x0, top, size, block) lines, styled as the layout pass
    styles them; each line ends at its column's edge (a justified line)."""
    return _placed([(text, page, x0, x0 + 218.0, top, size, block)
                    for text, page, x0, top, size, block in lines], font="Times")


def _placed(lines: list[tuple], font: str = "Arial") -> ExtractedDocument:
    """A PDF of (text, page, x0, x1, top, size, block) lines, each block a Tika block,
    in this (Tika's) reading order."""
    blocks: dict[int, list[tuple[str, LineStyle]]] = {}
    for text, page, x0, x1, top, size, block in lines:
        blocks.setdefault(block, []).append(
            (text, LineStyle(0, 0, page, x0, top, x1, top + size, size, False, False, font)))
    return styled_pdf(list(blocks.values()))


def _paragraphs(lines: list[tuple]) -> list[str]:
    return clean_document(_pdf(lines), CleanOptions()).text.split("\n\n")


def _words(texts: list[str]) -> list[str]:
    return sorted(" ".join(texts).replace("-", " ").split())


def test_a_footnote_between_a_paragraphs_halves_across_columns_goes_after_it():
    paragraphs = _paragraphs(_page(LEFT, FOOTNOTE, RIGHT))
    assert paragraphs == [" ".join([*LEFT[:-1], LEFT[-1][:-1] + RIGHT[0], *RIGHT[1:]])
                          .replace("mul- ", "mul"), " ".join(FOOTNOTE)]
    assert "multiple datasets" in paragraphs[0]


def test_a_footnote_between_halves_across_a_page_break_goes_after_the_paragraph():
    left = [line.replace("per mul-", "for each of the") for line in LEFT]
    note = ["* Equal contribution of every one of the authors listed here."]
    lines = [_line(t, 1, 72.0, 600.0 + 13.5 * i, BODY, 0) for i, t in enumerate(left)]
    lines += [_line(note[0], 1, 72.0, 720.0, NOTE, 1)]
    lines += [_line(t, 2, 72.0, 80.0 + 13.5 * i, BODY, 2) for i, t in enumerate(RIGHT)]
    paragraphs = _paragraphs(lines)
    assert paragraphs[-1] == note[0]
    assert paragraphs[0].startswith(LEFT[0]) and "for each of the tiple datasets" in paragraphs[0]
    assert _words(paragraphs) == _words([*left, *note, *RIGHT])


def test_what_is_no_footnote_between_halves_stays_where_it_was():
    # The body before it ends a sentence: a paragraph's end, nothing interrupted.
    ended = [*LEFT[:-1], "training with the smallest number of examples per set."]
    assert _paragraphs(_page(ended, FOOTNOTE, RIGHT))[1] == " ".join(FOOTNOTE)
    # Set in the body's own size, or opening with no note mark: no footnote, the
    # page's order is kept.
    unmarked = ["SQuAD is limited to a small set of Wikipedia documents", FOOTNOTE[1]]
    for lines in (_page(LEFT, FOOTNOTE, RIGHT, note_size=BODY), _page(LEFT, unmarked, RIGHT)):
        text = "\n\n".join(_paragraphs(lines))
        assert text.index("SQuAD is limited") < text.index("tiple datasets")


def test_held_footnotes_names_the_lines_and_the_body_line_before_them():
    document = _pdf(_page(LEFT, FOOTNOTE, RIGHT))
    lines = [CleanLine(text, BlockKind.PARAGRAPH, block, style.page, 0, style.raw_start,
                       style.raw_end, style=style)
             for (text, *_, block), style in zip(_page(LEFT, FOOTNOTE, RIGHT),
                                                 document.layout.lines, strict=True)]
    assert held_footnotes(lines) == {5: 4, 6: 4}
    # Something of its column below it: not the foot of the column.
    below = CleanLine("and more body text under it", BlockKind.PARAGRAPH, 1, 1, 0, 0, 0,
                      style=lines[6].style._replace(top=760.0, size=BODY))
    assert held_footnotes([*lines[:7], below, *lines[7:]]) == {}


def test_a_figure_and_its_caption_atop_the_next_column_go_after_the_paragraph_too():
    lines = _page(LEFT, FOOTNOTE, [])
    lines += [_line("20 40 60 80 100", 1, 330.0, 80.0, 15.0, 3),
              _line("Figure 1: Retriever accuracy with different numbers of", 1, 307.0,
                    110.0, 10.0, 4),
              _line("training examples, measured on the development set.", 1, 307.0,
                    121.0, 10.0, 4)]
    lines += [_line(t, 1, 307.0, 150.0 + 13.5 * i, BODY, 5) for i, t in enumerate(RIGHT)]
    paragraphs = _paragraphs(lines)
    assert "per multiple datasets" in paragraphs[0] and paragraphs[0].endswith(RIGHT[-1])
    assert paragraphs[1:] == [" ".join(FOOTNOTE), "20 40 60 80 100",
                              "Figure 1: Retriever accuracy with different numbers of "
                              "training examples, measured on the development set."]



# One page alone: its furniture is not weighed (a lone "(1)" would read as its folio).
NO_FURNITURE = CleanOptions(remove_furniture=False)
# A 10-K's notes under a table: each note's mark a text object of its own in the margin
# left of the note, which Tika reads after the page's text.
CARES = ("On March 27, 2020, the CARES Act was enacted, which includes a five year net "
         "operating loss carryback provision.")
AUDIT = "In the fourth quarter of 2020, we recorded a tax benefit related to the settlement."
NOTES_PAGE = [
    ("Significant components of our deferred tax assets and liabilities were as follows.",
     1, 36.0, 560.0, 100.0, 9.0, 0),
    (CARES, 1, 36.0, 575.0, 283.0, 9.0, 1),
    (AUDIT, 1, 36.0, 560.0, 318.0, 9.0, 2),
    ("(1)", 1, 19.0, 27.0, 282.0, 5.8, 3),
    ("(2)", 1, 19.0, 27.0, 317.0, 5.8, 4),
]


def test_a_notes_mark_set_apart_in_the_margin_opens_its_note_again():
    document = clean_document(_placed(NOTES_PAGE), NO_FURNITURE)
    assert document.text.split("\n\n") == [NOTES_PAGE[0][0], f"(1) {CARES}", f"(2) {AUDIT}"]
    assert document.metadata["clean_note_marks_placed"] == "2"
    # The spans follow the text: the mark's span comes first in its note's block.
    first = next(span for span in document.spans if document.text[span.start:span.end] == "(1)")
    assert document.text[first.end + 1:].startswith("On March 27")


def test_marks_beside_the_lines_of_one_paragraph_each_open_their_line():
    lines = [("Being developed in collaboration with Astellas.", 1, 36.0, 260.0, 500.0, 9.0, 0),
             ("Being developed in collaboration with OPKO.", 1, 36.0, 240.0, 510.0, 9.0, 0),
             ("(a)", 1, 20.0, 30.0, 500.0, 7.0, 1),
             ("(b)", 1, 20.0, 30.0, 510.0, 7.0, 2)]
    text = clean_document(_placed(lines), NO_FURNITURE).text
    assert text.replace("\n", " ") == ("(a) Being developed in collaboration with Astellas. "
                                       "(b) Being developed in collaboration with OPKO.")


def test_a_mark_with_no_line_beside_it_stays_where_it_was():
    far = [*NOTES_PAGE[:3], ("(1)", 1, 400.0, 408.0, 600.0, 5.8, 3),  # under a table's cell
           ("(2)", 1, 0.0, 6.0, 317.0, 5.8, 4)]  # over three of the sizes away
    document = clean_document(_placed(far), NO_FURNITURE)
    assert document.text.split("\n\n") == [NOTES_PAGE[0][0], CARES, AUDIT, "(1)", "(2)"]
    assert document.metadata["clean_note_marks_placed"] == "0"
