"""Join hard-wrapped PDF lines back into paragraphs.

PDF text comes out one printed line at a time; Tika groups lines into ``<p>``
elements, sometimes one per real paragraph, sometimes one per line. For each
pair of consecutive lines this module decides what separates them in the
cleaned text, in this order:

1. the next line starts a list item ("•", "1.", "(a)", "[12]") or a footnote
   ("6We use …"), or either line is a row of numbers (at least 3, and 40 % of
   its tokens), or both start with a number of the same shape (rows of a
   table: "08/30/2015 …" / "08/29/2015 …") → line break inside a paragraph,
   or paragraph break across ``<p>`` elements;
2. the next line starts with a lowercase letter → same sentence: join;
3. same ``<p>`` → join, unless the line is a short one that ends a sentence
   (then keep the line break);
4. different ``<p>`` → join only if the line runs to the right margin
   (at least ``FULL_LINE_SHARE`` of the page's typical line length, and not
   far longer than it: a masthead or title spanning two columns is no wrapped
   column line), does not end a sentence, and the next line does not look
   like a heading ("2.1 Title", "IV. RESULTS", "INTRODUCTION"); otherwise a
   paragraph break.

Joined lines get one space between them, or none between two CJK characters
(Chinese and Japanese do not put spaces between words).
"""

from __future__ import annotations

import functools
import re
from enum import Enum

from ragbeam.transforms.charsets import CLAUSE_ENDS, CLOSERS, SENTENCE_ENDS, is_cjk

FULL_LINE_SHARE = 0.75
_SENTENCE_END = tuple(SENTENCE_ENDS + CLAUSE_ENDS + CLOSERS)
_NUMBERED_HEADING = re.compile(r"^(?:\d{1,2}(?:\.\d{1,2})*\.?|[IVXLC]{1,6}\.|[A-Z]\.)\s+\S")
MAX_HEADING_CHARS = 80
# A footnote's mark fused to its text: "6We use the unfiltered …".
_FOOTNOTE_START = re.compile(r"^\d{1,2}(?=[A-Z][a-z])")
_NUMBER_TOKENS = re.compile(r"(?<!\S)[-+±(]?\d[\d.,/:%]*[)%]?(?!\S)")
_NUMERIC_START = re.compile(r"^\d[\d.,:/-]*(?=\s|$)")
_DIGIT = re.compile(r"\d")
_THREE_DIGITS = re.compile(r"\d[^\d]*\d[^\d]*\d")
_LIST_START = re.compile(
    r"^(?:[•◦▪▫‣∙●○■□–—*-]\s|\(?[0-9]{1,3}[.)]\s|\([a-zA-Z]\)\s|\[[0-9]{1,3}\]\s?)")


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
                        full_width: bool) -> LineBreak:
    """What separates ``line`` from ``next_line`` (both non-empty, stripped)."""
    starts_item, next_start, next_row = _line_features(next_line)
    _, start, row = _line_features(line)
    if (starts_item or (start is not None and start == next_start) or row or next_row):
        return LineBreak.LINE if same_block else LineBreak.PARAGRAPH
    if next_line[0].islower():
        return join_separator(line, next_line)
    ends_sentence = line.endswith(_SENTENCE_END)
    if same_block:
        if ends_sentence and not full_width:
            return LineBreak.LINE
        return join_separator(line, next_line)
    if full_width and not ends_sentence and not looks_like_heading(next_line):
        return join_separator(line, next_line)
    return LineBreak.PARAGRAPH


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


def looks_like_heading(line: str) -> bool:
    """A short numbered ("2.1 Title", "IV. Results") or all-capitals line."""
    if len(line) > MAX_HEADING_CHARS:
        return False
    return bool(_NUMBERED_HEADING.match(line)) or (line.isupper() and len(line) > 3)


def typical_line_length(lengths: list[int]) -> int:
    """The length of a full line on a page: the 80th percentile of its lines."""
    if not lengths:
        return 0
    ordered = sorted(lengths)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.8))]
