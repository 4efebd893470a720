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

A table's title travels the same way (``table_titles``): the short blocks right
before it on its page (a statement's name, its unit line, "The following table
shows …:") open its first chunk when they fit, and every chunk that starts inside
the table carries them in ``metadata.table_title``, before the header in its
``context``. With the row labels that PDF tables keep in their first cell
(``clean/tables.py``), a number in any piece of a table stands beside its row's
label, its column's header and the table's name.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Collection, Mapping
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
from ragbeam.transforms.types import TABLE_HEADER_LEVEL, BlockKind, Chunk, Document

TABLE_HEADER_KEY = "table_header"
TABLE_TITLE_KEY = "table_title"
# The title of a table: the blocks right before it on its page (a statement's name, its
# company, its period, its unit line), at most this many, each this short; a longer
# block is prose about the table, not its name (a book's credits before its contents
# table)…
TITLE_MAX_BLOCKS = 3
TITLE_MAX_WORDS = 16
TITLE_MAX_CHARS = 120  # CJK titles have few spaces
# …except a caption, which ends with a colon ("The following table shows the
# components of lease expense:").
CAPTION_MAX_WORDS = 40
CAPTION_MAX_CHARS = 300
# A block that ends a sentence is prose (a title or a unit line does not; a caption
# ends with a colon).
_SENTENCE_END = re.compile(r"[.!?。！？][\"'”’)\]]*$")


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


def table_titles(doc: Document, tables: list[Span]) -> dict[int, list[Span]]:
    """Each table's title, by the table's start: the blocks right before it that name
    it, nearest last. A block belongs to the title when it is short (at most
    ``TITLE_MAX_WORDS`` words and ``TITLE_MAX_CHARS`` characters, or a caption of up
    to ``CAPTION_MAX_WORDS`` words that ends with a colon), does not end a sentence,
    and is on the page where the table starts; at most ``TITLE_MAX_BLOCKS`` of them,
    up to a longer block, a sentence, another table or a page break. When another
    table stands right above, the block next to it is that table's note ("See
    accompanying notes …"), not this one's title, unless it is all there is."""
    if not tables:
        return {}
    spans = doc.spans
    titles: dict[int, list[Span]] = {}
    starts = [span.start for span in spans]
    for table_start, _ in tables:
        index = bisect.bisect_left(starts, table_start) - 1
        page = spans[index + 1].page if index + 1 < len(spans) else None
        found: list[Span] = []
        after_table = False
        while index >= 0 and len(found) < TITLE_MAX_BLOCKS:
            first = index  # the spans of one block are the lines of one paragraph
            while (first > 0 and spans[first].block >= 0
                   and spans[first - 1].block == spans[first].block):
                first -= 1
            kind = spans[index].kind
            if kind is BlockKind.TABLE:
                after_table = True
                break
            if any(spans[i].page != page for i in range(first, index + 1)):
                break
            start, end = spans[first].start, spans[index].end
            words = doc.text[start:end].split()
            if not words or not _title_like(words, end - start):
                break
            found.insert(0, (start, end))
            index = first - 1
        if after_table and len(found) > 1:
            found.pop(0)
        if found:
            titles[table_start] = found
    return titles


def _title_like(words: list[str], chars: int) -> bool:
    """Whether a block of these words (``chars`` long) can be part of a table's title:
    short and not a sentence, or a longer caption that ends with a colon."""
    if _SENTENCE_END.search(words[-1]):
        return False
    if len(words) <= TITLE_MAX_WORDS and chars <= TITLE_MAX_CHARS:
        return True
    return (words[-1].endswith((":", "：")) and len(words) <= CAPTION_MAX_WORDS
            and chars <= CAPTION_MAX_CHARS)


def title_text(doc: Document, title: list[Span], heading_path: tuple[str, ...] = ()) -> str:
    """A table's title on one line, leaving out what the heading path says already."""
    said = {" ".join(heading.split()) for heading in heading_path}
    parts = [" ".join(doc.text[a:b].split()) for a, b in title]
    return " ".join(part for part in parts if part not in said)


def with_table_headers(doc: Document, chunks: list[Chunk], header_rows: int = 1,
                       tables: list[Span] | None = None) -> list[Chunk]:
    """``chunks``, each one that starts inside a table past its header (its first
    ``header_rows`` rows), and has no header yet, with that header in
    ``metadata.table_header``; and each one that starts inside a table without the
    table's title (``table_titles``) in its text, with the title in
    ``metadata.table_title``. ``tables``: the tables' ranges, if not the document's
    table spans (``table_regions``)."""
    tables = table_regions(doc) if tables is None else tables
    if not tables:
        return chunks
    titles = table_titles(doc, tables)
    starts = [a for a, _ in tables]
    # A table the caller names that is no table span of the document (a CSV read as
    # plain text: ``TableStrategy``) has the header the caller's ``header_rows`` says.
    spans_at = {s.start for s in doc.spans if s.kind is BlockKind.TABLE}
    headed = _headed_tables(doc) | {a for a, _ in tables if a not in spans_at}
    ends = dict(tables)
    continued = continued_tables(doc, tables, headed)
    sections: dict[Span, list[tuple[int, str | None]]] = {}  # each table's, read once
    out = []
    for chunk in chunks:
        at = bisect.bisect_right(starts, chunk.start) - 1
        if at < 0 or chunk.start >= tables[at][1]:
            out.append(chunk)  # it starts outside every table
            continue
        table = tables[at]
        # The part of a table that goes on past a page takes the title of the part it
        # continues where it has none, and its header where it repeats none.
        origin = continued.get(table[0], table[0])
        # A chunk that starts inside a table does not hold the title before it.
        title = titles.get(table[0]) or titles.get(origin)
        if title and TABLE_TITLE_KEY not in chunk.metadata:
            text = title_text(doc, title, chunk.heading_path)
            if text:
                chunk = replace(chunk, metadata={**chunk.metadata, TABLE_TITLE_KEY: text})
        # One that starts at a headed table's first row holds the header itself; a
        # continued part without a header of its own opens with a body row.
        head: Span | None = None
        if table[0] in headed:
            head = table if table[0] < chunk.start else None
        elif origin in headed:
            head = (origin, ends[origin])
        if head is not None and header_rows >= 1 and TABLE_HEADER_KEY not in chunk.metadata:
            header_end = head[0] - 1
            for _ in range(header_rows):
                header_end = doc.text.find("\n", header_end + 1, head[1])
                if header_end < 0:
                    break
            if header_end >= 0 and (header_end < chunk.start or head != table):
                header = doc.text[head[0]:header_end].strip()
                # …and the section of rows it starts in ("Current liabilities:")
                marks = sections.get(table)
                if marks is None:
                    marks = sections[table] = section_marks(doc.text, *table)
                section = _open_section(marks, max(header_end, table[0]), chunk.start)
                if section:
                    header = f"{header}\n{section}"
                chunk = replace(chunk, metadata={**chunk.metadata, TABLE_HEADER_KEY: header})
        out.append(chunk)
    return out


# A section's label among a table's rows: a row of one cell, a few words, no total.
MAX_SECTION_LABEL_WORDS = 8
_TOTAL = re.compile(r"^(?:total|net|subtotal)\b", re.IGNORECASE)


def section_marks(text: str, start: int = 0, end: int | None = None
                  ) -> list[tuple[int, str | None]]:
    """Where the sections of a table's rows (``text[start:end]``, one row a line, cells
    apart by ``" | "``) open and close, in order: ``(offset, label)`` at each row of a
    label alone ("Current liabilities:", "Operating expenses:"; no sentence: "(a)
    Inter-segment sales are not significant." is a note), ``(offset, None)`` at each
    total that closes one ("Total current liabilities | 10,631 | 6,563"). Read once a
    table: each chunk then looks its section up (``_open_section``)."""
    end = len(text) if end is None else end
    marks: list[tuple[int, str | None]] = []
    at = start
    while at < end:
        stop = text.find("\n", at, end)
        stop = end if stop < 0 else stop
        line = text[at:stop].strip()
        if line and _TOTAL.match(line):
            marks.append((at, None))
        elif (line and " | " not in line and len(line.split()) <= MAX_SECTION_LABEL_WORDS
              and not any(ch.isdigit() for ch in line)
              and not line.endswith((".", "。"))):  # a note under rows is a sentence
            marks.append((at, line))
        at = stop + 1
    return marks


def _open_section(marks: list[tuple[int, str | None]], after: int, before: int
                  ) -> str | None:
    """The section ``marks`` leave open at ``before``, counting only marks from ``after``."""
    at = bisect.bisect_left(marks, before, key=lambda mark: mark[0]) - 1
    return marks[at][1] if at >= 0 and marks[at][0] >= after else None


# Between the part of a table that ends a page and the part that opens the next, at
# most this many characters (a stray mark, "®"), and no word: else the text between
# them is the reader's, and the second table a table of its own.
MAX_CHARS_BETWEEN_PARTS = 3
# ... unless the words all stand at the foot of the first part's page (a source line, a
# footnote under the table) and the next page's part opens with a body row: a new table
# would open with its header or a title on its own page. At most this many characters,
# a note's length, not a page of prose.
MAX_CHARS_OF_FOOT_NOTE = 500


def continued_tables(doc: Document, tables: list[Span],
                     headed: Collection[int] = ()) -> dict[int, int]:
    """The tables (by start) that go on with a table before them, each mapped to the
    start of the table's first part: a table that opens a page right after one that
    closed the page before with as many columns, nothing but a stray mark between
    them, or a note at the foot of the first part's page where the later part opens
    with a body row (its start not in ``headed``). Cleaning joins such parts into one
    table where the later part has no header and its lines follow on
    (``clean/document._mark_tables``); this finds the others, a part that repeats the
    header and one after a page's remains."""
    out: dict[int, int] = {}
    for (a0, b0), (a1, b1) in itertools.pairwise(tables):
        _, last_page = doc.pages_of(a0, b0)
        first_page, _ = doc.pages_of(a1, b1)
        if (last_page is None or first_page != last_page + 1
                or _columns_of(doc.text[a0:b0]) != _columns_of(doc.text[a1:b1])):
            continue
        between = doc.text[b0:a1]
        words = between.strip()
        stray_mark = (len(words) <= MAX_CHARS_BETWEEN_PARTS
                      and not any(c.isalnum() for c in words))
        if not stray_mark:
            note_start = b0 + len(between) - len(between.lstrip())
            note_end = a1 - (len(between) - len(between.rstrip()))
            foot_note = (a1 not in headed and len(words) <= MAX_CHARS_OF_FOOT_NOTE
                         and doc.pages_of(note_start, note_end) == (last_page, last_page))
            if not foot_note:
                continue
        out[a1] = out.get(a0, a0)
    return out


def _columns_of(rows: str) -> int:
    """A table's columns: the most cells a row of it has (``cell | cell`` rows)."""
    return max(row.count("|") + 1 for row in rows.split("\n"))


def _headed_tables(doc: Document) -> set[int]:
    """The starts of the tables that open with a header row: a table block of a DOCX, a
    web page or a sheet (its extractor writes the header first), and a PDF table whose
    first row cleaning marked as its header (``TABLE_HEADER_LEVEL``); a PDF table found
    without one, or the part of one that goes on past a page, opens with a body row,
    which is no header for the chunks after it."""
    headed: set[int] = set()
    block: int | None = None
    for span in doc.spans:
        if span.kind is not BlockKind.TABLE:
            block = None
            continue
        if not (span.block >= 0 and span.block == block):  # the table's first span
            whole_table = "\n" in doc.text[span.start:span.end].strip()
            if whole_table or span.level == TABLE_HEADER_LEVEL:
                headed.add(span.start)
        block = span.block
    return headed


def table_row_spans(text: str, start: int, end: int, size: int, sizer: Sizer,
                    header_rows: int = 1, lead: int = 0) -> tuple[list[Span], int]:
    """Groups of whole rows of the table ``text[start:end]`` and the hard cuts: the
    first ``header_rows`` rows are its header, the others packed whole up to ``size``
    minus the header's size, so every group fits with the header repeated (a header
    over half of ``size`` is not repeated); the first group starts with the header
    itself. ``lead``: room kept free in the first group for a title before it (the
    first group alone is the shorter)."""
    rows = units_between(text, record_starts(text, start, end), start, end)
    header = rows[:header_rows]
    header_size = sizer.span(text, header[0][0], header[-1][1]) if header else 0
    if header_size > size // 2:  # a header this large is not worth repeating
        header, header_size = [], 0
    body = rows[len(header):]
    # Room for the header and the line break after it, so that the first group
    # can start with the header and every other group fits with it repeated.
    budget = max(size - header_size - (1 if header else 0), 1)
    first: list[Span] = []
    if lead and body:  # the rows that fit beside the title
        taken = 0
        while (taken < len(body)
               and sizer.span(text, body[0][0], body[taken][1]) <= budget - lead):
            taken += 1
        if taken:
            first, body = [(body[0][0], body[taken - 1][1])], body[taken:]
    spans, hard_cuts = pack_units(text, body, budget, sizer)
    spans = first + spans
    if header:  # the first group starts with the header itself, when it fits
        if spans and sizer.span(text, header[0][0], spans[0][1]) <= size:
            spans[0] = (header[0][0], spans[0][1])
        else:
            spans.insert(0, (header[0][0], header[-1][1]))
    return spans, hard_cuts


def split_keeping_tables(text: str, tables: list[Span], size: int, overlap: int,
                         sizer: Sizer, start: int = 0, end: int | None = None,
                         header_rows: int = 1, title_ends: set[int] | None = None,
                         titles: Mapping[int, list[Span]] | None = None
                         ) -> tuple[list[Span], int]:
    """``text[start:end]`` split as the recursive strategy splits it, but each table
    in it (``tables``) cut only between rows, into groups that fit with its header
    (``table_row_spans``); and the hard cuts. A table's title (``titles``, from
    ``table_titles``) is a piece of its own, which opens the table's first group
    when title, header and a first row fit ``size`` together and the title is at
    most half of it. Without a title found, the piece of text right before a table
    opens its first group when it fits: one that ends at one of ``title_ends`` (a
    heading), or, without those, one of at most a quarter of ``size`` (a caption)."""
    end = len(text) if end is None else end
    inside = [(a, b) for a, b in tables if start <= a < b <= end]
    spans: list[Span] = []
    hard_cuts = 0
    cursor = start
    for table_start, table_end in [*inside, (end, end)]:
        found = (titles or {}).get(table_start) if table_start < table_end else None
        title_start = next((a for a, _ in found or () if a >= cursor), None)
        prose = split_recursive(text, size, sizer, overlap, cursor,
                                table_start if title_start is None else title_start)
        prose_spans = list(prose.spans)
        hard_cuts += prose.hard_cuts
        if table_start < table_end:
            if title_start is not None:
                named = split_recursive(text, size, sizer, 0, title_start, table_start)
                prose_spans.extend(named.spans)
                hard_cuts += named.hard_cuts
                title = prose_spans[-1] if len(named.spans) == 1 else None
                limit = size // 2
            else:
                title = prose_spans[-1] if prose_spans else None
                limit = size // 4
                if title is not None and title_ends is not None and title[1] not in title_ends:
                    title = None
            lead = sizer.span(text, title[0], table_start) if title else 0
            if title is None or lead > limit:
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
                                                title_ends=heading_ends,
                                                titles=table_titles(doc, tables))
        chunks = with_table_headers(doc, spans_to_chunks(doc, spans, headings), self.header_rows,
                                    tables)
        return ChunkingResult(chunks, {"hard_cuts": hard_cuts, "tables": len(tables)})
