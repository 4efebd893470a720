"""A table chunk that does not start at the table's first row repeats the header row in
its context (``metadata.table_header``), never in its exact ``text``: any strategy, real files."""

from __future__ import annotations

import itertools

from ragbeam.api import chunk_file
from ragbeam.transforms.chunk.records import chunk_rows
from ragbeam.transforms.chunk.sizing import CharSizer
from ragbeam.transforms.chunk.table import TABLE_HEADER_KEY, section_marks, with_table_headers
from ragbeam.transforms.types import BlockKind, Chunk, Document, SourceFile, TextSpan

from conftest import require_corpus

HEADER = "Item | Quantity | Unit price"


def _rows(n: int) -> list[str]:
    return [f"Part number {i} | {i * 3} | {i}.50 EUR" for i in range(n)]


def test_a_chunk_starting_inside_a_table_gets_its_first_row():
    table = "\n".join([HEADER, *_rows(6)])
    text = "Intro paragraph.\n\n" + table
    start = text.index(HEADER)
    doc = Document(SourceFile("t", "t", len(text)), "h", "text/html", text,
                   (TextSpan(0, 16, BlockKind.PARAGRAPH),
                    TextSpan(start, len(text), BlockKind.TABLE)))
    cut = text.index("Part number 3")
    chunks = [Chunk(0, cut - 1, text[:cut - 1]), Chunk(cut, len(text), text[cut:])]
    first, second = with_table_headers(doc, chunks)
    assert TABLE_HEADER_KEY not in first.metadata  # it holds the header row itself
    assert second.metadata[TABLE_HEADER_KEY] == HEADER
    rows = chunk_rows(doc, chunks, "recursive", "c", CharSizer(), embed_text=True)
    assert rows[1]["text"] == text[cut:]  # the text stays exact
    assert rows[1]["context"].endswith(HEADER)
    assert rows[1]["embed_text"].endswith(f"{HEADER}\n\n{text[cut:]}")


STATEMENT = ["| Jan 28, 2024 | Jan 29, 2023", "Current assets:",
             "Cash and cash equivalents | $ 7,280 | $ 3,389", "Inventories | 5,282 | 5,159",
             "Total current assets | 44,345 | 23,073", "Goodwill | 4,430 | 4,372",
             "Current liabilities:", "Accounts payable | $ 2,699 | $ 1,193",
             "Accrued and other current liabilities | 6,682 | 4,120"]


def test_a_chunk_inside_a_statement_names_the_section_of_rows_it_starts_in():
    """A balance sheet's chunk that starts under "Current liabilities:" carries that label
    with the header row; after a total closes the section, none."""
    text = "\n".join(STATEMENT)
    doc = Document(SourceFile("t", "t", len(text)), "h", "application/pdf", text,
                   (TextSpan(0, len(text), BlockKind.TABLE),))
    cuts = [text.index(row) for row in ("Inventories", "Goodwill", "Accrued and other")]
    bounds = [0, *cuts, len(text)]
    chunks = [Chunk(a, b, text[a:b]) for a, b in itertools.pairwise(bounds)]
    headers = [c.metadata.get(TABLE_HEADER_KEY) for c in with_table_headers(doc, chunks)]
    assert headers == [None, f"{STATEMENT[0]}\nCurrent assets:", STATEMENT[0],
                       f"{STATEMENT[0]}\nCurrent liabilities:"]
    notes = "Revenue | 10 | 9\n(a) Inter-segment sales are not significant.\nSegment A | 3 | 2"
    assert section_marks(notes) == []  # a note under rows is a sentence, no section


def test_a_long_html_table_split_by_the_structure_strategy(tmp_path):
    cells = "".join(f"<tr><td>Part number {i}</td><td>{i * 3}</td><td>{i}.50 EUR</td></tr>"
                    for i in range(60))
    page = tmp_path / "parts.html"
    page.write_text("<html><head><title>Parts</title></head><body><h1>Parts list</h1>"
                    "<p>All parts in stock this month.</p><table><tr><th>Item</th>"
                    f"<th>Quantity</th><th>Unit price</th></tr>{cells}</table></body></html>")
    chunked = chunk_file(page, strategy="structure", size=300)
    table_chunks = [c for c in chunked.chunks if "Part number" in c.text]
    assert len(table_chunks) >= 3
    assert table_chunks[0].text.count(HEADER) == 1
    for chunk in table_chunks[1:]:
        assert HEADER not in chunk.text
        assert chunk.context.endswith(HEADER)
        assert chunk.embed_text.endswith(f"{HEADER}\n\n{chunk.text}")


def test_a_spreadsheet_s_later_row_groups_repeat_the_header():
    path = require_corpus() / "xlsx/half-year-analyses-by-segment.xlsx"
    chunked = chunk_file(path, strategy="table", size=120, unit="tokens")
    repeated = [c for c in chunked.chunks if "\n" in c.context]
    assert repeated, "some sheet is longer than one chunk"
    for chunk in repeated:
        header = chunk.context.rsplit("\n", 1)[1]
        assert header and not chunk.text.startswith(header)
        assert chunk.embed_text.endswith(f"{header}\n\n{chunk.text}")


def test_a_sheet_name_before_a_large_table_opens_its_first_chunk():
    from ragbeam.transforms.chunk.base import ChunkOptions
    from ragbeam.transforms.chunk.strategies import build_strategy

    table = "\n".join([HEADER, *_rows(40)])
    text = "Parts 2024\n\n" + table
    start = text.index(HEADER)
    doc = Document(SourceFile("t", "t", len(text)), "h", "text/csv", text,
                   (TextSpan(0, 10, BlockKind.HEADING, level=1),
                    TextSpan(start, len(text), BlockKind.TABLE)))
    chunks = build_strategy("table", ChunkOptions(unit="chars", size=300)).chunk(doc).chunks
    assert chunks[0].text.startswith(f"Parts 2024\n\n{HEADER}\nPart number 0")
    assert not any(c.text == "Parts 2024" for c in chunks)
    assert all(len(c.text) + len(c.metadata.get(TABLE_HEADER_KEY, "")) + 1 <= 300
               for c in chunks)


def test_a_csv_left_as_plain_text_repeats_its_header_row_too():
    from ragbeam.transforms.chunk.base import ChunkOptions
    from ragbeam.transforms.chunk.table import TableStrategy

    header = "Index,Customer Id,City"
    text = "\n".join([header, *(f"{i},C{i:05d},Town number {i}" for i in range(40))])
    doc = Document(SourceFile("c.csv", "c", len(text)), "h", "text/csv", text,
                   (TextSpan(0, len(text), BlockKind.PARAGRAPH),))
    chunks = TableStrategy(ChunkOptions(size=60, unit="tokens"), {}).chunk(doc).chunks
    assert len(chunks) >= 3 and chunks[0].text.startswith(header)
    assert all(c.metadata[TABLE_HEADER_KEY] == header for c in chunks[1:])
