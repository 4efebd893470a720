"""Tables on PDF pages (``transforms/clean/tables.py``): PDFs made here, through real
Tika, real PDFium (the layout pass reads the cells) and real cleaning and chunking."""

from __future__ import annotations

import json
import pathlib
from collections import Counter

from made_pdfs import serialise

from ragbeam.transforms.chunk.base import ChunkOptions
from ragbeam.transforms.chunk.records import chunk_rows
from ragbeam.transforms.chunk.strategies import build_strategy
from ragbeam.transforms.chunk.table import TABLE_HEADER_KEY, table_regions
from ragbeam.transforms.clean.document import CleanOptions, clean_document
from ragbeam.transforms.clean.tables import (
    Piece,
    Table,
    _Cell,
    _signs_lead,
    find_tables,
    is_value,
)
from ragbeam.transforms.extract.backends import EmbeddedTika
from ragbeam.transforms.extract.document import build_extracted_document
from ragbeam.transforms.types import BlockKind, Document, FetchedFile, SourceFile

HEADER = "| Three Months Ended June 25, 2022 | June 26, 2021"  # the span written once
# (label, indent, value 1, value 2); None: a label row.
STATEMENT = [
    ("Net sales:", 0, None, None),
    ("Products", 8, "$ 96,388", "$ 104,429"),
    ("Services", 8, "20,766", "19,516"),
    ("Total net sales", 16, "117,154", "123,945"),
    ("Operating expenses:", 0, None, None),
    ("Research and development", 8, "7,709", "6,306"),
    ("Restructuring charges", 8, "—", "664"),
    ("Other income/(expense), net", 0, "(393)", "(247)"),
    ("Net income", 0, "$ 29,998", "$ 34,630"),
]
BODY = ("The harbour authority inspected every crane on the northern quay in March and",
        "found the brakes of two of them worn; both were repaired before the season",
        "opened, and the report lists what each repair cost and how long it took.")



def _escape(text: str) -> bytes:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("cp1252")


def _pdf(pages: list[list[tuple[float, float, str, bool]]]) -> bytes:
    """A PDF of US-letter pages, each a list of ``(x, y from the top, text, bold)``
    pieces set in 9 pt Helvetica, each piece a text object of its own."""
    objects = {3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica "
                  b"/Encoding /WinAnsiEncoding >>",
               4: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold "
                  b"/Encoding /WinAnsiEncoding >>"}
    kids = []
    for pieces in pages:
        stream = b"\n".join(b"BT /F%d 9 Tf %.1f %.1f Td (%s) Tj ET"
                            % (4 if bold else 3, x, 792 - y, _escape(text))
                            for x, y, text, bold in pieces)
        number = max(objects) + 1
        objects[number] = (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources "
                           b"<< /Font << /F3 3 0 R /F4 4 0 R >> >> /Contents %d 0 R >>"
                           % (number + 1))
        objects[number + 1] = (b"<< /Length %d >>\nstream\n" % len(stream) + stream
                               + b"\nendstream")
        kids.append(number)
    return serialise(objects, kids)


def _right(x_right: float, text: str) -> float:
    """Where a 9 pt Helvetica piece starts to end at ``x_right`` (figures: 5 pt each)."""
    return x_right - 5.0 * len(text)


def _statement_rows(top: float, rows=STATEMENT) -> list[tuple[float, float, str, bool]]:
    pieces = []
    y = top
    for label, indent, first, second in rows:
        pieces.append((72 + indent, y, label, False))
        for value, right in ((first, 430), (second, 530)):
            if value is None:
                continue
            if value.startswith("$ "):  # the sign flush left in its column, as statements set it
                pieces.append((right - 75, y, "$", False))
                value = value[2:]
            pieces.append((_right(right, value), y, value, False))
        y += 12
    return pieces


def _statement_page(title: str = "CONDENSED STATEMENTS OF OPERATIONS (Unaudited)"
                    ) -> list[tuple[float, float, str, bool]]:
    return [
        (180, 80, title, True),
        (_right(530, "Three Months Ended") - 40, 110, "Three Months Ended", False),
        (_right(430, "June 25,"), 122, "June 25,", False),
        (_right(530, "June 26,"), 122, "June 26,", False),
        (_right(430, "2022"), 134, "2022", False),
        (_right(530, "2021"), 134, "2021", False),
        *_statement_rows(152),
        (72, 280, "See the notes to the financial statements.", False),
    ]


def _clean(data: bytes) -> Document:
    xhtml, metadata = EmbeddedTika().extract(data, "t.pdf")
    fetched = FetchedFile(SourceFile("t.pdf", "t", len(data)), data, "h")
    return clean_document(build_extracted_document(fetched, xhtml, metadata),
                          CleanOptions(identify_language=False))


def _tables(doc: Document) -> list[list[str]]:
    return [doc.text[a:b].split("\n") for a, b in table_regions(doc)]


def test_a_financial_statement_becomes_one_table_with_its_header_and_row_labels():
    doc = _clean(_pdf([_statement_page()]))
    (rows,) = _tables(doc)
    assert rows[0] == HEADER  # the stacked period header, one cell per column
    assert "Net sales:" in rows  # a section's label row stays a row
    assert "Products | $ 96,388 | $ 104,429" in rows  # the sign stays with its amount
    assert "Other income/(expense), net | (393) | (247)" in rows  # negatives in parentheses
    assert "Restructuring charges | — | 664" in rows  # a dash for none is a value
    assert rows[-1] == "Net income | $ 29,998 | $ 34,630"
    # Each row is a span of its own, on its page, with the raw range of its lines.
    spans = [s for s in doc.spans if s.kind is BlockKind.TABLE]
    assert len(spans) == len(rows) and {s.page for s in spans} == {1}
    assert len({s.block for s in spans}) == 1 and all(s.raw_start < s.raw_end for s in spans)
    # The title and the note under the table stay text, and the title is no table row.
    assert "CONDENSED STATEMENTS OF OPERATIONS (Unaudited)" in doc.text
    assert doc.metadata["clean_tables_detected"] == "1"
    assert not any(s.kind is BlockKind.HEADING and "Net sales" in doc.text[s.start:s.end]
                   for s in doc.spans)


def test_without_the_switch_the_statement_stays_lines():
    data = _pdf([_statement_page()])
    xhtml, metadata = EmbeddedTika().extract(data, "t.pdf")
    fetched = FetchedFile(SourceFile("t.pdf", "t", len(data)), data, "h")
    doc = clean_document(build_extracted_document(fetched, xhtml, metadata),
                         CleanOptions(identify_language=False, detect_tables=False))
    assert not any(s.kind is BlockKind.TABLE for s in doc.spans)
    assert doc.metadata["clean_tables_detected"] == "0"


def test_prose_in_two_columns_is_no_table():
    lines = [(72, 100 + 12 * i, BODY[i % 3][:48], False) for i in range(20)]
    lines += [(320, 100 + 12 * i, BODY[(i + 1) % 3][24:72], False) for i in range(20)]
    doc = _clean(_pdf([lines]))
    assert not any(s.kind is BlockKind.TABLE for s in doc.spans)
    assert doc.metadata["clean_tables_detected"] == "0"


def test_a_table_split_across_a_page_break_keeps_its_header_and_no_chunk_cuts_a_row():
    more = [(f"Segment {n} revenue", 0, f"{n},{n:03d}", f"({n * 7:,})") for n in range(1, 45)]
    first = [*_statement_page()[:6], *_statement_rows(152, STATEMENT + more[:38])]
    second = _statement_rows(72, [*more[38:], ("Total segments", 0, "1,234", "(5,678)")])
    doc = _clean(_pdf([first, second]))
    (rows,) = _tables(doc)  # one table over both pages
    assert rows[0] == HEADER and rows[-1] == "Total segments | 1,234 | (5,678)"
    assert {s.page for s in doc.spans if s.kind is BlockKind.TABLE} == {1, 2}
    row_starts = {doc.text.index(row) for row in rows}
    row_ends = {doc.text.index(row) + len(row) for row in rows}
    (region,) = table_regions(doc)
    for strategy in ("structure", "recursive", "table"):
        chunker = build_strategy(strategy, ChunkOptions(size=60, unit="tokens"))
        chunks = chunker.chunk(doc).chunks
        inside = [c for c in chunks if region[0] < c.start < region[1]]
        assert len(inside) >= 3, strategy
        for chunk in chunks:
            if region[0] <= chunk.start < region[1]:
                assert chunk.start in row_starts, (strategy, chunk.text[:40])
            if region[0] < chunk.end <= region[1]:
                assert chunk.end in row_ends, (strategy, chunk.text[-40:])
        written = chunk_rows(doc, chunks, strategy, "c", chunker.sizer)
        for row in written:
            if region[0] < row["char_start"] < region[1]:
                # Every later part of the table has its header in its context, and the
                # section of rows it starts in where one is open (chunk/table.py).
                header, *section = row["metadata"][TABLE_HEADER_KEY].split("\n")
                assert header == HEADER and section in ([], ["Operating expenses:"])
                assert row["context"].endswith("\n".join([HEADER, *section]))
        assert {r["page_start"] for r in written if region[0] < r["char_start"] < region[1]} \
            >= {1, 2}


def _row(line: int, top: float, *cells: tuple[str, float, float]) -> list[Piece]:
    return [Piece(line, text, x0, x1, top, top + 7) for text, x0, x1 in cells]


def test_contents_pages_lists_and_forms_are_no_tables():
    contents = [piece for n, (title, page) in enumerate(
        [("Financial Statements", "1"), ("Management's Discussion", "15"),
         ("Controls and Procedures", "20"), ("Legal Proceedings", "21")])
        for piece in _row(n, 100 + 12 * n, (title, 72, 200), (page, 520, 530))]
    assert find_tables(contents) == []
    bullets = [piece for n in range(4) for piece in _row(
        n, 100 + 12 * n, ("•", 72, 76), (f"Item {n} of the list, which goes on", 100, 260))]
    assert find_tables(bullets) == []
    form = [piece for n, (left, right) in enumerate(
        [("Large accelerated filer ☒", "Accelerated filer ☐"),
         ("Non-accelerated filer ☐", "Smaller reporting company ☐")])
        for piece in _row(n, 100 + 12 * n, (left, 72, 200), (right, 320, 460))]
    assert find_tables(form) == []


def test_a_data_sheet_table_keeps_its_header_row():
    rows = [("Parameter", "Symbol", "Min", "Typ", "Max", "Unit"),
            ("Supply voltage", "VDD", "1.8", "3.3", "3.6", "V"),
            ("Supply current", "IDD", "—", "2.5", "4.0", "mA"),
            ("Operating temperature", "TA", "-40", "25", "85", "°C")]
    pieces = [piece for n, row in enumerate(rows) for piece in _row(
        n, 100 + 12 * n, *[(cell, x, x + 5 * len(cell))
                           for cell, x in zip(row, (72, 200, 260, 310, 360, 410), strict=True)])]
    (table,) = find_tables(pieces)
    assert table.header_rows == 1
    assert table.rendered() == [" | ".join(row) for row in rows]


def test_a_footnote_under_a_table_and_heads_wider_than_their_values():
    # A share repurchase table (a 10-K's Item 5): each column's head wrapped over lines and
    # centred over a narrow column of values, and a footnote whose mark is a piece of its
    # own right under the last row. The footnote's sentence spans every column: taken into
    # the run it made the table one column, and no table was found.
    heads = [(["Total Number", "of Shares", "Purchased"], 262, 302),
             (["Average", "Price", "Paid Per", "Share"], 342, 373),
             (["Total Number of", "Shares", "Purchased as", "Part of Publicly", "Announced",
               "Plans or", "Programs"], 402, 462),
             (["Approximate Dollar", "Value of", "Shares That May", "Yet Be Purchased",
               "Under the Plans or", "Programs"], 486, 560)]
    pieces: list[Piece] = []
    line = 0
    for lines, x0, x1 in heads:  # bottom-aligned, 8 points a line
        for n, text in enumerate(lines):
            pieces.append(Piece(line, text, x0, x1, 300 - 8 * (len(lines) - 1 - n), 306
                                - 8 * (len(lines) - 1 - n)))
            line += 1
    pieces += _row(line, 300, ("Periods", 36, 66))
    body = [("July 2, 2023 to August 5, 2023:", None, None, None, None),
            ("Open market purchases", "33,864", "$ 191.62", "33,864", None),
            ("August 6, 2023 to September 2, 2023:", None, None, None, None),
            ("Open market purchases", "30,299", "$ 178.99", "30,299", None),
            ("Total", "64,163", None, None, "$ 74,069")]
    for n, (label, *values) in enumerate(body, start=1):
        cells = [(label, 54, 54 + 4 * len(label))]
        cells += [(value, x, x + 24) for value, x in zip(values, (287, 353, 437, 533), strict=True)
                  if value]
        pieces += _row(line + n, 312 + 11 * n, *cells)
    pieces += _row(line + 9, 390, ("(1)", 53, 62), (
        "As of September 30, 2023, the Company was authorized by the Board of Directors "
        "to purchase up to $90 billion of the", 70, 525))
    pieces += _row(line + 10, 400, ("Company's common stock under a share repurchase program "
                                    "announced on May 4, 2023, of which", 70, 525))
    (table,) = find_tables(pieces)
    header, *rows = table.rendered()
    assert header.split(" | ") == [
        "Periods", "Total Number of Shares Purchased", "Average Price Paid Per Share",
        "Total Number of Shares Purchased as Part of Publicly Announced Plans or Programs",
        "Approximate Dollar Value of Shares That May Yet Be Purchased Under the Plans or "
        "Programs"]
    assert rows[1] == "Open market purchases | 33,864 | $ 191.62 | 33,864"
    assert not any("Board of Directors" in row for row in rows)


PAGES = pathlib.Path(__file__).parents[2] / "data" / "pdf_table_pages"


def _page_pieces(name: str) -> list[Piece]:
    """A real page's pieces as cleaning hands them to ``find_tables`` (a filing's page,
    its lines placed by the layout pass: ``[line, text, x0, x1, top, bottom]``)."""
    return [Piece(*row) for row in json.loads((PAGES / name).read_text())]


def test_a_10k_note_with_a_table_its_text_and_another_table_close_below():
    # Alphabet's 2022 10-K, p. 74: the goodwill table, then a title, a sentence and the
    # intangible assets table within a few lines. Read as one run, the second table's
    # spanning heads joined every column into one and the goodwill table was lost.
    tables = find_tables(_page_pieces("goog-2022-10k-p74.json"))
    goodwill = next(t for t in tables if "Google Cloud" in t.rendered()[0])
    assert goodwill.rendered()[1] == (
        "Balance as of December 31, 2020 | $ 18,517 | $ 1,957 | $ 701 | $ 21,175")
    assert goodwill.rendered()[-1] == (
        "Balance as of December 31, 2022 | $ 20,847 | $ 7,205 | $ 908 | $ 28,960")
    assert any(t.rendered()[1].startswith("Patents and developed technology | $ 4,786")
               for t in tables)


def test_a_10k_table_with_a_footnote_close_below_it():
    # Apple's 2023 10-K, p. 23 (Item 5): the footnote's mark is a piece of its own.
    (table,) = find_tables(_page_pieces("aapl-2023-10k-p23.json"))
    header, *rows = table.rendered()
    assert header.startswith("Periods | Total Number of Shares Purchased | Average Price")
    assert "Open market and privately negotiated purchases | 33,864 | $ 191.62 | 33,864" in rows
    assert rows[-1].startswith("Total | 106,595")


def test_a_statement_s_title_set_larger_above_its_heads_is_no_head():
    # CVS Health's 2022 10-K, p. 113: "Consolidated Statements of Shareholders' Equity"
    # (9 pt) centred over the statement's heads (7.2 pt). Read into the header, the title
    # left the page's heading path on the statement before.
    tables = find_tables(_page_pieces("cvs-2022-10k-p113.json"))
    header = tables[0].rendered()[0]
    assert "Attributable to CVS Health" in header
    assert "Consolidated Statements" not in header
    assert tables[0].rendered()[1].startswith("Balance at December 31, 2019 | 1,727")


def test_section_labels_under_a_statement_s_heads_are_its_first_rows():
    # NVIDIA's 2024 10-K, p. 54 (its balance sheet): "Assets" / "Current assets:" stand
    # alone between the heads and the first row of values. Read as the table's end, they
    # left the heads out of it, and every chunk of the statement, the liabilities' too,
    # carried "Jan 28, 2024 Jan 29, 2023 Assets Current assets:" as the table's title.
    (table,) = [t for t in find_tables(_page_pieces("nvda-2024-10k-p54.json"))
                if "Total assets" in " ".join(t.rendered())]
    header, *rows = table.rendered()
    assert "Jan 28, 2024" in header and "Assets" not in header
    assert rows[:3] == [
        "Assets", "Current assets:", "Cash and cash equivalents | $ 7,280 | $ 3,389"]
    assert "Current liabilities:" in rows


def test_values():
    for value in ("$ 96,388", "(1,766)", "—", "12.5%", "(174 )", "-0.47", "n/a", "3.3", "$ (16 )"):
        assert is_value(value), value
    for text in ("2022", "Net sales", "June 25,", "Q1 2023"):
        assert not is_value(text), text


def test_a_page_is_looked_at_for_tables_only_where_its_pieces_share_a_row():
    """``_shares_a_row`` (find_tables' early way out): where it says no piece falls in
    the row of the one before it, ``_rows`` makes every piece a row of its own and no
    table is found; on pieces set in rows, apart, and overlapping."""
    import random

    from ragbeam.transforms.clean.tables import _reading_order, _rows, _shares_a_row

    rng = random.Random(3)
    shared = 0
    for _ in range(400):
        pieces = []
        for n in range(rng.randint(0, 12)):
            top = rng.choice([10.0, 20.0, 24.0, 31.5, 40.0, float(rng.randint(0, 60))])
            x0 = float(rng.randint(0, 400))
            pieces.append(Piece(n, "1", x0, x0 + 30, top, top + rng.choice([8.0, 12.0, 0.5])))
        ordered = sorted(pieces, key=_reading_order)
        if _shares_a_row(ordered):
            shared += 1
            continue
        assert [len(row.cells) for row in _rows(ordered)] == [1] * len(pieces)
        assert find_tables(pieces) == []
    assert 50 < shared < 350  # both cases met


def _excess_words(pieces: list[Piece]) -> Counter:
    """Words the tables found among ``pieces`` hold more often than the pieces do."""
    printed = Counter(word for piece in pieces for word in piece.text.split())
    tabled = Counter(word for table in find_tables(pieces) for row in table.rows
                     for cell in row for word in cell.split())
    return tabled - printed


def test_a_row_given_as_one_line_over_every_column_is_written_once():
    """A catalogue's rows that Tika gave as one line each (no cells found in them),
    stacked over the rows it did cut into cells, are read as header rows: each lies
    over every column, and is written once, in its first column, not in each."""
    columns = ((95, 105), (117, 213), (273, 306), (318, 342), (360, 388), (400, 543))
    pieces = _row(0, 70, ("項目", 64, 74), ("品名", 183, 193), ("型名", 285, 296),
                  ("提供時期", 320, 341), ("価格", 354, 386), ("備考", 471, 482))
    for n in range(1, 4):
        pieces += _row(n, 70 + 17 * n, (f"{n} メモリ変更8GB→16GB ＊1 FMCPRC{n}S 本体と同期 109,400 "
                                        "本体のメモリ構成を16GBに変更します。", 108, 507))
    for n, code in enumerate(("FMCHDD177", "FMCHDD17A", "FMCSEC19H"), start=4):
        cells = (str(n + 2), "暗号化機能付フラッシュメモリ", code, "本体と同期", f"{n},400",
                 "変更します。")
        pieces += _row(n, 70 + 17 * n, *[(text, x0, x1) for text, (x0, x1)
                                          in zip(cells, columns, strict=True)])
    (table,) = find_tables(pieces)
    assert table.header_rows == 1
    assert sum(cell.count("FMCPRC2S") for cell in table.rows[0]) == 1
    assert not _excess_words(pieces)


def test_a_table_never_holds_a_word_more_often_than_its_page_prints_it():
    """On random pages of rows (header cells over one or several columns, flush-right
    headers over two, values, whole rows as one line, Japanese text without spaces),
    the words of the tables found are a sub-multiset of the page's words."""
    import random

    rng = random.Random(8)
    words = ["Net", "sales", "Three", "Months", "Ended", "June", "2022", "Total",
             "メモリ変更", "本体と同期", "(In", "millions)", "Revenue", "Plan"]
    lefts = [72, 200, 280, 360, 440]
    found = 0
    for _ in range(300):
        pieces: list[Piece] = []
        top = 100.0
        for n in range(rng.randint(4, 10)):
            cells = []
            c = 0
            while c < len(lefts):
                span = rng.choice([1, 1, 1, 1, 1, 2, 3, len(lefts)])  # over 1 or more columns
                last = min(c + span, len(lefts)) - 1
                if rng.random() < 0.15:
                    pass  # an empty cell
                elif rng.random() < 0.5 + 0.05 * n and c:  # values below, headers above
                    cells.append((rng.choice(["$ 1,200", "(393)", "—", "12.5%", "7", "3,900"]),
                                  lefts[c], lefts[c] + 40))
                else:
                    text = " ".join(rng.choices(words, k=rng.randint(1, 4)))
                    cells.append((text, lefts[c] - rng.choice([0, 0, 30]), lefts[last] + 60))
                c = last + 1
            if rng.random() < 0.15:  # a whole row as one line
                cells = [(" ".join(text for text, _, _ in cells) or "Total", 72, 500)]
            pieces += _row(n, top, *cells)
            top += rng.choice([12.0, 12.0, 12.0, 17.0, 30.0])
        if find_tables(pieces):
            found += 1
        assert not _excess_words(pieces), pieces
    assert found > 50  # tables were found, not only rejected pages


def test_a_part_whose_columns_line_up_with_the_part_before_takes_its_columns():
    columns = ((72.0, 150.0), (160.0, 220.0), (230.0, 300.0), (320.0, 360.0))
    # Two columns run together on this page (one piece over both): the second left empty.
    merged = Table((("Boeing Company Long Beach", "113", "L"),
                    ("Intuit Inc. Menlo Park", "8", "C")),
                   0, ((1,), (2,)), ((72.0, 215.0), (240.0, 290.0), (330.0, 350.0)))
    moved = merged.on_columns(columns)
    assert moved is not None and moved.columns == columns
    assert moved.rendered() == ["Boeing Company Long Beach |  | 113 | L",
                                "Intuit Inc. Menlo Park |  | 8 | C"]
    empty = Table((("Products", "9", "4"),), 0, ((1,),),
                  ((72.0, 150.0), (170.0, 210.0), (325.0, 355.0)))  # the third empty
    assert empty.on_columns(columns).rows == (("Products", "9", "", "4"),)
    # Columns that do not line up: one between two of the others, more columns than
    # the part before, a first column right of its first.
    assert Table((("a", "1"),), 0, ((1,),), ((72.0, 150.0), (222.0, 228.0))).on_columns(
        columns) is None
    assert Table((("a", "1", "2"),), 0, ((1,),), ((72.0, 150.0), (160.0, 190.0),
                                                  (195.0, 220.0))).on_columns(
        ((72.0, 150.0), (160.0, 220.0))) is None
    assert Table((("1", "2"),), 0, ((1,),), ((160.0, 220.0), (320.0, 360.0))).on_columns(
        columns) is None


def test_a_part_with_a_column_empty_on_its_page_goes_on_under_the_header():
    more = [(f"Segment {n} revenue", 0, f"{n},{n:03d}", f"({n * 7:,})") for n in range(1, 39)]
    first = [*_statement_page()[:6], *_statement_rows(152, STATEMENT + more)]
    # The first value column has no entry on the next page.
    second = _statement_rows(72, [(f"Region {n} revenue", 0, None, f"({n * 3})")
                                  for n in range(1, 6)])
    doc = _clean(_pdf([first, second]))
    (rows,) = _tables(doc)  # one table over both pages, each value under its column
    assert rows[0] == HEADER and rows[-1] == "Region 5 revenue |  | (15)"
    chunker = build_strategy("table", ChunkOptions(size=60, unit="tokens"))
    chunks = chunker.chunk(doc).chunks
    written = chunk_rows(doc, chunks, "table", "c", chunker.sizer)
    later = [r for r in written if r["page_start"] == 2]
    assert later and all(r["metadata"][TABLE_HEADER_KEY] == HEADER for r in later)
    # Under a paragraph that opens the page, the same rows are a table of their own.
    doc = _clean(_pdf([first, [(72, 60, BODY[0], False), *second]]))
    assert _tables(doc)[-1][-1] == "Region 5 revenue | (15)"


def test_a_table_header_reaches_no_higher_than_the_table_above():
    sheet = [("Parameter", "Symbol", "Typ", "Unit"), ("Supply voltage", "VDD", "3.3", "V"),
             ("Supply current", "IDD", "2.5", "mA")]
    pieces = [piece for n, row in enumerate(sheet) for piece in _row(
        n, 100 + 12 * n, *[(cell, x, x + 5 * len(cell))
                           for cell, x in zip(row, (72, 200, 260, 310), strict=True)])]
    pieces += _row(3, 136, ("Package", 72, 107), ("SOT-23", 260, 290))  # no value
    # Below a gap that ends the first table, though a header may stand that far off.
    money = [("Year", "2022", "2023"), ("Revenue", "1,200", "1,300"), ("Cost", "800", "900")]
    pieces += [piece for n, row in enumerate(money) for piece in _row(
        10 + n, 186 + 12 * n, *[(cell, x, x + 5 * len(cell))
                                for cell, x in zip(row, (72, 260, 330), strict=True)])]
    first, second = find_tables(pieces)
    assert first.lines == (0, 1, 2, 3)
    assert second.lines == (10, 11, 12)  # its header is its own, no row of the first
    assert second.rendered()[0] == "Year | 2022 | 2023"


def test_a_line_over_the_first_tables_header_printed_again_starts_the_next_table():
    """A tax note's two tables one under the other, the second introduced by a line of
    its own ("Income tax expense consisted of the following:") over the same column
    heads: two tables, the line between them the second's title, not a label row of the
    first. A label row inside one table (no header printed again after it) stays."""
    header = ("Years ended December 31,", "2022", "2021")
    rows = [header, ("U.S.", "(5,457)", "(5,475)"), ("Non-U.S.", "435", "442"),
            ("Total", "(5,022)", "(5,033)"),
            ("Income tax expense consisted of the following:",),
            header, ("U.S. federal", "(58)", "(89)"), ("Non-U.S.", "142", "147"),
            ("Total current", "42", "100")]

    def pieces(rows):
        return [piece for n, row in enumerate(rows) for piece in _row(
            n, 100 + 12 * n, *[(cell, x, x + 5 * len(cell))
                               for cell, x in zip(row, (72, 400, 470), strict=False)])]
    first, second = find_tables(pieces(rows))
    assert first.rendered()[-1] == "Total | (5,022) | (5,033)"
    assert second.rendered()[0] == " | ".join(header)
    assert not any("consisted" in row for table in (first, second)
                   for row in table.rendered())
    labelled = [header, ("Current tax expense",), ("U.S. federal", "(58)", "(89)"),
                ("Non-U.S.", "142", "147"), ("Deferred tax expense",),
                ("U.S. federal", "(62)", "(855)"), ("Non-U.S.", "(3)", "(12)")]
    (table,) = find_tables(pieces(labelled))
    assert "Deferred tax expense" in table.rendered()


GROUP_RUN = (("Growth", "150%", "116%", "130%"), ("Total", "1,092", "1,138", "2,231"),
             ("Domestic", "687", "790", "1,477"), ("Overseas", "405", "348", "753"))


def _grouped_table(labels: tuple[tuple[str, float], ...], run_tops=(118.9, 238.2)
                   ) -> list[Piece]:
    """A slide's table: a header row, then runs of rows parted by a wider gap, each
    named by a label set at the left of its run (a column of merged cells), which the
    text gives after the table's rows. Growth rates sit between the value columns (the
    reader parts the table there)."""
    pieces = [Piece(0, text, x, x + 20, 98.8, 107.6)
              for text, x in (("Q1", 240), ("Q2", 300), ("Half", 360))]
    line = 1
    for top in run_tops:
        for n, cells in enumerate(GROUP_RUN):
            xs = (136, 250, 310, 370) if n == 0 else (136, 240, 300, 360)
            pieces += [Piece(line, text, x, x + 5 * len(text), top + 17 * n,
                             top + 17 * n + 7.3) for text, x in zip(cells, xs, strict=True)]
            line += 1
    return pieces + [Piece(line + n, text, 97.6, 118.5, top, top + 10.2)
                     for n, (text, top) in enumerate(labels)]


def test_row_group_labels_at_a_tables_left_go_into_its_rows():
    tables = find_tables(_grouped_table((("Orders", 143.6), ("Sales", 263.0))))
    rows = [row for table in tables for row in table.rendered()]
    assert rows[0] == "|  | Q1 | Q2 | Half"
    assert rows[1:] == [f"{label} | {' | '.join(cells)}"
                        for label in ("Orders", "Sales") for cells in GROUP_RUN]
    assert {9, 10} <= {n for table in tables for n in table.lines}  # the labels' lines
    # Without them the labels stood between two rows, as rows of one cell.
    unlabelled = find_tables(_grouped_table(()))
    assert [row for table in unlabelled for row in table.rendered()] \
        == ["| Q1 | Q2 | Half", *(" | ".join(cells) for cells in GROUP_RUN * 2)]


def test_no_row_group_labels_without_runs_to_name():
    # One label: the rows' dimension (or a chart's axis), not runs of rows.
    rows = [row for table in find_tables(_grouped_table((("Orders", 143.6),)))
            for row in table.rendered()]
    assert not any(row.startswith("Orders |") for row in rows)
    # Two labels but no wider gap between the rows: where one run ends is unknown.
    rows = [row for table in find_tables(_grouped_table(
        (("Orders", 143.6), ("Sales", 190.0)), run_tops=(118.9, 118.9 + 68)))
        for row in table.rendered()]
    assert not any(row.startswith(("Orders |", "Sales |")) for row in rows)


def test_a_currency_sign_tika_gave_with_the_amount_before_it_is_the_next_amounts():
    # A purchase price allocation (Verizon's 10-K): each column's "$" set at its left
    # edge, the amount at its right; Tika gave an amount and the next column's sign, set
    # close after it, as one piece ("1,370 $"), and the sign went with the column before.
    rows = [("Current assets", "1,370", "9", "1,379"),
            ("Total assets acquired", "10,294", "22", "10,316"),
            ("Current liabilities", "1,433", "70", "1,503"),
            ("Total consideration", "7,014", "25", "7,039")]
    pieces = _row(0, 88, ("Preliminary", 215, 262), ("Adjustments", 280, 330), ("Final", 380, 402))
    for n, (label, first, second, third) in enumerate(rows, start=1):
        pieces += _row(n, 88 + 12 * n, (label, 36, 36 + 5 * len(label)), ("$", 200, 205),
                       (f"{first} $", 262 - 5 * len(first), 275),
                       (f"{second} $", 330 - 5 * len(second), 345),
                       (third, 402 - 5 * len(third), 402))
    (table,) = find_tables(pieces)
    header, *body = table.rendered()
    assert [cell.strip() for cell in header.split("|")] == ["", "Preliminary", "Adjustments",
                                                           "Final"]
    assert body[0] == "Current assets | $ 1,370 | $ 9 | $ 1,379"
    assert body[-1] == "Total consideration | $ 7,014 | $ 25 | $ 7,039"
    # a row whose sign follows its first amount ("1 234 €") keeps each sign where it is
    assert not _signs_lead([_Cell("Ventes", 36, 90, [0]), _Cell("1 234 €", 200, 240, [0]),
                            _Cell("1 300 €", 280, 320, [0])])


def test_a_second_table_with_a_units_line_under_its_heads_keeps_them():
    # NVIDIA's 10-Q (Q3 FY2024), p. 14: two tables of unrealized losses, one per date.
    # The second's heads stand over "(In millions)", a line alone over its value
    # columns: read as the table's end, the heads were a table of their own and the
    # values a table without heads.
    tables = find_tables(_page_pieces("nvda-2023q3-10q-p14.json"))
    january = next(t for t in tables if "January 29, 2023 12 Months" in t.rendered()[0])
    assert january.header_rows == 1
    assert [cell.strip() for cell in january.rendered()[0].split("|")][1:3] == [
        "Less than 12 Months Estimated Fair Value", "Gross Unrealized Loss"]
    assert "Treasury | $ 2,444 | $ (21) | $ 1,172 | $ (23) | $ 3,616 | $ (44)" in (
        january.rendered())
    assert not any(t.header_rows == 0 and "Treasury | $ 2,444" in t.rendered()[0]
                   for t in tables)


def test_a_header_of_dates_set_as_one_line_over_two_columns_is_two_cells():
    """A balance sheet's dates in one text object, as tight as their letters, the gap
    between them made by positioning ("December 31, 2022   September 30, 2023"), three
    lines above the first row of figures: the layout pass reads its words too
    (``layout.MAX_HEADER_REACH``), so each date heads its own column."""
    rows = [("Cash and cash equivalents", "53,888", "49,605"),
            ("Marketable securities", "16,138", "14,564"),
            ("Inventories", "34,405", "40,516"),
            ("Accounts receivable, net and other", "42,360", "41,131"),
            ("Total current assets", "146,791", "145,816")]
    pieces = [b"BT /F4 9 Tf 230 712 Td (CONSOLIDATED BALANCE SHEETS) Tj ET",
              b"BT /F3 9 Tf 400 690 Td [(December 31, 2022) -3000 (September 30, 2023)] TJ ET",
              b"BT /F3 9 Tf 490 678 Td ((unaudited)) Tj ET",
              b"BT /F3 9 Tf 72 666 Td (Current assets:) Tj ET"]
    for n, (label, first, second) in enumerate(rows):
        y = 654 - 12 * n
        pieces += [b"BT /F3 9 Tf 80 %d Td (%s) Tj ET" % (y, label.encode()),
                   b"BT /F3 9 Tf %.1f %d Td (%s) Tj ET" % (_right(460, first), y, first.encode()),
                   b"BT /F3 9 Tf %.1f %d Td (%s) Tj ET" % (_right(560, second), y,
                                                           second.encode())]
    stream = b"\n".join(pieces)
    objects = {3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica "
                  b"/Encoding /WinAnsiEncoding >>",
               4: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold "
                  b"/Encoding /WinAnsiEncoding >>",
               5: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources "
                  b"<< /Font << /F3 3 0 R /F4 4 0 R >> >> /Contents 6 0 R >>",
               6: b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream"}
    (table,) = _tables(_clean(serialise(objects, [5])))
    header = [cell.strip() for cell in table[0].split("|")]
    assert "December 31, 2022" in header
    assert any(cell.startswith("September 30, 2023") for cell in header)
    assert "Cash and cash equivalents | 53,888 | 49,605" in table
