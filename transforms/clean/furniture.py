"""Repeated page furniture: running headers, running footers and page numbers.

Works on the lines of a paged document (PDF pages, slides) and decides which
lines are furniture: by text and repetition (rules 1-4), and by position where
the lines carry their place on the page (rules 5-9):

1. **Page numbers.** A line that is nothing but a page number ("7", "- 7 -",
   "Page 7 of 10", "vii", "第 7 页") near the top or bottom of a page is a page
   number when its value equals the page index plus an offset that several
   pages agree on ("1050" on page 2, "1051" on page 3, …). A body number that
   merely sits near an edge does not follow the page sequence, so it stays.
   The same holds for a short running head that opens or closes with the page
   number ("Chapter 4: Parsing 9") on the first or last two lines, if its
   shape repeats on at least two pages. Two votes suffice when they come from
   consecutive pages and each number is its page's very first or last line
   (front matter: "i" closing one page, "ii" the only line of the next).
   A head that carries the page number is found anywhere on its page when its
   text recurs on at least half the pages and its number follows the sequence
   on at least ``MIN_ANCHORED_PAGES`` of them (and a quarter of all pages):
   Tika's reading order puts some journal heads after the page's figures and
   tables.
2. **Running text.** A line near the top or bottom of a page whose *shape*
   (case-folded, digits and roman numerals replaced by ``#``) repeats near the
   edges of a large share of pages — or of the odd or the even pages, for
   alternating headers when the facing pages carry furniture too, or on the
   very first or last lines of at least three consecutive pages, for heads that
   change with the chapter or section — is furniture, *unless the middle of
   the pages uses that shape too* (on at least one page for every
   ``EDGE_PAGES_PER_MIDDLE_PAGE`` pages that carry it at an edge): text that
   the body uses as well is never removed, while a title repeated once on a
   cover does not save a head that runs on thirty pages. Where a page's whole
   edge band is furniture, the band grows inward a line at a time (up to
   ``MAX_BLOCK_LINES``), so a furniture block deeper than the band (a footer
   above a nine-fragment stamp) goes when its lines repeat like any running
   text. Lines whose numbers change in more than ``MAX_CHANGING_NUMBERS``
   places from page to page are table rows, whatever their shape. Lines that
   are only a number are left to rule 1. A head seen on a single page goes
   when it ends in the number that the page sequence of the other pages
   predicts (or, on a page's last line, begins with it), and is neither a list
   item nor a sentence.
3. **Running-head companions.** A page number identified at the very edge of
   a page marks that edge as a running head: the short, unpunctuated lines
   between the number and the page edge belong to it ("Journal of X" above
   "173"). Not applied to page number 1 (first pages carry titles, not heads),
   nor to a number nearer the other edge (a slide's "Title" / "4" ends in its
   number: a footer, not a head). With several pages a companion's shape must
   also sit at the edge of another page: a slide title that Tika emits above
   the slide number is the slide's own.
4. **Margin stamps.** Text set at 90 degrees comes out of Tika one or two
   glyphs per line ("ar", "X", "iv", ":2", "00", "4." …: the arXiv identifier
   that runs up the left margin). A stamp is laid over a finished page, so its
   lines come last in the page's text: a run of at least ``MIN_STAMP_LINES``
   such fragments (no spaces, at most ``MAX_FRAGMENT_CHARS`` characters,
   letters among them) that ends the page is furniture. Rotated labels inside
   a figure are followed by the rest of the page (legend, caption, body), so
   they stay.

Single-page documents cannot show repetition: there only a lone number on the
first or last two lines (rule 1 without the sequence check, neighbours must
not be numbers too) and its companions (rule 3) are removed.

**Position** (PDFs, where the layout pass placed a line: ``PageLine.box``,
``rotated``, ``size`` and the pages' sizes). Without boxes every rule above reads
Tika's order, as it always did; with them:

5. **Edges by geometry.** The rules above read each page from its top edge to
   its bottom edge (``edge_order``): placed lines in rows top to bottom, left to
   right; a line without a box keeps its place in Tika's order. A head that Tika
   emits after the page's floats is at the edge again. A level line whose box is
   taller than three times its font and the page's lines is not placed.
6. **Stamps by angle and place.** Rotated text beside the document's text frame
   and nearer the page edge than any other text of the page is a margin stamp,
   wherever Tika puts it; rotated text that recurs at one place on most pages is
   a stamp or watermark (pieces PDFium did not place between its lines go with
   it); lines wholly beyond the page's top or bottom edge are a printer's slug.
   A run of fragments closing a page (rule 4) whose placed lines lie across the
   text frame is a figure's labels and stays; so does a sideways table's first
   column (the next column is nearer than the page edge).
7. **Repetition allowing varying text.** The lines on a page number's row at a
   page edge go with it, whatever their text (not beside page 1, not a
   sentence); a line in the slot of other pages' furniture (same top, same left,
   right or centre, same font size, on a quarter of the pages) at the outermost
   row left on its page goes whatever its text (a section head on two pages);
   the same line at the same place at the very edge of two pages, set no larger
   than their text, is running text; a page's outermost line that says what
   furniture says on half the other pages less its page number goes ("N / 4
   <footer>" and the first page's "<footer>"); a head that opens one page and
   closes the next with its number at either end is one head.
8. **Set apart.** Where nothing can repeat (one page; a head on one page of
   two), a top or bottom row apart from the text (gap at least the line
   pitch), in a smaller font than the text, short and no sentence, goes when it
   carries its page's number in the sequence (or, on a single page, stands
   opposite a page number other than 1).
9. **What position keeps.** Running text must keep its place: a repeated line
   whose distance from the page edge varies on most of its pages moves with the
   text (a table note under each part of a continued table) and stays; a line
   set beyond the page's side (the unseen half of a spread) is neither evidence
   nor furniture; a sentence in a head's slot or row stays.

A line that is the document's only occurrence of a heading is never removed.
Everything here is pure: plain strings, and boxes where a PDF has them.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from ragbeam.transforms.charsets import CLAUSE_ENDS, ELLIPSIS, SENTENCE_ENDS
from ragbeam.transforms.clean.layout import sizes_differ

# Lines this close to a page edge can be running text.
RUNNING_TEXT_BAND = 4
# Page numbers may sit a little deeper (Tika emits some after a masthead),
# because the page-sequence check protects body numbers.
PAGE_NUMBER_BAND = 8
# Lines this close to the edge can be a lone page number on a single page
# and a page number that anchors running-head companions.
EXTREME_BAND = 2
# Share of pages (or of the odd/even pages) that running text must repeat on.
MIN_PAGE_SHARE = 0.5
# …or consecutive pages it must open or close (a head that changes with the section).
SECTION_RUN_PAGES = 3
# Pages that must agree on one page-number offset (2 in documents this short).
MIN_SEQUENCE_PAGES = 3
SHORT_DOCUMENT_PAGES = 5
MAX_COMPANION_CHARS = 80
MAX_PAGE_NUMBER = 9999
MAX_ROMAN_PAGE_NUMBER = 100  # front matter; "mix" (1009) or "civ" (104) are words
# A rotated stamp: at least this many one- or two-glyph lines closing a page.
MIN_STAMP_LINES = 8
MAX_FRAGMENT_CHARS = 3
# Running text is body after all when the middle of the pages uses its shape on
# at least one page for every this many pages that carry it at an edge (a title
# repeated once on a cover does not save a head on 30 pages; a line the body
# repeats as often as the edges do stays).
EDGE_PAGES_PER_MIDDLE_PAGE = 4
# Furniture blocks deeper than the edge band (a stamp of nine fragments under a
# footer) are followed inward from a page edge whose band is all furniture, up
# to this many lines from the edge.
MAX_BLOCK_LINES = 12
# A running head's numbers that change from page to page: the page number, at
# most also a chapter or section number. More is a table's rows.
MAX_CHANGING_NUMBERS = 2
# A running head that Tika places anywhere on the page (after the figures and
# tables, in its reading order) is still recognised by its text recurring on at
# least MIN_PAGE_SHARE of the pages with the page number at one end, following
# the page sequence on at least this many pages, and this share of all pages
# (numbers in a long table's rows match some offset on a few pages by chance).
MIN_ANCHORED_PAGES = 3
ANCHORED_PAGE_SHARE = 0.25

# Lines whose vertical middles are this share of a line's height apart share a row.
ROW_TOLERANCE = 0.5
# A page's horizontal text frame (what a margin stamp lies beside) is read from
# lines of at least this many characters, and at least this many of them.
MIN_FRAME_LINE_CHARS = 20
MIN_FRAME_LINES = 3
# A rotated line in the margin is a stamp when the text of the page is at least this
# far from it (points), and at least half as far as the page edge.
MIN_STAMP_GAP = 6.0
# A line without a box between pieces of a stamp is one too when it is this short.
MAX_STAMP_PIECE_CHARS = 8
# A line sits in furniture's slot when its top and its left, right or centre are this
# close (points) to those of furniture on at least this share of the pages (and
# MIN_SEQUENCE_PAGES), in a font this close in size.
SLOT_POINTS = 2.0
SLOT_PAGE_SHARE = 0.25
SLOT_SIZE_POINTS = 0.6
# Repeated lines whose distance from their page's edge varies by more than this
# (points) on most of their pages move with the text: not furniture.
PLACE_DRIFT_POINTS = 6.0
MIN_REPEATED_BLOCK_LINES = 3
# A single page's head or footer is set at most this share of the text's font size.
SMALLER_FONT = 0.95
# A level line's box taller than this many times the page's typical line is no line's.
MAX_LINE_HEIGHTS = 3.0
# Boxes whose edges are within this many points of each other are at the same place.
SAME_PLACE_POINTS = 3.0

_ROMAN = re.compile(r"^(?=[ivxlcdm]+$)m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$")
_DIGITS = re.compile(r"\d+")
_ROMAN_WORD = re.compile(r"(?<![^\W\d_])[ivxlcdm]+(?![^\W\d_])")
_SPACES = re.compile(r"\s+")
_DASHES = "-–—−‒"
# "7", "- 7 -", "[7]", "Page 7", "p. 7", "Page 7 of 10", "7 / 10", "第 7 页", "— vii —", "I-2",
# "3 | Page", "Page | 3"
_PAGE_NUMBER = re.compile(
    rf"^[{_DASHES}\s\[\(|·•]*"
    r"(?:(?:page|pg\.?|p\.|seite|página|pagina|第)\s*[|:]?\s*)?"
    rf"(?:(?:[a-z]{{1,3}}|\d{{1,3}})[{_DASHES}])?"  # a chapter's or part's: "I-2", "A-12", "3-7"
    r"(?P<value>\d{1,4}|[ivxlcdm]{1,7})"
    r"(?:\s*(?:of|/|von|de|sur|di)\s*\d{1,4})?"
    r"(?:\s*\|\s*p\s?a\s?g\s?e)?"  # "3 | Page", "3 | P a g e" (word processors)
    r"\s*(?:页|頁)?"
    rf"[{_DASHES}\s\]\)|·•]*$",
    re.IGNORECASE,
)
# A page number that opens or closes a line of furniture: "2 / 4 ", " Page 3 of 9".
_PAGE_NUMBER_START = re.compile(
    r"^\s*(?:(?:page|pg\.?|p\.|seite)\s*)?\d{1,4}(?:\s*(?:/|of|von)\s*\d{1,4})?\s+",
    re.IGNORECASE)
_PAGE_NUMBER_END = re.compile(
    r"\s+(?:(?:page|pg\.?|p\.|seite)\s*)?\d{1,4}(?:\s*(?:/|of|von)\s*\d{1,4})?\s*$",
    re.IGNORECASE)
# A page number Tika read twice ("143143" for 143): text drawn twice over itself, as
# some producers embolden it, comes out doubled when the copies do not overlap exactly.
_DOUBLED_NUMBER = re.compile(r"^(\d{3,4})\1$")
_CHAPTER_PAGE = re.compile(rf"^(?:[A-Za-z]{{1,3}}|\d{{1,3}})[{_DASHES}](\d{{1,4}})$")
_SENTENCE_END = tuple(SENTENCE_ENDS.replace(ELLIPSIS, "") + CLAUSE_ENDS)


# Where a line sits on its page: (x0, top, x1, bottom), PDF points from the displayed
# page's top-left corner, so top < bottom.
Box = tuple[float, float, float, float]


class PageLine(NamedTuple):  # a tuple: documents have tens of thousands of lines
    """One line of one page, as the furniture detector sees it (``box`` and
    ``rotated`` where a PDF's layout is known: ``transforms.types.LineStyle``)."""

    text: str
    removable: bool = True  # False for tables and code
    is_heading: bool = False
    box: Box | None = None  # None: not placed (not a PDF, or PDFium did not find it)
    rotated: bool = False  # set at an angle, as margin stamps are
    size: float = 0.0  # font size in points (0: not measured)


@dataclass(frozen=True)
class FurnitureResult:
    """``(page_index, line_index)`` of every furniture line, and why."""

    page_numbers: frozenset[tuple[int, int]]
    running_text: frozenset[tuple[int, int]]
    companions: frozenset[tuple[int, int]]
    stamps: frozenset[tuple[int, int]] = frozenset()

    @property
    def lines(self) -> frozenset[tuple[int, int]]:
        return self.page_numbers | self.running_text | self.companions | self.stamps


def roman_value(token: str) -> int | None:
    token = token.lower()
    if not token or not _ROMAN.match(token):
        return None
    values = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
    total = 0
    for i, ch in enumerate(token):
        value = values[ch]
        total += -value if i + 1 < len(token) and values[token[i + 1]] > value else value
    return total


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
    # str.split() splits on exactly the whitespace \s matches: the same as
    # _SPACES.sub(" ", line).strip(), without the regex.
    text = _DIGITS.sub("#", " ".join(line.split()).casefold())
    return _ROMAN_WORD.sub(lambda m: "#" if roman_value(m.group()) else m.group(), text)


def _band(n_lines: int, width: int) -> list[int]:
    """Indexes of the first and last ``width`` lines of a page."""
    if n_lines <= 2 * width:
        return list(range(n_lines))
    return [*range(width), *range(n_lines - width, n_lines)]


def _is_companion(line: PageLine) -> bool:
    text = line.text.strip()
    return (line.removable and 0 < len(text) <= MAX_COMPANION_CHARS
            and not text.endswith(_SENTENCE_END) and page_number_value(text) is None
            and not _is_data_row(text))


def _is_data_row(text: str) -> bool:
    """Three numbers or more and no word: a chart's axis ("0 50 100 150 200") or a
    row of figures, never a head, whatever sits beside it."""
    tokens = text.split()
    return len(tokens) >= 3 and not any(ch.isalpha() for ch in text)


def embedded_page_number(line: str) -> tuple[str, int] | None:
    """The number that opens or closes a short running-head line ("Chapter 4: Parsing 9")."""
    found = _head_number(line)
    return None if found is None else found[:2]


def _head_number(line: str) -> tuple[str, int, str] | None:
    """``embedded_page_number`` and the line's text without that number."""
    text = line.strip()
    if len(text) > MAX_COMPANION_CHARS or text.endswith(_SENTENCE_END):
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


def _find_page_numbers(pages: Sequence[Sequence[PageLine]]) -> set[tuple[int, int]]:
    votes: dict[tuple[str, int], set[int]] = defaultdict(set)
    outermost: dict[tuple[str, int], set[int]] = defaultdict(set)  # voters on line 0 or n-1
    candidates: list[tuple[int, int, str, int]] = []
    embedded: dict[str, list[tuple[int, int, str, int]]] = defaultdict(list)
    for p, lines in enumerate(pages):
        extreme = set(_band(len(lines), EXTREME_BAND))
        for i in _band(len(lines), PAGE_NUMBER_BAND):
            if not lines[i].removable:
                continue
            parsed = page_number_value(lines[i].text)
            if parsed is not None:
                system, value = parsed
                candidates.append((p, i, system, value - p))
                votes[(system, value - p)].add(p)
                if i in (0, len(lines) - 1):
                    outermost[(system, value - p)].add(p)
            elif i in extreme and (inner := _head_number(lines[i].text)):
                # Grouped by the text beside the number, which may open one page's
                # head and close the next one's ("1032 JFMS …" / "JFMS … 1033").
                system, value, rest = inner
                embedded[line_shape(rest)].append((p, i, system, value - p))
    # A running head that carries the page number must itself repeat, so a
    # numbered section heading at the top of one page is never taken for one.
    single: list[tuple[int, int, str, int]] = []
    for rest, hits in embedded.items():
        if len({p for p, *_ in hits}) >= 2:
            candidates.extend(hits)
            for p, i, system, offset in hits:
                votes[(system, offset)].add(p)
                # The outermost line of its page, with words of its own: two
                # consecutive pages suffice, as for lone numbers.
                if i in (0, len(pages[p]) - 1) and len(rest.split()) >= 2:
                    outermost[(system, offset)].add(p)
        else:
            single.extend(hits)
    needed = 2 if len(pages) <= SHORT_DOCUMENT_PAGES else MIN_SEQUENCE_PAGES
    accepted = {key for key, voters in votes.items()
                if len(voters) >= needed or _consecutive_pair(outermost[key])}
    # A head seen once (the only recto page of a chapter: "Chapter 6: Tobogganing
    # 53") still goes when it *ends* in the number the other pages' sequence
    # predicts; headings begin with their numbers, running heads end with them.
    # A footer on a page's last line may begin with it ("2 Contents"): a
    # numbered heading does not close a page.
    candidates.extend(hit for hit in single
                      if (hit[2], hit[3]) in accepted
                      and _is_single_head(pages[hit[0]][hit[1]].text,
                                          last_line=hit[1] == len(pages[hit[0]]) - 1))
    found: set[tuple[int, int]] = set()
    per_page_edge: set[tuple[int, bool, str, int]] = set()
    # Closest to an edge first: at most one page number per page edge and sequence
    # (a review copy's head numbers the pages its own way above the journal's head).
    for p, i, system, offset in sorted(
        candidates, key=lambda c: (min(c[1], len(pages[c[0]]) - 1 - c[1]), c[0], c[1])
    ):
        top = i < len(pages[p]) / 2
        if (system, offset) in accepted and (p, top, system, offset) not in per_page_edge:
            found.add((p, i))
            per_page_edge.add((p, top, system, offset))
    return found


def _ends_in_number(line: str) -> bool:
    last = line.split()[-1] if line.split() else ""
    return last.isdigit() or roman_value(last) is not None


_LIST_MARKS = ("•", "·", "-", "–", "—", "*", "▪", "◦", "●", "‣")


def _is_single_head(line: str, last_line: bool) -> bool:
    """A running head seen once: ends in its number (or opens with it on a last line),
    and is neither a list item nor a sentence with a number fused to its end."""
    tokens = line.split()
    if not tokens or tokens[0].startswith(_LIST_MARKS):
        return False
    if _ends_in_number(line):
        rest = " ".join(tokens[:-1])
        return not rest.endswith(_SENTENCE_END)
    first = tokens[0]
    return last_line and (first.isdigit() or roman_value(first) is not None)


def _outer_number(tokens: list[str]) -> tuple[int, str] | None:
    """(value, the rest) when a line opens or closes with an arabic number."""
    for value, rest in ((tokens[-1], tokens[:-1]), (tokens[0], tokens[1:])):
        if value.isdigit() and 0 < int(value) <= MAX_PAGE_NUMBER:
            return int(value), " ".join(rest)
    return None


def _find_anchored_heads(pages: Sequence[Sequence[PageLine]]) -> set[tuple[int, int]]:
    """Running heads anywhere on their page, anchored by the page sequence.

    Tika's reading order can put a head after a page's floats, deep in the page.
    Such a head is still one line whose text, without the page number at its
    start or end ("446 H. Ashuri … 444–454" / "H. Ashuri … 444–454 445"),
    recurs on at least half the pages, and whose number is the page index plus
    one offset on at least ``MIN_ANCHORED_PAGES`` of them (and a quarter of all
    pages). Lines of that text whose number is fused to the previous word
    ("253–265254") go with them. A line of one word besides the number
    ("Figure 3") or one that ends a sentence is never such a head.
    """
    numbered: list[tuple[int, int, int, str]] = []  # (page, line, offset, text without it)
    fused: list[tuple[int, int, str]] = []  # ends in a digit that is no token of its own
    for p, lines in enumerate(pages):
        for i, line in enumerate(lines):
            text = line.text.strip()
            if (not (text[:1].isdigit() or text[-1:].isdigit()) or not line.removable
                    or len(text) > 2 * MAX_COMPANION_CHARS):
                continue  # most lines: no number at either end (checked before splitting)
            tokens = text.split()
            if len(tokens) < 3 or not (tokens[0][0].isdigit() or tokens[-1][-1].isdigit()):
                continue  # the page number (or the one fused to the text) is at one end
            outer = _outer_number(tokens)
            rest = outer[1] if outer else text
            if rest.endswith(_SENTENCE_END) or sum(t.isalpha() for t in rest.split()) < 2:
                continue
            if outer:
                numbered.append((p, i, outer[0] - p, rest))
            else:
                fused.append((p, i, text))
    # Only an offset that several pages share can anchor a head: shape only those
    # lines (shaping every numbered line of a long table costs).
    pages_of_offset: dict[int, set[int]] = defaultdict(set)
    for p, _, offset, _ in numbered:
        pages_of_offset[offset].add(p)
    needed = max(MIN_ANCHORED_PAGES, ANCHORED_PAGE_SHARE * len(pages))
    viable = {offset for offset, on in pages_of_offset.items() if len(on) >= needed}
    if not viable:
        return set()
    members: dict[str, list[tuple[int, int, int | None]]] = defaultdict(list)
    for p, i, offset, rest in numbered:
        if offset in viable:
            members[line_shape(rest)].append((p, i, offset))
    firsts = {shape[:1] for shape in members}  # a shape starts as its line does, or "#"
    for p, i, text in fused:
        first = text[:1].casefold()
        if first in firsts or ("#" in firsts and (first.isdigit() or first in "ivxlcdm")):
            members[line_shape(text)].append((p, i, None))
    found: set[tuple[int, int]] = set()
    for hits in members.values():
        on_pages = {p for p, _, _ in hits}
        if len(on_pages) < MIN_PAGE_SHARE * len(pages) or len(on_pages) != len(hits):
            continue  # not on most pages, or more than once on a page: not a head
        offsets = Counter(offset for _, _, offset in hits if offset is not None)
        if offsets and offsets.most_common(1)[0][1] >= needed:
            anchor = offsets.most_common(1)[0][0]
            found.update((p, i) for p, i, offset in hits if offset in (anchor, None))
    return found


def _consecutive_pair(on_pages: set[int]) -> bool:
    return len(on_pages) == 2 and max(on_pages) - min(on_pages) == 1


def _find_single_page_number(lines: Sequence[PageLine]) -> set[tuple[int, int]]:
    """A lone number on the first or last two lines of a page with enough body."""
    if len(lines) < 2 * EXTREME_BAND + 1:
        return set()
    for i in _band(len(lines), EXTREME_BAND):
        if not lines[i].removable or page_number_value(lines[i].text) is None:
            continue
        neighbours = [j for j in (i - 1, i + 1) if 0 <= j < len(lines)]
        if any(page_number_value(lines[j].text) for j in neighbours):
            continue  # a column of numbers, not a page number
        return {(0, i)}
    return set()


def _find_running_text(pages: Sequence[Sequence[PageLine]],
                       depths: Sequence[tuple[int, int]] | None = None,
                       numbers: set[tuple[int, int]] | frozenset[tuple[int, int]] = frozenset(),
                       page_sizes: Sequence[tuple[float, float]] | None = None
                       ) -> set[tuple[int, int]]:
    """Running text within each page's edge band (``depths``: lines from the top and
    from the bottom; ``RUNNING_TEXT_BAND`` each by default; ``numbers``: the page
    numbers found, which confirm the facing side of an alternating head; ``page_sizes``:
    the pages' (width, height), for where placed lines sit). A line set wholly beyond
    its page's left or right edge (the other half of a spread, which the page
    carries unseen) is neither evidence nor furniture."""
    edge_pages: dict[str, set[int]] = defaultdict(set)
    edge_hits: dict[str, list[tuple[int, int]]] = defaultdict(list)
    number_shapes: set[str] = set()  # page-number lines: the sequence rule decides
    extreme_pages: dict[str, set[int]] = defaultdict(set)  # on a page's first/last 2 lines
    if depths is None:
        bands = [set(_band(len(lines), RUNNING_TEXT_BAND)) for lines in pages]
    else:
        bands = [{*range(min(top, len(lines))), *range(max(0, len(lines) - bottom), len(lines))}
                 for lines, (top, bottom) in zip(pages, depths, strict=True)]
    for p, lines in enumerate(pages):
        extreme = set(_band(len(lines), EXTREME_BAND))
        width = page_sizes[p][0] if page_sizes and p < len(page_sizes) else math.inf
        for i in bands[p]:
            line = lines[i]
            if line.box is not None and (line.box[2] <= 0 or line.box[0] >= width):
                continue
            shape = line_shape(line.text)
            if not shape:
                continue
            if page_number_value(line.text) is not None or _is_data_row(line.text):
                number_shapes.add(shape)
            edge_pages[shape].add(p)
            if i in extreme:
                extreme_pages[shape].add(p)
            if line.removable:
                edge_hits[shape].append((p, i))
    n = len(pages)
    body_size = _body_size(pages)
    n_even, n_odd = (n + 1) // 2, n // 2  # page index 0 is page 1 (odd)
    candidates: list[str] = []
    alternating: list[tuple[str, int]] = []  # (shape, parity of the pages it is on)
    for shape, on_pages in edge_pages.items():
        if (len(on_pages) < 2 or shape in number_shapes
                or _slide_title(pages, edge_hits[shape], body_size, page_sizes)
                or (_numbers_vary_like_a_table(pages, edge_hits[shape])
                    and not _all_at_one_place(pages, edge_hits[shape]))):
            continue
        odd = sum(1 for p in on_pages if p % 2 == 0)
        even = len(on_pages) - odd
        if (len(on_pages) >= MIN_PAGE_SHARE * n
                or _on_consecutive_pages(extreme_pages.get(shape, set()))
                or _at_one_place(pages, edge_hits[shape], extreme_pages.get(shape, set()))):
            candidates.append(shape)
        elif n_even and odd >= 2 and odd >= MIN_PAGE_SHARE * n_even and even == 0:
            alternating.append((shape, 0))
        elif n_odd and even >= 2 and even >= MIN_PAGE_SHARE * n_odd and odd == 0:
            alternating.append((shape, 1))
    # A head on every other page only is a verso or recto head when the facing
    # pages carry furniture too (their own head or the page numbers); a body line
    # that happens to open two even pages has no such partner.
    if alternating:
        furnished = {p for shape in candidates for p in edge_pages[shape]}
        furnished.update(p for p, _ in numbers)
        furnished.update(p for shape, _ in alternating for p in edge_pages[shape])
        candidates.extend(shape for shape, parity in alternating
                          if any(p % 2 != parity for p in furnished))
    if not candidates:
        return set()
    # Text the body uses too is never furniture: look for the candidates mid-page
    # (only now, and only lines of a plausible length, since shaping every line costs).
    lengths = {len(shape) for shape in candidates}
    low, high = min(lengths) // 2, max(lengths) * 4 + 16
    # A shape's first character is the line's (case-folded) first one, or "#"
    # for a digit or a roman numeral: lines starting otherwise cannot match.
    firsts = {shape[0] for shape in candidates}
    if "#" in firsts:
        firsts.update("0123456789ivxlcdm")
    # Likewise the last character, for ASCII lines (NFKC cannot change it there).
    lasts = {shape[-1] for shape in candidates}
    if "#" in lasts:
        lasts.update("0123456789ivxlcdm")
    middle_pages: dict[str, set[int]] = defaultdict(set)
    for p, lines in enumerate(pages):
        for i, line in enumerate(lines):
            if (i not in bands[p] and low <= len(line.text) <= high
                    and line.text[:1].casefold()[:1] in firsts
                    and (not line.text.isascii()
                         or line.text.rstrip()[-1:].casefold() in lasts)):
                middle_pages[line_shape(line.text)].add(p)
    found: set[tuple[int, int]] = set()
    moved: list[str] = []  # repeated at the edges, but not at one place
    for shape in candidates:
        in_middle = len(middle_pages.get(shape, ()))
        if in_middle * EDGE_PAGES_PER_MIDDLE_PAGE >= len(edge_pages[shape]):
            continue
        if _keeps_its_place(pages, edge_hits[shape], page_sizes):
            found.update(_set_as_a_head(pages, edge_hits[shape], body_size))
        else:
            moved.append(shape)
    found.update(_repeated_blocks(pages, {shape: edge_hits[shape] for shape in moved}))
    return found


def _repeated_blocks(pages: Sequence[Sequence[PageLine]],
                     moved: dict[str, list[tuple[int, int]]]) -> set[tuple[int, int]]:
    """Repeated edge lines that do not keep one place but form, on every page they are
    on, a block of at least ``MIN_REPEATED_BLOCK_LINES`` such lines one under the other
    in the same order: a letterhead's foot (department, address, contact, notice) set a
    line higher on one page than on the other. A table's note that moves with the table
    is a line or two."""
    if not moved:
        return set()
    shape_of = {hit: shape for shape, hits in moved.items() for hit in hits}
    runs: dict[tuple[str, ...], list[list[tuple[int, int]]]] = defaultdict(list)
    for p in sorted({p for p, _ in shape_of}):
        order = edge_order(pages[p])
        run: list[tuple[int, int]] = []
        for i in [*order, -1]:
            if (p, i) in shape_of:
                run.append((p, i))
                continue
            if len(run) >= MIN_REPEATED_BLOCK_LINES:
                runs[tuple(shape_of[hit] for hit in run)].append(run)
            run = []
    found: set[tuple[int, int]] = set()
    for shapes, blocks in runs.items():
        pages_with = {block[0][0] for block in blocks}
        if len(pages_with) == len(blocks) and all(
                pages_with == {p for p, _ in moved[shape]} for shape in shapes):
            found.update(hit for block in blocks for hit in block)
    return found


def _set_as_a_head(pages: Sequence[Sequence[PageLine]], hits: list[tuple[int, int]],
                   body_size: float) -> list[tuple[int, int]]:
    """The hits set as the running head is, leaving out a title it repeats: a paper's
    or a chapter's title, set larger than the body on its opening page, that the next
    pages carry as their running head in small type (an EGC paper's title, a book's
    chapter) is the title there, not furniture."""
    sizes = sorted(size for p, i in hits if (size := pages[p][i].size) > 0)
    if not body_size or len(sizes) < 2:
        return hits
    usual = sizes[(len(sizes) - 1) // 2]  # the lower median: the heads outnumber titles
    return [(p, i) for p, i in hits
            if not ((size := pages[p][i].size) > usual and sizes_differ(size, usual)
                    and size > body_size and sizes_differ(size, body_size))]


def _keeps_its_place(pages: Sequence[Sequence[PageLine]], hits: list[tuple[int, int]],
                     page_sizes: Sequence[tuple[float, float]] | None) -> bool:
    """Does a repeated line sit at one distance from its page's edge on most pages
    where it is placed? Furniture is set at a fixed place; a table's note repeated
    under each part of a table over pages ("See notes at end of table.") moves with
    the table's length, and stays."""
    distances = []
    for p, i in hits:
        box = pages[p][i].box
        if box is None:
            continue
        height = page_sizes[p][1] if page_sizes and p < len(page_sizes) else 0.0
        distances.append(box[3] - height if height and box[1] > height / 2 else box[1])
    if len(distances) < 2:
        return True
    distances.sort()
    most = max(bisect.bisect_right(distances, d + PLACE_DRIFT_POINTS) - k
               for k, d in enumerate(distances))
    return 2 * most > len(distances)


def _all_at_one_place(pages: Sequence[Sequence[PageLine]], hits: list[tuple[int, int]]
                      ) -> bool:
    """Are two or more of these lines placed, all at one place? A printer's slug
    whose sheet, time and job numbers change ("VerDate … 14:29 … Frm 00011 …") is
    set where the last page had it; a table's rows move with the table."""
    boxes = [box for p, i in hits if (box := pages[p][i].box) is not None]
    return len(boxes) >= 2 and len(boxes) == len(hits) and all(
        _same_place(box, boxes[0]) for box in boxes)


def _body_size(pages: Sequence[Sequence[PageLine]]) -> float:
    """The font size most of the document's measured characters are set in (0: none
    measured)."""
    weights: Counter[float] = Counter()
    for lines in pages:
        for line in lines:
            if line.size > 0:
                weights[line.size] += len(line.text)
    return weights.most_common(1)[0][0] if weights else 0.0


def _slide_title(pages: Sequence[Sequence[PageLine]], hits: list[tuple[int, int]],
                 body_size: float, page_sizes: Sequence[tuple[float, float]] | None) -> bool:
    """Are these lines a slide's title carried over to the next slides ("Cichelli's
    Method" over three slides): on landscape pages, each measured and set larger than
    the document's body? A deck's running text (its name, the author, the date) is
    set small; portrait pages do set running heads larger than their body (a
    government report's excerpt whose body is its tables' small print), so the
    rule is the slides' only."""
    if not body_size or not hits or not page_sizes:
        return False
    return all(p < len(page_sizes) and page_sizes[p][0] > page_sizes[p][1]
               and (size := pages[p][i].size) > body_size and sizes_differ(size, body_size)
               for p, i in hits)


def _at_one_place(pages: Sequence[Sequence[PageLine]], hits: list[tuple[int, int]],
                  extreme: set[int]) -> bool:
    """Running text by its place: a short line, no sentence, at the very edge of two
    pages or more, once on each, at the same place on
    all of them, and set no larger than the text of its pages (the series title
    heading every even page of a newsletter that prints no page numbers; a title
    page printed twice has its title set large; a passage a long book prints twice
    is no head)."""
    if (len(hits) < 2
            or len({p for p, _ in hits}) != len(hits) or any(p not in extreme for p, _ in hits)
            or not all(_is_companion(pages[p][i]) for p, i in hits)):
        return False
    first = pages[hits[0][0]][hits[0][1]].box
    if first is None or not all((box := pages[p][i].box) is not None
                                and _same_place(box, first) for p, i in hits):
        return False
    for p, i in hits:
        sizes = sorted(line.size for line in pages[p] if line.size > 0)
        size = pages[p][i].size
        if not sizes or not 0 < size <= sizes[len(sizes) // 2]:
            return False
    return True


def _find_running_blocks(pages: Sequence[Sequence[PageLine]],
                         numbers: set[tuple[int, int]],
                         page_sizes: Sequence[tuple[float, float]] | None = None
                         ) -> set[tuple[int, int]]:
    """Running text, with each page's edge band grown inward while it is all furniture."""
    depths = [[RUNNING_TEXT_BAND, RUNNING_TEXT_BAND] for _ in pages]
    found = _find_running_text(pages, numbers=numbers, page_sizes=page_sizes)
    for _ in range(MAX_BLOCK_LINES - RUNNING_TEXT_BAND):
        furniture = found | numbers
        grown = False
        for p, lines in enumerate(pages):
            n = len(lines)
            top, bottom = depths[p]
            if top + bottom >= n:
                continue  # the band already covers the page
            if all((p, i) in furniture for i in range(top)):
                depths[p][0] += 1
                grown = True
            if all((p, i) in furniture for i in range(n - bottom, n)):
                depths[p][1] += 1
                grown = True
        if not grown:
            break
        found = _find_running_text(pages, [(top, bottom) for top, bottom in depths], numbers,
                                   page_sizes)
    return found


def _numbers_vary_like_a_table(pages: Sequence[Sequence[PageLine]],
                               hits: list[tuple[int, int]]) -> bool:
    """Lines of one shape whose numbers change in more than two places are data rows
    ("Revenue 1,567 3,684 5,056"), not a head whose page (and chapter) number changes."""
    runs = [_DIGITS.findall(pages[p][i].text) for p, i in hits]
    if len(runs) < 2 or len(runs[0]) <= MAX_CHANGING_NUMBERS:
        return False
    if any(len(r) != len(runs[0]) for r in runs):
        return False
    changing = sum(1 for k in range(len(runs[0])) if len({r[k] for r in runs}) > 1)
    return changing > MAX_CHANGING_NUMBERS


def _on_consecutive_pages(on_pages: set[int]) -> bool:
    """A section head: the same line at a page's very edge on a run of pages."""
    return any(all(p + k in on_pages for k in range(SECTION_RUN_PAGES)) for p in on_pages)


def _find_companions(pages: Sequence[Sequence[PageLine]],
                     page_numbers: set[tuple[int, int]]) -> set[tuple[int, int]]:
    # With several pages, a head's words recur at the edge of another page (the
    # chapter's name on its next page, the journal's on the facing one); a slide's
    # title above its number in Tika's order does not, so it stays.
    edge_shapes: dict[str, set[int]] = defaultdict(set)

    def recurs_at_an_edge(line: PageLine) -> bool:
        if len(pages) == 1:
            return True
        if not edge_shapes:  # built on first need: most documents never ask
            for p, lines in enumerate(pages):
                for i in _band(len(lines), RUNNING_TEXT_BAND):
                    edge_shapes[line_shape(lines[i].text)].add(p)
        return len(edge_shapes[line_shape(line.text)]) >= 2

    found: set[tuple[int, int]] = set()
    for p, i in page_numbers:
        lines = pages[p]
        parsed = page_number_value(lines[i].text)
        if parsed is None or parsed[1] == 1:
            continue
        if i < EXTREME_BAND and i < len(lines) - 1 - i:
            between = range(0, i)
        elif i >= len(lines) - EXTREME_BAND:
            between = range(i + 1, len(lines))
        else:
            continue
        if all(_is_companion(lines[j]) and recurs_at_an_edge(lines[j]) for j in between):
            found.update((p, j) for j in between)
    return found


def _is_fragment(text: str) -> bool:
    """One glyph cluster of rotated text: short, no space inside."""
    return 0 < len(text) <= MAX_FRAGMENT_CHARS and " " not in text


def _find_margin_stamps(pages: Sequence[Sequence[PageLine]],
                        frame: tuple[float, float] | None = None) -> set[tuple[int, int]]:
    """Runs of rotated-text fragments that close a page (rule 4). Where most of the
    run's placed lines (two or more) lie across the document's text ``frame`` (left
    and right), it is a figure's labels that Tika put last (an axis title, tick
    values): it stays."""
    found: set[tuple[int, int]] = set()
    for p, lines in enumerate(pages):
        start = len(lines)
        while (start > 0 and lines[start - 1].removable
               and _is_fragment(lines[start - 1].text.strip())):
            start -= 1
        run = [lines[i].text for i in range(start, len(lines))]
        if len(run) >= MIN_STAMP_LINES and sum(ch.isalpha() for t in run for ch in t) >= 2:
            boxes = [box for i in range(start, len(lines)) if (box := lines[i].box)]
            if frame is not None and len(boxes) >= 2 and 2 * sum(
                    1 for box in boxes if box[2] > frame[0] and box[0] < frame[1]) > len(boxes):
                continue
            found.update((p, i) for i in range(start, len(lines)))
    return found


def edge_order(lines: Sequence[PageLine]) -> list[int]:
    """A page's line indexes from its top edge to its bottom edge.

    Lines with a box go by position: rows from the top (lines whose vertical
    middles lie within half a line of each other share a row), left to right
    within a row. A line without a box keeps its place in Tika's order, and so
    its distance from the nearer page edge: the placed lines fill the other
    places. Without boxes this is Tika's order: the text-only rules see what
    they always saw.
    """
    boxes = [line.box for line in lines]
    placed = [(box[1] + box[3], box[0], box[3] - box[1], i)  # (2 × middle, left, height, i)
              for i, box in enumerate(boxes) if box is not None]
    if not placed:
        return list(range(len(lines)))
    placed.sort()
    ordered: list[int] = []
    row: list[tuple[float, int]] = []
    row_middle = row_height = 0.0
    for middle2, left, height, i in placed:
        height = max(height, 1.0)
        if row and abs(middle2 - row_middle) <= 2 * ROW_TOLERANCE * min(height, row_height):
            row.append((left, i))
            continue
        if row:
            row.sort()
            ordered.extend(i for _, i in row)
        row = [(left, i)]
        row_middle, row_height = middle2, height
    row.sort()
    ordered.extend(i for _, i in row)
    by_position = iter(ordered)
    return [next(by_position) if box is not None else i for i, box in enumerate(boxes)]


def _placed_lines(lines: Sequence[PageLine]) -> list[PageLine]:
    """A page's lines, a box that is no line's taken away: a level line whose box is
    several times as tall as its font and the page's lines are (PDFium's characters
    of it lie on different lines of the page) says nothing about where the line is."""
    heights = sorted(line.box[3] - line.box[1] for line in lines
                     if line.box is not None and not line.rotated)
    if not heights:
        return list(lines)
    typical = max(heights[len(heights) // 2], 1.0)
    return [line._replace(box=None)
            if line.box is not None and not line.rotated
            and line.box[3] - line.box[1] > MAX_LINE_HEIGHTS * max(typical, line.size)
            else line for line in lines]


def _middle(box: Box) -> float:
    return (box[1] + box[3]) / 2


def _body_frame(lines: Sequence[PageLine]) -> tuple[float, float] | None:
    """Left and right edge of a page's horizontal text (lines of some length)."""
    boxes = [line.box for line in lines if line.box is not None and not line.rotated
             and len(line.text) >= MIN_FRAME_LINE_CHARS]
    if len(boxes) < MIN_FRAME_LINES:
        return None
    return min(box[0] for box in boxes), max(box[2] for box in boxes)


def _document_frame(pages: Sequence[Sequence[PageLine]]) -> tuple[float, float] | None:
    """Left and right edge of the document's horizontal text (the pages' medians)."""
    frames = [frame for lines in pages if (frame := _body_frame(lines)) is not None]
    if not frames:
        return None
    return (sorted(frame[0] for frame in frames)[len(frames) // 2],
            sorted(frame[1] for frame in frames)[len(frames) // 2])


def _find_rotated_stamps(pages: Sequence[Sequence[PageLine]],
                         page_sizes: Sequence[tuple[float, float]] | None,
                         frame: tuple[float, float] | None) -> set[tuple[int, int]]:
    """Text set at an angle in a page's margin: on the page, beside the document's
    horizontal text, and nearer the page's edge than any other text of the page
    (an identifier up the margin). A rotated label inside a figure lies within the
    text's width; the first column of a table set sideways has the next column
    beside it, nearer than the page edge: both stay."""
    if frame is None:
        return set()
    left, right = frame
    found: set[tuple[int, int]] = set()
    for p, lines in enumerate(pages):
        width = page_sizes[p][0] if page_sizes and p < len(page_sizes) else math.inf
        candidates = [i for i, line in enumerate(lines)
                      if line.rotated and line.box is not None and line.removable
                      and line.box[2] > 0 and line.box[0] < width  # on the page
                      and (line.box[2] <= left or line.box[0] >= right)]
        if not candidates:
            continue
        boxes = [line.box for line in lines if line.box is not None]
        starts = sorted(box[0] for box in boxes)
        ends = sorted(box[2] for box in boxes)
        for i in candidates:
            x0, _, x1, _ = lines[i].box
            if x1 <= left:  # left margin: the nearest text that starts right of it
                k = bisect.bisect_left(starts, x1)
                gap = starts[k] - x1 if k < len(starts) else math.inf
                edge = max(x0, 0.0)
            else:
                k = bisect.bisect_right(ends, x0)
                gap = x0 - ends[k - 1] if k > 0 else math.inf
                edge = max(width - x1, 0.0) if width != math.inf else 0.0
            if gap >= max(MIN_STAMP_GAP, edge / 2):
                found.add((p, i))
    return found


def _find_repeated_rotated(pages: Sequence[Sequence[PageLine]]) -> set[tuple[int, int]]:
    """Text set at an angle that recurs at the same place on many pages: a stamp or
    watermark laid over each page ("DO NOT SEND THIS PAGE" across a form's pages,
    in pieces), wherever it lies. A rotated label in one figure does not recur."""
    places: dict[str, list[tuple[int, int, Box]]] = defaultdict(list)
    for p, lines in enumerate(pages):
        for i, line in enumerate(lines):
            if line.rotated and line.box is not None and line.removable:
                places[line_shape(line.text)].append((p, i, line.box))
    needed = max(MIN_SEQUENCE_PAGES, MIN_PAGE_SHARE * len(pages))
    found: set[tuple[int, int]] = set()
    for hits in places.values():
        if len({p for p, _, _ in hits}) < needed:
            continue
        # The place most of them share (boxes rounded to a grid), and all hits near it.
        grid = Counter(tuple(round(x / SAME_PLACE_POINTS) for x in box) for _, _, box in hits)
        cell = grid.most_common(1)[0][0]
        anchor = next(box for _, _, box in hits
                      if tuple(round(x / SAME_PLACE_POINTS) for x in box) == cell)
        same = [(p, i) for p, i, box in hits if _same_place(box, anchor)]
        if len({p for p, _ in same}) >= needed:
            found.update(same)
    return found


def _same_place(a: Box, b: Box) -> bool:
    return all(abs(x - y) <= SAME_PLACE_POINTS for x, y in zip(a, b, strict=True))


def _unplaced_stamp_pieces(pages: Sequence[Sequence[PageLine]],
                           stamps: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """Pieces of a stamp that PDFium did not place ("P" between "END THIS" and "AGE W"):
    runs of short lines without a box between a stamp line and another stamp line or
    the end of the page, in Tika's order."""
    found: set[tuple[int, int]] = set()
    for p, lines in enumerate(pages):
        run: list[int] = []
        opened = False  # the run follows a stamp line
        for i, line in enumerate(lines):
            if (p, i) in stamps:
                if opened:
                    found.update((p, j) for j in run)
                run, opened = [], True
            elif (opened and line.box is None and line.removable
                  and len(line.text.strip()) <= MAX_STAMP_PIECE_CHARS):
                run.append(i)
            else:
                run, opened = [], False
        if opened:
            found.update((p, j) for j in run)
    return found


def _find_slugs(pages: Sequence[Sequence[PageLine]],
                page_sizes: Sequence[tuple[float, float]] | None) -> set[tuple[int, int]]:
    """Lines set wholly above the page's top edge or below its bottom edge, whose
    shape recurs there on another page: the printer's slug
    (``file.indd 3 09/10/2013 5:49 PM``), which no reader sees. Text that ran off
    one page (a margin note too long for it) does not recur, and stays."""
    if not page_sizes:
        return set()
    beyond: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for p, lines in enumerate(pages):
        if p >= len(page_sizes):
            break
        height = page_sizes[p][1]
        for i, line in enumerate(lines):
            box = line.box
            if line.removable and box is not None and (box[3] <= 0 or box[1] >= height):
                beyond[line_shape(line.text)].append((p, i))
    return {hit for hits in beyond.values() if len({p for p, _ in hits}) >= 2 for hit in hits}


def _find_set_apart_edges(pages: Sequence[Sequence[PageLine]],
                          numbers: set[tuple[int, int]],
                          found_already: set[tuple[int, int]] | frozenset[tuple[int, int]]
                          = frozenset()) -> set[tuple[int, int]]:
    """Heads and footers that cannot show repetition, by how they are set: a page's
    top or bottom row, apart from the text (its gap to the next row at least the
    text's line pitch), in a smaller font than the text, short and no sentence,
    carrying its page's number ("Frumin and Zhao 53" on a one-page excerpt; "… (1789)
    I-2" heading page 2 of 2). The number must be that of its page in the sequence
    the page numbers found follow (or the page's own index), and other than 1. A
    single page that shows a page number other than 1 (``numbers``) loses such a row
    at either edge. A title is set larger; an unnumbered line stays."""
    offsets = {0}
    for p, i in numbers:
        parsed = page_number_value(pages[p][i].text) or embedded_page_number(pages[p][i].text)
        if parsed is not None:
            offsets.add(parsed[1] - p - 1)
    found: set[tuple[int, int]] = set()
    for p, lines in enumerate(pages):
        if len(pages) > 1 and not any((p, i) not in found_already
                                      and embedded_page_number(lines[i].text)
                                      for i in _band(len(lines), EXTREME_BAND + 1)):
            continue  # most pages: no number left at an edge line, nothing to measure
        rows = _rows(lines)
        sized = [line for line in lines
                 if line.size > 0 and len(line.text) >= MIN_FRAME_LINE_CHARS]
        if len(rows) < 3 or len(sized) < MIN_FRAME_LINES:
            continue
        body_size = Counter(round(line.size) for line in sized).most_common(1)[0][0]
        tops = [min(lines[i].box[1] for i in row) for row in rows]
        pitch = sorted(b - a for a, b in itertools.pairwise(tops))[len(tops) // 2 - 1]
        paged = len(pages) == 1 and any(
            page_number_value(lines[i].text) not in (None, ("arabic", 1), ("roman", 1))
            for q, i in numbers if q == p)
        for edge, inner in ((rows[0], rows[1]), (rows[-1], rows[-2])):
            top, bottom = min(lines[i].box[1] for i in edge), max(lines[i].box[3] for i in edge)
            gap = (min(lines[i].box[1] for i in inner) - bottom if edge is rows[0]
                   else top - max(lines[i].box[3] for i in inner))
            texts = [lines[i] for i in edge if (p, i) not in numbers]
            if (not texts or gap < pitch
                    or not all(0 < line.size < SMALLER_FONT * body_size and _is_companion(line)
                               for line in texts)):
                continue
            numbered = any(number[1] != 1 and (len(pages) == 1 or number[1] - p - 1 in offsets)
                           for line in texts
                           if (number := embedded_page_number(line.text)) is not None)
            if paged or numbered:
                found.update((p, i) for i in edge if (p, i) not in numbers)
    return found


def _rows(lines: Sequence[PageLine]) -> list[list[int]]:
    """The placed (level) lines of a page in rows, top to bottom (``edge_order``'s)."""
    placed = sorted((i for i, line in enumerate(lines) if line.box is not None
                     and not line.rotated), key=lambda i: _middle(lines[i].box))
    rows: list[list[int]] = []
    for i in placed:
        if rows and _same_row(lines[rows[-1][0]].box, lines[i].box):
            rows[-1].append(i)
        else:
            rows.append([i])
    return rows


def _find_slot_furniture(pages: Sequence[Sequence[PageLine]],
                         furniture: set[tuple[int, int]],
                         placed_elsewhere: Sequence[tuple[int, PageLine]] = ()
                         ) -> set[tuple[int, int]]:
    """Lines at a page's edge that sit where furniture sits on many other pages: the
    same top, the same left, right or centre, the same font size. A section head
    that runs on two pages only ("Drifts Henfor" where "Approach" stood) goes by its
    place, whatever its text. Only the outermost row left on a page, only short
    lines that are no sentence: the body's last line, a licence note or a table row
    does not sit in the head's or the footer's slot and say no more than a head.
    ``placed_elsewhere``: ``(page, line)`` of furniture found before these pages were
    cut (a page number PDFium places off the drawn page, taken as a slug), whose
    places count too."""
    slots: dict[int, list[tuple[int, Box, float]]] = defaultdict(list)
    for p, line in [*((p, pages[p][i]) for p, i in furniture), *placed_elsewhere]:
        if line.box is not None and not line.rotated:
            slots[round(line.box[1])].append((p, line.box, line.size))
    if not slots:
        return set()
    needed = max(MIN_SEQUENCE_PAGES, SLOT_PAGE_SHARE * len(pages))
    found: set[tuple[int, int]] = set()
    for p, lines in enumerate(pages):
        for edge in _outer_rows(lines, p, furniture):
            for i in edge:
                line = lines[i]
                if (p, i) in furniture or line.box is None or not _is_companion(line):
                    continue
                top = round(line.box[1])
                on_pages = {q for key in range(top - 2, top + 3)
                            for q, box, size in slots.get(key, ())
                            if q != p and _same_slot(line, box, size)}
                if len(on_pages) >= needed:
                    found.add((p, i))
    return found


def _find_unnumbered_variants(pages: Sequence[Sequence[PageLine]],
                              furniture: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """A page's outermost line whose text is what furniture says on at least half the
    other pages less its page number: the first page's footer without the "1 / 4"
    that "2 / 4 <footer>" carries on the others (repetition, allowing the number)."""
    texts: dict[str, set[int]] = defaultdict(set)
    for p, i in furniture:
        text = pages[p][i].text
        rest = _PAGE_NUMBER_END.sub("", _PAGE_NUMBER_START.sub("", text))
        if rest != text and rest:
            texts[line_shape(rest)].add(p)
    if not texts:
        return set()
    found: set[tuple[int, int]] = set()
    for p, lines in enumerate(pages):
        left = [i for i in range(len(lines)) if (p, i) not in furniture]
        for i in {*left[:1], *left[-1:]}:
            on_pages = texts.get(line_shape(lines[i].text), set()) - {p}
            if lines[i].removable and len(on_pages) >= max(2, MIN_PAGE_SHARE * (len(pages) - 1)):
                found.add((p, i))
    return found


def _outer_rows(lines: Sequence[PageLine], p: int, furniture: set[tuple[int, int]]
                ) -> list[list[int]]:
    """The top and the bottom row of what is left of a page (``lines`` in edge order,
    where a row's lines are next to each other but for lines without a box)."""
    rows = []
    left = [i for i in range(len(lines)) if (p, i) not in furniture]
    for outer in (left, left[::-1]):
        if not outer or lines[outer[0]].box is None:
            continue
        box = lines[outer[0]].box
        row = []
        for i in outer:
            here = lines[i].box
            if here is None or lines[i].rotated:
                continue
            if not _same_row(here, box):
                break
            row.append(i)
        rows.append(row)
    return rows


def _same_slot(line: PageLine, box: Box, size: float) -> bool:
    here = line.box
    if abs(here[1] - box[1]) > SLOT_POINTS:
        return False
    if line.size and size and abs(line.size - size) > SLOT_SIZE_POINTS:
        return False
    return (abs(here[0] - box[0]) <= SLOT_POINTS or abs(here[2] - box[2]) <= SLOT_POINTS
            or abs(here[0] + here[2] - box[0] - box[2]) <= 2 * SLOT_POINTS)


def _find_row_companions(pages: Sequence[Sequence[PageLine]],
                         page_numbers: set[tuple[int, int]],
                         furniture: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """Lines on the page number's own row, where that row is a page edge: the head
    or footer the number belongs to ("Journal of X" left of "173"), whatever its
    text, since position says it. Lines of a sentence stay (a first-page licence
    note beside the number), as does everything beside page number 1."""
    found: set[tuple[int, int]] = set()
    for p, i in page_numbers:
        lines = pages[p]
        box = lines[i].box
        parsed = page_number_value(lines[i].text) or embedded_page_number(lines[i].text)
        if box is None or parsed is None or parsed[1] == 1:
            continue
        row = _row_beside(lines, i)
        if not row:
            continue
        first, last = min(*row, i), max(*row, i)
        at_top = all((p, j) in furniture for j in range(first))
        at_bottom = all((p, j) in furniture for j in range(last + 1, len(lines)))
        if not (at_top or at_bottom):
            continue
        found.update((p, j) for j in row if _is_companion(lines[j]))
    return found


def _row_beside(lines: Sequence[PageLine], i: int) -> list[int]:
    """The other placed lines of line ``i``'s row (``lines`` in edge order: a row's
    lines are next to each other, but for lines without a box between them)."""
    box = lines[i].box
    row: list[int] = []
    for step in (-1, 1):
        j = i + step
        while 0 <= j < len(lines):
            here = lines[j].box
            if here is not None and not lines[j].rotated:
                if not _same_row(here, box):
                    break
                row.append(j)
            j += step
    return row


def _same_row(a: Box, b: Box) -> bool:
    height = max(min(a[3] - a[1], b[3] - b[1]), 1.0)
    return abs(_middle(a) - _middle(b)) <= ROW_TOLERANCE * height


MIN_SPLIT_HEAD_LETTERS = 12
MIN_SPLIT_HEAD_PIECES = 2


def _letters(text: str) -> str:
    """A line's letters, case-folded: what survives of a running head that Tika cut into
    glyph clusters ("A" / "gyem" / "an-D" / "uah" …). Heads and pieces come from one
    cleaned text, so accents need no folding."""
    return "".join(ch for ch in text.casefold() if ch.isalpha())


def _find_split_heads(pages: Sequence[Sequence[PageLine]], heads: set[tuple[int, int]],
                      found: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """A running head found on other pages, set turned on a landscape table's page and
    cut by Tika into a run of fragments ("W", "ebb", "etal.(2017),PeerJ", "C", "om",
    "put.Sci.,D", "O", "I10.7717/peerj-cs.118", "8/16"): the consecutive lines whose
    letters, joined, are exactly a head's letters (its numbers may differ, as a page
    number does), with a page number right after them."""
    keys = {key for p, i in heads
            if len(key := _letters(pages[p][i].text)) >= MIN_SPLIT_HEAD_LETTERS}
    if not keys:
        return set()
    prefixes = {key[:n] for key in keys for n in range(1, len(key) + 1)}
    body_size = _body_size(pages)
    out: set[tuple[int, int]] = set()
    for p, lines in enumerate(pages):
        letters = [_letters(line.text) if line.removable else None for line in lines]
        i = 0
        while i < len(lines):
            if not letters[i] or letters[i] not in prefixes:
                i += 1
                continue
            joined, j, end = "", i, -1
            while j < len(lines) and letters[j] is not None and (
                    joined + letters[j]) in prefixes:
                joined += letters[j]
                j += 1
                if joined in keys:
                    end = j
            # A whole line is the other rules' to find; lines set larger than the body are a
            # title over two lines
            # ("Cython Reference Guide" / "Release 0.29a0" under the head "Cython
            # Reference Guide, Release 0.29a0"), unless turned (a stamp).
            if end - i >= MIN_SPLIT_HEAD_PIECES and not any(
                    not lines[k].rotated and lines[k].size > body_size
                    and sizes_differ(lines[k].size, body_size)
                    for k in range(i, end)):
                if end < len(lines) and letters[end] == "" \
                        and page_number_value(lines[end].text) is not None:
                    end += 1
                out.update((p, k) for k in range(i, end) if (p, k) not in found)
                i = end
            else:
                i += 1
    return out


def find_page_furniture(pages: Sequence[Sequence[PageLine]],
                        page_sizes: Sequence[tuple[float, float]] | None = None
                        ) -> FurnitureResult:
    """Furniture lines of a paged document (see the module docstring for the rules);
    ``page_sizes``: each page's displayed (width, height) where lines carry boxes."""
    if not pages:
        return FurnitureResult(frozenset(), frozenset(), frozenset())
    pages = [_placed_lines(lines) for lines in pages]
    # Stamps first: laid over the page, they are no part of its edges' order.
    frame = _document_frame(pages)
    stamps = (_find_margin_stamps(pages, frame) | _find_rotated_stamps(pages, page_sizes, frame)
              | _find_repeated_rotated(pages) | _find_slugs(pages, page_sizes))
    stamps |= _unplaced_stamp_pieces(pages, stamps)
    # The other rules read each page from its top edge to its bottom edge: by
    # position where lines are placed, else in Tika's order.
    kept = [[i for i in edge_order(lines) if (p, i) not in stamps]
            for p, lines in enumerate(pages)]
    unstamped = [[pages[p][i] for i in kept[p]] for p in range(len(pages))]
    if len(pages) == 1:
        numbers = _find_single_page_number(unstamped[0])
        running: set[tuple[int, int]] = set()
    else:
        numbers = _find_page_numbers(unstamped) | _find_anchored_heads(unstamped)
        running = _find_running_blocks(unstamped, numbers, page_sizes) - numbers
    running |= _find_set_apart_edges(unstamped, numbers, numbers | running) - numbers
    companions = _find_companions(unstamped, numbers) - numbers - running
    companions |= _find_row_companions(unstamped, numbers, numbers | running | companions)
    companions -= numbers | running
    if len(pages) > 1:
        stamped = [(p, pages[p][i]) for p, i in stamps]
        companions |= _find_slot_furniture(unstamped, numbers | running | companions, stamped)
        companions |= _find_unnumbered_variants(unstamped, numbers | running | companions)

    def original(found: set[tuple[int, int]]) -> set[tuple[int, int]]:
        return {(p, kept[p][i]) for p, i in found}

    numbers, running, companions = original(numbers), original(running), original(companions)
    if len(pages) > 1:
        companions |= _find_split_heads(pages, running | companions,
                                        numbers | running | companions | stamps)
    # Never remove a heading that occurs only once in the whole document.
    heading_counts = Counter(
        line.text.strip() for lines in pages for line in lines if line.is_heading
    )

    def keep_unique_headings(found: set[tuple[int, int]]) -> frozenset[tuple[int, int]]:
        return frozenset(
            (p, i) for p, i in found
            if not (pages[p][i].is_heading and heading_counts[pages[p][i].text.strip()] == 1)
        )

    return FurnitureResult(keep_unique_headings(numbers), keep_unique_headings(running),
                           keep_unique_headings(companions), keep_unique_headings(stamps))
