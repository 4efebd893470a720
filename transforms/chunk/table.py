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


def with_table_headers(doc: Document, chunks: list[Chunk]) -> list[Chunk]:
    """``chunks``, each one that starts inside a table span past the table's first
    row (and has no header yet) with that row in ``metadata.table_header``."""
    tables = [(s.start, s.end) for s in doc.spans if s.kind is BlockKind.TABLE]
    if not tables:
        return chunks
    out = []
    for chunk in chunks:
        table = next(((a, b) for a, b in tables if a < chunk.start < b), None)
        if table is not None and TABLE_HEADER_KEY not in chunk.metadata:
            first_row_end = doc.text.find("\n", table[0], table[1])
            if 0 <= first_row_end < chunk.start:
                header = doc.text[table[0]:first_row_end].strip()
                chunk = replace(chunk, metadata={**chunk.metadata, TABLE_HEADER_KEY: header})
        out.append(chunk)
    return out


class TableStrategy(SizedStrategy):
    name = "table"
    PARAMS = frozenset({"header_rows"})

    def __init__(self, options: ChunkOptions, params: Mapping[str, Any]) -> None:
        super().__init__(options, params)
        self.header_rows = int(params.get("header_rows", 1))
        if self.header_rows < 0:
            raise ValueError("table: header_rows must be >= 0")

    def _table_chunks(self, doc: Document, start: int, end: int, headings: HeadingIndex,
                      lead: int = 0) -> tuple[list[Chunk], int]:
        """Row groups of one table; ``lead``: room kept free for a heading before it."""
        text = doc.text
        rows = units_between(text, record_starts(text, start, end), start, end)
        header = rows[:self.header_rows]
        header_text = text[header[0][0]:header[-1][1]] if header else ""
        header_size = self.sizer.span(text, header[0][0], header[-1][1]) if header else 0
        if header_size > self.size // 2:  # a header this large is not worth repeating
            header, header_text, header_size = [], "", 0
        body = rows[len(header):]
        # Room for the header and the line break after it, so that the first group
        # can start with the header and every other group fits with it repeated.
        budget = self.size - header_size - (1 if header else 0) - lead
        spans, hard_cuts = pack_units(text, body, max(budget, 1), self.sizer)
        if header:  # the first group starts with the header itself, when it fits
            if spans and self.sizer.span(text, header[0][0], spans[0][1]) <= self.size:
                spans[0] = (header[0][0], spans[0][1])
            else:
                spans.insert(0, (header[0][0], header[-1][1]))
        chunks = spans_to_chunks(doc, spans, headings)
        for i, chunk in enumerate(chunks):
            if header_text and i > 0:
                chunks[i] = replace(chunk, metadata={TABLE_HEADER_KEY: header_text})
        return chunks, hard_cuts

    def chunk(self, doc: Document) -> ChunkingResult:
        headings = HeadingIndex(doc)
        tables: list[Span] = [(s.start, s.end) for s in doc.spans if s.kind is BlockKind.TABLE]
        if not tables and doc.text.strip():
            tables = [(0, len(doc.text))]
        chunks: list[Chunk] = []
        hard_cuts = 0
        cursor = 0
        heading_ends = {s.end for s in doc.spans if s.kind is BlockKind.HEADING}
        for start, end in [*tables, (len(doc.text), len(doc.text))]:
            prose = split_recursive(doc.text, self.size, self.sizer, self.overlap, cursor, start)
            prose_spans = prose.spans
            hard_cuts += prose.hard_cuts
            if start < end:
                lead = (self.sizer.span(doc.text, prose_spans[-1][0], start)
                        if prose_spans and prose_spans[-1][1] in heading_ends else 0)
                lead = lead if lead <= self.size // 4 else 0
                table_chunks, table_hard_cuts = self._table_chunks(doc, start, end, headings,
                                                                   lead)
                # A heading right before the table (a sheet's name) opens its first chunk.
                if (prose_spans and prose_spans[-1][1] in heading_ends and table_chunks
                        and self.sizer.span(doc.text, prose_spans[-1][0], table_chunks[0].end)
                        <= self.size):
                    first = table_chunks[0]
                    table_chunks[0] = replace(
                        first, start=prose_spans[-1][0],
                        text=doc.text[prose_spans[-1][0]:first.end],
                        heading_path=headings.path_at(prose_spans[-1][0]))
                    prose_spans = prose_spans[:-1]
                chunks.extend(spans_to_chunks(doc, prose_spans, headings))
                chunks.extend(table_chunks)
                hard_cuts += table_hard_cuts
            else:
                chunks.extend(spans_to_chunks(doc, prose_spans, headings))
            cursor = end
        return ChunkingResult(chunks, {"hard_cuts": hard_cuts, "tables": len(tables)})
