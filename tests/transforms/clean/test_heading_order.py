"""Headings a PDF draws after its page's text (``headings.heading_order``), and the
text rules that keep a caption's or a chart's label from being a heading: each with the
case it must change and the case it must leave alone."""

from __future__ import annotations

import random

from ragbeam.transforms.clean.headings import (
    MAX_HEADING_GAP_LINES,
    HeadingBlock,
    _is_text,
    heading_level,
    heading_order,
    is_prose,
)

# (page, x0, top, x1, bottom)
BODY_ABOVE = (1, 35.0, 30.0, 415.0, 80.0)
HEADING = (1, 35.0, 87.0, 108.0, 100.0)
BODY_UNDER = (1, 35.0, 110.0, 415.0, 300.0)
BODY_LOWER = (1, 35.0, 310.0, 415.0, 500.0)
SIDE_CAPTION = (1, 436.0, 120.0, 560.0, 140.0)
FOOTER = (1, 35.0, 740.0, 560.0, 755.0)


def test_a_heading_drawn_after_its_page_text_goes_back_over_its_text():
    """Chromium's Wikipedia PDFs: the page's paragraphs, then its headings."""
    boxes = [BODY_ABOVE, BODY_UNDER, SIDE_CAPTION, BODY_LOWER, HEADING]
    assert heading_order(boxes, [False, False, False, False, True]) == [0, 4, 1, 2, 3]


def test_a_heading_in_its_place_stays():
    boxes = [BODY_ABOVE, HEADING, BODY_UNDER, BODY_LOWER]
    assert heading_order(boxes, [False, True, False, False]) == [0, 1, 2, 3]


def test_a_footer_drawn_first_is_no_text_of_the_heading():
    """Only the text right under it (``MAX_HEADING_GAP_LINES``) takes a heading back."""
    boxes = [FOOTER, BODY_ABOVE, HEADING, BODY_UNDER]
    assert heading_order(boxes, [False, False, True, False]) == [0, 1, 2, 3]
    boxes = [BODY_ABOVE, FOOTER, HEADING]
    assert heading_order(boxes, [False, False, True]) == [0, 1, 2]


def test_headings_drawn_one_after_another_each_go_to_their_place():
    sub = (1, 35.0, 310.0, 100.0, 320.0)
    lower = (1, 35.0, 325.0, 415.0, 500.0)
    boxes = [BODY_ABOVE, BODY_UNDER, lower, HEADING, sub]
    assert heading_order(boxes, [False, False, False, True, True]) == [0, 3, 1, 4, 2]


def test_a_section_heading_over_its_first_subsection_goes_back_with_it():
    """Both drawn after the page's text: the section's heading is farther from the text
    than ``MAX_HEADING_GAP_LINES`` of its lines, but right over the subsection's heading,
    which is right over the text; they go back together, the section first."""
    section = (1, 35.0, 60.0, 100.0, 70.0)
    sub = (1, 35.0, 90.0, 110.0, 98.0)  # 20 points under the section: 2 of its lines
    text = (1, 35.0, 105.0, 415.0, 300.0)  # 35 points under the section
    above = (1, 35.0, 10.0, 415.0, 50.0)
    boxes = [above, text, section, sub]
    assert heading_order(boxes, [False, False, True, True]) == [0, 2, 3, 1]
    # The section's heading alone so far over the text stays where it was drawn.
    assert heading_order([above, text, section], [False, False, True]) == [0, 1, 2]


def test_the_walk_stops_at_another_page_or_a_block_not_placed():
    boxes = [(2, 35.0, 110.0, 415.0, 300.0), HEADING]
    assert heading_order(boxes, [False, True]) == [0, 1]
    assert heading_order([BODY_UNDER, None, HEADING], [False, False, True]) == [0, 1, 2]


def test_letters_alone_are_an_abbreviation_not_a_number():
    assert heading_level("U.S. Decennial Census") == (2, "title")  # title case, not "U.S."
    assert heading_level("A.1 Prompts") == (2, "alpha-2")
    assert heading_level("B.2.3 Results") == (3, "alpha-3")
    assert heading_level("A. Components") == (1, "alpha-1")


def test_a_line_closed_by_a_citation_is_a_label_not_a_heading():
    assert heading_level("U.S. Decennial Census[75]") is None
    assert heading_level("Other Faiths[B]") is None
    assert heading_level("Other Faiths") == (2, "title")


def test_a_numbered_reference_list_with_links_is_text_under_its_heading():
    entry = ('1. "Population and Housing Unit Estimates" (https://www.census.gov/popest). '
             "United States Census Bureau. Retrieved January 1, 2017.")
    assert _is_text(HeadingBlock(entry, is_prose(entry), 2), None)
    address = "Department of Computer Science, University of Somewhere (https://cs.example.org)."
    assert not _is_text(HeadingBlock(address, is_prose(address), 2), None)


def test_a_line_not_placed_does_not_carry_a_banner_into_the_title_under_it():
    """A proceedings banner's date, its link (a line the layout did not place), then the
    paper's title set large: the title starts its own block."""
    from ragbeam.transforms.clean.base import CleanLine, CleanOptions
    from ragbeam.transforms.clean.linejoin import assemble
    from ragbeam.transforms.types import BlockKind, LineStyle

    def line(text: str, size: float | None, top: float) -> CleanLine:
        style = (LineStyle(0, 1, 2, 60.0, top, 530.0, top + size, size, size > 12, False,
                           "Times-Bold" if size > 12 else "Times-Italic")
                 if size is not None else None)
        return CleanLine(text, BlockKind.PARAGRAPH, 0, 2, 0, 0, 1, style=style)

    lines = [line("July 10-12, 2023 : Konya, Turkey", 8.0, 86.0),
             line("https://www.icaens.com/ © 2023 Published by All Sciences Proceedings",
                  None, 100.0),
             line("Creating Large Language Model Applications Utilizing LangChain: A", 16.0,
                  157.0),
             line("Primer on Developing LLM Apps Fast", 16.0, 177.0)]
    blocks = assemble(lines, True, CleanOptions(), {}).blocks
    assert [[piece[1].text[:8] for piece in block] for block in blocks] == [
        ["July 10-", "https://"], ["Creating", "Primer o"]]


def test_a_line_set_in_cells_far_apart_is_a_table_row_not_a_heading():
    from ragbeam.transforms.clean.headings import is_table_row
    from ragbeam.transforms.types import LineStyle

    def line(cells: tuple[tuple[float, float], ...]) -> LineStyle:
        return LineStyle(0, 1, 1, cells[0][0], 100.0, cells[-1][1], 110.0, 10.0, True, False,
                         "Sans-Bold", cells=tuple((0, x0, x1) for x0, x1 in cells))

    assert is_table_row(line(((42, 63), (129, 149), (248, 268), (434, 460))))  # Year Title …
    # A justified heading's wide word spaces: no row.
    assert not is_table_row(line(((51, 54), (61, 64), (70, 115), (122, 186))))


def test_a_removed_cover_s_identifier_line_does_not_make_its_page_the_cover():
    """A repository's cover sheet is removed but its DOI line stays (small print, page
    1): the title is looked for on the first page set at least at the body's size."""
    from ragbeam.transforms.clean.base import CleanLine
    from ragbeam.transforms.clean.document import _name_document
    from ragbeam.transforms.types import (
        BlockKind,
        ExtractedDocument,
        LineKind,
        LineStyle,
        SourceFile,
    )

    def line(text: str, page: int, size: float, top: float) -> CleanLine:
        return CleanLine(text, BlockKind.PARAGRAPH, 0, page, 0, 0, 1,
                         style=LineStyle(0, 1, page, 60.0, top, 530.0, top + size, size,
                                         False, False, "Times"))

    body = ("The past decade has witnessed an unparalleled evolution in the realm of "
            "artificial intelligence and of the tools built on it.")
    lines = [line("DOI: 10.59287/icaens.1127", 1, 4.6, 158.0),
             line("Creating Large Language Model Applications", 2, 16.0, 157.0),
             *(line(body, 2, 12.0, 300.0 + 14 * n) for n in range(5))]
    extracted = ExtractedDocument(SourceFile("/in/p.pdf", "p", 1), "h", "application/pdf",
                                  "", (), {}, 2, lines=LineKind.PRINTED)
    name = _name_document(extracted, lines, "\n\n".join(line.text for line in lines))
    assert (name.title, name.source) == ("Creating Large Language Model Applications", "cover")


def _heading_order_searched(boxes, movable):
    """``heading_order`` as it read before: each block's place found by searching the
    order as it stands."""
    order = list(range(len(boxes)))
    for index, box in enumerate(boxes):
        if not movable[index] or box is None:
            continue
        page, x0, top, x1, bottom = box
        at = order.index(index)
        under = None
        below = float("inf")
        nearest = None
        k = at + 1
        while k < len(order) and movable[order[k]] and boxes[order[k]] is not None:
            other = boxes[order[k]]
            if other[0] == page and min(x1, other[3]) - max(x0, other[1]) > 0 \
                    and other[2] >= bottom:
                below = min(below, other[2])
            k += 1
        k = at - 1
        while k >= 0:
            other = boxes[order[k]]
            if other is None or other[0] != page:
                break
            in_column = min(x1, other[3]) - max(x0, other[1]) > 0
            if movable[order[k]]:
                if in_column and other[2] >= bottom and other[2] < below:
                    below, nearest = other[2], k
            elif in_column:
                if other[2] < bottom:
                    break
                if under is None or other[2] < boxes[order[under]][2]:
                    under = k
                if other[2] < below:
                    below, nearest = other[2], k
            k -= 1
        if under is not None and below - bottom <= MAX_HEADING_GAP_LINES * (bottom - top):
            order.insert(nearest if nearest is not None else under, order.pop(at))
    return order


def test_heading_order_without_searching_the_order_moves_the_same_blocks():
    """A block still stands at its own index when its turn comes (moves go backwards
    only): the order is the searching version's on random pages with many moves."""
    rng = random.Random(3)
    moved = 0
    for _ in range(400):
        boxes, movable = [], []
        for _ in range(rng.randrange(1, 30)):
            if rng.random() < 0.05:
                boxes.append(None)
            else:
                x0, top = rng.choice([35.0, 300.0]), rng.uniform(0, 700)
                boxes.append((rng.randrange(1, 3), x0, top, x0 + rng.uniform(50, 300),
                              top + rng.uniform(5, 60)))
            movable.append(rng.random() < 0.4)
        expected = _heading_order_searched(boxes, movable)
        assert heading_order(boxes, movable) == expected
        moved += expected != sorted(expected)
    assert moved > 50
