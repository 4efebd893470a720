"""Folios whose digits Tika reads backwards (a PDF that writes a folio's glyphs right to
left): ``01``, ``11``, ``21`` for pages 10-12."""

from __future__ import annotations

from ragbeam.transforms.clean.furniture import PageLine, find_page_furniture


def _page(p: int, folio: str, tail: str = "Standard 7714") -> list[PageLine]:
    """A page of body lines, then the folio and the running head (Tika's order)."""
    lines = [f"Clause {p}.{k} of the standard says what item {k} of page {p} holds."
             for k in range(6)]
    return [PageLine(text) for text in (*lines, folio, tail)]


def _removed(pages: list[list[PageLine]]) -> set[tuple[int, str]]:
    return {(p, pages[p][i].text) for p, i in find_page_furniture(pages).page_numbers}


def test_a_folio_read_backwards_at_the_folios_line_goes():
    folios = [*map(str, range(1, 10)), "01", "11", "21", "31"]
    pages = [_page(p, folio) for p, folio in enumerate(folios)]
    assert _removed(pages) == {(p, folio) for p, folio in enumerate(folios)}


def test_a_number_that_only_turned_matches_stays_off_the_folios_line_or_sequence():
    folios = [*map(str, range(1, 10)), "01", "11", "21", "31"]
    pages = [_page(p, folio) for p, folio in enumerate(folios)]
    # Page 12's folio (read ``21``) one line up, above a body number: not the folios'
    # line. Page 13's ``14`` turned is 41, not its number (13).
    pages[11] = [*pages[11][:-2], PageLine("21"), PageLine("Table 3"), pages[11][-1]]
    pages[12] = [*pages[12][:-2], PageLine("14"), pages[12][-1]]
    removed = _removed(pages)
    assert (11, "21") not in removed and (12, "14") not in removed
    assert {(p, folios[p]) for p in range(11)} <= removed
