"""Section headings in PDFs, where Tika marks none.

Tika's PDF XHTML has paragraphs only, so a paper's "2.1 General Information"
reaches the chunker as a paragraph and heading paths stay empty. After lines
are joined into paragraphs, a paragraph that is one short line is a heading
when it reads like one:

* numbered: "2 Background", "2.1 General Information", "3.4.1. Tables"
  (level = number of components), "IV. RESULTS" (level 1), or a CJK chapter
  or section marker: "第三章 …" (level 1), "第二节 …" (level 2);
* unnumbered: Latin capitals, 4–60 characters, one word only if at least 6
  letters ("ABSTRACT", "MATERIALS AND METHODS"; not "BEGIN");
* unnumbered title case (level 2): 2–12 words, every word of four or more
  letters capitalised ("The Rise of Personal Computers (1980s)"), and only
  when body text follows it (the next block is a multi-line paragraph or a
  longer one-line sentence) and that text is prose (``is_prose``: mostly
  letters, at least ``MIN_PROSE_WORDS`` words): a figure's labels ("Nut case",
  "Keyway"), a table's header cells over rows of numbers ("Fiscal Year") and
  a list of names in a row are not headings.

Lines with code characters (``_ { } = < > ; \\ ::``) are never headings.

It must not end like a sentence or with a page number (a table-of-contents
entry "2.1 Parsing 4"), its title must start with a capital letter or a CJK
character, and it must not continue the numbering of a neighbouring
candidate of the same depth: "1. Install" / "2. Configure" one after the
other are a list or a table of contents, while real headings of one level
have body text between them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence

from ragbeam.transforms.charsets import CJK_SCRIPTS_CLASS, PROSE_LINE_ENDS

MAX_HEADING_CHARS = 80
MAX_CAPS_HEADING_CHARS = 60
_NUMBERED = re.compile(r"^(?P<num>\d{1,2}(?:\.\d{1,2}){0,4})\.?\s+(?P<title>\S.*)$")
_ROMAN = re.compile(r"^(?P<num>[IVX]{1,5})\.\s+(?P<title>\S.*)$")
_CJK_SECTION = re.compile(r"^第\s*[一二三四五六七八九十百零〇\d]+\s*(?P<unit>[章篇部节])\s*\S")
_ENDS_SENTENCE = tuple(PROSE_LINE_ENDS)
_CJK_START = re.compile(f"[{CJK_SCRIPTS_CLASS}]")
_CODE_LIKE = re.compile(r"[_{}=<>;\\]|::")
_CAPITALS = re.compile(r"^[A-Z][A-Z0-9 &'’,()/-]*[A-Z)]$")
MIN_SINGLE_WORD_CAPS = 6  # "BEGIN", "END", "NULL" are keywords, "SUMMARY" is a heading
TITLE_CASE_WORDS = (2, 12)
MIN_PROSE_WORDS = 8
MIN_PROSE_LETTER_SHARE = 0.7
_WORD = re.compile(r"[^\W\d_][\w'’-]*")


def _starts_title(title: str) -> bool:
    first = title[0]
    return first.isupper() or bool(_CJK_START.match(first))


def heading_level(line: str) -> tuple[int, str] | None:
    """``(level, depth key)`` if the line reads like a section heading."""
    text = line.strip()
    if not text or len(text) > MAX_HEADING_CHARS or text.endswith(_ENDS_SENTENCE):
        return None
    if text[-1].isdigit() and not _CJK_SECTION.match(text):
        return None  # "2.1 Parsing 4": a table-of-contents entry
    if match := _CJK_SECTION.match(text):
        return (2 if match.group("unit") == "节" else 1), f"cjk-{match.group('unit')}"
    if _CODE_LIKE.search(text):
        return None  # "DEFINITIONS TAGS ::=", "4 CARD32 FIRST_OFFSET": code or a table row
    if match := _NUMBERED.match(text):
        parts = match.group("num").split(".")
        if int(parts[0]) == 0 or not _starts_title(match.group("title")):
            return None
        return len(parts), f"num-{len(parts)}"
    if match := _ROMAN.match(text):
        return (1, "roman") if _starts_title(match.group("title")) else None
    if _is_capitals_heading(text):
        return 1, "caps"
    if _is_title_case_heading(text):
        return 2, "title"
    return None


def _is_title_case_heading(text: str) -> bool:
    """ "Key Features That Changed Word Processing": capitalised words, minor words aside."""
    words = text.split()
    if not TITLE_CASE_WORDS[0] <= len(words) <= TITLE_CASE_WORDS[1] or not text[0].isupper():
        return False
    lettered = [m.group() for word in words if (m := _WORD.search(word))]
    long_words = [word for word in lettered if sum(c.isalpha() for c in word) >= 4]
    return bool(long_words) and all(word[0].isupper() for word in long_words)


def _is_capitals_heading(text: str) -> bool:
    """ "ABSTRACT", "MATERIALS AND METHODS": Latin capitals only, not a keyword like BEGIN."""
    if not 4 <= len(text) <= MAX_CAPS_HEADING_CHARS or not _CAPITALS.match(text):
        return False
    words = text.split()
    return len(words) > 1 or len(text) >= MIN_SINGLE_WORD_CAPS


def is_prose(text: str) -> bool:
    """Running text: enough words, mostly letters (not a row of numbers or codes)."""
    if len(text.split()) < MIN_PROSE_WORDS:
        return False
    visible = len(text) - sum(map(str.isspace, text))
    letters = sum(map(str.isalpha, text))  # a letter is never a space
    return letters >= MIN_PROSE_LETTER_SHARE * max(visible, 1)


def find_headings(paragraphs: Sequence[str | None],
                  prose: Sequence[bool] | None = None) -> dict[int, int]:
    """``{index: level}`` of the one-line paragraphs that are headings.

    ``paragraphs`` holds each cleaned block's text, or None for blocks that
    cannot be headings (tables, code, multi-line paragraphs); ``prose[i]``
    says whether block ``i`` is running text (``is_prose``; without it, every
    multi-line block counts as such).
    """
    candidates = [heading_level(text) if text is not None else None for text in paragraphs]
    found: dict[int, int] = {}
    for i, candidate in enumerate(candidates):
        if candidate is None:
            continue
        level, depth = candidate
        if depth == "title" and not _body_follows(paragraphs, prose, i):
            continue
        if depth != "caps" and (_in_sequence(paragraphs, candidates, i, i - 1)
                                or _in_sequence(paragraphs, candidates, i, i + 1)):
            continue  # "1. Install" / "2. Configure" in a row: a list or a TOC
        found[i] = level
    return found


def _body_follows(paragraphs: Sequence[str | None], prose: Sequence[bool] | None,
                  i: int) -> bool:
    """Is block ``i + 1`` body text: multi-line prose or a longer one-line sentence?"""
    if i + 1 >= len(paragraphs):
        return False
    if prose is not None and not prose[i + 1]:
        return False
    following = paragraphs[i + 1]
    return following is None or (len(following) > 2 * len(paragraphs[i] or "")
                                 and following.rstrip().endswith(_ENDS_SENTENCE))


def _ordinal(text: str) -> int | None:
    match = _NUMBERED.match(text.strip())
    return int(match.group("num").split(".")[-1]) if match else None


def _in_sequence(paragraphs: Sequence[str | None], candidates: list, i: int, j: int) -> bool:
    """Is neighbour ``j`` a candidate of the same depth that continues ``i``'s numbering?"""
    if not 0 <= j < len(candidates) or candidates[j] is None:
        return False
    if candidates[j][1] != candidates[i][1]:
        return False
    mine, theirs = _ordinal(paragraphs[i] or ""), _ordinal(paragraphs[j] or "")
    if mine is None or theirs is None:
        return True  # same kind of unnumbered marker twice in a row
    return theirs - mine == j - i


# documents.metadata key of a PDF's outline, JSON [[level, title], …]
# (transforms/extract/outline.py writes it).
OUTLINE_KEY = "pdf_outline"
# A PDF outline describes a document's text when at least this share of its
# entries are found as paragraphs; otherwise (titles that name something else,
# as in a "mistitled outline") the rules above decide.
MIN_OUTLINE_MATCHED = 0.5
_KEY_WORD = re.compile(r"\w+")
_LEADING_NUMBER = re.compile(
    r"^(?:\d{1,2}(?:\.\d{1,2}){0,4}|[IVX]{1,5}|[A-Z](?:\.[A-Z0-9]{1,2}){0,4})\.?\s+")


def _outline_key(text: str) -> str:
    return " ".join(_KEY_WORD.findall(text.casefold()))


def outline_headings(paragraphs: Sequence[str | None],
                     outline: Sequence[tuple[int, str]]) -> dict[int, int] | None:
    """``{index: level}`` of the one-line paragraphs a PDF's outline points at, or
    None when the outline does not describe the text (``MIN_OUTLINE_MATCHED``).

    Entries are matched in outline order, each to the first paragraph after the
    previous match whose words are the entry's (case-folded, punctuation left
    out), with or without its numbering ("Introduction" finds "1 Introduction");
    an entry not found is skipped. The level is the entry's outline depth."""
    keys = [(_outline_key(text), _outline_key(_LEADING_NUMBER.sub("", text)))
            if text is not None else None for text in paragraphs]
    found: dict[int, int] = {}
    cursor = 0
    for level, title in outline:
        wanted = {_outline_key(title), _outline_key(_LEADING_NUMBER.sub("", title))} - {""}
        for i in range(cursor, len(keys)):
            key = keys[i]
            if key is not None and (key[0] in wanted or key[1] in wanted):
                found[i] = min(level, 6)
                cursor = i + 1
                break
    if not outline or len(found) < MIN_OUTLINE_MATCHED * len(outline):
        return None
    return found


def outline_of(metadata: Mapping[str, str]) -> list[tuple[int, str]]:
    """The outline a document's metadata holds (``OUTLINE_KEY``), or []."""
    value = metadata.get(OUTLINE_KEY)
    if not value:
        return []
    try:
        return [(int(level), str(title)) for level, title in json.loads(value)]
    except (ValueError, TypeError):
        return []
