"""A head's lines that recur as set decide before their abstracted form (issue39-i: TI's
head of three lines of part numbers), and template text in pieces has the head's numbers
in its order, not merely its letters (a table's column of part numbers)."""

from __future__ import annotations

from furniture_pages import at, body_at, removed

from ragbeam.transforms.clean.furniture import PageLine

HEAD = ["XC430F5529, XC430F5528, XC430F5527, XC430F5526",  # two lines of one form…
        "XC430F5525, XC430F5524, XC430F5522, XC430F5521",
        "XC430F5519, XC430F5517, XC430F5515, XC430F5514, XC430F5513"]  # …and another


def _head_page(p: int) -> list[PageLine]:
    # Two-sided: the head stands at the outer edge, left on even pages, right on odd.
    x0 = 55.0 if p % 2 else 279.0
    return [*(at(text, 15.0 + 11 * k, x0=x0, x1=x0 + 280.0) for k, text in enumerate(HEAD)),
            *body_at(p)]


def test_a_head_whose_lines_share_one_form_goes_line_by_line_as_set():
    """Abstracted, the head's first two lines are one group at two heights whose numbers
    vary from line to line as a table's rows do; each, the same text at the same place on
    every page, is the template's. A table column listing the same parts mid-page stays."""
    pages = [_head_page(p) for p in range(8)]
    column = ["XC430F5529", "XC430F5527", "XC430F5525", "XC430F5521"]
    pages[5][6:6] = [at(text, 200.0 + 12 * k, x0=100.0, x1=160.0)
                     for k, text in enumerate(column)]
    assert set(removed(pages)) == {(p, text) for p in range(8) for text in HEAD}
    # Lines of one form whose texts change from page to page (a table's rows atop each
    # page) are no head: each text recurs on one page only.
    rows = [at(f"XC{p}F{p + 10}, XC{p}F{p + 20}, XC{p}F{p + 30}, XC{p}F{p + 40}", 15.0 + 11 * k)
            for p in range(8) for k in range(2)]
    pages = [[*rows[2 * p:2 * p + 2], *body_at(p)] for p in range(8)]
    assert not removed(pages)


def test_pieces_with_a_heads_letters_go_only_with_its_numbers_in_its_order():
    """A data sheet's rows name its two parts (``ADC12D1000RF ±0.4`` / ``ADC12D1600RF
    ±1``): joined, their letters are the head's, but not its numbers. The head cut into
    pieces on a page Tika reads in glyph clusters gives its numbers in order, and goes."""
    head = "ADC12D1000RF, ADC12D1600RF Harbour"
    pages = [[*body_at(p), at(head, 760.0, size=8.0), at(str(p + 1), 775.0, 300.0, 306.0)]
             for p in range(8)]
    rows = ["ADC12D1000RF ±0.4", "ADC12D1600RF ±1", "Harbour"]
    pages[3][4:4] = [PageLine(text) for text in rows]
    assert not {text for p, text in removed(pages) if p == 3} & set(rows)
    pieces = ["ADC12D10", "00RF,ADC12D1600RF", "Harbour"]
    pages[3] = [*body_at(3), *(PageLine(text) for text in pieces), PageLine("4")]
    assert {text for p, text in removed(pages) if p == 3} == {*pieces, "4"}
    pages[3][-4:-1] = [PageLine(text) for text in rows]  # the rows in the head's stead
    assert not {text for p, text in removed(pages) if p == 3} & set(rows)
