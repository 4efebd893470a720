"""Table chunking: groups of whole rows, the header repeated with every group.

Tables are the document's table spans (``BlockKind.TABLE``: one ``cell | cell``
line per row, as extraction writes them, for XLSX sheets, CSV parsed by Tika
and tables inside documents). A document routed here that has no table spans
(a CSV or TSV Tika left as plain text) is read as one table of lines, where a
record continues over line breaks inside double quotes.

In each table the first ``header_rows`` rows (default 1) are the header; the
other rows are packed whole, up to ``size`` minus the header's size, so
header and rows together stay within the cap (a header over half of ``size``
is not repeated). The first group starts with the header itself; every later
group gets it in ``metadata.table_header``, which the writer puts into the
chunk's ``context`` (and ``embed_text``), so chunk text and offsets stay exact.
Text between tables is chunked recursively; a heading right before a table (a
sheet's name) opens the table's first chunk when it fits, rather than standing
alone.

Every other strategy gets the same for the tables inside its documents
(``with_table_headers``, applied by ``records.chunk_rows``): a chunk that
starts inside a table after its first row carries that row in
``metadata.table_header``, hence at the end of its ``context``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ragbeam.transforms.chunk.base import (
    ChunkingResult,
    ChunkOptions,
    HeadingIndex,
    SizedStrategy,
    spans_to_chunks,
)
from ragbeam.transforms.chunk.recursive import split_recursive
from ragbeam.transforms.chunk.sizing import Sizer
from ragbeam.transforms.chunk.units import Span, pack_units, units_between
from ragbeam.transforms.types import BlockKind, Chunk, Document

TABLE_HEADER_KEY = "table_header"


def record_starts(text: str, start: int, end: int) -> list[int]:
    """Offsets after each line break in ``text[start:end]`` that ends a record:
    a line break inside an open double-quoted field does not."""
    starts = []
    quoted = False
    pos = start
    while pos < end:
        newline = text.find("\n", pos, end)
        line_end = end if newline == -1 else newline
        quoted ^= text.count('"', pos, line_end) % 2 == 1
        if newline == -1:
            break
        if not quoted:
            starts.append(newline + 1)
        pos = newline + 1
    return starts


def table_regions(doc: Document) -> list[Span]:
    """Each table of ``doc`` as one span: a table block of a DOCX or a sheet is one
    span, a PDF table (``clean/tables.py``) a span per row, the rows of one table
    sharing their cleaned ``block``."""
    regions: list[Span] = []
    block: int | None = None
    for span in doc.spans:
        if span.kind is not BlockKind.TABLE:
            block = None
            continue
        if regions and span.block >= 0 and span.block == block:
            regions[-1] = (regions[-1][0], span.end)
        else:
            regions.append((span.start, span.end))
        block = span.block
    return regions


def with_table_headers(doc: Document, chunks: list[Chunk], header_rows: int = 1,
                       tables: list[Span] | None = None) -> list[Chunk]:
    """``chunks``, each one that starts inside a table past its header (its first
    ``header_rows`` rows), and has no header yet, with that header in
    ``metadata.table_header``; ``tables``: the tables' ranges, if not the document's
    table spans (``table_regions``)."""
    tables = table_regions(doc) if tables is None else tables
    if not tables or header_rows < 1:
        return chunks
    out = []
    for chunk in chunks:
        table = next(((a, b) for a, b in tables if a < chunk.start < b), None)
        if table is not None and TABLE_HEADER_KEY not in chunk.metadata:
            header_end = table[0] - 1
            for _ in range(header_rows):
                header_end = doc.text.find("\n", header_end + 1, table[1])
                if header_end < 0:
                    break
            if 0 <= header_end < chunk.start:
                header = doc.text[table[0]:header_end].strip()
                chunk = replace(chunk, metadata={**chunk.metadata, TABLE_HEADER_KEY: header})
        out.append(chunk)
    return out


def table_row_spans(text: str, start: int, end: int, size: int, sizer: Sizer,
                    header_rows: int = 1, lead: int = 0) -> tuple[list[Span], int]:
    """Groups of whole rows of the table ``text[start:end]`` and the hard cuts: the
    first ``header_rows`` rows are its header, the others packed whole up to ``size``
    minus the header's size, so every group fits with the header repeated (a header
    over half of ``size`` is not repeated); the first group starts with the header
    itself. ``lead``: room kept free in the first group for a title before it."""
    rows = units_between(text, record_starts(text, start, end), start, end)
    header = rows[:header_rows]
    header_size = sizer.span(text, header[0][0], header[-1][1]) if header else 0
    if header_size > size // 2:  # a header this large is not worth repeating
        header, header_size = [], 0
    body = rows[len(header):]
    # Room for the header and the line break after it, so that the first group
    # can start with the header and every other group fits with it repeated.
    budget = size - header_size - (1 if header else 0) - lead
    spans, hard_cuts = pack_units(text, body, max(budget, 1), sizer)
    if header:  # the first group starts with the header itself, when it fits
        if spans and sizer.span(text, header[0][0], spans[0][1]) <= size:
            spans[0] = (header[0][0], spans[0][1])
        else:
            spans.insert(0, (header[0][0], header[-1][1]))
    return spans, hard_cuts


def split_keeping_tables(text: str, tables: list[Span], size: int, overlap: int,
                         sizer: Sizer, start: int = 0, end: int | None = None,
                         header_rows: int = 1, title_ends: set[int] | None = None
                         ) -> tuple[list[Span], int]:
    """``text[start:end]`` split as the recursive strategy splits it, but each table
    in it (``tables``) cut only between rows, into groups that fit with its header
    (``table_row_spans``); and the hard cuts. The piece of text right before a
    table opens the table's first group when it fits: a title that ends at one of
    ``title_ends`` (a heading), or, without those, one of at most a quarter of
    ``size`` (a caption, "The following table shows …")."""
    end = len(text) if end is None else end
    inside = [(a, b) for a, b in tables if start <= a < b <= end]
    spans: list[Span] = []
    hard_cuts = 0
    cursor = start
    for table_start, table_end in [*inside, (end, end)]:
        prose = split_recursive(text, size, sizer, overlap, cursor, table_start)
        prose_spans = list(prose.spans)
        hard_cuts += prose.hard_cuts
        if table_start < table_end:
            title = prose_spans[-1] if prose_spans else None
            lead = sizer.span(text, title[0], table_start) if title else 0
            if title is None or lead > size // 4 or (title_ends is not None
                                                    and title[1] not in title_ends):
                title, lead = None, 0
            rows, cuts = table_row_spans(text, table_start, table_end, size, sizer,
                                         header_rows, lead)
            hard_cuts += cuts
            if title is not None and rows and sizer.span(text, title[0], rows[0][1]) <= size:
                rows[0] = (title[0], rows[0][1])
                prose_spans.pop()
            spans.extend(prose_spans)
            spans.extend(rows)
        else:
            spans.extend(prose_spans)
        cursor = table_end
    return spans, hard_cuts


class TableStrategy(SizedStrategy):
    name = "table"
    PARAMS = frozenset({"header_rows"})

    def __init__(self, options: ChunkOptions, params: Mapping[str, Any]) -> None:
        super().__init__(options, params)
        self.header_rows = int(params.get("header_rows", 1))
        if self.header_rows < 0:
            raise ValueError("table: header_rows must be >= 0")

    def chunk(self, doc: Document) -> ChunkingResult:
        headings = HeadingIndex(doc)
        tables = table_regions(doc)
        if not tables and doc.text.strip():
            tables = [(0, len(doc.text))]
        heading_ends = {s.end for s in doc.spans if s.kind is BlockKind.HEADING}
        spans, hard_cuts = split_keeping_tables(doc.text, tables, self.size, self.overlap,
                                                self.sizer, header_rows=self.header_rows,
                                                title_ends=heading_ends)
        chunks = with_table_headers(doc, spans_to_chunks(doc, spans, headings), self.header_rows,
                                    tables)
        return ChunkingResult(chunks, {"hard_cuts": hard_cuts, "tables": len(tables)})
