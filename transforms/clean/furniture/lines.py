"""What a page line says and where it stands (pure): the text abstraction and the
geometry (edge order, rows, frame) every part of furniture detection reads."""

from __future__ import annotations

import functools
import math
import operator
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from ragbeam.transforms.charsets import CLAUSE_ENDS, ELLIPSIS, SENTENCE_ENDS
from ragbeam.transforms.clean.layout import sizes_differ

RUNNING_TEXT_BAND = 4  # lines from a page's edge that may be its template
EXTREME_BAND = 2  # lines at the very edge
MIN_PAGE_SHARE = 0.5  # of the pages (or of one parity's) a template line is on
# Pages that must agree on one page-number offset (2 in documents this short).
MIN_SEQUENCE_PAGES = 3
SHORT_DOCUMENT_PAGES = 5
MAX_COMPANION_CHARS = 80
MAX_PAGE_NUMBER = 9999
MAX_ROMAN_PAGE_NUMBER = 100  # front matter; "mix" (1009) or "civ" (104) are words
# Lines whose vertical middles are this share of a line's height apart share a row.
ROW_TOLERANCE = 0.5
# The text frame is read from at least 3 lines of at least 20 characters.
MIN_FRAME_LINE_CHARS = 20
MIN_FRAME_LINES = 3
# A line this near the paper's side is laid over the page (a download stamp across the
# foot), no edge of the text frame.
PAPER_EDGE_POINTS = 6.0
# A line narrower than this share of the page's widest is a margin note's (a caption set
# in the side margin), beside the text, not of it.
NARROW_COLUMN_SHARE = 0.25
# A two-sided layout: the text block of odd and even pages this far apart, sideways.
MIN_SHIFT_POINTS = 6.0
# Same slot: top and left, right or centre this close (points), size this close.
SLOT_POINTS = 2.0
SLOT_SIZE_POINTS = 0.6
# A level line's box taller than this many times the page's typical line is no line's.
MAX_LINE_HEIGHTS = 3.0
SAME_PLACE_POINTS = 3.0

_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
_ROMAN = re.compile(r"^(?=[ivxlcdm]+$)m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$")
DIGITS = re.compile(r"\d+")
# A word of roman digits only: ``(?<![^\W\d_])[ivxlcdm]+(?![^\W\d_])``, its first digit
# tested before what stands before it (the same matches, found at half the cost).
_ROMAN_WORD = re.compile(r"[ivxlcdm](?<![^\W\d_][ivxlcdm])[ivxlcdm]*(?![^\W\d_])")
DASHES = "-–—−‒"
_LETTER_RUNS = re.compile(r"[^\W\d_]+")
# "7", "- 7 -", "[7]", "Page 7", "p. 7", "Page 7 of 10", "7 / 10", "第 7 页", "— vii —", "I-2",
# "3 | Page", "Page | 3"
_PAGE_NUMBER = re.compile(
    rf"^[{DASHES}\s\[\(|·•]*"
    r"(?:(?:page|pg\.?|p\.|seite|página|pagina|第)\s*[|:]?\s*)?"
    rf"(?:(?:[a-z]{{1,3}}|\d{{1,3}})[{DASHES}])?"  # a chapter's or part's: "I-2", "A-12", "3-7"
    r"(?P<value>\d{1,4}|[ivxlcdm]{1,7})"
    r"(?:\s*(?:of|/|von|de|sur|di)\s*\d{1,4})?"
    r"(?:\s*\|\s*p\s?a\s?g\s?e)?"  # "3 | Page", "3 | P a g e" (word processors)
    r"\s*(?:页|頁)?"
    rf"[{DASHES}\s\]\)|·•]*$",
    re.IGNORECASE,
)
# A page number that opens or closes a line of furniture: "2 / 4 ", " Page 3 of 9".
_END_NUMBER = r"(?:(?:page|pg\.?|p\.|seite)\s*)?\d{1,4}(?:\s*(?:/|of|von)\s*\d{1,4})?"
_PAGE_NUMBER_START = re.compile(rf"^\s*{_END_NUMBER}\s+", re.IGNORECASE)
_PAGE_NUMBER_END = re.compile(rf"\s+{_END_NUMBER}\s*$", re.IGNORECASE)
# A page number Tika read twice ("143143" for 143): text drawn twice over itself, as
# some producers embolden it, comes out doubled when the copies do not overlap exactly.
_DOUBLED_NUMBER = re.compile(r"^(\d{3,4})\1$")
_CHAPTER_PAGE = re.compile(rf"^(?:[A-Za-z]{{1,3}}|\d{{1,3}})[{DASHES}](\d{{1,4}})$")
SENTENCE_END = tuple(SENTENCE_ENDS.replace(ELLIPSIS, "") + CLAUSE_ENDS)


Box = tuple[float, float, float, float]  # (x0, top, x1, bottom) from the top-left, points
Hit = tuple[int, int]  # (page index, line index on that page)


class PageLine(NamedTuple):  # a tuple: documents have tens of thousands of lines
    """One line of one page (``box``, ``rotated``, ``size`` from a PDF's layout)."""

    text: str
    removable: bool = True  # False for tables and code
    is_heading: bool = False
    box: Box | None = None  # None: not placed (not a PDF, or PDFium did not find it)
    rotated: bool = False  # set at an angle, as margin stamps are
    size: float = 0.0  # font size in points (0: not measured)


Pages = Sequence[Sequence[PageLine]]  # a document's lines, page by page
PageSizes = Sequence[tuple[float, float]] | None  # each page's (width, height), if known
Frame = tuple[float, float] | None  # the left and right edge of the text, if known


@dataclass(frozen=True)
class TemplateGroup:
    """Lines of the page template that belong together: ``kind`` (``text``, ``slot``,
    ``row``, ``rotated``, ``cut``) and ``key`` (the abstracted text, or the place)."""

    kind: str
    key: str
    members: frozenset[Hit]


def members(groups: Iterable[TemplateGroup]) -> set[Hit]:
    return {hit for group in groups for hit in group.members}


def roman_value(token: str) -> int | None:
    token = token.lower()
    if not token or not _ROMAN.match(token):
        return None
    values = [_ROMAN_VALUES[ch] for ch in token]
    return sum(-v if v < after else v
               for v, after in zip(values, [*values[1:], 0], strict=True))


@functools.lru_cache(maxsize=1 << 16)  # every rule asks it of the edge lines
def page_number_value(line: str) -> tuple[str, int] | None:
    """``("arabic"|"roman", value)`` if the line is only a page number."""
    match = _PAGE_NUMBER.match(line.strip())
    if not match:
        doubled = _DOUBLED_NUMBER.match(line.strip())
        return ("arabic", int(doubled[1])) if doubled and doubled[1][0] != "0" else None
    token = match.group("value")
    if token.isdigit():
        value = int(token)
        return ("arabic", value) if 0 < value <= MAX_PAGE_NUMBER else None
    roman = roman_value(token)
    return ("roman", roman) if roman and roman <= MAX_ROMAN_PAGE_NUMBER else None


@functools.lru_cache(maxsize=1 << 16)  # the edge band is read again as it grows
def line_shape(line: str) -> str:
    """What repeats in running text: case-folded, numbers (arabic, roman) as ``#``."""
    if not line.isascii():
        line = unicodedata.normalize("NFKC", line)
    text = DIGITS.sub("#", " ".join(line.split()).casefold())
    return _ROMAN_WORD.sub(_roman_as_number, text)


def _roman_as_number(match: re.Match[str]) -> str:
    return "#" if roman_value(word := match.group()) else word


def template_key(line: str) -> str:
    """``line_shape`` without a page number at either end ("2 / 4 <footer>" ≡ "<footer>")."""
    shape = line_shape(line)
    if not shape or (shape[0] not in "#p" and shape[-1] != "#"):
        return shape  # most lines: no page number at either end
    rest = _PAGE_NUMBER_END.sub("", _PAGE_NUMBER_START.sub("", line))
    return line_shape(rest) if rest and rest != line else shape


def band(n_lines: int, width: int) -> list[int]:
    """Indexes of the first and last ``width`` lines of a page."""
    return [*range(min(width, n_lines)), *range(max(width, n_lines - width), n_lines)]


def edge_lines(pages: Pages, skip: Iterable[int] = ()) -> Iterator[tuple[int, int, PageLine]]:
    """``(page, index, line)`` of the lines at the very edge (``EXTREME_BAND``) of each
    page not in ``skip``."""
    skipped = set(skip)
    for p, lines in enumerate(pages):
        if p not in skipped:
            for i in band(len(lines), EXTREME_BAND):
                yield p, i, lines[i]


def is_lone_number(lines: Sequence[PageLine], i: int) -> bool:
    """Line ``i`` is a page number with none beside it (a column of numbers is no folio)."""
    return (page_number_value(lines[i].text) is not None
            and not any(page_number_value(lines[j].text) for j in (i - 1, i + 1)
                        if 0 <= j < len(lines)))


def is_companion(line: PageLine) -> bool:
    text = line.text.strip()
    return (line.removable and 0 < len(text) <= MAX_COMPANION_CHARS
            and not text.endswith(SENTENCE_END) and page_number_value(text) is None
            and not is_data_row(text))


def is_data_row(text: str) -> bool:
    """Three numbers or more and no word: a chart's axis or a row of figures."""
    tokens = text.split()
    return len(tokens) >= 3 and not any(map(str.isalpha, text))


@functools.lru_cache(maxsize=1 << 16)  # every rule asks it of the edge lines
def head_number(line: str) -> tuple[str, int, str] | None:
    """(system, value, the rest) of the number that opens or closes a short head line
    ("Chapter 4: Parsing 9")."""
    text = line.strip()
    if len(text) > MAX_COMPANION_CHARS or text.endswith(SENTENCE_END):
        return None
    tokens = text.split()
    if len(tokens) < 2:
        return None
    for token, rest in ((tokens[-1], tokens[:-1]), (tokens[0], tokens[1:])):
        if (chapter := _CHAPTER_PAGE.match(token)) is not None:
            token = chapter.group(1)  # "I-2": page 2 of part I
        if token.isdigit() and 0 < int(token) <= MAX_PAGE_NUMBER:
            return ("arabic", int(token), " ".join(rest))
        roman = roman_value(token)
        if roman and roman <= MAX_ROMAN_PAGE_NUMBER:
            return ("roman", roman, " ".join(rest))
    return None


def edge_order(lines: Sequence[PageLine]) -> list[int]:
    """A page's line indexes from its top edge to its bottom edge: placed lines in rows
    (vertical middles within half a line) top to bottom, left to right within a row; a
    line PDFium did not place follows the line before it in Tika's order (figure labels
    stay with the figure, not at the edge), or keeps its place before the first or
    after the last placed one (without boxes: Tika's order)."""
    placed = [(box[1] + box[3], box[0], box[3] - box[1], i)
              for i, line in enumerate(lines) if (box := line.box) is not None]
    if not placed:
        return list(range(len(lines)))
    placed.sort()
    ordered: list[int] = []
    row: list[tuple[float, int]] = []
    row_middle = row_height = 0.0
    tolerance = 2 * ROW_TOLERANCE
    for middle2, left, height, i in placed:
        if height < 1.0:  # max(height, 1.0), inline: this runs for every line
            height = 1.0
        if row and abs(middle2 - row_middle) <= tolerance * (
                row_height if row_height < height else height):
            row.append((left, i))
            continue
        if len(row) == 1:
            ordered.append(row[0][1])  # most rows: one line
        elif row:
            ordered.extend(i for _, i in sorted(row))
        row = [(left, i)]
        row_middle, row_height = middle2, height
    ordered.extend(i for _, i in sorted(row))
    if len(placed) == len(lines):
        return ordered  # most pages: every line placed
    last = max(i for _, _, _, i in placed)
    following: dict[int, list[int]] = {}
    leading: list[int] = []
    before = None
    for i, line in enumerate(lines):
        if line.box is not None:
            before = i
        elif before is None:
            leading.append(i)
        else:  # after the last placed line in Tika's order: after the last in edge order
            following.setdefault(-1 if i > last else before, []).append(i)
    return [*leading, *(j for i in ordered for j in (i, *following.get(i, ()))),
            *following.get(-1, ())]


def placed_lines(lines: Sequence[PageLine], width: float = math.inf
                 ) -> tuple[list[PageLine], Frame]:
    """A page's lines less boxes that are no line's (a level line's box several times
    as tall as its font and the page's lines: PDFium found its characters apart), and,
    in the same pass, the left and right edge of its level text (lines of some length,
    of the text's width and within the paper's margins, on a page ``width`` wide)."""
    heights = sorted(box[3] - box[1] for line in lines
                     if (box := line.box) is not None and not line.rotated)
    if not heights:
        return list(lines), None
    typical = max(heights[len(heights) // 2], 1.0)
    out = list(lines)
    spans: list[tuple[float, float]] = []
    for k, line in enumerate(out):
        box = line.box
        if box is not None and not line.rotated:
            if box[3] - box[1] > MAX_LINE_HEIGHTS * max(typical, line.size):
                out[k] = line._replace(box=None)
            elif (len(line.text) >= MIN_FRAME_LINE_CHARS and box[0] >= PAPER_EDGE_POINTS
                  and box[2] <= width - PAPER_EDGE_POINTS):
                spans.append((box[0], box[2]))
    if len(spans) < MIN_FRAME_LINES:
        return out, None
    narrow = NARROW_COLUMN_SHARE * max(right - left for left, right in spans)
    spans = [(left, right) for left, right in spans if right - left >= narrow]
    if len(spans) < MIN_FRAME_LINES:
        return out, None
    return out, (min(left for left, _ in spans), max(right for _, right in spans))


def beside_frame(line: PageLine, frame: Frame, width: float, gap: float = 0.0) -> bool:
    """Placed on the page (``width`` wide) and wholly beside the text ``frame`` by ``gap``."""
    box = line.box
    return (box is not None and frame is not None and box[2] > 0 and box[0] < width
            and (box[2] <= frame[0] - gap or box[0] >= frame[1] + gap))


def page_frames(frames: Sequence[Frame]) -> list[Frame]:
    """Each page's text frame (left and right edge of its level text): the medians of
    the document's pages', or of its parity's where odd and even pages set the text block
    ``MIN_SHIFT_POINTS`` apart sideways, both edges the same way, most pages of each
    parity at its frame (a two-sided layout, its margin notes in each page's outer
    margin; a deck's slides each frame their own text)."""
    def median(of: Sequence[Frame]) -> Frame:
        placed = [frame for frame in of if frame is not None]
        return (sorted(frame[0] for frame in placed)[len(placed) // 2],
                sorted(frame[1] for frame in placed)[len(placed) // 2]) if placed else None

    def near(frame: Frame, to: Frame) -> bool:
        return abs(frame[0] - to[0]) < MIN_SHIFT_POINTS and abs(frame[1] - to[1]) < MIN_SHIFT_POINTS

    whole, sides = median(frames), [median(frames[parity::2]) for parity in (0, 1)]
    if whole is None or None in sides:
        return [whole] * len(frames)
    (left0, right0), (left1, right1) = sides
    if (min(abs(left0 - left1), abs(right0 - right1)) < MIN_SHIFT_POINTS
            or (left0 < left1) != (right0 < right1)):
        return [whole] * len(frames)
    for parity, side in enumerate(sides):
        placed = [frame for frame in frames[parity::2] if frame is not None]
        if 2 * sum(near(frame, side) for frame in placed) <= len(placed):
            return [whole] * len(frames)
    return [sides[p % 2] for p in range(len(frames))]


def page_rows(lines: Sequence[PageLine], skip: set[int] | frozenset[int] = frozenset()
              ) -> list[list[int]]:
    """The placed level lines of a page in edge order but ``skip``, in rows."""
    rows: list[list[int]] = []
    row: list[int] = []
    # The current row's first line: its top plus bottom and its height.
    first_middle2 = first_height = 0.0
    tolerance = 2 * ROW_TOLERANCE
    for i, line in enumerate(lines):
        box = line.box
        if box is not None and not line.rotated and i not in skip:
            # ``same_row(first, box)``, inline: this runs for every line of every page,
            # several times a document.
            height = box[3] - box[1]
            if rows and (abs(first_middle2 - box[1] - box[3])
                         <= tolerance * max(min(first_height, height), 1.0)):
                row.append(i)
            else:
                row = [i]
                rows.append(row)
                first_middle2, first_height = box[1] + box[3], height
    return rows


def same_row(a: Box, b: Box) -> bool:
    height = max(min(a[3] - a[1], b[3] - b[1]), 1.0)
    return abs(a[1] + a[3] - b[1] - b[3]) <= 2 * ROW_TOLERANCE * height


def row_beside(lines: Sequence[PageLine], i: int) -> list[int]:
    """The other placed level lines of line ``i``'s row (``lines`` in edge order)."""
    box = lines[i].box
    row: list[int] = []
    for step in (-1, 1):
        j = i + step
        while 0 <= j < len(lines):
            here = lines[j].box
            if here is not None and not lines[j].rotated:
                if not same_row(here, box):
                    break
                row.append(j)
            j += step
    return row


def outer_rows(lines: Sequence[PageLine], furniture: set[int] | frozenset[int]) -> list[list[int]]:
    """The top and the bottom row of what is left of a page (``lines`` in edge order)
    but its ``furniture`` (line indexes) where its outermost line is placed."""
    first = next((i for i in range(len(lines)) if i not in furniture), None)
    if first is None:
        return []
    last = next(i for i in range(len(lines) - 1, -1, -1) if i not in furniture)
    rows = page_rows(lines, furniture)
    ends = ((rows[0], first), (rows[-1], last)) if rows else ()
    return [row for row, outer in ends if lines[outer].box is not None]


def lines_by_page(hits: Iterable[Hit]) -> dict[int, frozenset[int]]:
    """Hits as each page's line indexes (pages without any left out), frozen: a page's
    key in the caches of its readings."""
    by_page: defaultdict[int, set[int]] = defaultdict(set)
    for p, i in hits:
        by_page[p].add(i)
    return {p: frozenset(found) for p, found in by_page.items()}


def same_slot(line: PageLine, box: Box, size: float) -> bool:
    here = line.box
    if abs(here[1] - box[1]) > SLOT_POINTS:
        return False
    if line.size and size and abs(line.size - size) > SLOT_SIZE_POINTS:
        return False
    return (abs(here[0] - box[0]) <= SLOT_POINTS or abs(here[2] - box[2]) <= SLOT_POINTS
            or abs(here[0] + here[2] - box[0] - box[2]) <= 2 * SLOT_POINTS)


def same_place(a: Box, b: Box) -> bool:
    return all(abs(x - y) <= SAME_PLACE_POINTS for x, y in zip(a, b, strict=True))


def page_size(page_sizes: PageSizes, p: int) -> tuple[float, float]:
    """Page ``p``'s (width, height); (inf, 0) where unknown."""
    return page_sizes[p] if page_sizes and p < len(page_sizes) else (math.inf, 0.0)


def set_larger(size: float, than: float) -> bool:
    """Set larger than ``than`` (a size, 0 where unmeasured) by more than rounding."""
    return bool(than) and size > than and sizes_differ(size, than)


def body_size(pages: Pages) -> float:
    """The font size most of the measured characters are set in (0: none measured)."""
    weights: dict[float, int] = {}
    for lines in pages:
        for line in lines:
            if (size := line.size) > 0:
                weights[size] = weights.get(size, 0) + len(line.text)
    # The first of the heaviest, as ``Counter.most_common(1)`` gives it.
    return max(weights.items(), key=operator.itemgetter(1))[0] if weights else 0.0


@functools.lru_cache(maxsize=1 << 16)  # a head's pieces are read again as runs grow
def letters(text: str) -> str:
    """A line's letters, case-folded: what survives of a head Tika cut into glyph
    clusters ("A" / "gyem" / "an-D" / "uah" …)."""
    found = "".join(_LETTER_RUNS.findall(text.casefold()))  # one C pass; most lines
    return found if found.isalpha() or not found else "".join(
        ch for ch in found if ch.isalpha())  # "²", "½" are no letters


