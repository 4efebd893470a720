"""A head block carried over: a statement's title under the template's head on the
pages its table runs on to (``template.carried_titles``)."""

from __future__ import annotations

from ragbeam.transforms.clean.furniture import PageLine
from ragbeam.transforms.clean.furniture.template import carried_titles


def _line(text: str, top: float, x0: float = 200.0, x1: float = 400.0) -> PageLine:
    return PageLine(text, box=(x0, top, x1, top + 5.0), size=6.0)


def _page(title: str, units: str, top: float = 60.0, rows: int = 4) -> list[PageLine]:
    """The template's head, a title block, then the table's rows."""
    return [_line("Acme Corp", top), _line(title, top + 10), _line(units, top + 20),
            *(_line(f"Row {k} of {title[:8]} {top:.0f}", top + 40 + 10 * k, 30, 560)
              for k in range(rows))]


HEAD = {(p, 0) for p in range(5)}  # the template's head on every page


def test_a_title_block_repeated_on_the_next_pages_goes_there_but_not_on_its_first():
    pages = [_page("INCOME STATEMENT", "(In thousands)"),
             _page("BALANCE SHEETS", "(In thousands)"),
             _page("BALANCE SHEETS", "(In thousands )", top=75.0),  # moved, spaced anew
             _page("BALANCE SHEETS", "(In thousands)"),
             _page("CASH FLOWS", "(In thousands)")]
    assert carried_titles(pages, HEAD) == {(2, 1), (3, 1)}


def test_one_line_alike_is_no_block_and_a_row_of_cells_is_no_title():
    # The company's name over each statement's own title: the line after it differs.
    names = [[_line("Table of Contents", 60), _line("ACME, INC.", 70),
              _line(title, 80), _line(f"{title} body text", 100)]
             for title in ("INCOME", "BALANCE SHEETS", "CASH FLOWS", "EQUITY", "NOTES")]
    assert carried_titles(names, HEAD) == set()
    # Column heads set in cells of one row, repeated with the table.
    cells = [[_line("Acme Corp", 60), _line("Name", 70, 30, 80), _line("Value", 70, 300, 360),
              _line("Unit", 80, 30, 80), _line(f"row {p}", 100)] for p in range(5)]
    assert carried_titles(cells, HEAD) == set()
