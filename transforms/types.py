"""The records that flow between pipeline stages.

One document travels as: ``SourceFile`` (matched) → ``FetchedFile`` (bytes read,
hashed) → ``ExtractedDocument`` (Tika's structure, inside the Extract stage) →
``CleanedExtraction`` (the Extract stage's output: cleaned, or refused) →
``Document`` (cleaned text plus a span map back to pages and raw offsets) →
``Chunk``s (exact offsets into ``Document.text``). A stage that cannot go on
emits a ``Failure`` instead; the writer turns it into an ``error`` row of the
documents table and a dead letter.

These are plain dataclasses so every stage, and every test, can build them
without Beam.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import Any, NamedTuple

# The one output tag under which every stage emits the ``Failure``s of documents
# it could not process (``beam.ParDo(...).with_outputs(FAILURES, main=...)``).
FAILURES = "failures"


class Stage(StrEnum):
    """Pipeline stage names, as written to ``errors.stage``."""

    MATCH = "match"
    READ = "read"
    EXTRACT = "extract"
    CLEAN = "clean"
    ROUTE = "route"
    CHUNK = "chunk"
    EMBED = "embed"
    WRITE = "write"


@dataclass(frozen=True)
class SourceFile:
    """A matched input file, before anything is read.

    ``modified`` is the modification time the listing reported (seconds since the
    epoch; 0.0 where the filesystem gives none) and ``listed`` when the listing
    was made: an incremental run compares them with the previous run's to skip
    reading files that did not change (``transforms/plan/decide.py``).
    """

    uri: str
    doc_id: str
    size_bytes: int
    modified: float = 0.0
    listed: float = 0.0


@dataclass(frozen=True)
class FetchedFile:
    """A file's bytes, read once, and their sha256."""

    source: SourceFile
    data: bytes
    content_hash: str


class BlockKind(StrEnum):
    HEADING = "heading"
    PARAGRAPH = "paragraph"
    LIST_ITEM = "list_item"
    TABLE = "table"
    CODE = "code"
    # A contents page's or an index's lines (``transforms/clean/contents.py``): how a
    # reader finds things in the document, not what it says.
    CONTENTS = "contents"


@dataclass(frozen=True)
class Block:
    """One structural unit of an extracted document, in reading order.

    ``raw_start``/``raw_end`` locate the block in ``ExtractedDocument.raw_text``
    (the concatenated text nodes of Tika's XHTML), so cleaned text can always be
    traced back to what Tika produced.
    """

    kind: BlockKind
    text: str
    page: int | None = None
    level: int = 0  # heading level 1..6; 0 for non-headings
    raw_start: int = -1
    raw_end: int = -1
    # Text outside the reading flow (a PDF link annotation's target URL):
    # cleaning may move it after the paragraph it would otherwise interrupt.
    detached: bool = False


class LineStyle(NamedTuple):  # a tuple: long PDFs have tens of thousands of lines
    """How one line of a PDF page looks (``transforms/extract/layout.py``): where it
    sits and in what font. ``raw_start``/``raw_end`` is the Tika line it belongs to,
    in ``ExtractedDocument.raw_text``; positions are PDF points from the page's
    top-left corner as it is displayed (rotation applied), so ``top < bottom``."""

    raw_start: int
    raw_end: int
    page: int  # 1-based
    x0: float
    top: float
    x1: float
    bottom: float
    size: float  # font size of the line's middle character, points
    bold: bool  # its first, middle and last letters are set in a bold font
    rotated: bool = False  # set at an angle (a margin stamp), not horizontally
    # The font of its first, middle and last letters, as the PDF names it ("" when not
    # measured or when they differ): a heading set at the body's size in another
    # face (bold, italic, small capitals) differs from the body here even where the
    # PDF hides the weight.
    font: str = ""
    # Offsets in the line (from ``raw_start``) before which a space belongs: Tika ran two
    # words together there that the glyphs set a word's gap apart (a PDF that sets no
    # space glyphs; ``layout.missing_spaces``). Cleaning inserts them.
    spaces: tuple[int, ...] = ()
    # A line with wide gaps between its words (a table's row, or cells of one): its
    # pieces between the gaps, each as ``(raw_start, x0, x1)``, left to right; empty
    # for a line set as one run (``transforms/extract/layout.py`` reads them only for
    # lines set wider than their letters need, ``transforms/clean/tables.py`` uses them).
    cells: tuple[tuple[int, float, float], ...] = ()
    # The font of its first letter where it differs from its middle letter's ("" where
    # they agree or were not measured): a run-in label set bold over a regular line.
    lead_font: str = ""


@dataclass(frozen=True)
class PdfLayout:
    """What a PDF's pages look like, aligned to Tika's text: each page's displayed
    size and the style of every Tika line PDFium also found, sorted by
    ``raw_start`` (lines do not overlap). Tika stays the text source; this says
    where its lines are and how they are set."""

    page_sizes: tuple[tuple[float, float], ...]  # (width, height) of page 1, 2, …
    lines: tuple[LineStyle, ...]

    @cached_property
    def _starts(self) -> list[int]:
        return [line.raw_start for line in self.lines]

    def style_of(self, raw_start: int, raw_end: int) -> LineStyle | None:
        """The style of the Tika line that holds ``[raw_start, raw_end)``, if known."""
        index = bisect.bisect_right(self._starts, raw_start) - 1
        if index < 0:
            return None
        line = self.lines[index]
        return line if raw_start < line.raw_end and raw_end > line.raw_start else None


class LineKind(StrEnum):
    """How a format's lines were written, as its reader declares it
    (``transforms/extract/readers.py``): what cleaning may join."""

    AS_WRITTEN = "as_written"  # markup, mail, office documents: lines as the author made them
    PRINTED = "printed"  # printed pages (PDF): hard-wrapped, hyphenated, with page furniture
    TYPED = "typed"  # plain text: joined only where it is hard-wrapped


@dataclass(frozen=True)
class ExtractedDocument:
    """What extraction produced for one file."""

    source: SourceFile
    content_hash: str
    media_type: str
    raw_text: str
    blocks: tuple[Block, ...]
    metadata: Mapping[str, str]
    page_count: int | None = None
    title: str | None = None
    language: str | None = None
    # PDFs: where each line sits and how it is set (None for other formats, or when
    # PDFium could not read the file); cleaning uses it for furniture and headings.
    layout: PdfLayout | None = None
    # How the format's lines were written (its reader's declaration).
    lines: LineKind = LineKind.AS_WRITTEN


@dataclass(frozen=True)
class CleanedExtraction:
    """The Extract stage's output for one file, whatever its pool: the extracted
    document cleaned (``document``), or why cleaning refused it (``error``).

    Where the cleaning ran, in the extraction child or in this process, is the
    pool's business (``transforms/extract/settings.py``); the Clean stage hands
    ``document`` on or reports ``error`` as its own failure, with the same
    metrics either way.
    """

    source: SourceFile
    content_hash: str
    media_type: str
    metadata: Mapping[str, str]  # the extracted document's (what Extract counts from)
    document: Document | None  # None when cleaning raised
    error: tuple[str, str] | None  # (exception class name, message)
    clean_ms: int


# ``TextSpan.level`` of a PDF table's header row (its body rows have 0): what a chunk that
# starts inside the table repeats as its header (``chunk/table.with_table_headers``).
TABLE_HEADER_LEVEL = 1


@dataclass(frozen=True)
class TextSpan:
    """Where one cleaned block, or one line of it, sits in ``Document.text``.

    Cleaning may emit several spans per block (one per source line of a PDF
    paragraph, so pages and raw offsets stay exact when a paragraph crosses a
    page); ``block`` numbers the cleaned blocks, so spans of one block share it.
    """

    start: int
    end: int
    kind: BlockKind
    page: int | None = None
    # A heading's level; a PDF table row's: ``TABLE_HEADER_LEVEL`` for a header row.
    level: int = 0
    raw_start: int = -1
    raw_end: int = -1
    block: int = -1


@dataclass(frozen=True)
class Document:
    """A cleaned document: the text every chunk's offsets refer to.

    ``spans`` are sorted, non-overlapping, and cover every non-whitespace
    character of ``text``; they carry the page, heading level and raw offsets
    of each block.
    """

    source: SourceFile
    content_hash: str
    media_type: str
    text: str
    spans: tuple[TextSpan, ...] = ()
    metadata: Mapping[str, str] = field(default_factory=dict)
    title: str | None = None
    language: str | None = None
    page_count: int | None = None

    @property
    def doc_id(self) -> str:
        return self.source.doc_id

    @cached_property
    def _span_starts(self) -> list[int]:
        return [s.start for s in self.spans]

    def _span_index(self, offset: int) -> int:
        return max(bisect.bisect_right(self._span_starts, offset) - 1, 0)

    def pages_of(self, start: int, end: int) -> tuple[int | None, int | None]:
        """First and last page touched by ``text[start:end]`` (None if unknown)."""
        if not self.spans or end <= start:
            return None, None
        first = self.spans[self._span_index(start)].page
        last = self.spans[self._span_index(max(end - 1, start))].page
        return first, last

    def raw_range_of(self, start: int, end: int) -> tuple[int, int]:
        """Offsets in the raw extracted text that ``text[start:end]`` came from."""
        if not self.spans or end <= start:
            return -1, -1
        return (
            self.spans[self._span_index(start)].raw_start,
            self.spans[self._span_index(max(end - 1, start))].raw_end,
        )


class ChunkLevel(StrEnum):
    CHUNK = "chunk"
    PARENT = "parent"
    CHILD = "child"


@dataclass(frozen=True)
class Chunk:
    """A piece of a document: ``text == document.text[start:end]``, always.

    ``parent`` is the index, in the same strategy output, of this chunk's parent
    (parent-child strategy); the writer turns it into the parent's chunk id.
    """

    start: int
    end: int
    text: str
    level: ChunkLevel = ChunkLevel.CHUNK
    parent: int | None = None
    heading_path: tuple[str, ...] = ()
    metadata: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Failure:
    """A document that could not go on, and why. Becomes an ``error`` row."""

    source: SourceFile
    stage: Stage
    error_type: str
    message: str
    content_hash: str | None = None
    media_type: str | None = None


@dataclass(frozen=True)
class RouteDecision:
    """The Route stage's answer for one document: the strategy that chunks it, why,
    and the routing table's parameters for it (``transforms/route``)."""

    strategy: str
    reason: str
    params: Mapping[str, Any] = field(default_factory=dict)
    basis: str = "default"  # short, for metrics: forced, rule:<name>, content:<signal>
