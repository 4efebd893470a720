"""Tables set beside a column of text (``transforms/clean/tables.py``, step 6): a
paper's results table in one of its two columns, with the other column's lines in the
same bands of the page, is read on its own side of the column's edge. Synthetic pages
of placed pieces (``Piece``), one line per piece unless a test says otherwise."""

from __future__ import annotations

import json
import pathlib

from ragbeam.transforms.clean.tables import Piece, find_tables

DATA = pathlib.Path(__file__).resolve().parents[2] / "data"

PROSE = ("the model is trained on the labelled set and tested on held out data",
         "which we describe in the next section together with the settings used",
         "for each of the baselines and report the mean of three runs of each",
         "so that the figures can be compared with those of earlier work on it",
         "and we keep the same split of the data for every model in the table")
RESULTS = [("Model", "P", "R", "F1"),
           ("Baseline", "72.83", "90.79", "80.82"),
           ("Ours", "89.56", "82.70", "85.99"),
           ("Ours, no pretraining", "86.40", "83.43", "84.89")]
LEFT_EDGE, RIGHT_EDGE = 54.0, 292.0  # the text column's
TABLE_X = (330.0, 430.0, 470.0, 510.0)  # the table's columns, right of the gutter


def _column(first_line: int, top: float, lines=PROSE, x0=LEFT_EDGE, x1=RIGHT_EDGE,
            pitch: float = 11.0) -> list[Piece]:
    """Justified lines of text: every one from ``x0`` to ``x1``."""
    return [Piece(first_line + n, text, x0, x1, top + pitch * n, top + pitch * n + 7)
            for n, text in enumerate(lines)]


def _table(first_line: int, top: float, rows=RESULTS, pitch: float = 11.4) -> list[Piece]:
    """A table set in a smaller type than the text (its lines 6 points high, 11.4
    apart): its rows share the bands of the text's lines but not their lines."""
    return [Piece(first_line + n, cell, x, x + 4.5 * len(cell), top + 1.5 + pitch * n,
                  top + 7.5 + pitch * n)
            for n, row in enumerate(rows) for cell, x in zip(row, TABLE_X, strict=True)]


def test_a_table_beside_a_column_of_text_is_found_with_its_rows_whole():
    pieces = _column(0, 100) + _table(10, 100)  # each table row shares a band with a line
    (table,) = find_tables(pieces)
    assert table.header_rows == 1
    assert table.rendered() == [" | ".join(row) for row in RESULTS]
    assert set(table.lines) == set(range(10, 10 + len(RESULTS)))  # no line of the text


def test_a_table_beside_a_column_of_text_on_its_left_is_found_too():
    pieces = _table(10, 100) + _column(0, 100, x0=330.0, x1=560.0)
    pieces = [piece._replace(x0=piece.x0 - 276, x1=piece.x1 - 276) if piece.line >= 10
              else piece for piece in pieces]  # the table in the left column
    (table,) = find_tables(pieces)
    assert table.rendered() == [" | ".join(row) for row in RESULTS]


def test_two_columns_of_text_are_no_table():
    pieces = _column(0, 100) + _column(10, 100, x0=320.0, x1=558.0)
    assert find_tables(pieces) == []


def test_a_line_with_pieces_on_both_sides_of_the_edge_stays_text():
    """A Tika line that runs the text column's line and a table row together (its
    pieces on both sides of the edge) goes into no table: a table row never takes part
    of a line of the text beside it."""
    pieces = _column(0, 100) + _table(10, 100)
    joined = [piece._replace(line=0) if piece.line == 11 else piece for piece in pieces]
    found = find_tables(joined)
    assert all(0 not in table.lines for table in found)
    assert all("Baseline" not in " ".join(table.rendered()) for table in found)


def test_a_column_of_names_is_no_column_of_text():
    """Lines of eight words or more in title case (a filmography's titles and roles)
    give no edge to part the page at: only running text does."""
    from ragbeam.transforms.clean.tables import _column_edges

    titles = [Piece(n, "The Man in the Gray Flannel Suit Betsy Rath", 86, 300,
                    100 + 11 * n, 107 + 11 * n) for n in range(6)]
    assert _column_edges(titles) == []
    assert _column_edges(_column(0, 100)) == [LEFT_EDGE - 3.0, RIGHT_EDGE + 3.0]


def test_a_page_with_one_column_finds_what_it_found_before():
    """A statement across the page and a text column's lines above it: the parting
    finds no side with a table, and the table found is the page's own."""
    from ragbeam.transforms.clean.tables import _reading_order, _tables_in

    pieces = _column(0, 40, x0=54.0, x1=558.0) + _table(10, 120)
    ordered = sorted(pieces, key=_reading_order)
    assert find_tables(pieces) == _tables_in(ordered)
    assert len(find_tables(pieces)) == 1


def test_formulas_numbered_at_the_right_are_no_table():
    """A paper's displayed formulas beside their numbers "(3)", "(4)", "(5)" (the
    last one's number run into its formula's end) are no table."""
    formulas = [("P start,i(s) = softmax P i w start s ,", "(3)"),
                ("P end,i(t) = softmax P i w end t ,", "(4)"),
                ("P selected(i) = softmax", "i , (5)")]
    pieces = [piece for n, (formula, number) in enumerate(formulas)
              for piece in (Piece(n, formula, 330, 470, 100 + 14 * n, 107 + 14 * n),
                            Piece(n, number, 540, 552, 100 + 14 * n, 107 + 14 * n))]
    assert find_tables(pieces) == []
    amounts = [piece._replace(text=f"({n * 31 + 7})") if piece.x0 == 540 else piece
               for n, piece in enumerate(pieces)]  # amounts in brackets do not count up
    assert find_tables(amounts) != []


def test_a_list_whose_labels_are_long_lines_is_not_parted_from_its_labels():
    """An exhibit list: long descriptions (lines of running text, sharing their edges)
    on the left, form, exhibit and date on the right, each row on the same line as its
    description. The right side lines up with the left line by line: its rows' labels
    are across the edge, and no table is read from the right side alone."""
    descriptions = _column(0, 100)
    forms = [Piece(20 + n, cell, x, x + 4.5 * len(cell), 100 + 11.0 * n, 107 + 11.0 * n)
             for n in range(len(PROSE))
             for cell, x in zip(("8-K", "4.1", f"5/{n + 3}/17"), (400.0, 450.0, 500.0),
                                strict=True)]
    assert find_tables(descriptions + forms) == []


def test_a_charts_axes_read_as_rows_are_no_table():
    """A chart with a y axis on each side: its tick labels share rows ("54,000" and
    "0.50"), two evenly stepped columns of numbers; a table's columns never step alike."""
    ticks = [(f"{54 - n},000", f"0.{50 - 2 * n}") for n in range(5)]
    pieces = [piece for n, row in enumerate(ticks)
              for piece in _row_of(n, 100 + 20 * n, row, (60.0, 400.0))]
    assert find_tables(pieces) == []
    figures = [(f"{54 - n * n},000", f"0.{50 - 2 * n}") for n in range(5)]  # not stepped
    pieces = [piece for n, row in enumerate(figures)
              for piece in _row_of(n, 100 + 20 * n, row, (60.0, 400.0))]
    assert find_tables(pieces) != []


def _row_of(line: int, top: float, cells, xs) -> list[Piece]:
    return [Piece(line, cell, x, x + 4.5 * len(cell), top, top + 7)
            for cell, x in zip(cells, xs, strict=True)]



def test_a_table_whose_rows_share_bands_with_the_text_beside_it_takes_none_of_its_lines():
    """dpr-multi-column.pdf p. 12 (its pieces as the layout pass placed them): Table 5 in
    the right column, its two rows in the bands of the left column's lines; read whole,
    the page made those lines the rows' labels ("When training our final DPR model using
    Natural | Gold | 44.9 | …") and the appendix's heading ("A Distant Supervision") the
    header's first cell. The column's lines are set to its edge, as row labels are not."""
    page = json.loads((DATA / "pdf_table_pages" / "dpr-multi-column-p12.json").read_text())
    pieces = [Piece(*piece) for piece in page["pieces"]]
    tables = find_tables(pieces)
    texts = {piece.line: piece.text for piece in pieces}
    taken = {texts[n] for table in tables for n in table.lines}
    assert not any(text.startswith(("A Distant Supervision", "When training", "Questions, we"))
                   for text in taken)
    assert tables[0].rendered() == ["| Top-1 | Top-5 | Top-20 | Top-100",
                                    "Gold | 44.9 | 66.8 | 78.1 | 85.0",
                                    "Dist. Sup. | 43.9 | 65.3 | 77.1 | 84.4"]
