"""Tables on PDF pages, found from where their text sits (pure).

Tika's PDF text has no tables: a financial statement reaches cleaning as lines
("Products $ 96,388 $ 104,429"), its column headers as scattered lines above
("December 31," / "2022" / "December 25," / "2021"). The layout pass
(``transforms/extract/layout.py``) places every Tika line and, for a line set
wider than its letters need, the runs of words between its wide gaps
(``LineStyle.cells``). From those boxes, per page:

1. **Rows.** Lines whose boxes share a band of the page are one visual row; its
   pieces (a line's cells, or the line itself) left to right are its cells. A
   lone currency sign is one cell with the amount after it ("$ 96,388"), also where
   Tika gave it in one piece with the amount before it ("100.0 $": a row whose signs
   stand before their amounts), a lone
   "%" with the number before it, and pieces closer than ``CELL_GAP`` line
   heights are one cell (Tika cut a cell into two lines).
2. **Columns.** A run of rows with two or more cells, label rows ("Net sales:",
   one cell left of every value column) allowed between them, is a candidate;
   its columns are the bands where the cells of those rows overlap.
3. **Header rows.** The rows right above the first row that holds a value
   (an amount, a percentage, a dash for none; a bare year is a header's) whose
   cells sit over the value columns: the periods of a statement, a data sheet's
   "Min Typ Max"; a line alone in brackets over the value columns, "(In millions)",
   is one of them. Stacked headers become one header row, each column's header
   its cells top to bottom ("Three Months Ended December 31, 2022"). A cell over
   two or more columns is written once, in the first column it covers, the others
   left empty (as a spreadsheet keeps a merged cell): the table's text never holds
   a word more often than the page prints it (a whole row Tika gave as one line,
   taken for a header, would otherwise land in every column).
4. **Wrapped cells.** A label row that does not end a section (no colon) with
   the next row's label starting in lower case is the first line of that label;
   a row with neither a label nor a value continues the cells of the row above.
5. **What is no table**: prose in two columns (long or wide cells), a table of contents
   (one column of page numbers), a list (bullets or numbers in the first column),
   a form (check boxes), and anything with fewer than ``MIN_BODY_ROWS`` rows of
   two cells or without a value unless it has ``MIN_TEXT_COLUMNS`` columns.
6. **Beside a column of text.** Where a column of running text stands on the page
   (``MIN_COLUMN_LINES`` prose lines sharing an edge), the pieces no table took are
   read again on each side of its edge: a paper's table in one of its two columns
   whose rows the whole page's reading mixed with the other column's lines. A table
   the whole page gave that holds such prose lines, set to the column's edge, in half
   its rows or more is read again the same way (``_takes_a_text_column``): justified
   text is set to its column's edge, a table's row labels are ragged.

A table is rendered as its rows, ``cell | cell | …`` as Tika writes the tables of
DOCX and HTML (``extract/xhtml.py``), its header row first: cleaning puts them into
the text as one ``BlockKind.TABLE`` block, a span per row, so every chunker treats
a PDF's table as it treats any other (``transforms/chunk/table.py``).

A table that ends a page and one that opens the next with the same columns and no
header of its own are one table (``continues``): its rows on the next page come
under the same header. Columns that line up with the first part's, one of them empty
or two run together on the next page, are set in the first part's (``Table.on_columns``).
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import NamedTuple

# Pieces of one row closer than this many line heights are one cell.
CELL_GAP = 1.0
# A row joins the rows above when its top is at most this many line heights below
# the previous row's top (a statement leaves a blank line or two between its
# sections; line heights are the letters' boxes, about 0.7 of the font size).
MAX_ROW_PITCH = 5.0
MIN_BODY_ROWS = 2  # rows of two or more cells under the header
MIN_ROWS = 3  # rows in all, the header's included
MIN_TEXT_COLUMNS = 3  # a table without values needs this many columns…
MIN_TEXT_ROWS = 3  # …in this many rows under its header
# A table set beside a column of text (a paper's table in one of its two columns, a box
# beside an article's text): the column is MIN_COLUMN_LINES lines of MIN_PROSE_WORDS
# words or more whose right (or left) edges lie within EDGE_SLACK points; the page is
# read again on each side of it, MAX_SPLITS deep.
MIN_COLUMN_LINES = 5
MIN_PROSE_WORDS = 8
EDGE_SLACK = 3.0
MAX_SPLITS = 3
# …unless half its rows or more are set on the same lines as pieces across the edge.
ALIGN_SLACK = 0.5
MAX_ALIGNED_SHARE = 0.5
# Prose in two columns: a value column's cells are short.
MAX_MEDIAN_CELL_CHARS = 32
MAX_CELL_WORDS = 12
MAX_VALUE_WIDTH_SHARE = 0.25
MAX_PROSE_CELL_SHARE = 0.3
MAX_HEADER_WORDS = 8  # a longer line over the columns is the table's title
TITLE_SIZE_RATIO = 1.15  # …as is one set this much larger than the heads below it
# A row-group label at a table's left (``with_group_labels``): this short, ending at
# most this many of its heights before the table's first column.
MAX_GROUP_LABEL_WORDS = 3
MAX_GROUP_LABEL_CHARS = 24
GROUP_LABEL_GAP = 4.0
# Tables one under the other whose first columns start this close are one stack.
STACK_EDGE_SLACK = 6.0
SEPARATOR = " | "

_CURRENCY = re.compile(r"^[$€£¥₹]|^(?:US\$|USD|EUR|CHF)$")
# The currency sign may stand before a negative amount's bracket ("$ (16 )").
_NUMBER = re.compile(
    r"^(?:[$€£¥₹]\s*)?[(\[]?[-+−–]?\s*[$€£¥₹]?\s*[-+−–]?\s*(?:\d[\d,.' ]*\d|\d)\s*"
    r"(?:%|pts?|bps|x)?[)\]]?\s*%?\*?$")
_DASH = re.compile(r"^[-–—−]+$")
_NONE_VALUES = {"n/a", "na", "nm", "n.m.", "—", "-", "–", "*", "nil", "...", "…", "unq"}
_YEAR = re.compile(r"^(?:fiscal\s+|fy\s*)?(?:19|20)\d\d$", re.IGNORECASE)
_BULLET = re.compile(r"^(?:[•◦▪▫●○■□‣⁃∙·*-]|\(?[0-9]{1,2}[.)]|\(?[a-z][.)]|\(?[ivx]{1,4}[.)])$")
_CHECK_BOX = re.compile("[☐☑☒□■✓✔✗✘]")
_EQUATION_NUMBER = re.compile(r"\((\d{1,3})\)\s*$")
_PAGE_NUMBER = re.compile(r"^(?:\d{1,4}|[ivxlcdm]{1,7})$", re.IGNORECASE)


class Piece(NamedTuple):  # a tuple: one per line of a PDF's pages
    """A placed run of text on a page: a Tika line, or one of its cells."""

    line: int  # index of the line it comes from (the caller's numbering)
    text: str
    x0: float
    x1: float
    top: float
    bottom: float
    size: float = 0.0  # its font size in points (0: not known)


class _Once:
    """``functools.cached_property`` without its lock (Python 3.11 takes one on each
    first read, and a table's cells are many): the value, worked out on the first read,
    goes in the instance's ``__dict__``, where later reads find it first."""

    def __init__(self, compute) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.compute(instance)
        return value


@dataclass
class _Cell:
    text: str
    x0: float
    x1: float
    lines: list[int]

    @_Once
    def value(self) -> bool:
        """``is_value(text)``, worked out once, where a table is weighed (most cells are
        lines of prose alone in their row, never asked)."""
        return is_value(self.text)

    @_Once
    def words(self) -> int:
        """How many words it has, counted once (a run of rows is read again from each
        of its rows that could start a table)."""
        return len(self.text.split())


@dataclass
class _Row:
    cells: list[_Cell]
    top: float
    bottom: float
    height: float
    size: float = 0.0  # its largest font size (0: not known)

    @property
    def lines(self) -> list[int]:
        return sorted({n for cell in self.cells for n in cell.lines})


@dataclass(frozen=True)
class Table:
    """One table of a page: its rows as cells per column ("" for none), how many of
    them (the first) are the header, and the caller's lines behind each row."""

    rows: tuple[tuple[str, ...], ...]
    header_rows: int
    row_lines: tuple[tuple[int, ...], ...]
    columns: tuple[tuple[float, float], ...] = field(default=())
    top: float = 0.0
    bottom: float = 0.0
    # Lines read into the rows from beside the table (``with_group_labels``).
    label_lines: tuple[int, ...] = ()

    @property
    def lines(self) -> tuple[int, ...]:
        return tuple(sorted({*(n for lines in self.row_lines for n in lines),
                             *self.label_lines}))

    def rendered(self) -> list[str]:
        """Each row as ``cell | cell | …`` (its empty cells at the end left off)."""
        out = []
        for row in self.rows:
            cells = list(row)
            while len(cells) > 1 and not cells[-1]:
                cells.pop()
            out.append(SEPARATOR.join(cells).strip())  # "| Q1 | Q2" under no label
        return out

    def on_columns(self, columns: tuple[tuple[float, float], ...]) -> Table | None:
        """This table with its cells set in ``columns`` (another part's, on the page
        before), or None when its own columns do not line up with them: each of its
        columns covers one or more of ``columns`` next to each other, in order, its
        first the first. A column the other part has and this one lacks (empty on this
        page) stays empty; a cell over two of them (two columns set too close to part
        on this page) goes in the first it covers, the others left empty, as a merged
        cell of a spreadsheet."""
        if len(self.columns) == len(columns):
            return self
        if len(self.columns) > len(columns):
            return None
        targets: list[int] = []
        last = -1  # the last of ``columns`` the column before covers
        for x0, x1 in self.columns:
            covered = [i for i, (a, b) in enumerate(columns) if x0 < b and x1 > a]
            if not covered or covered[0] <= last:
                return None
            targets.append(covered[0])
            last = covered[-1]
        if targets[0] != 0:
            return None
        rows = []
        for row in self.rows:
            cells = [""] * len(columns)
            for target, cell in zip(targets, row, strict=True):
                cells[target] = cell
            rows.append(tuple(cells))
        return replace(self, rows=tuple(rows), columns=columns)


@functools.lru_cache(maxsize=1 << 12)  # a run's cells are weighed again from each row
def is_value(text: str) -> bool:
    """An amount, a percentage, a count, a dash or "n/a": what a table's value
    columns hold (a bare year is a header's, not a value)."""
    text = text.strip()
    if not text or _YEAR.match(text):
        return False
    return bool(_NUMBER.match(text) or _DASH.match(text)) or text.lower() in _NONE_VALUES


def find_tables(pieces: Sequence[Piece]) -> list[Table]:
    """The tables among one page's placed pieces: those of the page read whole, then
    those of each side of a text column (step 6 of the module's rule) among the pieces
    no table took, top to bottom."""
    ordered = sorted(pieces, key=_reading_order)
    if not _shares_a_row(ordered):
        return []  # every piece a row of its own (a page of prose): no row of cells
    tables = _tables_in(ordered)
    if tables and (cuts := _column_edges(ordered)):
        # A table that took a column of text's lines for its row labels (a paper's
        # table beside the other column's prose, their lines in one band) is read again
        # on its side of the column's edge, below.
        tables = [table for table in tables if not _takes_a_text_column(table, ordered, cuts)]
    taken = {n for table in tables for n in table.lines}
    rest = [piece for piece in ordered if piece.line not in taken]
    found = []
    for region in _beside_text(rest):
        inside = {id(piece) for piece in region}
        other = [piece for piece in rest if id(piece) not in inside]
        if not _shares_a_band(region, other):
            continue  # no row of the page mixed it with pieces across the edge: read already
        found.extend(table for table in _tables_in(region)
                     if not _rows_beside(table, region, other))
    tables = sorted([*tables, *found], key=lambda table: table.top) if found else tables
    return _with_group_labels(tables, ordered)


def _beside_text(ordered: list[Piece], depth: int = 0) -> list[list[Piece]]:
    """The page's pieces parted at the edge of a column of text (``MIN_COLUMN_LINES``
    lines of ``MIN_PROSE_WORDS`` words or more that end, or start, within
    ``EDGE_SLACK`` of one another), into the pieces wholly on each side of it, in
    reading order; none when no piece lies beside such a column. A line with a piece
    over the edge, or pieces on both sides, is in neither (a table row never takes
    part of a line of the column beside it). Each side is parted again where it holds
    a column edge of its own (two columns of text, a table set in one of them)."""
    if depth > MAX_SPLITS or len(ordered) < MIN_ROWS:
        return []
    for cut in _column_edges(ordered):
        side: dict[int, set[int]] = {}  # line -> sides its pieces lie on (-1: over the cut)
        for piece in ordered:
            where = 0 if piece.x1 <= cut else 1 if piece.x0 >= cut else -1
            side.setdefault(piece.line, set()).add(where)
        left = [piece for piece in ordered if side[piece.line] == {0}]
        right = [piece for piece in ordered if side[piece.line] == {1}]
        if len(left) >= MIN_ROWS and len(right) >= MIN_ROWS:
            return [region for part in (left, right)
                    for region in (_beside_text(part, depth + 1) or [part])]
    return []


def _shares_a_band(region: list[Piece], other: list[Piece]) -> bool:
    """Does a piece of ``other`` fall in the band of a piece of ``region`` (its middle
    between the other's top and bottom, as ``_rows`` joins pieces into a row)? Where
    none does, the page's rows held ``region``'s pieces apart from the rest already, and
    ``find_tables`` does not read it again (the same tables, on the 726 pages of the
    reference domain, the shared corpus's PDFs and four filings, as reading it again)."""
    middles = sorted((piece.top + piece.bottom) / 2 for piece in other)
    for piece in region:
        at = bisect.bisect_left(middles, piece.top)
        if at < len(middles) and middles[at] <= piece.bottom:
            return True
    return False


def _rows_beside(table: Table, region: list[Piece], other: list[Piece]) -> bool:
    """Do ``MAX_ALIGNED_SHARE`` or more of the rows of ``table`` (found on one side of a
    column's edge) have a piece on the other side set on the same line (its top and
    bottom within ``ALIGN_SLACK``)? Then that side's lines are the table's own row
    labels (an exhibit list's descriptions beside their form and date), not a column
    of text: a table set beside running text lines up with its lines only by chance."""
    aligned = 0
    for lines in table.row_lines:
        wanted = set(lines)
        if any(abs(piece.top - across.top) <= ALIGN_SLACK
               and abs(piece.bottom - across.bottom) <= ALIGN_SLACK
               for piece in region if piece.line in wanted for across in other):
            aligned += 1
    return aligned >= MAX_ALIGNED_SHARE * len(table.row_lines)


def _takes_a_text_column(table: Table, ordered: list[Piece], cuts: list[float]) -> bool:
    """Does ``table`` hold, on one side of a column of text's edge (``cuts``), lines of
    that column: prose lines (``_prose_line``) set to the edge, as justified running
    text is (a table's row labels are ragged), in half its rows or more? Then the table
    read the column's lines beside its rows as their labels (a two-column paper's table
    beside the other column's text: "When training our final DPR model using Natural |
    Gold | 44.9 | …")."""
    lines = set(table.lines)
    pieces = [piece for piece in ordered if piece.line in lines]
    for cut in cuts:
        left = [p for p in pieces if p.x1 <= cut]
        right = [p for p in pieces if p.x0 >= cut]
        if not left or not right:
            continue
        set_to_edge = {p.line for p in left
                       if _prose_line(p.text) and cut - p.x1 <= 2 * EDGE_SLACK} | {
            p.line for p in right if _prose_line(p.text) and p.x0 - cut <= 2 * EDGE_SLACK}
        rows = sum(1 for row in table.row_lines if set_to_edge & set(row))
        if rows >= 2 and 2 * rows >= len(table.row_lines):
            return True
    return False


def _column_edges(ordered: list[Piece]) -> list[float]:
    """Where a column of text ends on the right (just after its lines' right edge)
    or starts on the left (just before their left edge), left to right: an edge
    that ``MIN_COLUMN_LINES`` lines of prose share within ``EDGE_SLACK``."""
    prose = [piece for piece in ordered if _prose_line(piece.text)]
    if len(prose) < MIN_COLUMN_LINES:
        return []
    cuts = []
    for ends, shift in ((sorted(p.x1 for p in prose), EDGE_SLACK),
                        (sorted(p.x0 for p in prose), -EDGE_SLACK)):
        for i in range(len(ends) - MIN_COLUMN_LINES + 1):
            if ends[i + MIN_COLUMN_LINES - 1] - ends[i] <= EDGE_SLACK:
                edge = ends[i + MIN_COLUMN_LINES - 1] if shift > 0 else ends[i]
                cut = edge + shift
                if not cuts or all(abs(cut - c) > EDGE_SLACK for c in cuts):
                    cuts.append(cut)
    return sorted(cuts)


def _prose_line(text: str) -> bool:
    """A line of running text: ``MIN_PROSE_WORDS`` words or more, most of them in
    lower case (a table's cell of titles or names is capitalised)."""
    words = text.split()
    return (len(words) >= MIN_PROSE_WORDS
            and sum(1 for word in words if word.isalpha() and word.islower()) * 2 > len(words))


def _tables_in(ordered: list[Piece]) -> list[Table]:
    """The tables among pieces in reading order (``find_tables`` without the parting
    at a column of text)."""
    if not _shares_a_row(ordered):
        return []
    rows = _rows(ordered)
    tables = []
    index = 0
    after_table = 0  # the row after the last table found: no header reaches above it
    while index < len(rows):
        if len(rows[index].cells) < 2:
            index += 1  # no table starts at a row of one cell (``_table_from``'s first test)
            continue
        table, index = _table_from(rows, index, after_table)
        if table is not None:
            tables.append(table)
            after_table = index
    return tables


def _with_group_labels(tables: list[Table], ordered: list[Piece]) -> list[Table]:
    """The tables, those with row-group labels set at their left with the labels read
    into their rows (``with_group_labels``), from the pieces no table took. Tables one
    under the other with the same left edge (one table the reader parted where a row of
    fewer cells stands, a growth rate's) are one stack, labelled together."""
    if not tables:
        return tables
    taken = {n for table in tables for n in table.lines}
    free = [piece for piece in ordered if piece.line not in taken]
    by_line: dict[int, list[Piece]] = {}
    for piece in ordered:
        by_line.setdefault(piece.line, []).append(piece)
    order = sorted(range(len(tables)), key=lambda i: tables[i].top)
    stacks: list[list[int]] = []
    for i in order:
        if not tables[i].columns:
            continue
        last = tables[stacks[-1][-1]] if stacks else None
        if (last is not None and tables[i].top >= last.bottom
                and abs(tables[i].columns[0][0] - last.columns[0][0]) <= STACK_EDGE_SLACK):
            stacks[-1].append(i)
        else:
            stacks.append([i])
    out = list(tables)
    for stack in stacks:
        labelled = with_group_labels([tables[i] for i in stack], free, by_line)
        for i, table in zip(stack, labelled, strict=True):
            out[i] = table
        used = {n for table in labelled for n in table.label_lines}
        free = [piece for piece in free if piece.line not in used]
    return out


def _group_label(piece: Piece, left: float) -> bool:
    """A short label (no value, ``MAX_GROUP_LABEL_WORDS`` words or fewer) ending
    within ``GROUP_LABEL_GAP`` of its heights left of ``left``."""
    text = piece.text.strip()
    height = max(piece.bottom - piece.top, 1.0)
    return (bool(text) and len(text.split()) <= MAX_GROUP_LABEL_WORDS
            and len(text) <= MAX_GROUP_LABEL_CHARS and not is_value(text)
            and piece.x1 <= left and left - piece.x1 <= GROUP_LABEL_GAP * height)


def with_group_labels(stack: list[Table], free: Sequence[Piece],
                      by_line: dict[int, list[Piece]]) -> list[Table]:
    """The tables of ``stack`` (one under the other, top to bottom) with a first column
    of row-group labels, where the page sets them at their left: a slide's or a
    statement's table whose runs of rows are named by one label each in a column of
    merged cells before the rows' own labels ("Orders", "Sales", each beside its run of
    "Total / Domestic / Overseas" rows). Read in the order the text came, such labels
    land after the table, and a row about overseas sales no longer says it is about
    sales. Two or more labels left of the first column, none of a table, each standing
    within one of the runs that the widest gaps between the body's rows part it into
    (as many runs as labels, each of those gaps wider than every gap within a run):
    every row of a run gets its label, the header rows none. Else the tables as they
    are."""
    left = min(table.columns[0][0] for table in stack)
    top, bottom = stack[0].top, stack[-1].bottom
    labels = [piece for piece in free if _group_label(piece, left)
              and top <= (piece.top + piece.bottom) / 2 <= bottom]
    # A label that stood between two rows came in as a row of its own (one cell, as a
    # statement's "Net sales:" does; but set left of the first column, not in it).
    original, stack = stack, list(stack)
    for t, table in enumerate(original):
        keep = []
        for r, lines in enumerate(table.row_lines):
            placed = [piece for n in lines for piece in by_line.get(n, ())]
            if r >= table.header_rows and len(placed) == 1 and _group_label(placed[0], left):
                labels.append(placed[0])
            else:
                keep.append(r)
        if len(keep) < len(table.rows):
            stack[t] = replace(table, rows=tuple(table.rows[r] for r in keep),
                               row_lines=tuple(table.row_lines[r] for r in keep))
    labels.sort(key=lambda piece: piece.top)
    if len(labels) < 2 or len({piece.line for piece in labels}) != len(labels):
        return original
    rows = [(t, r) for t, table in enumerate(stack) for r in range(len(table.rows))
            if t or r >= table.header_rows]
    if len(rows) < 2 * MIN_BODY_ROWS:
        return original
    bands = []
    for t, r in rows:
        placed = [piece for n in stack[t].row_lines[r] for piece in by_line.get(n, ())]
        if not placed:
            return original
        bands.append((min(piece.top for piece in placed), max(piece.bottom for piece in placed)))
    if any(b[0] < a[0] for a, b in itertools.pairwise(bands)):
        return original  # rows not top to bottom
    gaps = [b[0] - a[1] for a, b in itertools.pairwise(bands)]
    cuts = sorted(sorted(range(len(gaps)), key=lambda i: -gaps[i])[:len(labels) - 1])
    within = [gap for i, gap in enumerate(gaps) if i not in cuts]
    if within and min(gaps[i] for i in cuts) <= max(within):
        return original  # no gap sets the runs apart
    starts = [0, *(i + 1 for i in cuts)]
    ends = [*(i + 1 for i in cuts), len(bands)]
    names: dict[tuple[int, int], str] = {}
    owners: dict[int, list[int]] = {}
    for piece, start, end in zip(labels, starts, ends, strict=True):
        middle = (piece.top + piece.bottom) / 2
        if not bands[start][0] <= middle <= bands[end - 1][1]:
            return original
        names.update(dict.fromkeys(rows[start:end], piece.text.strip()))
        owners.setdefault(rows[start][0], []).append(piece.line)
    column = (min(piece.x0 for piece in labels), max(piece.x1 for piece in labels))
    return [replace(table, rows=tuple((names.get((t, r), ""), *row)
                                      for r, row in enumerate(table.rows)),
                    columns=(column, *table.columns),
                    label_lines=tuple(owners.get(t, ())))
            for t, table in enumerate(stack)]


def _reading_order(piece: Piece) -> tuple[float, float]:
    return piece.top, piece.x0


def _shares_a_row(ordered: Sequence[Piece]) -> bool:
    """Does any piece (in reading order) fall in the row of the one before it, as
    ``_rows`` groups them? Until one does, each row is its one piece: where none does,
    ``_rows`` would make every piece a row of its own (no row of cells, no table),
    and neither rows nor cells need be made."""
    top = bottom = math.nan  # no row yet: nothing falls in it
    for piece in ordered:
        if top <= (piece.top + piece.bottom) / 2 <= bottom:
            return True
        top, bottom = piece.top, piece.bottom
    return False


def _rows(ordered: Sequence[Piece]) -> list[_Row]:
    """Pieces (in reading order: top, then left) grouped into visual rows, top to
    bottom, each row's cells left to right."""
    rows: list[_Row] = []
    for piece in ordered:
        height = max(piece.bottom - piece.top, 1.0)
        middle = (piece.top + piece.bottom) / 2
        row = rows[-1] if rows else None
        if row is not None and row.top <= middle <= row.bottom:
            row.cells.append(_Cell(piece.text, piece.x0, piece.x1, [piece.line]))
            row.bottom = max(row.bottom, piece.bottom)
            row.height = max(row.height, height)
            row.size = max(row.size, piece.size)
        else:
            rows.append(_Row([_Cell(piece.text, piece.x0, piece.x1, [piece.line])],
                             piece.top, piece.bottom, height, piece.size))
    if all(len(row.cells) < 2 for row in rows):
        return rows  # no row of cells, no table (``_table_from``): nothing to weigh
    for row in rows:
        row.cells = _merged_cells(sorted(row.cells, key=lambda c: c.x0), row.height)
    return rows


# A value with a currency sign after it, one piece ("100.0 $"): in a row whose signs stand
# before their amounts, the sign is the next amount's, set at its column's left edge.
_TRAILING_SIGN = re.compile(r"^(?P<value>.*\S)\s+(?P<sign>[$€£¥₹])$")


def _signs_lead(cells: list[_Cell]) -> bool:
    """The row writes its currency signs before the amounts: its first sign is a cell of
    its own or starts one, with an amount after it ("$ | 100.0", "$ 96,388")."""
    for i, cell in enumerate(cells):
        if _CURRENCY.match(cell.text):
            rest = cell.text[1:].strip()
            if rest:
                return is_value(rest)
            after = cells[i + 1].text if i + 1 < len(cells) else ""
            return is_value(_TRAILING_SIGN.sub(r"\g<value>", after))
        if _TRAILING_SIGN.match(cell.text):
            return False  # a sign after the row's first signed amount: "1 234 €"
    return False


def _signs_apart(cells: list[_Cell]) -> list[_Cell]:
    """``cells`` with each trailing currency sign ("100.0 $") a cell of its own (for a row
    whose signs stand before their amounts, ``_signs_lead``): Tika gave a value and the
    next column's sign, set close after it, as one piece, and the sign went with the
    column before ("Verizon | $ | 100.0 $ | 111.3 $ | …")."""
    out: list[_Cell] = []
    for cell in cells:
        match = _TRAILING_SIGN.match(cell.text)
        if match is None or not is_value(match["value"]):
            out.append(cell)
            continue
        # the sign's share of the piece's width, by characters
        cut = cell.x0 + (cell.x1 - cell.x0) * len(match["value"]) / len(cell.text)
        out.append(_Cell(match["value"], cell.x0, cut, cell.lines))
        out.append(_Cell(match["sign"], cell.x1 - (cell.x1 - cell.x0) / len(cell.text), cell.x1,
                         cell.lines))
    return out


def _merged_cells(cells: list[_Cell], height: float) -> list[_Cell]:
    lead = any(_TRAILING_SIGN.match(cell.text) for cell in cells) and _signs_lead(cells)
    out: list[_Cell] = []
    for cell in _signs_apart(cells) if lead else cells:
        if out:
            last = out[-1]
            # a sign that leads its amount is never the end of the cell before it
            close = (cell.x0 - last.x1 < CELL_GAP * height
                     and not (lead and _CURRENCY.match(cell.text) and len(cell.text) <= 4))
            sign_before = _CURRENCY.match(last.text) and len(last.text) <= 4 and is_value(cell.text)
            percent_after = cell.text in {"%", "pts", "bps"} and is_value(last.text)
            if close or sign_before or percent_after:
                out[-1] = _Cell(f"{last.text} {cell.text}", last.x0, max(last.x1, cell.x1),
                                last.lines + cell.lines)
                continue
        out.append(cell)
    return out


def _columns(rows: list[_Row]) -> list[list[float]]:
    """Bands where the cells of ``rows`` overlap, left to right."""
    # Tuples sorted (the order of the [x0, x1] pairs), the open band's ends held in locals:
    # a run's cells are read again from each of its rows that could start a table.
    spans = sorted([(cell.x0, cell.x1) for row in rows for cell in row.cells])
    if not spans:
        return []
    columns: list[list[float]] = []
    start, end = spans[0]
    for x0, x1 in itertools.islice(spans, 1, None):
        if x0 <= end:
            if x1 > end:  # max(end, x1)
                end = x1
        else:
            columns.append([start, end])
            start, end = x0, x1
    columns.append([start, end])
    return columns


def _column_of(cell: _Cell, columns: list[list[float]]) -> list[int]:
    """The columns ``cell`` overlaps; when it overlaps none, the one it starts after
    (a section title centred over the labels belongs to them)."""
    hits = [i for i, (x0, x1) in enumerate(columns) if cell.x0 < x1 and cell.x1 > x0]
    if hits:
        return hits
    return [max((i for i, (x0, _) in enumerate(columns) if x0 <= cell.x0), default=0)]


def _in_two_columns(cells: list[_Cell], columns: list[list[float]]) -> bool:
    """Do ``cells`` lie in two or more columns (``_column_of``)? Read only as far as it
    takes: the first cells of a table's row are in two already."""
    seen: set[int] = set()
    for cell in cells:
        seen.update(_column_of(cell, columns))
        if len(seen) >= 2:
            return True
    return False


def _table_from(rows: list[_Row], start: int, top: int = 0) -> tuple[Table | None, int]:
    """The table whose first row of two or more cells is ``rows[start]`` (None when
    none starts there), and the index of the row to look from next: after the table,
    or after a run of rows that was looked at whole and is no table (a page of text
    set in columns is judged once, not once per row). Its header is looked for no
    higher than ``rows[top]`` (the row after the table above: its rows are its own)."""
    if len(rows[start].cells) < 2:
        return None, start + 1
    # The run of rows: rows of two or more cells, and single cells between them.
    body = [start]
    index = start + 1
    while index < len(rows):
        row, previous = rows[index], rows[body[-1]]
        if row.top - previous.top > MAX_ROW_PITCH * max(previous.height, row.height):
            break
        body.append(index)
        index += 1
    table, after = _table_of_run(rows, body, top)
    if table is None:
        # Read as far as its first sentence: a run that takes in a footnote ("(1) As of
        # September 30, …", its mark a piece of its own) or the text and the next table
        # below joins their columns with the table's into one, and no table is found.
        cut = next((n for n in range(1, len(body)) if _ends_run(rows, body, n)), None)
        if cut is not None:
            shorter, after_shorter = _table_of_run(rows, body[:cut], top)
            # …a table of values: stacked heads alone read as a table of text would
            # part a statement's heads from its rows, found whole from a later row.
            if shorter is not None and any(is_value(cell) for row in
                                           shorter.rows[shorter.header_rows:] for cell in row):
                return shorter, after_shorter
    return table, after


def _ends_run(rows: list[_Row], body: list[int], n: int) -> bool:
    """Does ``rows[body[n]]`` end a table's run read again? A sentence (a footnote
    beside its mark, a line of running text alone), or the heads of the next table: a
    row of cells without a value after lines alone ("NOTE 6 — INVENTORIES" / "The
    components of inventories were as follows:"), below rows of values."""
    row = rows[body[n]]
    if _footnote(row) or (len(row.cells) == 1 and _prose_line(row.cells[0].text)):
        return True
    return (len(row.cells) >= 2 and not any(cell.value for cell in row.cells)
            and len(rows[body[n - 1]].cells) == 1
            and any(cell.value for i in body[:n] for cell in rows[i].cells))


def _table_of_run(rows: list[_Row], body: list[int], top: int
                  ) -> tuple[Table | None, int]:
    """``_table_from`` for the run of rows ``body`` (indexes into ``rows``)."""
    start = body[0]
    multi = [i for i in body if len(rows[i].cells) >= 2]
    columns = _columns([rows[i] for i in multi])
    if len(columns) < 2:
        return None, start + 1
    # Single-cell rows belong only while they stay in the first column (labels) and
    # rows of two or more cells follow them; the run ends at its last row of cells.
    kept = []
    first = _cell_texts(rows[start])
    for n, i in enumerate(body):
        row = rows[i]
        if (len(row.cells) == 1 and row.cells[0].x1 > columns[1][0]
                and not (_unit_line(row.cells[0])
                         and not any(cell.value for k in kept for cell in rows[k].cells))):
            break  # a line over the value columns: the table has ended
        if (len(row.cells) == 1 and n + 1 < len(body)
                and _cell_texts(rows[body[n + 1]]) == first):
            break  # a line over the table's first row again: the next table's title
        if len(row.cells) >= 2 and not _in_two_columns(row.cells, columns):
            break
        if _footnote(row):
            break  # a sentence beside a mark: a footnote under the table
        kept.append(i)
    while kept and len(rows[kept[-1]].cells) < 2:
        kept.pop()
    multi = [i for i in kept if len(rows[i].cells) >= 2]
    if len(multi) < MIN_BODY_ROWS:
        return None, start + 1
    # The columns are where the values are: a header cell over two columns ("Oct 1, 2022
    # Sep 25, 2021" in one piece) must not join them.
    valued = [i for i in multi if any(cell.value for cell in rows[i].cells)]
    columns = _columns([rows[i] for i in (valued if len(valued) >= MIN_BODY_ROWS else multi)])
    if len(columns) < 2:
        return None, start + 1
    # Prose in two columns: the cells right of the first are lines of a column of text,
    # a good part of the table's width each; a table's values are narrow.
    widths = [cell.x1 - cell.x0 for i in multi for cell in rows[i].cells[1:]]
    if statistics.median(widths) > MAX_VALUE_WIDTH_SHARE * (columns[-1][1] - columns[0][0]):
        return None, kept[-1] + 1
    header, labels = _header_above(rows, kept[0], columns, top)
    table_rows = [rows[i] for i in [*header, *labels, *kept]]
    header_count = _header_count(table_rows, columns, len(header))
    grid = [_grid_row(row, columns, spanning=n < header_count - 1)
            for n, row in enumerate(table_rows)]
    grid, row_lines = _joined_wraps(grid, [row.lines for row in table_rows], header_count)
    if not _looks_like_table(grid, header_count):
        return None, kept[-1] + 1
    if header_count > 1:  # stacked header rows: one row, each column's cells top to bottom
        merged = tuple(" ".join(part for part in (row[c] for row in grid[:header_count])
                                if part) for c in range(len(columns)))
        grid = [merged, *grid[header_count:]]
        row_lines = [sorted({n for lines in row_lines[:header_count] for n in lines}),
                     *row_lines[header_count:]]
        header_count = 1
    table = Table(tuple(grid), header_count, tuple(tuple(lines) for lines in row_lines),
                  tuple((x0, x1) for x0, x1 in columns), table_rows[0].top,
                  table_rows[-1].bottom)
    return table, kept[-1] + 1


# A note on a table's units in brackets ("(In millions)", "(in thousands, except per
# share data)", "(Unaudited)").
_UNIT_NOTE = re.compile(r"^\([^()]+\)$")


def _unit_line(cell: _Cell) -> bool:
    """A line alone that notes the table's units, set over its value columns between
    its heads and its first row of values: part of the header, not the table's end (a
    second table's heads on a page, "(In millions)" under them, were read as a table
    of their own and its values as a table without heads)."""
    return (bool(_UNIT_NOTE.match(cell.text.strip())) and not cell.value  # not "(16)"
            and cell.words <= MAX_HEADER_WORDS)


def _footnote(row: _Row) -> bool:
    """A sentence beside a mark ("(1) As of September 30, 2023, the Company …"): a
    footnote under the table, no row of it."""
    return any(cell.words > MAX_CELL_WORDS for cell in row.cells[1:])


def _cell_texts(row: _Row) -> tuple[str, ...]:
    """A row's cells' words, spacing aside: two rows that read alike (a table's column
    heads printed again over the next table)."""
    return tuple(" ".join(cell.text.split()) for cell in row.cells)


def _header_above(rows: list[_Row], first: int, columns: list[list[float]], top: int = 0
                  ) -> tuple[list[int], list[int]]:
    """Rows right above ``rows[first]``, up to ``rows[top]``, whose cells all sit over
    the value columns: the header; and the rows of a label alone between the header and
    ``rows[first]`` ("Assets" / "Current assets:" under a balance sheet's heads), the
    body's first rows (none where no header stands above them: a label alone over a
    table's first row is its own line)."""
    labels: list[int] = []
    index = first - 1
    below = rows[first]
    while index >= top and _section_label(rows[index], below, columns):
        labels.insert(0, index)
        below = rows[index]
        index -= 1
    header: list[int] = []
    while index >= top:
        row = rows[index]
        # The header may stand further off its first row than rows stand apart.
        if _too_far(row, below):
            break
        over_values = [cell for cell in row.cells if cell.x0 >= columns[1][0] - 2 * row.height]
        if not over_values or any(cell.value or cell.words > MAX_HEADER_WORDS
                                  for cell in row.cells):
            break  # a label alone, a value or a title: no header
        if below.size and row.size > TITLE_SIZE_RATIO * below.size:
            break  # set larger than the heads under it: the table's title
            # ("Consolidated Statements of Shareholders' Equity"), a heading of the page
        header.insert(0, index)
        below = row
        index -= 1
    return header, (labels if header else [])


def _too_far(row: _Row, below: _Row) -> bool:
    return below.top - row.top > 2 * MAX_ROW_PITCH * max(row.height, below.height)


def _section_label(row: _Row, below: _Row, columns: list[list[float]]) -> bool:
    """A label alone in the first column, short, no value, near the row under it: a
    section of the table's rows ("Current assets:"), not yet a header or a title."""
    return (len(row.cells) == 1 and not row.cells[0].value
            and row.cells[0].x1 < columns[1][0] and row.cells[0].words <= MAX_HEADER_WORDS
            and not _too_far(row, below))


def _grid_row(row: _Row, columns: list[list[float]], spanning: bool = False
              ) -> tuple[str, ...]:
    """The row's cells by column, each cell in the first column it covers (once: a
    cell over two columns leaves the second empty, as a spreadsheet's merged cell).
    In a header row over other header rows (``spanning``), a cell that reaches left
    of its column ("Three Months Ended" set flush right over two columns of dates)
    starts at the column after the previous cell's."""
    cells = [""] * len(columns)
    previous = 0
    for cell in row.cells:
        hit = _column_of(cell, columns)
        if (spanning and len(hit) == 1 and hit[0] > 1 and not cell.value
                and cell.x0 < columns[hit[0]][0] - row.height):
            # …over the columns it reaches into, not those it stands clear of (a
            # wrapped head centred over a narrow column of values is wider than they).
            hit = [c for c in range(max(previous + 1, 1), hit[0] + 1)
                   if cell.x0 < columns[c][1] + row.height]
        cells[hit[0]] = f"{cells[hit[0]]} {cell.text}".strip()
        previous = hit[-1]
    return tuple(cells)


def _over_values(row: _Row, columns: list[list[float]]) -> bool:
    """Does a cell of ``row`` cover a column right of the first (a header over the
    values), whichever column ``_grid_row`` writes it in?"""
    return any(c > 0 for cell in row.cells for c in _column_of(cell, columns))


def _header_count(rows: list[_Row], columns: list[list[float]], above: int) -> int:
    """How many of the first rows are the header: the rows found above the body, then
    rows with text over the value columns and no value ("(In millions) | Oct 1, 2022 |
    Sep 25, 2021"); a row of labels alone ("Net sales:") ends it. In a table without
    values only its first row is the header (as in a document's own tables). Each row
    read by column (``_grid_row``) only as far as the header goes."""
    count = above
    while count < len(rows):
        if (any(is_value(cell) for cell in _grid_row(rows[count], columns))
                or not _over_values(rows[count], columns)):
            break
        count += 1
    if count == len(rows):
        return min(1, len(rows) - 1)
    return count


def _joined_wraps(grid: list[tuple[str, ...]], lines: list[list[int]], header: int
                  ) -> tuple[list[tuple[str, ...]], list[list[int]]]:
    """Body rows with their wrapped pieces joined (step 4 of the module's rule)."""
    out_grid = list(grid[:header])
    out_lines = [list(n) for n in lines[:header]]
    pending: tuple[tuple[str, ...], list[int]] | None = None
    for row, row_lines in zip(grid[header:], lines[header:], strict=True):
        if pending is not None:
            label, label_lines = pending
            pending = None
            if row[0][:1].islower():
                row = (f"{label[0]} {row[0]}", *row[1:])
                row_lines = sorted({*label_lines, *row_lines})
            else:
                out_grid.append(label)
                out_lines.append(label_lines)
        filled = [c for c, cell in enumerate(row) if cell]
        if filled == [0] and not row[0].rstrip().endswith(":"):
            pending = (row, list(row_lines))
            continue
        if (len(out_grid) > header and not row[0] and filled
                and not any(is_value(cell) for cell in row)):
            above = out_grid[-1]
            out_grid[-1] = tuple(f"{a} {b}".strip() for a, b in zip(above, row, strict=True))
            out_lines[-1] = sorted({*out_lines[-1], *row_lines})
            continue
        out_grid.append(row)
        out_lines.append(list(row_lines))
    if pending is not None:
        out_grid.append(pending[0])
        out_lines.append(pending[1])
    return out_grid, out_lines


def _lower_word(cell: str) -> bool:
    """Does the cell start with a word in lower case ("tion shall show", not "iPhone")?"""
    word = cell.split(maxsplit=1)[0]
    return word.isalpha() and word.islower()


def _prose_words(cell: str) -> bool:
    """Does a cell read like a piece of a sentence: two or more words, most of them
    in lower case, no figure ("records of such disposals and file peri-")?"""
    words = cell.split()
    if len(words) < 2 or any(map(str.isdigit, cell)):
        return False
    return sum(1 for word in words if word.isalpha() and word.islower()) * 2 > len(words)


def _line_numbers(cells: list[str]) -> bool:
    """Do these count up one by one (the numbers of a transcript's lines)?"""
    if len(cells) < MIN_BODY_ROWS or not all(cell.isdigit() for cell in cells):
        return False
    numbers = [int(cell) for cell in cells]
    return all(b - a == 1 for a, b in itertools.pairwise(numbers))


def _equation_numbers(cells: list[str]) -> bool:
    """Are these the numbers of a paper's displayed formulas: every cell right of the
    first that holds a figure ends in "(n)", and the n count up one by one?"""
    found = [_EQUATION_NUMBER.search(cell) for cell in cells if any(map(str.isdigit, cell))]
    if len(found) < MIN_BODY_ROWS or not all(found):
        return False
    values = [int(match.group(1)) for match in found if match]
    return all(b - a == 1 for a, b in itertools.pairwise(values))


def _chart_axes(body: list[tuple[str, ...]]) -> bool:
    """Is ``body`` numbers only, two or more of its columns evenly stepped runs of
    ``MIN_ROWS`` cells or more ("54,000 53,000 52,000", "0.50 0.48 0.46"): a chart's
    axes read as rows, not a table (which has row labels, and values that do not all
    step alike)?"""
    if any(cell and _plain_number(cell) is None for row in body for cell in row):
        return False
    stepped = 0
    for c in range(len(body[0]) if body else 0):
        cells = [row[c] for row in body if row[c]]
        numbers = [_plain_number(cell) for cell in cells]
        if len(numbers) < MIN_ROWS or any(n is None for n in numbers):
            continue
        steps = [b - a for a, b in itertools.pairwise(numbers)]  # type: ignore[operator]
        if steps[0] and all(math.isclose(step, steps[0], rel_tol=1e-6, abs_tol=1e-9)
                            for step in steps):
            stepped += 1
    return stepped >= 2


def _plain_number(cell: str) -> float | None:
    """``cell`` as a number when it is one alone ("54,000", "0.48", "-3"), else None."""
    text = cell.replace(",", "").strip()
    try:
        return float(text)
    except ValueError:
        return None


def _page_numbers(cells: list[str]) -> bool:
    """Are these a contents page's page numbers: small whole numbers that never go
    down (Roman ones too)?"""
    if not cells or not all(_PAGE_NUMBER.match(cell) for cell in cells):
        return False
    numbers = [int(cell) for cell in cells if cell.isdigit()]
    return all(a <= b for a, b in itertools.pairwise(numbers))


def _looks_like_table(grid: list[tuple[str, ...]], header: int) -> bool:
    """Step 5 of the module's rule: prose columns, contents pages, lists and forms
    are not tables."""
    body = grid[header:]
    filled_rows = [row for row in body if sum(1 for cell in row if cell) >= 2]
    if len(filled_rows) < MIN_BODY_ROWS or len(grid) < MIN_ROWS:
        return False
    cells = [cell for row in grid for cell in row if cell]
    if sum(1 for cell in cells if _CHECK_BOX.search(cell)) >= 2:
        return False  # a form: "Yes ☒ No ☐"
    first = [row[0] for row in filled_rows if row[0]]
    if first and all(_BULLET.match(cell) for cell in first):
        return False  # a list: bullets or item numbers, then text
    if _line_numbers(first) and not any(is_value(cell) for row in body for cell in row[1:]):
        return False  # a transcript's or a contract's line numbers beside its text
    others = [cell for row in body for cell in row[1:] if cell]
    if _equation_numbers(others):
        return False  # formulas, each numbered at the right: "(3)", "(4)", "(5)"
    if _chart_axes(body):
        return False  # a chart's tick labels, its two y axes side by side
    used = [c for c in range(1, len(grid[0])) if any(row[c] for row in body)]
    if used and _page_numbers([row[used[-1]] for row in body if row[used[-1]]]):
        return False  # a table of contents: titles and page numbers
    if statistics.median(len(cell) for cell in others) > MAX_MEDIAN_CELL_CHARS:
        return False  # prose in two columns
    if sum(1 for cell in others if _prose_words(cell)) > MAX_PROSE_CELL_SHARE * len(others):
        return False  # justified prose in columns, cut at its wide word gaps
    lines = [cell for row in filled_rows for cell in row if cell]
    if (sum(1 for cell in first if _lower_word(cell)) > MAX_PROSE_CELL_SHARE * len(first)
            or sum(1 for cell in lines if cell.endswith("-") and cell[-2:-1].isalpha())
            > MAX_PROSE_CELL_SHARE / 3 * len(lines)):
        return False  # lines of running text side by side: they start in lower case and
        # break words with hyphens; a table's row labels and cells do neither
    if sum(1 for cell in others if len(cell.split()) > MAX_CELL_WORDS) > len(others) / 4:
        return False
    # Without values: text in at least MIN_TEXT_COLUMNS columns of MIN_TEXT_ROWS rows
    # under its header (a cover page's "Delaware | 94-1672743" over its captions is a
    # form; a header cut off from its table by a blank line is no table of its own).
    wide = sum(1 for row in body if sum(1 for cell in row if cell) >= MIN_TEXT_COLUMNS)
    return any(is_value(cell) for cell in others) or wide >= MIN_TEXT_ROWS
