"""Join hard-wrapped PDF lines back into paragraphs.

PDF text comes out one printed line at a time; Tika groups lines into ``<p>``
elements, sometimes one per real paragraph, sometimes one per line. For each
pair of consecutive lines this module decides what separates them in the
cleaned text, in this order:

1. the line ends in a URL that the next line, not a list item, continues
   ("(h" / "ttps://…", "…/diary-of-a-foot" / "balling.html)") → joined directly;
2. the next line starts a list item ("•", a symbol font's bullet in the private
   use area, "1.", "(a)", "[12]") or a footnote ("6We use …"), or either line is a
   row of numbers (at least 3, and 40 % of its tokens; "$5,149" and "(101.3)%"
   count), or both start with a number of the same shape (rows of a
   table: "08/30/2015 …" / "08/29/2015 …") → line break inside a paragraph,
   or paragraph break across ``<p>`` elements;
3. the next line starts with a lowercase letter → same sentence: join;
4. same ``<p>`` → join, unless the line is a short one that ends a sentence
   (then keep the line break), or both lines open with a CJK numbering ("2．要約…" /
   "（1）要約…", ``headings.opens_cjk_enumeration``: a paragraph break);
5. different ``<p>`` → join only if the line runs to the right margin
   (at least ``FULL_LINE_SHARE`` of the page's typical line length, and not
   far longer than it: a masthead or title spanning two columns is no wrapped
   column line), does not end a sentence, and the next line does not look
   like a heading (``headings.looks_like_heading``: "2.1 Title", "IV. RESULTS",
   "INTRODUCTION", "Item 2.", "第一章 总则"); otherwise a paragraph break. A
   division's keyword and number alone that ends the sentence the line runs into
   ("… available to a Participant under" / "Section 4.5.") is joined whatever the
   block or width (``headings.reference_ends_sentence``): a cross-reference.

Joined lines get one space between them, or none between two CJK characters
(Chinese and Japanese do not put spaces between words) or inside a URL that
the wrap cut ("(h" / "ttps://…", "https://ww" / "w.example.org/…").

Plain text (``text/plain``) has no page geometry, only the lines as written.
A text is hard-wrapped when its lines run to a steady right margin
(``plain_wrap_breaks``); then a line was wrapped, not ended, when the next
line's first word would not have fitted after it (``wrapped_at``), and such
a break goes through the same rules as a PDF line inside a paragraph
(``classify_line_break`` with ``same_block`` and ``full_width``). Every
other line break of plain text, and every line break of a text that is not
hard-wrapped (code, logs, poetry, lists, tables), is kept as written.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter, defaultdict
from collections.abc import Collection, Sequence
from enum import Enum
from itertools import pairwise
from typing import NamedTuple

from ragbeam.transforms.charsets import (
    CJK_SCRIPTS_CLASS,
    CLAUSE_ENDS,
    CLOSERS,
    SENTENCE_ENDS,
    is_cjk,
)
from ragbeam.transforms.chunk.log import timestamped_line_share
from ragbeam.transforms.clean import _line_passes
from ragbeam.transforms.clean.base import Assembly, CleanLine, CleanOptions
from ragbeam.transforms.clean.headings import (
    MAX_HEADING_CHARS,
    capitals_heading_runs_on,
    contents_entries,
    is_capitals_heading,
    looks_like_heading,
    numbered_heading_start,
    opens_cjk_enumeration,
    reference_ends_sentence,
)
from ragbeam.transforms.clean.hyphenation import (
    HYPHENS,
    HyphenBreak,
    classify_hyphen_break,
    hyphen_lexicon,
    join_hyphenated,
)
from ragbeam.transforms.clean.layout import sizes_differ, style_changes
from ragbeam.transforms.types import BlockKind, LineStyle

FULL_LINE_SHARE = 0.75
_SENTENCE_END = tuple(SENTENCE_ENDS + CLAUSE_ENDS + CLOSERS)
# A footnote's mark fused to its text: "6We use the unfiltered …".
_FOOTNOTE_START = re.compile(r"^\d{1,2}(?=[A-Z][a-z])")
_NUMBER_TOKENS = re.compile(r"(?<!\S)[-+±(]?[$€£¥]?\d[\d.,/:%]*[)%]{0,2}(?!\S)")
_NUMERIC_START = re.compile(r"^\d[\d.,:/-]*(?=\s|$)")
_DIGIT = re.compile(r"\d")
_THREE_DIGITS = re.compile(r"\d[^\d]*\d[^\d]*\d")
_LIST_START = re.compile(
    r"^(?:[•◦▪▫‣∙●○■□–—*\ue000-\uf8ff-]\s|\(?[0-9]{1,3}[.)]\s|\([a-zA-Z]\)\s|\[[0-9]{1,3}\]\s?)")


# A URL cut by the wrap: the token before the break holds a scheme or a host
# with a path ("https://", "www.", "co.uk/"), and the token after it carries URL
# characters ("/", ".", "-", "=", digits …) before any closing punctuation.
_URL_TOKEN = re.compile(r"(?:https?|ftp)://|www\.|\w\.[a-z]{2,}/|/\S*[/=&?~%_]")
_URL_START = re.compile(r"(?:https?|ftp)://")
_URL_CONTINUATION = re.compile(r"[/.=&?~%_#\d-]")
_CLOSING = ").,;:\"'>]"

# Plain text: a steady right margin, between these widths (characters),
# that at least this share of a text's line breaks run up to.
MIN_WRAP_WIDTH = 50
MAX_WRAP_WIDTH = 200
MIN_WRAPPED_SHARE = 0.5
MIN_WRAP_LINES = 6
# A wrapped line reaches this share of the local margin with the next word:
# below 1 because plain text converted from a proportional font (a PDF saved as
# text) has lines of equal width but unequal character counts.
WRAP_FIT = 0.9
# Whether a text is hard-wrapped is judged against the widest line within
# ``STEADY_WINDOW`` lines; each break against its own and the two lines next to
# it (``WRAP_WINDOW``): texts converted from PDFs change width from page to page,
# and within a page beside a figure.
STEADY_WINDOW = 4
WRAP_WINDOW = 1

# PDFs placed by the layout pass (``wraps_by_position``'s columns), in pitches of the page (the
# distance from one line's top to the next one's): a column's lines follow each other
# at most MAX_COLUMN_STEP apart and start within COLUMN_INDENT of the column's start;
# at least MIN_EDGE_LINES of them, and MIN_MARGIN_LINES of the page's, end within
# EDGE_SLACK of its right edge, and it is at least MIN_COLUMN_PITCHES wide.
MAX_COLUMN_STEP = 2.5
# A wrapped line's next line follows at one pitch; one further than this below it is
# set apart (a heading, a paragraph after paragraph spacing).
MAX_WRAP_STEP = 1.5
COLUMN_INDENT = 2.5
MIN_EDGE_LINES = 2
MIN_MARGIN_LINES = 5
EDGE_SLACK = 2.0
MIN_COLUMN_PITCHES = 12
MIN_MEASURED_CHARS = 20
# A line whose characters take more than this many times the document's typical width
# is spread out: a table row's cells, letter-spaced capitals.
MAX_SPREAD = 1.4
# What a wrapped line's continuation does not start with: code ("\\end", "// note",
# "}", "<tag>", "= 3"), a rule or a table's border: one of \ { } < > = | _ ~ ^, or
# "//" (``_line_passes.c``'s ``not_continuation``).

# The rules above as ``_line_passes.wraps_by_position`` takes them, in its order.
_WRAP_RULES = (MAX_COLUMN_STEP, MAX_WRAP_STEP, COLUMN_INDENT, MIN_EDGE_LINES,
               MIN_MARGIN_LINES, EDGE_SLACK, MIN_COLUMN_PITCHES, MIN_MEASURED_CHARS,
               MAX_SPREAD, FULL_LINE_SHARE)


class LineBreak(Enum):
    PARAGRAPH = "\n\n"  # a new block
    LINE = "\n"  # same block, line kept
    SPACE = " "  # joined with a space
    JOINED = ""  # joined directly (CJK, or a hyphenated word)


def join_separator(line: str, next_line: str) -> LineBreak:
    """Space or nothing, when two lines are joined."""
    if is_cjk(line[-1]) and is_cjk(next_line[0]):
        return LineBreak.JOINED
    return LineBreak.SPACE


def classify_line_break(line: str, next_line: str, *, same_block: bool,
                        full_width: bool, in_paragraph: bool = False) -> LineBreak:
    """What separates ``line`` from ``next_line`` (both non-empty, stripped);
    ``in_paragraph``: ``line`` ends a paragraph of several lines joined so far."""
    starts_item, next_start, next_row = _line_features(next_line)
    _, start, row = _line_features(line)
    if not starts_item and (same_block or full_width) and url_continues(line, next_line):
        return LineBreak.JOINED  # before the rows: "00.html) on 4 April 2008." is no row
    if (starts_item or (start is not None and start == next_start) or row or next_row):
        return LineBreak.LINE if same_block else LineBreak.PARAGRAPH
    if (next_line[0].islower() or capitals_heading_runs_on(line, next_line)
            or reference_ends_sentence(line, next_line, in_paragraph)):
        return join_separator(line, next_line)
    ends_sentence = line.endswith(_SENTENCE_END)
    if same_block:
        if not full_width and looks_like_heading(line):
            # A heading Tika kept in its text's block ("I. INTRODUCTION" over its
            # text, in small capitals of the text's own size, so no change of style
            # ends it) stands alone; a heading in capitals may run on to a second
            # line in capitals.
            if (line.isupper() and next_line.isupper() and len(next_line) <= MAX_HEADING_CHARS
                    and not numbered_heading_start(next_line)
                    and not (_fits_after(line, next_line) and is_capitals_heading(next_line))):
                return join_separator(line, next_line)
            return LineBreak.PARAGRAPH
        if not full_width and (ends_sentence or looks_like_heading(next_line)):
            return LineBreak.LINE  # a paragraph's end, or a heading Tika kept in its block
        if opens_cjk_enumeration(line) and opens_cjk_enumeration(next_line):
            # "2．要約…注記" / "（1）要約…計算書": numbered one after the other, a heading
            # and the one under it (or two items), however near the margin the first
            # ends (on a page of tables the typical line is short).
            return LineBreak.PARAGRAPH
        return join_separator(line, next_line)
    if full_width and not ends_sentence and not looks_like_heading(next_line):
        return join_separator(line, next_line)
    return LineBreak.PARAGRAPH


def _fits_after(line: str, next_line: str) -> bool:
    """Would ``next_line``'s first word have fitted after ``line``, within the width
    ``next_line`` itself takes? Then, where ``next_line`` is a heading in capitals too, the
    break is no wrap: a heading wrapped over two
    lines fills the first ("… ANALYSIS OF FINANCIAL CONDITION AND" / "RESULTS OF
    OPERATIONS"), where a filing's "NVIDIA CORPORATION AND SUBSIDIARIES" over its
    statement's longer title, "CONDENSED CONSOLIDATED STATEMENTS OF CASH FLOWS", are two
    lines of their own (joined, the title was too long for a heading and the statement
    sat under the one before)."""
    return len(line) + 1 + len(next_line.split(" ", 1)[0]) <= len(next_line)


@functools.lru_cache(maxsize=256)  # each line is asked about twice, as line and as next line
def _line_features(line: str) -> tuple[bool, str | None, bool]:
    """(starts a list item or footnote, shape of its leading number, is a numeric row)."""
    if line[:1].isalpha():  # list marks, footnote marks and numbers all start otherwise
        return False, None, is_numeric_row(line)
    starts_item = bool(_LIST_START.match(line) or _FOOTNOTE_START.match(line))
    start = _NUMERIC_START.match(line)
    return starts_item, _DIGIT.sub("0", start.group()) if start else None, is_numeric_row(line)


def is_numeric_row(line: str) -> bool:
    """A table row: at least 3 numbers making up at least 40 % of the tokens."""
    if not _THREE_DIGITS.search(line):
        return False  # three numbers need three digits; most lines have fewer
    numbers = len(_NUMBER_TOKENS.findall(line))
    return numbers >= 3 and numbers >= 0.4 * (line.count(" ") + 1)


def typical_line_length(lengths: list[int]) -> int:
    """The length of a full line on a page: the 80th percentile of its lines."""
    if not lengths:
        return 0
    ordered = sorted(lengths)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.8))]


def url_continues(line: str, next_line: str) -> bool:
    """The break cuts a URL: "(h" / "ttps://…", "…/diary-of-a-foot" / "balling.html"."""
    if "/" not in line and "www." not in line and "/" not in next_line[:8]:
        # Most breaks: a cut scheme holds its "/" within the 8 characters either side,
        # and every URL token (``_URL_TOKEN``) a "/" or "www.".
        return False
    tail = line.rsplit(None, 1)[-1]
    head = next_line.split(None, 1)[0]
    start = _URL_START.search(tail[-8:] + head[:8])
    if start and start.start() < len(tail[-8:]) < start.end():
        return True  # the scheme itself is cut
    if not _URL_TOKEN.search(tail) or tail.rstrip(".,;:").endswith((")", ">", '"')):
        return False  # no URL, or one that its closing bracket or quote ended
    return bool(_URL_CONTINUATION.search(head.rstrip(_CLOSING)))


class LineBox(NamedTuple):
    """Where a line sits on its page (points from the displayed page's top-left)."""

    page: int
    x0: float
    top: float
    x1: float
    bottom: float


def wraps_by_position(boxes: Sequence[LineBox | None], texts: Sequence[str]
                      ) -> list[bool | None]:
    """For each line of a PDF (in reading order, furniture gone), whether the break
    after it is a wrap by where the lines sit. None where the line is not placed or
    not in a known text column (``text_columns``): the character counts decide there.

    A line wraps when it runs to its column's right edge (within half a character:
    a justified line), or when the room left after it is less than the next line's
    first word, a space and a character of slack (a ragged-right line) and it is full
    by its characters too (``FULL_LINE_SHARE`` of its column's typical line: a line of
    code in a monospaced font reaches far with few characters). This is
    ``wrapped_at`` read from the page instead of from character counts, so it holds
    for a column beside a full-width abstract (whose lines a page's typical length
    says nothing about) and across a page or column break, where the last line of a
    page is judged against its own column. Neither a line whose characters are
    spread wider than the document's prose (a table row's cells, a contents line
    whose leaders are gone, letter-spaced capitals) nor the line before it wraps; a
    line wraps onto no line set apart below it (``MAX_WRAP_STEP`` pitches: the space
    before a heading or a paragraph) and none that starts like code ("\\end", "//",
    "}", "=").

    Where lines sit: a page's pitch is the median distance from one line's top to the
    next one's among its lines of ``MIN_MEASURED_CHARS`` or more characters set right
    under one another (a line's own box is no measure of its font: PDFium's boxes are
    the ink of its first and last glyphs); a character's width is the document's
    median over those lines (a page of tables has no prose of its own to compare its
    rows with); no such line, no wrap known (a scan's OCR words, a page of labels).

    A text column is a run of consecutive lines (in reading order) on one page, each
    below the one before it (no further than ``MAX_COLUMN_STEP`` pitches) and starting
    where the run starts (within ``COLUMN_INDENT`` pitches: a paragraph's indented
    first line), and neither a wider block under a column whose right edge is
    established (a table across both columns under the left one) nor the first of two
    lines that end together well short of it (the next column's text under a
    full-width abstract); its edge is where its widest line ends, and it is a text
    column when at least ``MIN_EDGE_LINES`` of its lines end within ``EDGE_SLACK``
    pitches of that edge (a code block's or a list's lines end anywhere),
    ``MIN_MARGIN_LINES`` of the page's lines do (a page's margin, not two headings or
    a short quotation that end alike) and it is at least ``MIN_COLUMN_PITCHES`` pitches
    wide (a table's column of dates is narrow). A line in a run too short to tell (a
    paragraph's last line alone at the top of a column) belongs to the page's text
    column that starts where it starts (within half a pitch). A column's character
    width is the median over its lines, its full line ``typical_line_length``.

    The pass is C (``_line_passes.c``, its only implementation: a per-line loop over every
    line's box that cost Python a tenth of cleaning), in the same floating-point
    operations and comparisons as Python's.
    """
    return _line_passes.wraps_by_position(boxes, texts, is_cjk, _WRAP_RULES)


def mark_wraps_by_position(lines: Sequence[CleanLine]) -> None:
    """``wraps_by_position`` over a PDF's lines, each one's ``wrapped`` set: the lines
    outside the reading flow (``detached``: link targets) left out, each line's box its
    style's unless it has none or is rotated (in one C call: no box built in Python)."""
    _line_passes.mark_wraps_by_position(lines, is_cjk, _WRAP_RULES)


def first_word_length(line: str) -> int:
    end = line.find(" ")
    return len(line) if end < 0 else end


def wrapped_at(width: int, next_line: str, margin: float) -> bool:
    """A line ``width`` columns wide was wrapped: the next line's first word did not fit."""
    return width + 1 + first_word_length(next_line) > WRAP_FIT * margin


def local_margins(widths: list[int], window: int) -> list[int]:
    """For each line, the widest line within ``window`` lines of it."""
    return [max(widths[max(0, i - window):i + window + 1]) for i in range(len(widths))]


def plain_wrap_breaks(widths: list[int], texts: list[str], follows: list[bool]) -> list[bool]:
    """For each line of a plain text, whether the break after it is a wrap.

    A break is a wrap when the next line's first word would not have fitted
    (``wrapped_at``) against the widest of the line and its neighbours, never less
    than a full line of the text, or when a full line is followed by a lowercase word.

    ``widths`` are the lines' widths as written (indentation included), ``texts``
    the lines cleaned, ``follows[i]`` whether line ``i + 1`` follows line ``i``
    directly (no blank line between). All ``False`` when the text is not
    hard-wrapped: fewer than ``MIN_WRAP_LINES`` line breaks inside paragraphs, a
    typical width outside ``MIN_WRAP_WIDTH``..``MAX_WRAP_WIDTH`` (poetry and
    lists are narrower, one-line paragraphs wider), or fewer than
    ``MIN_WRAPPED_SHARE`` of those breaks at the margin (code, logs, poetry).
    A line followed by a more indented one is never wrapped (a quotation, code
    or verse set in), unless it starts a list item and the next line starts under
    the item's text, after its mark (a hanging indent: "   8. Limitation of …" /
    "      whether in tort").
    """
    n = len(widths)
    wraps = [False] * n
    inner = [i for i in range(n - 1) if follows[i]]
    if len(inner) < MIN_WRAP_LINES:
        return wraps
    if not MIN_WRAP_WIDTH <= typical_line_length(widths) <= MAX_WRAP_WIDTH:
        return wraps
    steady = local_margins(widths, STEADY_WINDOW)
    if (sum(wrapped_at(widths[i], texts[i + 1], steady[i]) for i in inner)
            < MIN_WRAPPED_SHARE * len(inner)):
        return wraps
    # Never narrower than a full line of the text (``FULL_LINE_SHARE`` of its typical
    # width): a run of short lines (an infobox, a table) is not a narrow column.
    floor = FULL_LINE_SHARE * typical_line_length(widths)
    margins = [max(floor, margin) for margin in local_margins(widths, WRAP_WINDOW)]
    for i in inner:
        indent = widths[i + 1] - len(texts[i + 1])
        # A full line followed by a lowercase word continues its sentence even when a
        # narrower stretch (a figure beside it, a superscript moved) shortened it.
        wraps[i] = (((wrapped_at(widths[i], texts[i + 1], margins[i])
                      or (widths[i] >= floor and texts[i + 1][0].islower()))
                     and indent <= widths[i] - len(texts[i]) + _hanging_indent(texts[i]))
                    or url_continues(texts[i], texts[i + 1]))
    return wraps


def _hanging_indent(line: str) -> int:
    """How much further a list item's next line may start: under the item's text, after
    its mark ("   8. Limitation of Liability. In no event …" / "      whether in tort")."""
    mark = _LIST_START.match(line)
    return mark.end() if mark else 0


# --- assembling a document's cleaned lines into blocks (moved from document.py) ---

# A plain text with this share of its lines starting with a timestamp is a log
# (below the router's own threshold, so nothing routed as a log is ever joined).
MAX_LOG_LINE_SHARE = 0.2
MAX_RUN_ON_HEADING_CHARS = 160  # a heading over two lines of a column
HANGING_INDENT_SIZES = 4  # its second line may start under its title, after the number
_ENDS_SENTENCE = tuple(SENTENCE_ENDS)
_WHOLE_BLOCKS = {BlockKind.TABLE, BlockKind.CODE}
_SEPARATORS = {brk: brk.value for brk in LineBreak}
_NEVER_FULL = (math.inf, -math.inf)


class LazyLexicon(Counter):
    """The document's word counts, built on the first hyphenated line break only."""

    def __init__(self, lines: list[CleanLine]) -> None:
        super().__init__()
        self._lines: list[CleanLine] | None = lines

    def __missing__(self, key: str) -> int:
        if self._lines is not None:
            lines, self._lines = self._lines, None
            self.update(hyphen_lexicon(line.text for line in lines))
            if key in self:
                return self[key]
        return 0

    def __bool__(self) -> bool:
        return True


def assemble(lines: list[CleanLine], hard_wrapped: bool, options: CleanOptions,
             held: Collection[int] = ()) -> Assembly:
    """The blocks of ``lines``. ``held``: indexes of lines that interrupt a paragraph
    (``footnotes.held_footnotes``): they wait, as detached lines do, until the paragraph
    has ended, and are then joined among themselves as any lines are."""
    out = Assembly(blocks=[])
    lexicon = LazyLexicon(lines) if hard_wrapped else None
    page_lengths: dict[int | None, list[int]] = defaultdict(list)
    for line in lines:
        if line.kind is BlockKind.PARAGRAPH:
            page_lengths[line.page].append(len(line.text))
    # Per page: the length range of a line that runs to the right margin.
    full_line: dict[int | None, tuple[float, float]] = {}
    for page, lengths in page_lengths.items():
        typical = typical_line_length(lengths) * FULL_LINE_SHARE / FULL_LINE_SHARE
        full_line[page] = ((FULL_LINE_SHARE * typical, 1.5 * typical) if typical > 0
                           else (math.inf, -math.inf))
    out.contents = contents_entries(line.text for line in lines
                                    if line.kind is BlockKind.CONTENTS)
    prev: CleanLine | None = None
    # Detached lines wait until the paragraph they interrupt has ended.
    detached: list[CleanLine] = []

    waiting: list[CleanLine] = []

    def place_detached() -> None:
        if waiting:
            before: CleanLine | None = None
            for line in waiting:
                brk = _break_before(before, line, hard_wrapped, options, lexicon, full_line,
                                    out)
                if brk is LineBreak.PARAGRAPH:
                    out.blocks.append([("", line)])
                else:
                    out.blocks[-1].append((_SEPARATORS[brk], line))
                before = line
            waiting.clear()
        if detached:
            out.blocks.append([("", detached[0]),
                               *((LineBreak.LINE.value, line) for line in detached[1:])])
            detached.clear()

    for index, line in enumerate(lines):
        if hard_wrapped and line.detached:
            detached.append(line)
            continue
        if held and index in held:
            waiting.append(line)
            continue
        brk = _break_before(prev, line, hard_wrapped, options, lexicon, full_line, out)
        if brk is LineBreak.PARAGRAPH:
            place_detached()
            out.blocks.append([("", line)])
        else:
            out.blocks[-1].append((_SEPARATORS[brk], line))
        prev = line
    place_detached()
    return out


def _break_before(prev: CleanLine | None, line: CleanLine, hard_wrapped: bool,
                  options: CleanOptions, lexicon,
                  full_line: dict[int | None, tuple[float, float]], out: Assembly) -> LineBreak:
    if prev is not None and line.table_row and prev.table_row and prev.block == line.block:
        return LineBreak.LINE
    if prev is None or line.after_blank or line.kind in _WHOLE_BLOCKS or prev.kind != line.kind:
        return LineBreak.PARAGRAPH
    if out.contents and (listed := _cjk_entries(out.contents)) and (
            _listed(prev.text, listed) or _listed(line.text, listed)):
        return LineBreak.PARAGRAPH  # a heading the contents page lists stands alone
    same_block = prev.block == line.block
    if not hard_wrapped or line.kind is not BlockKind.PARAGRAPH or prev.wraps is False:
        if not same_block:
            return LineBreak.PARAGRAPH
        return LineBreak.SPACE if line.kind is BlockKind.HEADING else LineBreak.LINE
    if prev.wraps is None and heading_runs_on(prev, line):
        out.lines_joined += 1
        return LineBreak.SPACE
    if prev.wraps is None and (style_changes(prev.style, line.style)
                               or (prev.style is None and _set_larger(_last_style(out), line))):
        # A heading set apart by its font, a footnote by its size. A line the layout did
        # not place (a link's text) says nothing of it: where the next line is set larger
        # than the block's last placed line, a banner's date and link do not run on into
        # the title under them.
        return LineBreak.PARAGRAPH
    if options.dehyphenate and prev.text[-1:] in HYPHENS:
        hyphen = classify_hyphen_break(prev.text, line.text, lexicon)
        if hyphen is not HyphenBreak.NONE:
            # Rewrite the previous line in place: its hyphen goes, the next line follows.
            prev.text = join_hyphenated(prev.text, "", hyphen)
            out.hyphenations_joined += 1
            return LineBreak.JOINED
    if not options.join_lines:
        return LineBreak.LINE if same_block else LineBreak.PARAGRAPH
    full_width = (True if prev.wraps else prev.wrapped if prev.wrapped is not None
                  else _reaches_margin(prev, full_line))
    brk = classify_line_break(prev.text.rstrip("\u00ad"), line.text, same_block=same_block,
                              full_width=full_width,
                              in_paragraph=bool(out.blocks) and len(out.blocks[-1]) > 1)
    if brk in (LineBreak.SPACE, LineBreak.JOINED):
        out.lines_joined += 1
    return brk


def _listed(text: str, entries: frozenset[str]) -> bool:
    """Is ``text`` a CJK heading the document's contents page lists ("（2）要約四半期連結
    損益計算書及び要約四半期連結包括利益計算書", listed as "… 4"; ``entries``: the CJK
    ones, ``_cjk_entries``)? However near the margin it ends, it is no wrapped line: it
    neither runs on nor takes the next line in."""
    return " ".join(text.split()) in entries


@functools.lru_cache(maxsize=4)
def _cjk_entries(contents: frozenset[str]) -> frozenset[str]:
    """The CJK entries of a contents page (asked at every line break: computed once a
    document; none on most documents, which then pay nothing per line).

    CJK lines only, for now: on English 10-Qs the rule sets "PART I. FINANCIAL
    INFORMATION > Item 1. Financial Statements" over every statement and note, as a
    reader would, but the longer header costs BM25 3 of 118 questions at 1,500 tokens on
    the sec-10-q domain (measured, issue 38); what the header holds decides that."""
    return frozenset(entry for entry in contents if _HAS_CJK.search(entry))


_HAS_CJK = re.compile(f"[{CJK_SCRIPTS_CLASS}]")


def _last_style(out: Assembly) -> LineStyle | None:
    """The style of the last placed line of the block being assembled."""
    return next((line.style for _, line in reversed(out.blocks[-1]) if line.style is not None),
                None) if out.blocks else None


# A line set at least this many times the size of the block's last placed line, across
# a line not placed, starts a block of its own (a title under a banner's small print;
# body text after a code line set a point smaller does not).
MIN_LARGER_RATIO = 1.5


def _set_larger(before: LineStyle | None, line: CleanLine) -> bool:
    """Is ``line`` set much larger than ``before`` (a title under a banner's small print)?"""
    after = line.style
    return (before is not None and after is not None and bool(before.size)
            and after.size >= MIN_LARGER_RATIO * before.size)


def heading_runs_on(prev: CleanLine, line: CleanLine) -> bool:
    """Does a numbered heading set in bold run on to ``line`` ("4 Vignette: Building an
    Attributed QA" / "System for Scientific Papers" in a column too narrow for it)?
    ``line`` sits right under it, set alike, not a heading of its own; or it starts in
    lower case and only its face is mixed (a word of the title in a code font:
    "visually-rich documents with magelib")."""
    before, after = prev.style, line.style
    if (before is None or after is None or not before.size or not after.size
            or not before.bold or before.page != after.page
            or sizes_differ(before.size, after.size)
            or not 0 <= after.top - before.bottom < before.size
            or not -before.size <= after.x0 - before.x0 <= HANGING_INDENT_SIZES * before.size):
        return False  # not right under it, or not where its title starts (a hanging indent)
    if (not looks_like_heading(prev.text) or prev.text.isupper()  # capitals: linejoin's
            or looks_like_heading(line.text)
            or prev.text.endswith(_ENDS_SENTENCE)
            or len(prev.text) + len(line.text) > MAX_RUN_ON_HEADING_CHARS):
        return False
    if after.bold and after.font == before.font:
        return True
    return not after.font and line.text[:1].islower()


def _reaches_margin(line: CleanLine, full_line: dict[int | None, tuple[float, float]]) -> bool:
    """Does a PDF line run to the right margin (its length that of the page's full lines)?"""
    low, high = full_line.get(line.page, _NEVER_FULL)
    return low <= len(line.text) <= high


def mark_plain_wraps(lines: list[CleanLine]) -> bool:
    """Plain text: mark each line whose break is a wrap; whether the text is hard-wrapped."""
    if timestamped_line_share("\n".join(line.text for line in lines)) >= MAX_LOG_LINE_SHARE:
        return False
    follows = [a.kind is BlockKind.PARAGRAPH is b.kind and a.block == b.block
               and not b.after_blank for a, b in pairwise(lines)]
    wraps = plain_wrap_breaks([line.indent + len(line.text) for line in lines],
                              [line.text for line in lines], [*follows, False])
    if not any(wraps):
        return False
    for line, wrap in zip(lines, wraps, strict=True):
        line.wraps = wrap
    return True
