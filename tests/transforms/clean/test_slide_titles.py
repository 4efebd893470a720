"""Slide decks exported to PDF (``headings.slide_titles``, ``headings.mark_headings``):
each slide's title, set large at the top of its landscape page, becomes a heading, under
the deck's section slides where it has them; portrait reports and dense landscape
reports whose pages also open with a large line get none. Synthetic layouts only."""

from __future__ import annotations

from ragbeam.transforms.clean.base import Assembly, CleanLine
from ragbeam.transforms.clean.headings import (
    BodyStyle,
    HeadingBlock,
    is_prose,
    mark_headings,
    slide_titles,
)
from ragbeam.transforms.types import BlockKind, LineStyle, PdfLayout

SLIDE = (720.0, 405.0)  # 16:9, points
PORTRAIT = (612.0, 792.0)
BULLETS = ("Revenue grew in every region", "Margins improved on pricing",
           "Costs held flat against plan", "Headcount stable at year end")


def _line(text: str, page: int, top: float, size: float, bold: bool = False,
          x0: float = 40.0) -> CleanLine:
    style = LineStyle(0, 0, page, x0, top, x0 + 8 * len(text), top + size, size, bold,
                      font="Sans-Bold" if bold else "Sans")
    return CleanLine(text, BlockKind.PARAGRAPH, 0, page, 0, 0, 0, style=style)


def _slide(page: int, title: str | None, bullets=BULLETS, title_first: bool = True
           ) -> list[list[tuple[str, CleanLine]]]:
    body = [[("", _line(f"• {text}", page, 90.0 + 30 * k, 14.0))]
            for k, text in enumerate(bullets)]
    if title is None:
        return body
    head = [("", _line(title, page, 30.0, 24.0, bold=True))]
    return [head, *body] if title_first else [*body, head]


def _divider(page: int, title: str) -> list[list[tuple[str, CleanLine]]]:
    return [[("", _line(title, page, 180.0, 28.0))]]


def _headings(assembly: Assembly) -> list[tuple[int, str]]:
    return [(pieces[0][1].level, " ".join(line.text for _, line in pieces))
            for pieces in assembly.blocks if pieces[0][1].kind is BlockKind.HEADING]


def _mark(blocks: list[list[tuple[str, CleanLine]]], pages: int,
          size: tuple[float, float] = SLIDE) -> Assembly:
    assembly = Assembly(blocks)
    mark_headings(assembly, [], PdfLayout(tuple([size] * pages), ()))
    return assembly


def test_each_slides_title_and_each_section_slides_is_a_heading():
    blocks = [[("", _line("Quarterly Results", 1, 150.0, 40.0, bold=True))],
              [("", _line("Harbour Cranes Inc., October 2024", 1, 260.0, 16.0))],
              *_divider(2, "Group Overview"),
              *_slide(3, "Revenue by Region"),
              # A deck's PDF may draw the title after the slide's bullets.
              *_slide(4, "◼ Operating Margin", title_first=False),
              *_divider(5, "Outlook"),
              *_slide(6, "Forecast for the Full Year")]
    assembly = _mark(blocks, 6)
    # A section slide's title, set mid-page, is one too; all at level 1 (nested, the
    # section's words repeated on every chunk of its slides).
    assert _headings(assembly) == [
        (1, "Quarterly Results"), (1, "Group Overview"), (1, "Revenue by Region"),
        (1, "◼ Operating Margin"), (1, "Outlook"), (1, "Forecast for the Full Year")]
    # The title moved to the head of its slide, over its bullets.
    page4 = [pieces[0][1].text for pieces in assembly.blocks
             if pieces[0][1].style is not None and pieces[0][1].style.page == 4]
    assert page4[0] == "◼ Operating Margin"


def test_slide_titles_in_any_language_and_headings_found_on_a_slide_go_under_its_title():
    blocks = [*_slide(1, "業績概要"), *_slide(2, "受注の状況（国内）"),
              *_slide(3, "▎セグメント別の状況"), *_slide(4, None),
              *_slide(5, "1 Market Review")]
    # A numbered heading set apart on the slide, under its title.
    blocks.insert(-2, [("", _line("2 Outlook by Region", 5, 200.0, 18.0, bold=True))])
    assert _headings(_mark(blocks, 5)) == [
        (1, "業績概要"), (1, "受注の状況（国内）"), (1, "▎セグメント別の状況"),
        (1, "1 Market Review"), (2, "2 Outlook by Region")]


def test_a_large_figure_at_the_top_of_a_slide_is_no_title():
    blocks = [*_slide(1, "Results"), *_slide(2, "Results by Segment"),
              [("", _line("10,175 million 3.4%", 3, 30.0, 28.0, bold=True))],
              *_slide(3, None)]
    assert _headings(_mark(blocks, 3)) == [(1, "Results"), (1, "Results by Segment")]


def _blocks(pages: int, lines_per_block: int = 1, blocks_per_page: int = 4,
            sizes: tuple[float, float] = (24.0, 14.0)) -> list[HeadingBlock]:
    out = []
    for page in range(1, pages + 1):
        title = f"Section {page} Overview"
        out.append(HeadingBlock(title, False, 1, LineStyle(0, 0, page, 40, 30, 400, 54,
                                                           sizes[0], True)))
        for k in range(blocks_per_page):
            text = BULLETS[k % len(BULLETS)]
            out.append(HeadingBlock(text if lines_per_block <= 5 else None, is_prose(text),
                                    lines_per_block, LineStyle(0, 0, page, 40, 90 + 30 * k,
                                                               600, 104 + 30 * k,
                                                               sizes[1], False)))
    return out


BODY = BodyStyle(14.0, "", False)


def test_portrait_reports_and_dense_landscape_reports_are_no_decks():
    assert slide_titles(_blocks(5), BODY, [SLIDE] * 5) is not None
    # Pages that open with a large line, in portrait: a report, its headings its own rules'.
    assert slide_titles(_blocks(5), BODY, [PORTRAIT] * 5) is None
    # Landscape pages of many lines each (a register's long table): no deck.
    assert slide_titles(_blocks(5, lines_per_block=12), BODY, [SLIDE] * 5) is None
    # Landscape sheets of a paper format (A4, Letter turned): a report, a data sheet.
    assert slide_titles(_blocks(5), BODY, [(842.0, 595.0)] * 5) is None
    assert slide_titles(_blocks(5), BODY, [(792.0, 612.0)] * 5) is None
    # 4:3 slides, and a deck with a portrait page among its slides.
    assert slide_titles(_blocks(5), BODY, [(720.0, 540.0)] * 5) is not None
    assert slide_titles(_blocks(5), BODY, [SLIDE] * 4 + [PORTRAIT]) is not None
    # Too few pages to tell.
    assert slide_titles(_blocks(2), BODY, [SLIDE] * 2) is None
    # Most landscape pages without a large line at their top: no deck.
    flat = _blocks(5, sizes=(14.0, 14.0))
    assert slide_titles(flat, BODY, [SLIDE] * 5) is None
