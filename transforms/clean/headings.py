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

import bisect
import heapq
import json
import math
import re
import string
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import TYPE_CHECKING, NamedTuple

from ragbeam.transforms.charsets import (
    CJK_CHAR,
    CJK_SCRIPTS_CLASS,
    PROSE_LINE_ENDS,
    SENTENCE_ENDS,
)
from ragbeam.transforms.chunk.heading_names import run_in_title
from ragbeam.transforms.clean.layout import bold_font_name, sizes_differ
from ragbeam.transforms.contents_title import is_contents_title
from ragbeam.transforms.types import BlockKind, LineStyle, PdfLayout

if TYPE_CHECKING:  # the blocks linejoin.assemble builds of document.py's lines
    from ragbeam.transforms.clean.base import Assembly, CleanLine

MAX_HEADING_CHARS = 80
MAX_CAPS_HEADING_CHARS = 60
_NUMBERED = re.compile(r"^(?P<num>\d{1,2}(?:\.\d{1,2}){0,4})\.?\s+(?P<title>\S.*)$")
_ROMAN = re.compile(r"^(?P<num>[IVX]{1,5})\.\s+(?P<title>\S.*)$")
# "A. Components", "A.1 Prompts", "B.2.3 Results": letters (with a full stop when alone).
# Letters alone ("U.S.", "U.K.") are an abbreviation, not a number: a part is a digit.
_LETTERED = re.compile(r"^(?P<num>[A-Z](?=(?:\.[A-Z])*\.\d)(?:\.(?:[A-Z]|\d{1,2})){1,3}\.?"
                       r"|[A-Z]\.)\s+(?P<title>\S.*)$")
# A line closed by a citation or a note's mark ("U.S. Decennial Census[75]", "Other –
# 6%[B]"): a caption's or a chart's label citing its source; a heading cites nothing.
# A month's name, the whole title of a "numbered heading" that is a date ("9 August",
# "31 Dec.").
_MONTH_ONLY = re.compile(
    r"^(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?,?$", re.IGNORECASE)
_CITED = re.compile(r"\[(?:\d{1,3}|[A-Za-z])\]$")
# An author–year citation in parentheses ("(Gao et al., 2019)", "(Smith and Lee 2018)",
# "(Ng, 2020a)"): a paper's table lists the works it compares by them, row by row ("TRADE
# (Wu et al., 2019) O(n)"); a heading cites no one.
_AUTHOR_YEAR = re.compile(
    r"\((?:[^()]*\bet al\.?|[A-Z][\w'’-]+(?:\s+(?:and|&)\s+[A-Z][\w'’-]+)?),?\s+"
    r"(?:19|20)\d\d[a-z]?\)")
# An entry of a numbered list ("1. …", "[12] …"): a reference, not running text.
_LIST_ENTRY = re.compile(r"^(?:\[\d{1,3}\]|\d{1,3}\.)\s")
# A section of a code or a regulation: "§ 1308.22 Excluded substances.", "§ 3a Zweck",
# "§§ 12-14 Fees". Such a heading often ends with a full stop, so it is taken only
# where its style sets it apart (or, without a style, where prose follows it).
_SECTION_SIGN = re.compile(r"^§{1,2}\s*(?P<num>\d{1,5}[a-z]?(?:[.\-–]\d{1,4}[a-z]?){0,3})\.?"
                           r"\s+(?P<title>\S.*)$")
MAX_SECTION_HEADING_CHARS = 120
MAX_SECTION_TITLE_WORDS = 15
_CJK_SECTION = re.compile(r"^第\s*[一二三四五六七八九十百零〇\d]+\s*(?P<unit>[章篇部节])\s*\S")
# A line that opens with a heading's numbering, whatever follows: "2.1 …", "IV. …", "B. …".
_NUMBERED_START = re.compile(r"^(?:\d{1,2}(?:\.\d{1,2})*\.?|[IVXLC]{1,6}\.|[A-Z]\.)\s+\S")
# Chinese and Japanese enumerations below chapters and sections, in their usual order of depth:
# "一、", "（一）", "1、", "（1）" (full-width or ASCII brackets).
_CJK_ENUMERATIONS = (
    (re.compile(r"^[一二三四五六七八九十]{1,3}\s*、\s*\S"), 3, "cjk-enum"),
    # Japanese: "1．経営成績等の概況", "2.要約…" (a number, a full stop, no space).
    (re.compile(f"^\\d{{1,2}}\\s*[．.]\\s*[{CJK_SCRIPTS_CLASS}]"), 3, "cjk-full-stop"),
    (re.compile(r"^[（(]\s*[一二三四五六七八九十]{1,3}\s*[）)]\s*\S"), 4, "cjk-paren"),
    (re.compile(r"^\d{1,2}\s*、\s*\S"), 4, "cjk-arabic"),
    (re.compile(r"^[（(]\s*\d{1,2}\s*[）)]\s*[^\W\d_]"), 5, "cjk-paren-arabic"),
)
# What a CJK enumeration or numbering may open with (a cheap test before the patterns).
_CJK_ENUMERATION_OPENS = frozenset("（(一二三四五六七八九十0123456789")
_ENDS_SENTENCE = tuple(PROSE_LINE_ENDS)
# A heading set apart by its font may end in a question or trail off ("Pour en savoir
# plus…"), not in a full stop, a colon or a comma.
_OPEN_ENDS = ("?", "？", "…", "...")
# What closes a statement: a full stop or an exclamation mark (a heading may ask or trail
# off, ``_OPEN_ENDS``), or a polite Japanese predicate, which ends a sentence even where
# its 。 is left off ("…変更が可能です", "…できません"); a heading is a noun phrase.
_STATEMENT_ENDS = (*(mark for mark in SENTENCE_ENDS if mark not in _OPEN_ENDS),
                   "です", "ます", "ません", "でした", "ました")
# Brackets that may enclose a whole line: "【…可能です。】", "「…ます」", "(See below.)".
_ENCLOSING = {"【": "】", "「": "」", "『": "』", "（": "）", "(": ")", "[": "]", "〔": "〕",
              "《": "》", "〈": "〉"}
# Captions and labels of figures, tables and the other floats, whatever their font:
# "Figure 3. …", "Fig. 2", "Table 1:", "Tableau 4", "Abb. 5", "Listing 1:", "Algorithm 2",
# "图 3", "表 2".
_CAPTION = re.compile(
    r"^(?:fig(?:ure|\.)?|table(?:au)?|tab\.|abb(?:ildung|\.)|tabelle|chart|graph|exhibit"
    r"|listing|algorithm|图|表)\s*[\dIVX]+(?:[.\-–:]\d+)*\b", re.IGNORECASE)
_CLOSES = _ENDS_SENTENCE
_SENTENCE_CLOSES = tuple(SENTENCE_ENDS)
_CLAUSE_CLOSES = (*_SENTENCE_CLOSES, ":", "：")
MIN_CLAUSE_WORDS = 3
MIN_HEADING_LETTERS = 3  # "N/A", "3b": an answer or a label
# A table-of-contents entry: a numbered title ending in its page number ("9 Baz 4").
_TOC_ENTRY = re.compile(r"^(?:\d{1,2}(?:\.\d{1,2})*|[IVXLC]{1,6}|[A-Z])\.?\s.*\s\d{1,4}$")
MAX_SMALL_PRINT_RATIO = 1.25
_ADDRESSES = re.compile(r"\S@\S+\.\w|https?://")
# A block with an address is a name's addresses or affiliation (not text under a
# heading) where it is short or at least this share of its words are addresses; a
# paragraph that mentions a link ("… on MGM's Investor Relations website at
# http://investors…") is text.
MIN_ADDRESS_WORD_SHARE = 0.2
MIN_LINKED_TEXT_WORDS = 20
# A heading set smaller than the body ("About the authors" over small print) is short;
# a numbered one may be set a little smaller than its text (small capitals).
MAX_SMALL_HEADING_WORDS = 6
MIN_NUMBERED_SIZE_SHARE = 0.75
# A name with a note's mark glued to it ("Topsakal1*", "Chen‡"): authors, not a heading.
# A digit after capitals is part of a name ("DB2", "MP3"), not a note's mark.
_NOTE_MARK = re.compile(r"(?:[^\W\d_]+(?<![A-Z])\d{1,2}[*†‡§]*|[^\W\d_]{2,}[*†‡§]+)(?=[\s,;]|$)"
                        r"|(?:^|\s)(?:[*†‡§]|\d(?=[A-Z][a-z]))[^\W\d_]")
_CJK_START = re.compile(f"[{CJK_SCRIPTS_CLASS}]")
_UNSPACED = _CJK_START
# An enumerator opening a heading: "(1) ", "(a) ", "1) ", "a) ", "[2] ".
_ENUMERATOR = re.compile(r"^(?:[(\[（]\s*(?:\d{1,2}|[a-zA-Z]|[ivx]{1,4})\s*[)\]）]"
                         r"|(?:\d{1,2}|[a-z])\))\s*")
_CODE_LIKE = re.compile(r"[_{}=<>;\\]|::")
_CAPITALS = re.compile(r"^[A-Z][A-Z0-9 &'’,()/-]*[A-Z)]$")
MIN_SINGLE_WORD_CAPS = 6  # "BEGIN", "END", "NULL" are keywords, "SUMMARY" is a heading
TITLE_CASE_WORDS = (2, 12)
MIN_PROSE_WORDS = 8
MIN_PROSE_LETTER_SHARE = 0.7
_WORD = re.compile(r"[^\W\d_][\w'’-]*")


# A division named by a keyword and its number: "PART II", "Item 1A. Risk Factors",
# "Note 2 – Revenue", "ARTICLE 1", "Section 3.2.1 Fees", "Exhibit 10.1", "Appendix B:
# Data", "Chapter 4", "Kapitel 2", "Annexe A". Its rank says how large a division the
# keyword names, as documents use them: parts, and what is attached to a document
# (exhibits, appendices, schedules), start a path of their own; chapters, items and
# articles sit in parts; sections and notes in those. A number in several parts goes
# one level deeper per part ("Section 3.2" under "Section 3").
KEYWORD_RANKS_DIVISION = 1  # the rank of parts and what is attached: they start a path
KEYWORD_RANKS = {
    **dict.fromkeys(("part", "book", "volume", "exhibit", "appendix", "annex", "schedule",
                     "attachment", "supplement", "teil", "anhang", "partie", "annexe",
                     "anexo", "apéndice", "allegato", "bijlage"), 1),
    **dict.fromkeys(("chapter", "item", "article", "kapitel", "artikel", "chapitre",
                     "capítulo", "capitolo", "hoofdstuk", "artículo", "articolo"), 2),
    **dict.fromkeys(("section", "note", "abschnitt", "sección", "sezione"), 3),
}
_KEYWORD = re.compile(
    r"^(?P<word>(?i:" + "|".join(sorted(KEYWORD_RANKS, key=len, reverse=True)) + r"))\s+"
    r"(?P<num>\d{1,3}[A-Z]?(?:\.\d{1,3}){0,3}|[IVXLC]{1,7}|[A-Z])(?![\w/,%$€£])\.?"
    r"(?:\s*[-–—:.]\s*|\s+|$)(?P<title>.*)$")
MAX_KEYWORD_HEADING_CHARS = 120
# A line that reads as a table's row or cell, not a heading: two numbers or more, an
# amount of money, or a long number (an identifier, a total).
_NUMBER_TOKEN = re.compile(r"^[(\[]?[-+−]?[$€£¥]?\d[\d,.]*%?[)\]]?$")
_AMOUNT = re.compile(r"[$€£¥]\s?\d|\d{5,}|\d{1,3}(?:,\d{3})+")


def keyword_heading(text: str) -> tuple[int, int] | None:
    """``(rank, depth)`` of a keyword heading ("Item 7.", "Part II", "Section 3.2.1"):
    the keyword's ``KEYWORD_RANKS`` and the number's parts; None for other lines."""
    match = _KEYWORD.match(text.strip())
    if match is None or len(text.strip()) > MAX_KEYWORD_HEADING_CHARS:
        return None
    title = match.group("title").strip()
    if title and (not (_starts_title(title) or title[0] in "\"'“‘(")
                  or title.endswith(_ENDS_SENTENCE[1:]) or _CODE_LIKE.search(title)
                  or title[-1].isdigit() or reads_like_data(title)
                  or _ENDS_INSIDE.search(title)):
        return None  # "Section 3 of the Agreement …", a contents entry "Item 2. … 15"
    rank = KEYWORD_RANKS[match.group("word").casefold()]
    # "Exhibit 10.1" is a name; "Section 3.2" a subsection.
    return rank, (match.group("num").count(".") + 1 if rank > 1 else 1)


_ATTACHED = tuple(word for word, rank in KEYWORD_RANKS.items()
                  if rank == KEYWORD_RANKS_DIVISION and word not in ("part", "book", "volume",
                                                                    "teil", "partie"))
_BARE_ATTACHMENT = re.compile(r"^(?i:" + "|".join(_ATTACHED) + r")\s*[.:]?$")
_ATTACHMENT_OF = re.compile(r"^(?i:" + "|".join(_ATTACHED) + r")\s+(?P<rest>\S.*)$")
# A division named by letters, not a number: "ARTICLE PBG" (an appendix's).
_LETTERED_DIVISION = re.compile(
    r"^(?i:" + "|".join(sorted(KEYWORD_RANKS, key=len, reverse=True)) + r")\s+[A-Z]{1,4}$")
# What is attached, named by capitals and titled after a dash or colon: "APPENDIX ERW -
# EARLY RETIREMENT WINDOWS", "Annex AB: Tariffs".
_LETTERED_TITLED = re.compile(r"^[A-Z]{2,4}\s*[-–—:]\s*(?P<title>\S.*)$")


def division_heading(text: str) -> tuple[int, int] | None:
    """``keyword_heading``, and a heading that names what is attached to a document
    without a number: the keyword alone ("APPENDIX", "Exhibit"), or before a keyword
    heading of its own ("APPENDIX ARTICLE C", "APPENDIX ARTICLE PBG"): rank
    ``KEYWORD_RANKS_DIVISION``, so it starts its own path as "Exhibit 10.1" does (the
    articles of a plan before it hold no appendix after them)."""
    if (keyword := keyword_heading(text)) is not None:
        return keyword
    text = text.strip()
    if _BARE_ATTACHMENT.match(text) or (
            (match := _ATTACHMENT_OF.match(text))
            and (keyword_heading(match["rest"]) is not None
                 or _LETTERED_DIVISION.match(match["rest"]) is not None
                 or ((titled := _LETTERED_TITLED.match(match["rest"])) is not None
                     and division_title(titled["title"], MAX_DIVISION_TITLE_WORDS)))):
        return KEYWORD_RANKS_DIVISION, 1
    return None


def division_without_title(text: str) -> bool:
    """A keyword heading that is only its keyword and number: "Chapter 1", "PART II"."""
    match = _KEYWORD.match(text.strip())
    return match is not None and not match.group("title").strip()


def division_title(text: str, max_words: int) -> bool:
    """Could ``text``, on the line after "Chapter 1", be that chapter's title: a few
    words starting with a capital, no sentence, no keyword heading of its own."""
    text = text.strip()
    return (bool(text) and len(text.split()) <= max_words and _starts_title(text)
            and not text.endswith(_ENDS_SENTENCE) and keyword_heading(text) is None
            and not reads_like_data(text) and not _CODE_LIKE.search(text))


def nest_under_keywords(texts: Sequence[str | None], found: Mapping[int, int],
                        styles: Mapping[int, LineStyle | None] | None = None
                        ) -> dict[int, int]:
    """Levels where keyword headings (``keyword_heading``) take the top ones, by rank
    (the ranks a document uses, counted from 1: a contract's "ARTICLE 1" over its
    "Section 1.1" over "Section 1.1.1", a filing's "Part I" over "Item 2" over
    "Note 3"), and every other heading nests below the deepest of them: MD&A's
    "Gross Margin" under "Item 2.", not beside it.

    Where ``styles`` gives the headings' styles, a heading set larger than the keyword
    heading of a rank it would sit in does not nest under it: it takes its level,
    beside it (a 10-Q's "Management's Discussion and Analysis" set larger than "Note
    12" ends that note, it does not sit in it); weight alone says too little (PDFs hide
    it). It never leaves a part, an exhibit or an appendix (a rank of 1 in
    ``KEYWORD_RANKS``): those start every path they hold, but an appendix an exhibit
    carries goes under it (``_attachments_within_exhibits``)."""
    keyed = {i: kw for i in found if (kw := division_heading(texts[i] or "")) is not None}
    if not keyed:
        return dict(found)
    return _attachments_within_exhibits(texts, keyed, _nest_by_rank(found, keyed, styles))


def _nest_by_rank(found: Mapping[int, int], keyed: Mapping[int, tuple[int, int]],
                  styles: Mapping[int, LineStyle | None] | None) -> dict[int, int]:
    ranks = {rank: n for n, rank in enumerate(sorted({rank for rank, _ in keyed.values()}), 1)}
    # Depth counts from the shallowest number of a rank: a contract's "Section 1.1"
    # (numbered within its article) sits right under "ARTICLE 1".
    shallowest: dict[int, int] = {}
    for rank, depth in keyed.values():
        shallowest[rank] = min(depth, shallowest.get(rank, depth))
    levels = {i: ranks[rank] + depth - shallowest[rank] for i, (rank, depth) in keyed.items()}
    deepest = max(levels.values())
    below = _levels_within_sections(found, keyed)
    if styles is None:
        return {i: min(levels.get(i, deepest + below.get(i, 0)), 6) for i in found}
    out: dict[int, int] = {}
    # The size of the keyword heading of each rank the path is in (a part closes the
    # items and notes of the part before); before a rank's first one, that first one's
    # (a report's opening sections, set larger than its notes, are not nested under
    # its cover's lines).
    open_sizes: dict[int, float] = {}
    for i in sorted(keyed, reverse=True):
        if (style := styles.get(i)) is not None and style.size:
            open_sizes[keyed[i][0]] = style.size
    for i in sorted(found):
        style = styles.get(i)
        size = style.size if style is not None else 0.0
        if i in keyed:
            rank = keyed[i][0]
            open_sizes = {r: open_sizes[r] for r in open_sizes if r < rank}
            if size:
                open_sizes[rank] = size
            out[i] = min(levels[i], 6)
            continue
        beside = [rank for rank in sorted(open_sizes) if rank > KEYWORD_RANKS_DIVISION
                  and size and sizes_differ(size, open_sizes[rank]) and size > open_sizes[rank]]
        out[i] = min(ranks[beside[0]] if beside else deepest + below[i], 6)
    return out


_EXHIBIT = re.compile(r"^(?i:exhibit)\b")
_PART = re.compile(r"^(?i:part|book|volume|teil|partie)\b")


def _attachments_within_exhibits(texts: Sequence[str | None],
                                 keyed: Mapping[int, tuple[int, int]],
                                 levels: dict[int, int]) -> dict[int, int]:
    """An appendix, annex or schedule after an exhibit (before the next exhibit or part)
    is the exhibit's: a plan filed as "Exhibit 10.7" carries its "APPENDIX" and
    "APPENDIX ARTICLE C" one level below the exhibit, and what they hold one level
    deeper, not beside the exhibit as documents of their own. So is an exhibit lettered
    after one numbered: an award agreement filed as "Exhibit 10.2" carries its "EXHIBIT
    A PERFORMANCE VESTING REQUIREMENTS" (a filing numbers its exhibits, an agreement
    letters its own)."""
    exhibit: int | None = None  # the exhibit's level
    numbered = False  # whether the open exhibit is numbered
    shift = 0
    out = dict(levels)
    order = sorted(levels)
    numbers: dict[tuple[str, int], int] = {}  # the exhibit's numberings so far
    for position, i in enumerate(order):
        text = (texts[i] or "").strip()
        division = keyed.get(i)
        key = _sequence_key(text)
        if division is not None and division[0] == KEYWORD_RANKS_DIVISION:
            named = keyword_division(text)  # None: a bare "EXHIBIT"
            lettered = named is not None and named[1].isalpha()
            if ((_EXHIBIT.match(text) and not (exhibit is not None and numbered and lettered))
                    or _PART.match(text)):
                exhibit = levels[i] if _EXHIBIT.match(text) else None
                numbered = exhibit is not None and named is not None and not lettered
                shift = 0
                numbers = {}
                continue
            runs_on = _numbering_runs_on(texts, order[position + 1:], numbers)
            if key is not None:
                numbers[key[:2]] = key[2]
            if exhibit is not None and levels[i] <= exhibit and not runs_on:
                shift = exhibit + 1 - levels[i]
                out[i] = min(levels[i] + shift, 6)
                continue
        if key is not None:
            numbers[key[:2]] = key[2]
        if shift and levels[i] > (exhibit or 0):
            out[i] = min(levels[i] + shift, 6)
        elif shift:
            shift = 0  # a heading above the exhibit's level ends it
            exhibit = None
    return out


def _numbering_runs_on(texts: Sequence[str | None], after: Iterable[int],
                       numbers: Mapping[tuple[str, int], int]) -> bool:
    """Does the next heading in ``after`` of a numbering seen before (``numbers``)
    continue it: a plan's "SCHEDULE 1" between its "ARTICLE II" and "ARTICLE III", which
    ``nest_between_numbers`` puts in Article II?"""
    for k in after:
        if (key := _sequence_key(texts[k] or "")) is not None and key[:2] in numbers:
            return numbers[key[:2]] == key[2] - 1
    return False


def _levels_within_sections(found: Mapping[int, int], keyed: Iterable[int]) -> dict[int, int]:
    """The levels of the headings that are no keyword heading, counted 1, 2, … within the
    section of each keyword heading: a 10-K's Item 1 whose headings are set in the
    document's third and fourth styles holds them at its first and second levels below
    it, so that nesting them under "Part I" > "Item 1" > "Note 3" leaves room for both."""
    keyed = set(keyed)
    out: dict[int, int] = {}
    section: list[int] = []

    def close() -> None:
        ranks = {level: n for n, level in enumerate(sorted({found[i] for i in section}), 1)}
        out.update((i, ranks[found[i]]) for i in section)
        section.clear()

    for i in sorted(found):
        if i in keyed:
            close()
        else:
            section.append(i)
    close()
    return out


def numbered_heading_start(line: str) -> bool:
    """Does the line open with a heading's numbering ("2.1 …", "IV. …", "B. …")?"""
    return _NUMBERED_START.match(line) is not None


def opens_numbered_section(text: str) -> bool:
    """Does ``text`` open with a section's numbering: "2.1 …", "IV. …", "1 企業…", a CJK
    chapter or section ("第一章 …") or enumeration ("一、…", "（1）…")?"""
    text = text.strip()
    return (numbered_heading_start(text) or _CJK_SECTION.match(text) is not None
            or any(pattern.match(text) for pattern, _, _ in _CJK_ENUMERATIONS))


def looks_like_heading(line: str) -> bool:
    """The rule line joining asks of a line before joining it to the one above: a short
    line that opens like a heading, numbered ("2.1 Title", "IV. Results"), a CJK
    chapter or section ("第一节 重要提示"), a keyword heading ("Item 2. …", "PART II"),
    in capitals, or a CJK enumeration (``opens_cjk_enumeration``). ``heading_level``
    is the stricter rule for what is a heading."""
    if len(line) > MAX_KEYWORD_HEADING_CHARS:
        return False
    if keyword_heading(line) is not None:
        return True
    if len(line) > MAX_HEADING_CHARS:
        return False
    return (numbered_heading_start(line) or _CJK_SECTION.match(line) is not None
            or (line.isupper() and len(line) > 3) or opens_cjk_enumeration(line))


def opens_cjk_enumeration(line: str) -> bool:
    """Does a CJK line open with an enumeration or a numbering ("（1）要約…", "一、…",
    "2．要約四半期連結財務諸表及び主な注記")? Such a line starts an item or a section:
    line joining keeps it apart from the line above (Chinese and Japanese lines join
    with no space, so a heading glued to the next one reads as one run of words)."""
    return (line[:1] in _CJK_ENUMERATION_OPENS and _CJK_START.search(line) is not None
            and any(pattern.match(line) for pattern, _, _ in _CJK_ENUMERATIONS))


# The word a sentence points to a division with, at the end of a line whose next line
# names it ("… in connection with the LTC reporting unit. See" / "Note 5 ‘‘Goodwill and
# Other Intangibles’’ included in Item 8 …"): in the languages ``KEYWORD_RANKS`` reads.
_POINTS_TO = frozenset({"see", "siehe", "voir", "véase", "vedi", "zie"})


def reference_ends_sentence(line: str, next_line: str, in_paragraph: bool = False) -> bool:
    """Is ``next_line`` a cross-reference that goes on with the sentence ``line`` runs
    into, never a heading? Either a division's keyword and number alone, closed by a
    full stop ("Section 4.5."), after running text (``MIN_PROSE_WORDS`` words or more,
    or the last line of a paragraph of several, ``in_paragraph``) that ends in a word in
    lower case, as no sentence and no heading ends ("… the Retirement Pension available
    to a Participant under"); or any line that opens with a division's keyword and
    number after running text whose last word points to it ("… See" / "Note 5
    ‘‘Goodwill and Other Intangibles’’ included in Item 8 of this 10-K …": that
    reference was a heading over the rest of the section)."""
    text = next_line.strip()
    last = line[line.rfind(" ") + 1:]
    points = last.casefold() in _POINTS_TO
    if not points and not text.endswith("."):  # most lines: no split, no regex (this runs
        return False  # at every line break)
    if not (in_paragraph or len(line.split(None, MIN_PROSE_WORDS)) >= MIN_PROSE_WORDS):
        return False
    match = _KEYWORD.match(text)
    if match is None:
        return False
    if points:
        return True
    return not match.group("title").strip() and last.isalpha() and last.islower()


def capitals_heading_runs_on(line: str, next_line: str) -> bool:
    """Does a numbered heading in capitals run on to ``next_line``: ``line`` opens with a
    division's keyword and number or a section's number ("ITEM 2. MANAGEMENT'S
    DISCUSSION … RESULTS OF" / "OPERATIONS", centred under it) and ends inside a phrase,
    and the next line, in capitals too, opens no heading of its own? A heading never
    ends on "OF" or a comma, so the two lines are one heading whatever their block or
    width. (Unnumbered lines in capitals are left alone: a cover's or an exhibit's
    title set over many short lines is no heading to join.)"""
    return (line.isupper() and next_line.isupper() and _ENDS_INSIDE.search(line) is not None
            and not line.endswith((":", "：", ";"))  # "GENERAL RISKS:" labels what follows
            and (_KEYWORD.match(line) is not None or numbered_heading_start(line))
            and len(line) + len(next_line) < MAX_KEYWORD_HEADING_CHARS
            and not numbered_heading_start(next_line) and keyword_heading(next_line) is None)


# A token made of digits (and a few separators and hex letters) that runs long: an
# accession number, a file id, a UUID, a date code ("0000320193-23-000006",
# "20231027_123456", "d666f1f7-46cb-42bd-9a39-9a39cf2a509f").
_IDENTIFIER = re.compile(r"^[\W_]*(?=(?:\D*\d){6})[\d\W_A-Fa-f]+[\W_]*$")


def is_identifier(token: str) -> bool:
    """Whether one token is an identifier: long, made of digits, separators, hex."""
    return _IDENTIFIER.match(token) is not None


def names_nothing(heading: str) -> bool:
    """Whether a heading is identifiers only (a generator's UUID set in a heading
    style): it names no section, and a path that holds it tells a reader nothing."""
    tokens = heading.split()
    return bool(tokens) and all(is_identifier(token) for token in tokens)


# A form's answer to its question ("Securities registered pursuant to Section 12(g) of
# the Act:" / "None"), set apart like a heading on a cover sheet: it names no section.
_ANSWER = re.compile(r"^(?:none|n/?a|not\s+applicable|nil|yes|no)\s*[.:]?$", re.IGNORECASE)


def is_answer(text: str) -> bool:
    """ "None", "N/A", "Not applicable", "Yes": a form's answer, never a heading."""
    return _ANSWER.match(text.strip()) is not None


def reads_as_sentence(text: str) -> bool:
    """A sentence, never a heading: it ends as a statement does (``_STATEMENT_ENDS``) or
    holds a CJK full stop, also where the whole line stands in brackets
    ("【この構成に対して、仕様の変更が可能です。】" is a note, not a section's name)."""
    text = text.strip()
    if len(text) > 2 and _ENCLOSING.get(text[0]) == text[-1]:
        text = text[1:-1].strip()
    return (text.endswith(_STATEMENT_ENDS) and not text.endswith(_OPEN_ENDS)) or "。" in text


_ENDS_WITH_SHARE = re.compile(r"\d\s*%$")


def reads_like_a_label(text: str) -> bool:
    """A chart's legend or a cell cut off, not a heading: unnumbered, it ends in a
    percentage ("Unaffiliated – 12%"; "2 Reducing latency by 40%" is a heading), or it
    leaves a parenthesis open ("English (Choctaw", a box's
    cell whose line goes on beside it)."""
    return ((bool(_ENDS_WITH_SHARE.search(text)) and not text[:1].isdigit())
            or text.count("(") > text.count(")"))


def reads_like_data(text: str) -> bool:
    """A table's row or cell ("Non-GAAP diluted EPS $ 2.61 $ 2.73", "2021 2022",
    "California 94-2404110"): two numbers or more after the line's own numbering
    (a percentage is one), an amount of money or a long number."""
    match = _KEYWORD.match(text) or _NUMBERED.match(text) or _ROMAN.match(text)
    rest = match.group("title") if match else text
    return (sum(bool(_NUMBER_TOKEN.match(token)) for token in rest.split()) >= 2
            or _AMOUNT.search(rest) is not None)


def _starts_title(title: str) -> bool:
    first = title[0]
    return first.isupper() or bool(_CJK_START.match(first))


# A note's reference mark after a heading, as Japanese documents print it ("A1 LIFEBOOK
# U3114X/S＊10", "売上収益※1"): the heading is the words before it, and its last digit
# no page number.
_NOTE_REFERENCE = re.compile(r"(?:\s*[＊※][0-9０-９]{1,2})+$")
# A short qualifier in full-width brackets after a heading in Latin capitals, in a CJK
# document ("A4 LIFEBOOK U9313/R（ピクトブラック）": a model and its colour).
_FULL_WIDTH_QUALIFIER = re.compile(f"\\s*（[{CJK_SCRIPTS_CLASS}ー・]{{1,20}}）$")


def heading_level(line: str) -> tuple[int, str] | None:
    """``(level, depth key)`` if the line reads like a section heading."""
    text = line.strip()
    if text[-1:].isdigit():
        text = _NOTE_REFERENCE.sub("", text) or text
    if (match := _SECTION_SIGN.match(text)) and _is_section_title(match.group("title")):
        return 2, "section-sign"
    if (keyword := keyword_heading(text)) is not None:
        return min(keyword[0] + keyword[1] - 1, 6), f"keyword-{keyword[0]}"
    if text and (reads_like_data(text) or is_answer(text)):
        return None
    if (not text or len(text) > MAX_HEADING_CHARS or text.endswith(_ENDS_SENTENCE)
            or _CAPTION.match(text) or reads_as_sentence(text) or _CITED.search(text)
            or _AUTHOR_YEAR.search(text) or reads_like_a_label(text)):
        return None  # a CJK full stop anywhere: a sentence (a numbered poem line)
    if text[-1].isdigit() and not _CJK_SECTION.match(text):
        return None  # "2.1 Parsing 4": a table-of-contents entry
    if unicodedata.category(text[-1]) == "Sc":
        return None  # "2 Multiply the amount on Line 1 by 90% (.90) $": a form's field
    if match := _CJK_SECTION.match(text):
        return (2 if match.group("unit") == "节" else 1), f"cjk-{match.group('unit')}"
    if _CJK_START.search(text):
        for pattern, level, depth in _CJK_ENUMERATIONS:
            if pattern.match(text):
                return level, depth
    if _CODE_LIKE.search(text):
        return None  # "DEFINITIONS TAGS ::=", "4 CARD32 FIRST_OFFSET": code or a table row
    if match := _NUMBERED.match(text):
        parts = match.group("num").split(".")
        if int(parts[0]) == 0 or not _starts_title(match.group("title")) \
                or _MONTH_ONLY.match(match.group("title")):
            return None  # "9 August": a day and a month, a table's or a list's date
        return len(parts), f"num-{len(parts)}"
    if match := _ROMAN.match(text):
        return (1, "roman") if _starts_title(match.group("title")) else None
    if (match := _LETTERED.match(text)) and _starts_title(match.group("title")):
        depth = match.group("num").rstrip(".").count(".") + 1
        return depth, f"alpha-{depth}"
    if is_capitals_heading(text) or (text.endswith("）") and is_capitals_heading(
            _FULL_WIDTH_QUALIFIER.sub("", text))):
        return 1, "caps"
    if _is_title_case_heading(text):
        return 2, "title"
    return None


def _is_section_title(title: str) -> bool:
    """The title of a "§ N" section: a capital first, a few words, no clause of a
    sentence that merely starts with a reference ("§ 1308.41 shall, within 30 days")."""
    title = title.rstrip()
    if title.endswith("."):
        title = title[:-1]
    return (_starts_title(title) and len(title.split()) <= MAX_SECTION_TITLE_WORDS
            and len(title) <= MAX_SECTION_HEADING_CHARS and not title.endswith(_ENDS_SENTENCE)
            and not _CODE_LIKE.search(title.replace(";", ",")))  # "…; application."


def _is_title_case_heading(text: str) -> bool:
    """ "Key Features That Changed Word Processing": capitalised words, minor words aside."""
    words = text.split()
    if not TITLE_CASE_WORDS[0] <= len(words) <= TITLE_CASE_WORDS[1] or not text[0].isupper():
        return False
    lettered = [m.group() for word in words if (m := _WORD.search(word))]
    long_words = [word for word in lettered if sum(c.isalpha() for c in word) >= 4]
    return bool(long_words) and all(word[0].isupper() for word in long_words)


def is_capitals_heading(text: str) -> bool:
    """ "ABSTRACT", "MATERIALS AND METHODS": Latin capitals only, not a keyword like BEGIN."""
    if not 4 <= len(text) <= MAX_CAPS_HEADING_CHARS or not _CAPITALS.match(text):
        return False
    words = text.split()
    return len(words) > 1 or len(text) >= MIN_SINGLE_WORD_CAPS


_ASCII_LETTERS = string.ascii_letters.encode("ascii")
_ASCII_SPACES = bytes(byte for byte in range(128) if chr(byte).isspace())


def is_prose(text: str) -> bool:
    """Running text: enough words, mostly letters (not a row of numbers or codes). In
    scripts written without spaces every CJK character counts as a word."""
    if text.isascii():
        # The same counts without a list of every word (a block of many lines): enough
        # words is told from the first few, the characters that are no space are those
        # left when the ASCII whitespace (str.split's) is deleted, in C.
        if len(text.split(None, MIN_PROSE_WORDS)) < MIN_PROSE_WORDS:
            return False
        encoded = text.encode("ascii")
        visible = len(encoded.translate(None, _ASCII_SPACES))
        letters = len(text) - len(encoded.translate(None, _ASCII_LETTERS))
        return letters >= MIN_PROSE_LETTER_SHARE * max(visible, 1)
    tokens = text.split()
    words = len(tokens)
    if words < MIN_PROSE_WORDS and not text.isascii():
        # Chinese and Japanese words average about two characters (Korean spaces them).
        words += len(_UNSPACED.findall(text)) // 2
    if words < MIN_PROSE_WORDS:
        return False
    visible = sum(map(len, tokens))  # the characters that are no space
    if text.isascii():  # an ASCII letter is A–Z or a–z: deleted in one C call, counted
        letters = len(text) - len(text.encode("ascii").translate(None, _ASCII_LETTERS))
    else:
        letters = sum(map(str.isalpha, text))  # a letter is never a space
    return letters >= MIN_PROSE_LETTER_SHARE * max(visible, 1)


def find_headings(paragraphs: Sequence[str | None],
                  prose: Sequence[bool] | None = None,
                  items: Sequence[str | None] | None = None) -> dict[int, int]:
    """``{index: level}`` of the one-line paragraphs that are headings
    (``_text_headings``), keyword headings over the others (``nest_under_keywords``)."""
    return nest_between_numbers(paragraphs, nest_under_keywords(
        paragraphs, in_numbering(paragraphs, _text_headings(paragraphs, prose, items))))


def _text_headings(paragraphs: Sequence[str | None],
                   prose: Sequence[bool] | None = None,
                   items: Sequence[str | None] | None = None) -> dict[int, int]:
    """``{index: level}`` of the one-line paragraphs that are headings.

    ``paragraphs`` holds each cleaned block's text, or None for blocks that
    cannot be headings (tables, code, multi-line paragraphs); ``prose[i]``
    says whether block ``i`` is running text (``is_prose``; without it, every
    multi-line block counts as such); ``items[i]``, where given, block ``i``'s text
    even where it cannot be a heading (a numbered list item over several lines).
    """
    candidates = [heading_level(text) if text is not None else None for text in paragraphs]
    found: dict[int, int] = {}
    for i, candidate in enumerate(candidates):
        if candidate is None:
            continue
        level, depth = candidate
        if depth in ("title", "section-sign") and not _body_follows(paragraphs, prose, i):
            continue
        if depth != "caps" and (_in_sequence(paragraphs, candidates, i, i - 1, items)
                                or _in_sequence(paragraphs, candidates, i, i + 1, items)):
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


def _in_sequence(paragraphs: Sequence[str | None], candidates: list, i: int, j: int,
                 items: Sequence[str | None] | None = None) -> bool:
    """Is neighbour ``j`` a candidate of the same depth that continues ``i``'s numbering,
    or (``items``: every block's text) a numbered block that is no candidate, an item
    over several lines ("4. …" over four lines, then "5. …" on one)?"""
    if not 0 <= j < len(candidates):
        return False
    if candidates[j] is None:
        other = items[j] if items is not None else None
        mine, theirs = _NUMBERED.match((paragraphs[i] or "").strip()), (
            _NUMBERED.match(other.strip()) if other else None)
        return bool(mine and theirs
                    and mine.group("num").count(".") == theirs.group("num").count(".")
                    and _ordinal(other) - _ordinal(paragraphs[i]) == j - i)
    if candidates[j][1] != candidates[i][1]:
        return False
    mine, theirs = _ordinal(paragraphs[i] or ""), _ordinal(paragraphs[j] or "")
    if mine is None or theirs is None:
        return True  # same kind of unnumbered marker twice in a row
    return theirs - mine == j - i


# A numbered heading's first number follows the last one's by at most this much (a
# heading or two the rules missed), unless the next numbered heading goes on from it
# (an excerpt that starts at "14.1").
MAX_NUMBERING_GAP = 3
# The first numbered heading (of the document, or after a part) may be any section up to
# this one: a page of a paper opens at "4 Vignette: …"; "69 Other" is no section 69.
MAX_FIRST_SECTION = 9


def in_numbering(texts: Sequence[str | None], found: Mapping[int, int],
                 contents: frozenset[str] = frozenset()) -> dict[int, int]:
    """``found`` without the numbered headings that break the document's numbering: a
    chart's bar label "69 Other", a table's row "36 Months" after "2 Background" is no
    section 69 or 36. Sections go on from the last one ("3 Methods" after "2 Data"), or
    start again (at a part, an exhibit, an appendix: ``KEYWORD_RANKS_DIVISION``); the
    first of a document or a part may be any up to ``MAX_FIRST_SECTION``; a jump is a
    section only where the next numbered heading goes on from it, and so is a step back
    to any but 1 ("3" after "27": an option list's row). A title numbered
    again and again is a list's entry (``_listed_titles``), unless the document's
    contents page lists it (``contents``: its entries' words, ``contents_entries``)."""
    entries: list[tuple[int, int | None]] = []  # (index, first number), None: a new part
    for i in sorted(found):
        text = (texts[i] or "").strip()
        if (match := _NUMBERED.match(text)) is not None:
            entries.append((i, int(match.group("num").split(".")[0])))
        elif (keyword := division_heading(text)) is not None \
                and keyword[0] == KEYWORD_RANKS_DIVISION:
            entries.append((i, None))
    numbered = [i for i, number in entries if number is not None]
    dropped = _listed_titles(texts, numbered, contents) | _variant_rows(texts, numbered)
    dropped |= _list_entries(texts, [i for i in numbered if i not in dropped])
    last = 0
    for k, (i, number) in enumerate(entries):
        if number is None:
            last = 0
            continue
        following = next((n for _, n in entries[k + 1:] if n is not None), None)
        if number < last and number != 1 and following not in (number, number + 1):
            dropped.add(i)  # back to "3" after "27": no section starts again at 3
        elif (number <= last + MAX_NUMBERING_GAP
              or (last == 0 and number <= MAX_FIRST_SECTION)
              or following in (number, number + 1)):
            last = number
        else:
            dropped.add(i)
    return {i: level for i, level in found.items() if i not in dropped}


# A title printed under this many different numbers is an entry of a numbered list.
MIN_LISTED_NUMBERS = 3
_SINGLE_NUMBER = re.compile(r"^(?P<num>\d{1,3})\.?\s+(?P<title>\S.*)$")


# A qualifier in brackets closing a title: "Palm sensor (PalmSecure-F compatible)".
_QUALIFIER = re.compile(r"\s*[(（][^()（）]*[)）]$")


def _listed_titles(texts: Sequence[str | None], numbered: Sequence[int],
                   contents: frozenset[str] = frozenset()) -> set[int]:
    """The numbered headings whose title recurs under ``MIN_LISTED_NUMBERS`` or more
    different numbers ("14 PC Support Service Basic", "15 PC Support Service Basic", …
    "22 PC Support Service Basic"; a qualifier in brackets after it aside): a price
    list's or an order form's numbered options, one per model, not sections, which each
    name something of their own. Only titles under single numbers: "2.1 Overview" and
    "3.1 Overview" are subsections; and not where the document's contents page lists
    the heading (a test file's sections "1 Foo", "2 Bar", "3 Baz", "4 Foo" …)."""
    numbers: dict[str, set[int]] = defaultdict(set)
    titles: dict[int, str] = {}
    for i in numbered:
        if (match := _SINGLE_NUMBER.match((texts[i] or "").strip())) is not None:
            title = " ".join(match.group("title").split())
            titles[i] = _QUALIFIER.sub("", title) or title
            numbers[titles[i]].add(int(match.group("num")))
    return {i for i, title in titles.items() if len(numbers[title]) >= MIN_LISTED_NUMBERS
            and " ".join((texts[i] or "").split()) not in contents}


_PAGE_REFERENCE = re.compile(r"\s+(?:\d{1,4}|[ivxlc]{1,6})$")


def contents_entries(entries: Iterable[str]) -> frozenset[str]:
    """A contents page's entries as the headings they name: "2 Bar 2" → "2 Bar" (with
    ``MIN_HEADING_LETTERS`` letters or more: not a bare number)."""
    named = (" ".join(_PAGE_REFERENCE.sub("", entry.strip()).split()) for entry in entries)
    return frozenset(name for name in named
                     if sum(map(str.isalpha, name)) >= MIN_HEADING_LETTERS)


# Numbered headings this close (in blocks), this many in a row, titled alike but for
# their figures, are a list's rows.
MAX_VARIANT_ROW_STEP = 3
MIN_VARIANT_ROWS = 3
_FIGURES = re.compile(r"\d+")


def _variant_rows(texts: Sequence[str | None], numbered: Sequence[int]) -> set[int]:
    """Runs of ``MIN_VARIANT_ROWS`` or more numbered headings, numbered one after the
    other and each within ``MAX_VARIANT_ROW_STEP`` blocks of the one before, whose titles
    differ only in their figures ("25 Support Service Premium 3 years", "26 … 4 years",
    "27 … 5 years"): an option list's rows, one per variant. Sections titled alike
    ("2 Study 1", "3 Study 2") have their text between them."""
    keyed = []
    for i in numbered:
        if (match := _SINGLE_NUMBER.match((texts[i] or "").strip())) is not None:
            keyed.append((i, int(match.group("num")), _FIGURES.sub("0", match.group("title"))))
    dropped: set[int] = set()
    run: list[int] = []
    for k, (i, number, key) in enumerate(keyed):
        if run and not (i - keyed[k - 1][0] <= MAX_VARIANT_ROW_STEP
                        and number == keyed[k - 1][1] + 1 and key == keyed[k - 1][2]):
            if len(run) >= MIN_VARIANT_ROWS:
                dropped.update(run)
            run = []
        run.append(i)
    if len(run) >= MIN_VARIANT_ROWS:
        dropped.update(run)
    return dropped


# How far (in blocks) a numbered heading's neighbour numbers are looked for.
MAX_ENTRY_NEIGHBOUR_BLOCKS = 8
# How many characters of a CJK title two entries of one list open with alike.
CJK_OPENING_CHARS = 2


def _opening(title: str) -> str:
    """A title's first two words ("memory upgrade"), or its first characters where it is
    CJK (no spaces: "メモ")."""
    words = title.split()
    if _CJK_START.match(words[0]):
        return words[0][:CJK_OPENING_CHARS]
    return " ".join(words[:2]).casefold()


def _list_entries(texts: Sequence[str | None], numbered: Sequence[int]) -> set[int]:
    """The numbered headings next to a block that is no heading, numbered one before or
    one after them, whose title opens alike ("2 メモリ変更16GB→64GB" between "1 メモリ変更…"
    and a row "3 メモリ変更8GB→16GB"): entries of a numbered list (a price list's
    options) of which the short ones read like headings. A section's neighbour numbers
    are sections: "2 Data" is not followed by a paragraph "3 Data shows…"."""
    dropped: set[int] = set()
    while True:  # an entry found makes its neighbours' neighbour no heading: again
        headings = set(numbered) - dropped
        found = {i for i in headings if _entry_beside(texts, i, headings)}
        if not found:
            return dropped
        dropped |= found


def _entry_beside(texts: Sequence[str | None], i: int, headings: set[int]) -> bool:
    """Is block ``i`` ("N title") near a block that is no heading, numbered N ± 1, whose
    title opens alike?"""
    if (match := _SINGLE_NUMBER.match((texts[i] or "").strip())) is None:
        return False
    number, opening = int(match.group("num")), _opening(match.group("title"))
    for j in (*range(max(0, i - MAX_ENTRY_NEIGHBOUR_BLOCKS), i),
              *range(i + 1, min(len(texts), i + 1 + MAX_ENTRY_NEIGHBOUR_BLOCKS))):
        other = texts[j]
        if j in headings or not other:
            continue
        entry = _SINGLE_NUMBER.match(other.strip())
        if (entry is not None and int(entry.group("num")) == number + (1 if j > i else -1)
                and _opening(entry.group("title")) == opening):
            return True
    return False


# The number a heading opens with, per kind of numbering: "3 …"/"3.2 …" (the last part),
# "（3）…", "3、…".
_SEQUENCE_NUMBERS = (
    ("num", re.compile(r"^(?:\d{1,2}\.)*(?P<n>\d{1,2})\.?\s+\S")),
    ("paren", re.compile(r"^[（(]\s*(?P<n>\d{1,2})\s*[）)]\s*\S")),
    ("comma", re.compile(r"^(?P<n>\d{1,2})\s*、\s*\S")),
    ("stop", re.compile(f"^(?P<n>\\d{{1,2}})\\s*[．.]\\s*[{CJK_SCRIPTS_CLASS}]")),
)


# Keywords of the divisions a document is cut into, whose headings no numbering below
# them holds: a 10-K's "Item 5" continues "Item 4" across "PART II".
_PART_KEYWORDS = frozenset({"part", "book", "volume", "teil", "partie"})
_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}


def _number_value(number: str) -> int:
    """The value of a keyword heading's number's last part: "3" 3, "4.2" 2, "1A" 1,
    "IV" 4, "B" 2."""
    last = number.rsplit(".", 1)[-1]
    if last[:1].isdigit():
        return int(re.match(r"\d+", last).group())  # type: ignore[union-attr]
    if len(last) == 1 and last not in _ROMAN_VALUES:
        return ord(last) - ord("A") + 1
    values = [_ROMAN_VALUES[c] for c in last]
    return sum(-v if v < w else v for v, w in zip(values, [*values[1:], 0], strict=True))


def _keyword_sequence_key(text: str) -> tuple[str, int, int] | None:
    """("keyword-<word> <number's first parts>", depth, number's last part) of a keyword
    heading ("ARTICLE II", "Item 7.", "Section 4.2": "Section 4.3" follows it, "Section
    5.3" does not), or None."""
    text = text.strip()
    match = _KEYWORD.match(text)
    if match is None or keyword_heading(text) is None:
        return None
    number = match.group("num")
    prefix = number.rsplit(".", 1)[0] if "." in number else ""
    return (f"keyword-{match.group('word').casefold()} {prefix}", number.count("."),
            _number_value(number))


def keyword_division(text: str) -> tuple[str, str] | None:
    """The division a keyword heading (``keyword_heading``) names, its keyword and number
    case-folded: "Item 6" and "ITEM 6. EXHIBITS" both ("item", "6"); None for other
    lines."""
    words = text.split(None, 1)
    if not words or words[0].casefold() not in KEYWORD_RANKS:
        return None  # most lines: no regex (a page template weighs every line of a document)
    text = text.strip()
    match = _KEYWORD.match(text)
    if match is None or keyword_heading(text) is None:
        return None
    return match.group("word").casefold(), match.group("num").casefold()


def _starts_part(text: str) -> bool:
    """Is ``text`` the heading of a part ("PART II"), which no numbering holds?"""
    match = _KEYWORD.match(text.strip())
    return (match is not None and match.group("word").casefold() in _PART_KEYWORDS
            and keyword_heading(text) is not None)


def _sequence_key(text: str) -> tuple[str, int, int] | None:
    """(kind of numbering, depth, number) of a numbered heading, or None."""
    text = text.strip()
    if (keyword := _keyword_sequence_key(text)) is not None:
        return keyword
    for kind, pattern in _SEQUENCE_NUMBERS:
        if (match := pattern.match(text)) is not None:
            depth = text[:match.start("n")].count(".") if kind == "num" else 0
            return kind, depth, int(match.group("n"))
    return None


def nest_between_numbers(texts: Sequence[str | None], levels: Mapping[int, int]
                         ) -> dict[int, int]:
    """``levels`` where a heading between two numbered headings that follow each other
    ("（2）…", then "（3）…") and set above them goes below the first: sections of one
    numbering are siblings, so "（3）" must not sit in a segment's name printed large at
    the end of "（2）" (an unnumbered heading ranked by its size above them). Keyword
    headings number alike: a plan's "SCHEDULE 1" between its "ARTICLE II" and "ARTICLE
    III" is Article II's schedule, not an attachment holding the articles after it; only
    a part ("PART II" between a 10-K's "Item 4" and "Item 5") stands above a numbering
    that runs on across it."""
    out = dict(levels)
    last: dict[tuple[str, int], tuple[int, int]] = {}  # numbering → (index, number)
    order = sorted(levels)
    for position, i in enumerate(order):
        key = _sequence_key(texts[i] or "")
        if key is None:
            continue
        kind, depth, number = key
        before = last.get((kind, depth))
        last[(kind, depth)] = (i, number)
        if before is None or before[1] != number - 1 or out[before[0]] != out[i]:
            continue
        between = order[order.index(before[0]) + 1:position]
        if any(out[k] < out[i] and _starts_part(texts[k] or "") for k in between):
            continue
        for k in between:
            if out[k] < out[i]:
                out[k] = min(out[i] + 1, 6)
    return out


# --- headings from the page's typography (PDFs with a layout) ------------------------

# A heading set apart by its font has at most this many lines and words.
MAX_STYLED_HEADING_LINES = 3
MAX_STYLED_HEADING_WORDS = 25
# A document's title may run longer ("Scalability of Controlling Heterogenous Stress-
# Engineered MEMS Microrobots (MicroStressBots) through …" over four lines) where it is
# set much larger than the body.
MAX_TITLE_LINES = 5
MAX_TITLE_WORDS = 40
MIN_LONG_TITLE_RATIO = 1.5
# Commas in a line set apart by its font that make it a list (of names, an address),
# not a heading.
MAX_HEADING_COMMAS = 2
# How many blocks a heading may be followed by before its text: headings of the
# levels below it ("2 Methods" / "2.1 Data" / text).
MAX_HEADINGS_IN_A_ROW = 4
# The document's title is the largest line in the top part of its first page.
TITLE_PAGE_SHARE = 0.5
# A heading does not end inside a phrase.
_ENDS_INSIDE = re.compile(r"(?:[,;:(\[/&–—-]|\b(?:and|or|of|the|for|to|in|with|und|et|de))$",
                          re.IGNORECASE)


@dataclass(frozen=True)
class BodyStyle:
    """The body text's style: the size and font most of a document's text is set in."""

    size: float
    font: str
    bold: bool


class HeadingBlock(NamedTuple):  # a tuple: one per block of a document
    """What heading detection knows of one cleaned block."""

    text: str | None  # a paragraph of at most MAX_TITLE_LINES lines, else None
    prose: bool  # running text (``is_prose``)
    lines: int = 1
    style: LineStyle | None = None  # its first line's, when it has one
    uniform: bool = True  # all its styled lines are set alike
    in_row: bool = False  # it shares its row with short lines: a table's cells
    in_margin: bool = False  # beside the page's text column: a marginal note
    page_height: float = 0.0
    table: bool = False  # a table's rows (``BlockKind.TABLE``)


def body_style(styles: Iterable[tuple[LineStyle, int]]) -> BodyStyle | None:
    """The style most characters are set in (``(style, characters)`` of measured lines)."""
    weights: Counter[tuple[float, str, bool]] = Counter()
    for style, chars in styles:
        if style.size:
            weights[(style.size, style.font, style.bold)] += chars
    if not weights:
        return None
    (size, font, bold), _ = weights.most_common(1)[0]
    return BodyStyle(size, font, bold)


def _is_bold(style: LineStyle | BodyStyle) -> bool:
    """Set in bold: by its weight, or by its font's name where the PDF gives no weight
    (a browser's print names ``LiberationSans-Bold`` with the weight of its regular)."""
    return style.bold or bold_font_name(style.font or "")


def _distinct(style: LineStyle, reference: LineStyle | BodyStyle) -> bool:
    """Set apart from ``reference`` (the body, or the text a heading is over): larger,
    or bold where it is not, or in another face at its size."""
    bold = _is_bold(style)
    if reference.bold and not bold:
        return False  # text in bold under a line in regular: a form's answer over a label
    if sizes_differ(style.size, reference.size):
        return style.size > reference.size
    return (bold and not _is_bold(reference)) or bool(style.font and reference.font
                                                      and style.font != reference.font)


def _smaller(style: LineStyle | None, reference: LineStyle | BodyStyle | None) -> bool:
    return (style is not None and reference is not None and bool(style.size)
            and bool(reference.size) and sizes_differ(style.size, reference.size)
            and style.size < reference.size)


def _style_key(style: LineStyle) -> tuple[float, bool, str]:
    return (style.size, style.bold, style.font)


def find_styled_headings(blocks: Sequence[HeadingBlock], body: BodyStyle | None,
                         contents: frozenset[str] = frozenset()) -> dict[int, int]:
    """``{index: level}`` of a PDF's headings, from its text and its typography.

    The text rules (``heading_level``) still find numbered, capitals and title-case
    headings, but where the lines carry their style a heading must not be set
    smaller than the text it is over (captions, footnotes, figure labels), nor share
    its row with a table's cells, nor stand in the margin, and a title-case one must
    be set apart from its text ("Fiscal Year" in a table, a name in a list are
    body-styled). Besides them, a block of up to three lines set apart by its font
    is a heading when it reads like one (starts with a capital, a digit or a CJK
    character, does not end like a sentence or inside a phrase, is no list of names
    or places) and text follows it — prose, possibly after the headings below it,
    but not after a block set like itself (authors, a list of labels) — from which
    it is set apart too (a bold "About the authors" over biographies set smaller than
    the body is a heading; a bold label in a figure is not). The largest of them
    near the top of the first page is the document's title; nothing printed above
    it there (a banner, a journal's masthead) is a heading. Levels: a numbered
    heading's depth; an unnumbered one takes the level of the numbered headings set
    like it, or ranks by size below the larger styles."""
    texts = [b.text if _read_by_text_rules(b) else None for b in blocks]
    by_text = _text_headings(texts, [b.prose for b in blocks], [b.text for b in blocks])
    if body is None:
        return nest_between_numbers(texts, nest_under_keywords(texts, in_numbering(
            texts, by_text, contents)))
    kinds = {i: heading_level(blocks[i].text or "") for i in by_text}
    for i in _lettered_out_of_sequence(blocks, kinds):
        del by_text[i], kinds[i]
    under_roman = any(kind is not None and kind[1] == "roman" for kind in kinds.values())
    for i, kind in kinds.items():
        if kind is None:
            continue
        if kind[1] in ("title", "caps") and blocks[i].style is not None \
                and blocks[i].style.size:
            by_text[i] = 0  # unnumbered: its level comes from its style (below)
        elif kind[1].startswith("alpha-") and under_roman:
            by_text[i] = min(kind[0] + 1, 6)  # "A." under "I.": IEEE's subsections
    styled = [i for i, b in enumerate(blocks) if _reads_like_a_heading(b)]
    # Headings a heading may stand over before its text ("2 Methods" / "2.1 Data"):
    # blocks set apart from the body, or numbered.
    candidates = {i for i in styled if _distinct(blocks[i].style, body)} | set(by_text)
    found: dict[int, int] = {}
    for index, level in by_text.items():
        block = blocks[index]
        if block.in_row or block.in_margin or block.style is None or not block.style.size:
            kind = kinds.get(index)
            if not (block.in_row or block.in_margin or (kind is not None
                                                        and kind[1] == "title")):
                # No style known: the text rules alone; an unnumbered one's level is
                # decided below (beside the unnumbered heading before it). A title-case
                # line must be set apart from its text, which a line the layout pass
                # could not place (a figure's label repeated) cannot show.
                found[index] = 0 if kind is not None and kind[1] == "caps" else level
            continue
        text = _following_text(blocks, index, candidates, body)
        reference = _reference(text, body)
        kind = heading_level(block.text or "")
        if _smaller(block.style, reference) and (
                kind is None or kind[1] in ("title", "caps")
                or block.style.size < MIN_NUMBERED_SIZE_SHARE * reference.size):
            continue  # a caption, a note; a numbered heading may be set a little smaller
        # A "§ N Title." in the body's type is a clause; "§ 1 Affiliate Participation",
        # like a numbered heading, is a heading by its words (a contract typed in one face).
        set_apart = kind is not None and (kind[1] == "title" or (
            kind[1] == "section-sign" and (block.text or "").rstrip().endswith(".")))
        if text is None and kind is not None and kind[1] == "title" \
                and _titles_page_table(blocks, index):
            text, reference = None, body  # a statement's title over its table
        elif set_apart and (
                text is None or not _distinct(block.style, reference)
                or not _in_proportion(block.style, text, body)
                or (kind[1] == "title" and not _reads_like_a_heading(block))):
            continue  # title case, "§ N": set apart, over text (not a name, a cell, a clause)
        found[index] = level
    for index in styled:
        if index in found:
            continue
        style = blocks[index].style
        text = _following_text(blocks, index, candidates, body)
        if style is None:
            continue
        if text is None:
            kind = heading_level(blocks[index].text or "")
            if (kind is not None and kind[1] in ("title", "caps")
                    and _titles_page_table(blocks, index) and _distinct(style, body)
                    and not _smaller(style, body)):
                found[index] = 0  # a statement's title over its table
            continue
        reference = _reference(text, body)
        if (_distinct(style, reference) and not _smaller(style, reference)
                and _in_proportion(style, text, body)
                and (not _smaller(style, body)
                     or len((blocks[index].text or "").split()) <= MAX_SMALL_HEADING_WORDS)):
            found[index] = 0  # level decided below
    for index in _titles_of_pictures(blocks, found, candidates, body):
        del found[index]
    title = _title(blocks, found, styled, body)
    if title is not None:
        found[title] = 0
        found = {i: level for i, level in found.items()
                 if i >= title or blocks[i].style is None
                 or blocks[i].style.page != blocks[title].style.page
                 or blocks[i].style.top >= blocks[title].style.top}
    texts = [b.text for b in blocks]
    found = in_numbering(texts, found, contents)
    return nest_between_numbers(texts, nest_under_keywords(
        texts, _levels(blocks, found), {i: blocks[i].style for i in found}))


# A chart's title stands this many of its font sizes right of the left edge that this
# many other headings of its style share, and this many above the text after the chart.
MIN_CENTRED_OFFSET_SIZES = 3.0
MIN_HEADINGS_OF_A_STYLE = 2
MIN_PICTURE_GAP_SIZES = 5.0


def _titles_of_pictures(blocks: Sequence[HeadingBlock], found: dict[int, int],
                        candidates: set[int], body: BodyStyle) -> list[int]:
    """Unnumbered headings that title a picture: where the other headings of its size
    and face start at one left edge, a line of that style standing well right of it
    (centred), with the text after it starting at that edge far below it (a chart
    drawn between, whose words are no text), is the chart's title ("Segment Revenue
    Walk $B" in a filing's MD&A), not a section's heading."""
    lefts: dict[tuple[float, bool, str], list[tuple[int, float]]] = defaultdict(list)
    for index in found:
        style = blocks[index].style
        if style is not None and style.size:
            lefts[_style_key(style)].append((index, style.x0))
    titles = []
    for index, level in found.items():
        style = blocks[index].style
        if level or style is None or not style.size:
            continue
        others = [left for other, left in lefts[_style_key(style)] if other != index]
        if (len(others) < MIN_HEADINGS_OF_A_STYLE or max(others) - min(others) > style.size
                or style.x0 - min(others) < MIN_CENTRED_OFFSET_SIZES * style.size):
            continue
        text = _following_text(blocks, index, candidates, body)
        if (text is not None and text.style is not None and text.style.page == style.page
                and abs(text.style.x0 - min(others)) <= style.size
                and text.style.top - style.bottom > MIN_PICTURE_GAP_SIZES * style.size):
            titles.append(index)
    return titles


# A page's title stands in the top share of the page (a financial statement's, over the
# table that fills the page).
PAGE_TITLE_SHARE = 0.2


def _titles_page_table(blocks: Sequence[HeadingBlock], index: int) -> bool:
    """Is block ``index`` the title of a table that fills its page, as a financial
    statement's ("Consolidated Balance Sheets" over the balance sheet): one line, the
    first block of its page (or after its page's part and item headings only), in the
    top ``PAGE_TITLE_SHARE`` of it, set apart from the body (checked by the caller),
    with a table on the page after at most ``MAX_HEADINGS_IN_A_ROW`` blocks that are no
    running text (its units "(In millions)", the table's column heads) and no heading
    candidate set like it? (The caller asks for a title in title case or capitals.) A
    title-case line needs text under it otherwise; a table's own caption inside the
    text is no page's title."""
    block = blocks[index]
    style = block.style
    if style is None or block.lines != 1 or not block.page_height or block.in_row \
            or block.in_margin \
            or style.top > PAGE_TITLE_SHARE * block.page_height or not _reads_like_a_heading(block):
        return False
    for k in range(index - 1, -1, -1):  # none before it on its page but divisions'
        earlier = blocks[k]  # (no slice: this runs for each candidate at a page's top)
        if earlier.style is None or earlier.style.page != style.page:
            break
        if division_heading(earlier.text or "") is None:
            return False
    for following in blocks[index + 1:index + 1 + MAX_HEADINGS_IN_A_ROW]:
        if following.style is not None and following.style.page != style.page:
            return False
        if following.table:
            return True
        if (following.prose and following.lines > 1) or (
                following.style is not None and following.text is not None
                and _style_key(following.style) == _style_key(style)
                and _reads_like_a_heading(following)):
            return False
    return False


def _read_by_text_rules(block: HeadingBlock) -> bool:
    """Which blocks the text rules read: one-line blocks; a numbered heading in capitals
    that runs on to a second line ("III. MDRPM (MARKET DRIVEN REQUIREMENT" /
    "PRIORITIZATION MODEL)"), or a heading in capitals over two lines where the lines'
    style is known (so a table's cells are told apart); a "§ N" section whose title runs
    on ("§ 1308.23 Exemption of certain chem-" / "ical preparations; application.")."""
    if block.text is None:
        return False
    if block.lines == 1:
        return True
    if block.lines > MAX_STYLED_HEADING_LINES:
        return False
    kind = heading_level(block.text)
    if kind is None:
        return False
    if kind[1] == "section-sign":
        return block.uniform
    if block.lines != 2 or not block.text.isupper():
        return False
    styled = block.uniform and block.style is not None and bool(block.style.size)
    return kind[1] != "caps" or styled


def _lettered_out_of_sequence(blocks: Sequence[HeadingBlock],
                              kinds: dict[int, tuple[int, str] | None]) -> list[int]:
    """Lettered headings ("E. Cétonurie") whose letter continues no lettered heading
    before it (a "D.", or an "A." to start): items of a lettered list, not sections."""
    seen: set[str] = set()
    out: list[int] = []
    for i in sorted(kinds):
        kind = kinds[i]
        if kind is None or kind[1] != "alpha-1":
            continue
        letter = (blocks[i].text or "?")[0]
        if letter != "A" and chr(ord(letter) - 1) not in seen:
            out.append(i)
        else:
            seen.add(letter)
    return out


def _reference(text: HeadingBlock | None, body: BodyStyle) -> LineStyle | BodyStyle:
    """What a heading is set apart from: the text it stands over, where its style is
    known (its face in the body's face where the text mixes faces), else the body."""
    style = text.style if text is not None else None
    if style is None or not style.size:
        return body
    if not style.font:
        return BodyStyle(style.size, body.font, body.bold)
    return style


def _in_proportion(style: LineStyle, text: HeadingBlock, body: BodyStyle) -> bool:
    """A heading over small print (notes, an abstract, biographies set smaller than
    the body) is set small too: at most ``MAX_SMALL_PRINT_RATIO`` times its text's size.
    A body-sized label that happens to precede a footnote is not its heading."""
    if text.style is None or not text.style.size \
            or not sizes_differ(text.style.size, body.size) or text.style.size > body.size:
        return True  # not small print, or its size unknown (as ``_reference`` reads it)
    return style.size <= MAX_SMALL_PRINT_RATIO * text.style.size


def _reads_like_a_heading(block: HeadingBlock, max_lines: int = MAX_STYLED_HEADING_LINES,
                          max_words: int = MAX_STYLED_HEADING_WORDS) -> bool:
    """A styled block of up to three lines whose words could be a heading's."""
    style, text = block.style, block.text
    if (text is None or style is None or not style.size or not block.uniform or block.in_row
            or block.lines > max_lines):
        return False
    text = text.strip()
    if (not text or len(text.split()) > max_words or _CAPTION.match(text)
            or (text.endswith(_CLOSES) and not text.endswith(_OPEN_ENDS)
                and not _label_heading(block, text))
            or reads_as_sentence(text)
            or (_ENDS_INSIDE.search(text) and not _label_heading(block, text))
            or _CODE_LIKE.search(text)
            or sum(map(str.isalpha, text)) < MIN_HEADING_LETTERS or _TOC_ENTRY.match(text)
            or reads_like_data(text) or is_answer(text) or reads_like_a_label(text)
            or _NOTE_MARK.search(text) or _CITED.search(text) or _AUTHOR_YEAR.search(text)
            or text.count(",") + text.count("，") >= MAX_HEADING_COMMAS or "@" in text):
        return False  # a sentence, a number, an address, a list of names or places
    text = _ENUMERATOR.sub("", text) or text
    first = text[0]
    return first.isupper() or first.isdigit() or bool(CJK_CHAR.match(first))


def _label_heading(block: HeadingBlock, text: str) -> bool:
    """A short line of its own ending in a colon ("Terms and Termination:"), which may
    head the text under it where its font sets it apart (checked by the caller); one
    word so only in bold ("Proof:" in italics opens a proof, as "Note:" a note)."""
    words = len(text.split())
    return (block.lines == 1 and text.endswith((":", "："))
            and words <= MAX_SMALL_HEADING_WORDS
            and (words > 1 or (block.style is not None and block.style.bold)))


def _opens_subsection(text: str | None, following: str | None) -> bool:
    """``following`` is numbered under ``text`` ("3. Methods" / "3.1 Data"), or is a
    keyword heading of a smaller division ("Part IV" / "Item 15. Exhibits"): a
    section's first subsection set like the section, not the next of a list."""
    own = _NUMBERED.match(text or "")
    sub = _NUMBERED.match(following or "")
    if own and sub and sub["num"].startswith(own["num"] + "."):
        return True
    division = keyword_heading(text or "")
    part = keyword_heading(following or "")
    return division is not None and part is not None and division[0] < part[0]


def _following_text(blocks: Sequence[HeadingBlock], index: int, candidates: set[int],
                    body: BodyStyle | None = None) -> HeadingBlock | None:
    """The text block ``index`` is over: the next block that is running text (several
    lines of prose, or a sentence), after at most a few headings set otherwise than
    itself; None when a block set like itself comes first (a list of labels, not a
    heading over its text) or no text comes."""
    own = blocks[index].style
    if (index and index - 1 in candidates and own is not None
            and blocks[index - 1].style is not None
            and _style_key(blocks[index - 1].style) == _style_key(own)
            and not _section_over_subsection(blocks, index - 1, candidates, body)):
        return None  # the last of a run of blocks set alike: a list, not a heading
    beside = False
    for j in range(index + 1, min(index + 1 + MAX_HEADINGS_IN_A_ROW, len(blocks))):
        following = blocks[j]
        if j in candidates:
            if (own is not None and following.style is not None
                    and _style_key(following.style) == _style_key(own)
                    and not _opens_subsection(blocks[index].text, following.text)
                    and not (j == index + 1
                             and _section_over_subsection(blocks, index, candidates, body))):
                return None
            continue
        if _beside_in_small_print(following, own, body) or _read_before_text_above(
                following, blocks[j + 1] if j + 1 < len(blocks) else None, body):
            beside = True
            continue  # a side box's caption drawn next: the heading's text comes after
        if beside and not _in_column_at_body_size(following, own, body):
            return None  # past small print, only the body's text in its column heads on
        if _is_text(following, body):
            return following
        if j == index + 1 and restates(blocks[index].text, following):
            continue  # "Foot Care" over "COVERED SERVICES: Foot Care": its text comes after
        return None
    return None


_TOKEN = re.compile(r"\w[\w'’-]*")


def _stem(word: str) -> str:
    word = word.casefold()
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def restates(heading: str | None, block: HeadingBlock) -> bool:
    """``block`` is one line repeating ``heading``'s words in other words around them, a
    kicker or a subtitle under it ("Dialysis" / "COVERED SERVICES: Dialysis", "Emergency
    Room" / "Emergency Room Services"): not the text the heading is over, nor a sign
    that it is one of a list of labels (a label's next line names something else)."""
    if (heading is None or block.text is None or block.lines != 1 or block.in_row
            or reads_as_sentence(block.text)):
        return False  # a sentence under a bold label is its text ("Line 1" / "Enter …")
    own = {_stem(w) for w in _TOKEN.findall(heading)}
    line = _TOKEN.findall(block.text)
    return (bool(own) and len(line) <= MAX_STYLED_HEADING_WORDS
            and own <= {_stem(w) for w in line})


def _in_column_at_body_size(block: HeadingBlock, heading: LineStyle | None,
                            body: BodyStyle | None) -> bool:
    """``block`` is set no smaller than the body, in no table row, and overlaps the
    heading's column: the section's text after a side box, not a table's next cell."""
    style = block.style
    return (style is not None and heading is not None and not block.in_row
            and not _smaller(style, body) and style.x0 < heading.x1 and style.x1 > heading.x0)


def _beside_in_small_print(block: HeadingBlock, heading: LineStyle | None,
                           body: BodyStyle | None) -> bool:
    """``block`` is small print beside a heading's column: set smaller than the body and
    starting right of where the heading ends or ending left of where it starts (a
    figure's caption in a side box, which a browser's print of a web page draws right
    after the section heading next to it). The section's text follows it; a caption
    under the heading in its column (a table's, a figure's notes) is no such block."""
    style = block.style
    if style is None or heading is None or body is None or not _smaller(style, body) \
            or block.in_row:
        return False
    return style.x0 >= heading.x1 or style.x1 <= heading.x0


def _read_before_text_above(block: HeadingBlock, after: HeadingBlock | None,
                            body: BodyStyle | None) -> bool:
    """``block`` is small print read before text printed above it on its page (a
    figure's caption, which a browser's print of a web page gives before the page's
    text: a section heading at the foot of one page, the caption of a picture halfway
    down the next, then the section's text from that page's top)."""
    style = block.style
    following = after.style if after is not None else None
    return (style is not None and following is not None and body is not None
            and _smaller(style, body) and not block.in_row and following.page == style.page
            and following.bottom <= style.top)


def _section_over_subsection(blocks: Sequence[HeadingBlock], index: int,
                             candidates: set[int], body: BodyStyle | None) -> bool:
    """Blocks ``index`` and ``index + 1`` are a section and its first subsection set
    alike, short ("Introduction" / "HCI and smartphones" over text, as a CHI abstract
    sets them): exactly two blocks set alike, after the text of the section before (or a
    part's heading over it: "PART I" / "ITEM 1. BUSINESS" / "Company Overview" in an
    annual report) and over running text. Three or more in a row are a list of labels,
    two over anything else (a caption, another label) or at a document's head a pair of
    names."""
    after, before = index + 2, index - 1
    while before >= 0 and _starts_part(blocks[before].text or ""):
        before -= 1  # a part's heading over its first item's ("PART I" / "ITEM 1. BUSINESS")
    if (after >= len(blocks) or not _is_text(blocks[after], body)
            or before < 0 or not _is_text(blocks[before], body)):
        return False  # a section follows the text of the one before (authors do not)
    pair = (blocks[index], blocks[index + 1])
    if any(b.style is None or b.lines != 1
           or len((b.text or "").split()) > MAX_SMALL_HEADING_WORDS for b in pair):
        return False
    key = _style_key(pair[0].style)  # type: ignore[arg-type]
    if _style_key(pair[1].style) != key:  # type: ignore[arg-type]
        return False
    return not (before in candidates and blocks[before].style is not None
                and _style_key(blocks[before].style) == key)


# The line a letter or a report addressed to someone opens with, in the body's type: its
# text begins there ("To the Board of Directors and Shareholders of …", "Dear Members,").
_SALUTATION = re.compile(r"^(?:To the|To our|Dear)\s+\S")


def _is_text(block: HeadingBlock, body: BodyStyle | None) -> bool:
    """Running text a heading can stand over: prose of several lines or a sentence,
    a short sentence or clause in the body's own style ("This changes:"), or a letter's
    or a report's salutation in it (``_SALUTATION``)."""
    end = (block.text or "").rstrip()
    if _ADDRESSES.search(end) and not _LIST_ENTRY.match(end) and _mostly_addresses(end):
        return False  # e-mail addresses and links under a name, not text (a list of
        # references with their links is)
    if block.prose and (block.lines > 1 or end.endswith(_SENTENCE_CLOSES)):
        return True
    style = block.style
    if (block.lines == 1 and _SALUTATION.match(end) and body is not None and style is not None
            and not block.in_row and (style.size, style.font) == (body.size, body.font)):
        return True  # "To the Board of Directors and Shareholders of …": a report's opening
    return (body is not None and style is not None and not block.in_row
            and (style.size, style.font) == (body.size, body.font)
            and len(end.split()) >= MIN_CLAUSE_WORDS and end.endswith(_CLAUSE_CLOSES))


def _mostly_addresses(text: str) -> bool:
    """Is ``text`` (holding an address) shorter than ``MIN_LINKED_TEXT_WORDS`` words, or
    are ``MIN_ADDRESS_WORD_SHARE`` of its words e-mail addresses or links?"""
    words = text.split()
    return len(words) < MIN_LINKED_TEXT_WORDS or sum(
        1 for word in words if _ADDRESSES.search(word)) >= MIN_ADDRESS_WORD_SHARE * len(words)


def _title(blocks: Sequence[HeadingBlock], found: dict[int, int], styled: list[int],
           body: BodyStyle) -> int | None:
    """The document's title: the largest block that reads like a heading near the top
    of the first page that has text, set larger than the body and than every heading
    found, or as large where no text follows it (a first section heading set like the
    others is no title)."""
    first_page = next((b.style.page for b in blocks if b.style is not None), None)
    best: int | None = None
    long_titles = [i for i, b in enumerate(blocks)
                   if b.lines > MAX_STYLED_HEADING_LINES and b.style is not None
                   and b.style.page == first_page
                   and b.style.size >= MIN_LONG_TITLE_RATIO * body.size
                   and _reads_like_a_heading(b, MAX_TITLE_LINES, MAX_TITLE_WORDS)]
    for index in (*styled, *long_titles):
        style = blocks[index].style
        if style is not None and any(
                0 <= j < len(blocks) and blocks[j].style is not None and blocks[j].text
                and _style_key(blocks[j].style) == _style_key(style)
                for j in (index - 1, index + 1)):
            continue  # one of a run of blocks set alike (authors), not a title
        if (style is None or style.page != first_page or not style.size
                or not sizes_differ(style.size, body.size) or style.size < body.size
                or style.top > TITLE_PAGE_SHARE * blocks[index].page_height):
            continue
        if best is None or _title_rank(blocks[index]) > _title_rank(blocks[best]):
            best = index
    if best is None:
        return None
    size = blocks[best].style.size  # type: ignore[union-attr]
    title = blocks[best].style
    # What is printed above the title on its page is no heading (below), so no rival; nor
    # is a heading that names its division ("Chapter 1", set as large as a book sets it).
    others = [style.size for i in found
              if i != best and (style := blocks[i].style) is not None
              and not (i < best and style.page == title.page and style.top < title.top)
              and keyword_heading(blocks[i].text or "") is None]
    # A block set like the section headings is the title only where no text follows it
    # (an EGC paper sets its title and its sections alike, the authors under the title);
    # the first section, over its text, is no title.
    if all(other < size for other in others):
        return best
    alike = all(other < size or not sizes_differ(other, size) for other in others)
    return best if alike and best not in found else None


def _title_rank(block: HeadingBlock) -> tuple[float, bool, int]:
    """Larger first; at one size the bold one, then the longer: a journal's "Research
    Article" label in italics over the title set as large, in black, is no title."""
    style = block.style
    size = style.size if style is not None else 0.0
    return (size, style is not None and style.bold, len((block.text or "").split()))


def _levels(blocks: Sequence[HeadingBlock], found: dict[int, int]) -> dict[int, int]:
    """Numbered headings keep their depth; the others take the level of the numbered
    headings set like them, or rank by size below the larger styles."""
    depth_of_style: dict[tuple[float, bool, str], Counter[int]] = defaultdict(Counter)
    for index, level in found.items():
        style = blocks[index].style
        if level and style is not None and style.size:
            depth_of_style[_style_key(style)][level] += 1
    known = {key: counts.most_common(1)[0][0] for key, counts in depth_of_style.items()}
    # Numberings of different kinds count their depths apart (a note's lettered "A."
    # is depth 2 of its letters, "Note 3" depth 3 of the keywords): a style that the
    # numbered headings give a level above a style set larger or bolder is deeper than it.
    # A keyword heading's style keeps its level (a filing's "PART I" may be set smaller
    # than its "Item 1.": the keywords rank them, not their type).
    keyworded = {_style_key(style) for index, level in found.items()
                 if level and (style := blocks[index].style) is not None and style.size
                 and keyword_heading(blocks[index].text or "") is not None}
    for key in sorted(set(known) - keyworded, key=lambda key: (-key[0], not key[1])):
        above = [known[other] for other in known if _set_above(other, key)]
        if above:
            known[key] = min(max(known[key], max(above) + 1), 6)
    unranked = sorted({_style_key(blocks[i].style) for i, level in found.items()
                       if not level and blocks[i].style is not None} - set(known),
                      key=lambda key: (-key[0], not key[1]))
    ranked: dict[tuple[float, bool, str], int] = {}
    for key in unranked:
        larger = [level for other, level in (*known.items(), *ranked.items())
                  if (other[0], other[1]) > (key[0], key[1]) and other != key]
        ranked[key] = min(max(larger, default=0) + 1, 6)
    levels = {**known, **ranked}
    out: dict[int, int] = {}
    previous = 0  # the level of the unnumbered heading before
    for i in sorted(found):
        style = blocks[i].style
        if found[i]:
            out[i] = found[i]
            continue
        # An unnumbered heading whose style is unknown sits beside the one before it
        # (a heading whose line lost its style is no chapter above its siblings).
        out[i] = (levels.get(_style_key(style), 1) if style is not None and style.size
                  else previous or 1)
        previous = out[i]
    return out


def _set_above(other: tuple[float, bool, str], key: tuple[float, bool, str]) -> bool:
    """Is a heading style ``other`` set above ``key``: larger and no lighter, or as large
    and bold where ``key`` is not? (A face named bold is bold whatever the PDF's flag
    says: "Arial-BoldMT" flagged regular, its bold italic flagged bold.)"""
    other_bold, key_bold = _bold_face(other), _bold_face(key)
    if sizes_differ(other[0], key[0]):
        return other[0] > key[0] and other_bold >= key_bold
    return other_bold and not key_bold


def _bold_face(key: tuple[float, bool, str]) -> bool:
    return key[1] or bold_font_name(key[2])


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


# ASCII characters that are in no word of ``_KEY_WORD`` (all but letters, digits, "_")
# as spaces, letters in lower case: an ASCII text's key in two C calls.
_ASCII_KEY = bytes(byte if chr(byte).isalnum() or chr(byte) == "_" else 32
                   for byte in range(128)).lower() + bytes(range(128, 256))


def _outline_key(text: str) -> str:
    """A title's words, case-folded, joined by spaces."""
    if text.isascii():  # the same words (casefold is lower, ``\w`` [A-Za-z0-9_] there)
        return " ".join(text.encode().translate(_ASCII_KEY).decode().split())
    return " ".join(_KEY_WORD.findall(text.casefold()))


# An outline entry: its depth (1: top), its title and, where PDFium resolved it, the
# 1-based page it points at.
OutlineEntry = tuple[int, str] | tuple[int, str, int]
# A heading is looked for on the page its entry points at and up to this many pages on
# (an entry may point at the page before a heading set at the top of the next).
OUTLINE_PAGE_REACH = 1


def outline_headings(paragraphs: Sequence[str | None], outline: Sequence[OutlineEntry],
                     pages: Sequence[int | None] | None = None) -> dict[int, int] | None:
    """``{index: level}`` of the one-line paragraphs a PDF's outline points at, or
    None when the outline does not describe the text (``MIN_OUTLINE_MATCHED``).

    Entries are matched in outline order, each to the first paragraph after the
    previous match whose words are the entry's (case-folded, punctuation left
    out), with or without its numbering ("Introduction" finds "1 Introduction");
    where the entry knows its page and ``pages`` gives each paragraph's, only on
    that page or the next (so a printed contents page, which repeats every title,
    never takes them); an entry not found is skipped. The level is the entry's
    outline depth."""
    # Each key → the paragraphs that have it, in order: an entry is looked up, not
    # searched for through the rest of the document (outline × paragraphs).
    where: dict[str, list[int]] = defaultdict(list)
    for i, text in enumerate(paragraphs):
        if text is not None:
            key = _outline_key(text)
            where[key].append(i)
            unnumbered = _LEADING_NUMBER.sub("", text)
            if unnumbered != text and (other := _outline_key(unnumbered)) != key:
                where[other].append(i)  # most paragraphs have no number: one key
    found: dict[int, int] = {}
    cursor = 0
    for entry in outline:
        level, title = entry[0], entry[1]
        target = entry[2] if len(entry) > 2 and pages is not None else None
        wanted = {_outline_key(title), _outline_key(_LEADING_NUMBER.sub("", title))} - {""}
        # The paragraphs after the cursor with one of the entry's keys, in order (lazily:
        # most entries match their first candidate).
        after = heapq.merge(*(_from(indexes, bisect.bisect_left(indexes, cursor))
                              for key in wanted if (indexes := where.get(key))))
        for i in after:
            page = pages[i] if target is not None and pages is not None else None
            if page is not None and target is not None:
                if page < target:
                    continue
                if page > target + OUTLINE_PAGE_REACH:
                    break
            found[i] = min(level, 6)
            cursor = i + 1
            break
    if not outline or len(found) < MIN_OUTLINE_MATCHED * len(outline):
        return None
    return found


# A paper's reference list, whose heading LaTeX leaves out of the outline (``thebibliography``
# adds no bookmark unless the author asks for one).
_REFERENCES_TITLE = re.compile(
    r"^(?:references|bibliography|works\s+cited|literature\s+cited|literatur(?:verzeichnis)?|"
    r"r[ée]f[ée]rences(?:\s+bibliographiques)?|bibliographie)$", re.IGNORECASE)


def with_unlisted_references(blocks: Sequence[HeadingBlock], found: dict[int, int],
                             outline: Sequence[OutlineEntry], body: BodyStyle | None
                             ) -> dict[int, int]:
    """``found`` (the outline's headings) and the heading of a reference list the outline
    leaves out: a one-line block that says only "References" (or "Bibliography", …)
    after the first outline heading, set apart from the body where the lines' style is
    known, at the outline's top level. Without it the last section before it (the
    acknowledgements, the conclusion) is the parent of every reference. An outline that
    lists a reference list has its own."""
    if not found or any(_REFERENCES_TITLE.match(_outline_title(entry[1])) for entry in outline):
        return found
    first = min(found)
    for index in range(first + 1, len(blocks)):
        block = blocks[index]
        if index in found or block.lines != 1 or block.text is None \
                or not _REFERENCES_TITLE.match(block.text.strip()):
            continue
        if body is not None and block.style is not None and block.style.size \
                and not _distinct(block.style, body):
            continue  # "References" in the body's type: a word, not a heading
        return {**found, index: min(found.values())}
    return found


def _outline_title(title: str) -> str:
    return _LEADING_NUMBER.sub("", " ".join(title.split())).strip()


def _from(items: list[int], start: int) -> Iterator[int]:
    return (items[k] for k in range(start, len(items)))


def outline_of(metadata: Mapping[str, str]) -> list[OutlineEntry]:
    """The outline a document's metadata holds (``OUTLINE_KEY``), or []."""
    value = metadata.get(OUTLINE_KEY)
    if not value:
        return []
    try:
        return [(int(entry[0]), str(entry[1]), int(entry[2])) if len(entry) > 2
                and entry[2] is not None else (int(entry[0]), str(entry[1]))
                for entry in json.loads(value)]
    except (ValueError, TypeError, IndexError):
        return []


# --- headings of a document's assembled blocks (moved from document.py) ---


def mark_headings(assembly: Assembly, outline: list[OutlineEntry],
                  layout: PdfLayout | None) -> int:
    """The one-line paragraphs a PDF's outline points at become headings of its levels;
    without an outline that describes the text, the paragraphs that read like section
    headings, and, where the lines carry their style, those set apart by their font
    (``headings.find_styled_headings``)."""
    cuts: list[RunInCut] = []
    if layout is not None:
        split_heading_lines(assembly)
        cuts = cut_run_in_labels(assembly)
    texts = [pieces[0][1].text if len(pieces) == 1 else " ".join([line.text for _, line in pieces])
             for pieces in assembly.blocks]
    prose = [is_prose(text) for text in texts]  # weighed once, for the blocks and the rows
    blocks = [_heading_block(pieces, text, is_running)
              for pieces, text, is_running in zip(assembly.blocks, texts, prose, strict=True)]
    # The body is running text: a numbered list's entries (a long reference list, set
    # in another face) are left out where anything else is styled.
    body = body_style((line.style, len(line.text))
                      for pieces, text in zip(assembly.blocks, texts, strict=True)
                      if not _LIST_ENTRY.match(text) for _, line in pieces
                      if line.style is not None and line.kind is BlockKind.PARAGRAPH
                      ) or body_style((line.style, len(line.text)) for pieces in assembly.blocks
                                      for _, line in pieces if line.style is not None
                                      and line.kind is BlockKind.PARAGRAPH)
    if body is not None and layout is not None:
        # A heading the PDF draws after its page's text (a browser's print) goes back
        # to where it stands on the page, over the text it heads. (The style is weighed
        # before the words: most blocks are set like the body, and the words cost more.)
        order = heading_order([_block_box(pieces) for pieces in assembly.blocks],
                              [block.style is not None and _distinct(block.style, body)
                               and _reads_like_a_heading(block) for block in blocks])
        if order != sorted(order):
            assembly.blocks[:] = [assembly.blocks[i] for i in order]
            blocks = [blocks[i] for i in order]
            prose = [prose[i] for i in order]
    found = (outline_headings([b.text if b.lines == 1 else None for b in blocks], outline,
                              [pieces[0][1].page for pieces in assembly.blocks])
             if outline else None)
    if found is not None:
        found = with_unlisted_references(blocks, found, outline, body)
    if found is None:
        if body is not None and layout is not None:
            rows = RowIndex(assembly, layout, body, prose)
            blocks = [block._replace(in_row=rows.shares_row(block.style)
                                     or is_table_row(block.style),
                                     in_margin=rows.in_margin(block.style),
                                     page_height=rows.height(block.style))
                      if block.text is not None and block.style is not None else block
                      for block in blocks]
        found = find_styled_headings(blocks, body, assembly.contents)
        found = _join_division_titles(assembly, found)
    found, kept = rejoin_run_in_labels(assembly, found, cuts)
    if kept is not None:
        blocks = [blocks[k] for k in kept]
    slides = slide_titles(blocks, body, layout.page_sizes) if layout is not None else None
    if slides is not None:
        found = with_slide_titles(assembly, found, slides)
    # "Table of Contents" heads a contents page; elsewhere (a link back to it at the top
    # of every page) it heads nothing.
    found = {i: level for i, level in found.items()
             if not is_contents_title(" ".join(line.text for _, line in assembly.blocks[i]))
             or (i + 1 < len(assembly.blocks)
                 and assembly.blocks[i + 1][0][1].kind is BlockKind.CONTENTS)}
    for index, level in found.items():
        for _, line in assembly.blocks[index]:
            line.kind, line.level = BlockKind.HEADING, level
    return len(found)


def mark_typed_headings(assembly: Assembly) -> int:
    """A plain text file's keyword headings: a paragraph of one line that is a keyword
    heading (``keyword_heading``: "CHAPTER XII", "Part 2 Methods", "Section 3.1 Scope")
    heads the text after it at its keyword's rank (``nest_under_keywords``), with the
    title on the line after a bare "CHAPTER 1" (``_join_division_titles``). Nothing
    else is a heading in plain text: its lines in capitals or title case are as often a
    letter's address, a signature or a poem's line, and no font sets them apart. A file
    whose reader marked headings already keeps them alone. Returns how many it marked."""
    blocks = assembly.blocks
    if any(line.kind is BlockKind.HEADING for pieces in blocks for _, line in pieces):
        return 0
    texts = [pieces[0][1].text.strip() if len(pieces) == 1
             and pieces[0][1].kind is BlockKind.PARAGRAPH else None for pieces in blocks]
    found = {i: 0 for i, text in enumerate(texts)
             if text and keyword_heading(text) is not None}
    if not found:
        return 0
    found = _join_division_titles(assembly, nest_under_keywords(texts, found))
    for index, level in found.items():
        for _, line in assembly.blocks[index]:
            line.kind, line.level = BlockKind.HEADING, level
    return len(found)


# Where a block sits on its page: (page, x0, top, x1, bottom), None where not placed.
BlockBox = tuple[int, float, float, float, float]


def _block_box(pieces: list[tuple[str, CleanLine]]) -> BlockBox | None:
    """The box of a block's lines on its first line's page (None: a line not placed)."""
    styles = [line.style for _, line in pieces]
    first = styles[0]
    if first is None or any(style is None for style in styles):
        return None
    on_page = [s for s in styles if s is not None and s.page == first.page]
    return (first.page, min(s.x0 for s in on_page), first.top, max(s.x1 for s in on_page),
            max(s.bottom for s in on_page))


# The text a heading is moved over starts at most this many of the heading's line
# heights under it: the heading's own text, not a footnote or a page's footer.
MAX_HEADING_GAP_LINES = 3.0


def heading_order(boxes: Sequence[BlockBox | None], movable: Sequence[bool]) -> list[int]:
    """The blocks' order with each ``movable`` block (a heading set apart by its font)
    that follows the text it stands over moved to before that text: a browser printing
    a page (Chromium's Wikipedia PDFs) draws its headings after the page's text, and a
    heading read there heads the next page's text instead of its own. Walking back from
    the heading over the blocks of its page, a block beside it (another column, a side
    box), below it in its column or another heading is passed, and one above it (or
    not placed) stops the walk; the heading goes before the passed block right under
    it, where that one starts within ``MAX_HEADING_GAP_LINES`` of its line heights (a
    footnote or a footer drawn first is no text of its), or where a heading drawn after
    the text too starts that near under it: a section's heading over its first
    subsection's, both drawn after the page's text, go back together, in their order."""
    order = list(range(len(boxes)))
    for index, box in enumerate(boxes):
        if not movable[index] or box is None:
            continue
        page, x0, top, x1, bottom = box
        # Where the block stands now: at its own index still. A move takes the block
        # being walked back to a place before it, so it shifts only the places before
        # that block's, and the blocks after it keep theirs (no search of ``order``: a
        # long document's headings made that quadratic).
        at = index
        under: int | None = None  # the position of the passed block nearest under it
        # The top of the nearest block under it in its column, a heading drawn after the
        # text too included: a section's heading stands over its first subsection's
        # ("Composition" over "Size of the Court"), not over text, and goes with it.
        below = math.inf
        nearest: int | None = None  # the position of the passed block right under it
        k = at + 1
        while k < len(order) and movable[order[k]] and boxes[order[k]] is not None:
            other = boxes[order[k]]  # the headings drawn right after it, not moved yet
            if other[0] == page and min(x1, other[3]) - max(x0, other[1]) > 0 \
                    and other[2] >= bottom:  # type: ignore[index]
                below = min(below, other[2])  # type: ignore[index]
            k += 1
        k = at - 1
        while k >= 0:
            other = boxes[order[k]]
            if other is None or other[0] != page:
                break
            in_column = min(x1, other[3]) - max(x0, other[1]) > 0
            if movable[order[k]]:
                # another heading drawn after the text (or over this one): passed, and
                # where it stands under this one, this one goes before it
                if in_column and other[2] >= bottom and other[2] < below:
                    below, nearest = other[2], k
            elif in_column:
                if other[2] < bottom:
                    break  # above it (or beside it in its row): its place is after
                if under is None or other[2] < boxes[order[under]][2]:  # type: ignore[index]
                    under = k
                if other[2] < below:
                    below, nearest = other[2], k
            k -= 1
        if under is not None and (below - bottom <= MAX_HEADING_GAP_LINES * (bottom - top)):
            order.insert(nearest if nearest is not None else under, order.pop(at))
    return order


MAX_DIVISION_TITLE_WORDS = 12
# How a division's keyword line and its title line are joined (``linejoin.LineBreak.SPACE``,
# which this module, below linejoin, does not import).
_DIVISION_TITLE_SEPARATOR = " "


def _join_division_titles(assembly: Assembly, found: dict[int, int]) -> dict[int, int]:
    """A heading that is only a division's keyword and number ("Chapter 1", "ARTICLE
    IV", "PART II") takes the title printed on the next line of its page ("Template",
    "DEFINITIONS", "OTHER INFORMATION") into one heading, "Chapter 1 Template": the
    block after it joins its block (``division_without_title``). A title set over
    several lines ("PEPSICO" / "PENSION EQUALIZATION PLAN", centred one under the other
    in one style) is taken whole (``_title_runs_on``); a table's header cell read after
    the keyword line is no title (``_cell_under``)."""
    joined: dict[int, int] = {}  # heading's block → how many blocks after it join it
    for index in sorted(found):
        nxt = index + 1
        if nxt >= len(assembly.blocks) or len(assembly.blocks[index]) != 1:
            continue
        head, title = assembly.blocks[index][0][1], assembly.blocks[nxt]
        line = title[0][1]
        if (not division_without_title(head.text) or len(title) != 1
                or line.kind is not BlockKind.PARAGRAPH or line.page != head.page
                or not division_title(line.text, MAX_DIVISION_TITLE_WORDS)
                or _cell_under(head.style, line.style, assembly.blocks[nxt + 1][0][1].style
                               if nxt + 1 < len(assembly.blocks) else None)):
            continue
        count, words = 1, len(line.text.split())
        while nxt + count < len(assembly.blocks):
            more = assembly.blocks[nxt + count]
            last = assembly.blocks[nxt + count - 1][0][1]
            words += len(more[0][1].text.split())
            if (len(more) != 1 or words > MAX_DIVISION_TITLE_WORDS
                    or not _title_runs_on(last, more[0][1])):
                break
            count += 1
        joined[index] = count
    if not joined:
        return found
    for index in sorted(joined, reverse=True):
        count = joined[index]
        for k in range(1, count + 1):
            assembly.blocks[index].append((_DIVISION_TITLE_SEPARATOR,
                                           assembly.blocks[index + k][0][1]))
        del assembly.blocks[index + 1:index + 1 + count]
    removed = sorted(index + k for index, count in joined.items() for k in range(1, count + 1))
    gone = set(removed)
    return {i - bisect.bisect_left(removed, i): level for i, level in found.items()
            if i not in gone}


# A line wholly in brackets, a few words: what a statement's title says of its figures
# ("(In millions, except per share data)", "(unaudited)"), printed under the title.
_UNITS_NOTE = re.compile(r"^\([^()]+\)$")
MAX_UNITS_NOTE_WORDS = 7


def split_heading_lines(assembly: Assembly) -> int:
    """Cut a short block whose lines are headings of their own, each set in the same
    style, that the assembly ran into one paragraph (``_heading_cuts``); returns the
    number of cuts. Their text is unchanged: a block break in place of a line break."""
    out: list[list[tuple[str, CleanLine]]] = []
    cuts = 0
    for pieces in assembly.blocks:
        at = _heading_cuts(pieces)
        if not at:
            out.append(pieces)
            continue
        cuts += len(at)
        for a, b in pairwise([0, *at, len(pieces)]):
            out.append([("", pieces[a][1]), *pieces[a + 1:b]])
    if cuts:
        assembly.blocks[:] = out
    return cuts


class RunInCut(NamedTuple):
    """A run-in label cut off its paragraph: the label's line, the paragraph's first line
    after it, and the line both were cut from."""

    label: CleanLine
    rest: CleanLine
    line: CleanLine


# Run-in labels title sections where a document sets this many, each once, in one face
# (a note's policies, a plan's sections); fewer are a paragraph's labels ("Proof:").
MIN_RUN_IN_LABELS = 3


def cut_run_in_labels(assembly: Assembly) -> list[RunInCut]:
    """Cut each run-in label (``run_in_label``) off the paragraph it opens, a block of
    its own before it, so that heading detection weighs it as any line set apart; the
    cuts, for ``rejoin_run_in_labels`` to undo where it is no heading. Labels title
    sections only as a series: ``MIN_RUN_IN_LABELS`` different ones in one face at
    least, each once (a label the document repeats word for word, "Note:", "Level 1",
    titles no section; a paper's one "Proof:" or "Question:" opens a paragraph)."""
    found = {k: cut for k, pieces in enumerate(assembly.blocks)
             if (cut := run_in_label(pieces)) is not None}
    if not found:
        return []
    words = {k: " ".join(cut.label.text.split()).casefold() for k, cut in found.items()}
    faces = {k: cut.label.style.font if cut.label.style else "" for k, cut in found.items()}
    repeated = Counter(words.values())
    series: defaultdict[str, set[str]] = defaultdict(set)
    for k in found:
        if repeated[words[k]] == 1:
            series[faces[k]].add(words[k])
    cuts = {k: cut for k, cut in found.items()
            if repeated[words[k]] == 1 and len(series[faces[k]]) >= MIN_RUN_IN_LABELS}
    if not cuts:
        return []
    out: list[list[tuple[str, CleanLine]]] = []
    for k, pieces in enumerate(assembly.blocks):
        if (cut := cuts.get(k)) is None:
            out.append(pieces)
        else:
            out += [[("", cut.label)], [("", cut.rest), *pieces[1:]]]
    assembly.blocks[:] = out
    return list(cuts.values())


def rejoin_run_in_labels(assembly: Assembly, found: Mapping[int, int],
                         cuts: Sequence[RunInCut]) -> tuple[dict[int, int], list[int] | None]:
    """Undo the cuts whose label is no heading (a name, a dateline, a numbered clause
    detection passed over): the paragraph's first line whole again. Returns ``found``
    with its indexes moved to the blocks that stay, and the blocks that stay (their
    indexes before; None where none went)."""
    if not cuts:
        return dict(found), None
    by_label = {id(cut.label): cut for cut in cuts}
    blocks = assembly.blocks
    gone: set[int] = set()
    for k, pieces in enumerate(blocks[:-1]):
        cut = by_label.get(id(pieces[0][1])) if len(pieces) == 1 else None
        if cut is None or k in found or blocks[k + 1][0][1] is not cut.rest:
            continue  # a heading, or no longer before its paragraph (moved): as cut
        blocks[k + 1][0] = ("", cut.line)
        gone.add(k)
    if not gone:
        return dict(found), None
    kept = [k for k in range(len(blocks)) if k not in gone]
    blocks[:] = [blocks[k] for k in kept]
    new_index = {k: n for n, k in enumerate(kept)}
    return {new_index[k]: level for k, level in found.items()}, kept


def run_in_label(pieces: Sequence[tuple[str, CleanLine]]) -> RunInCut | None:
    """A paragraph opened by a run-in label, cut in two: the label, a line of its own
    set in the label's face, and the paragraph's first line after it; None for any
    other block.

    A filing's notes title their policies so: "Research and Development: Research and
    development expenses are …", the label in bold, the text in regular on the same
    line. The line's letters differ in face (the layout pass leaves its font unknown),
    so nothing set the label apart, and the paragraphs of a note's every policy stood
    under the heading before them. The label is the line's first words when its first
    letter is set in a bold font its middle letter is not (``LineStyle.lead_font``) and
    they read as a title before prose (``heading_names.run_in_title``), within
    ``MAX_STYLED_HEADING_WORDS`` words."""
    first = pieces[0][1]
    style = first.style
    if (first.kind is not BlockKind.PARAGRAPH or first.detached or style is None
            or not style.size or not style.lead_font or _is_bold(style)
            or not bold_font_name(style.lead_font)):
        return None
    found = run_in_title(" ".join(line.text for _, line in pieces))
    if found is None or found[1] >= len(first.text):
        return None  # the title runs past the first line, or is all of it
    end, start = found
    if len(first.text[:end].split()) > MAX_STYLED_HEADING_WORDS:
        return None
    label = replace(first, text=first.text[:end],
                    raw_end=min(first.raw_start + end, first.raw_end),
                    style=style._replace(font=style.lead_font, bold=True, lead_font=""))
    rest = replace(first, text=first.text[start:],
                   raw_start=min(first.raw_start + start, first.raw_end),
                   style=style._replace(lead_font=""))
    return RunInCut(label, rest, first)


def _heading_cuts(pieces: Sequence[tuple[str, CleanLine]]) -> list[int]:
    """Where a block of two or three lines set alike breaks into headings:

    * every line a keyword heading of a smaller division than the line before ("PART I.
      FINANCIAL INFORMATION" / "Item 1. Financial Statements"): one heading a line;
    * a title in capitals or title case over lines in brackets of a few words (a
      financial statement's "CONSOLIDATED BALANCE SHEETS" / "(in millions)" /
      "(unaudited)"): the title, then its notes."""
    if not 2 <= len(pieces) <= MAX_STYLED_HEADING_LINES:
        return []
    lines = [line for _, line in pieces]
    if any(line.kind is not BlockKind.PARAGRAPH or line.detached or line.style is None
           or not line.style.size for line in lines):
        return []
    if len({_style_key(line.style) for line in lines}) > 1:  # type: ignore[arg-type]
        return []
    texts = [line.text.strip() for line in lines]
    ranks = [keyword_heading(text) for text in texts]
    if all(rank is not None for rank in ranks) and all(
            a[0] < b[0] for a, b in pairwise(ranks)):  # type: ignore[index]
        return list(range(1, len(lines)))
    title = texts[0]
    if (not title.endswith(_CLOSES) and "(" not in title
            and (is_capitals_heading(title) or _is_title_case_heading(title))
            and all(_UNITS_NOTE.match(text) and len(text.split()) <= MAX_UNITS_NOTE_WORDS
                    for text in texts[1:])):
        return [1]
    return []


def _title_runs_on(line: CleanLine, more: CleanLine) -> bool:
    """Does a division's title go on from ``line`` to ``more``, the next block's only line:
    a title's words in capitals or title case (``division_title``), printed on the
    same page in the same style, within ``MAX_HEADING_GAP_LINES`` of its line heights
    under it and lined up with it (left edges or centres within a font size)?"""
    a, b = line.style, more.style
    text = more.text.strip()
    if (a is None or b is None or not a.size or a.page != b.page or more.page != line.page
            or more.kind not in (BlockKind.PARAGRAPH, BlockKind.HEADING)
            or _style_key(a) != _style_key(b)
            or not division_title(text, MAX_DIVISION_TITLE_WORDS) or text[:1] in "(["
            or not (text.isupper() or _is_title_case_heading(text))):
        return False
    height = max(a.bottom - a.top, a.size)
    if not 0 <= b.top - a.bottom <= MAX_HEADING_GAP_LINES * height:
        return False
    return (abs(b.x0 - a.x0) <= a.size
            or abs((b.x0 + b.x1) - (a.x0 + a.x1)) / 2 <= a.size)


def _cell_under(head: LineStyle | None, line: LineStyle | None,
                following: LineStyle | None) -> bool:
    """Is ``line``, read after the keyword line ``head`` ("SCHEDULE 1"), a table's cell
    rather than its title: the line read after it (``following``, the next block's
    first) is printed above it, between the two, so ``line`` sits in a row of cells
    ("Date", left of "Mortality Table   Factors   Interest Rate", read first)?"""
    if head is None or line is None or following is None or not line.size:
        return False
    return (head.page == line.page == following.page and head.bottom <= following.top
            and following.top < line.top - line.size / 2)


def _heading_block(pieces: list[tuple[str, CleanLine]], text: str, prose: bool
                   ) -> HeadingBlock:
    """A block as heading detection weighs it (``text``: its lines joined by spaces;
    ``prose``: ``is_prose(text)``)."""
    first = pieces[0][1]
    paragraph = first.kind is BlockKind.PARAGRAPH
    candidate = (paragraph and not first.detached
                 and len(pieces) <= MAX_TITLE_LINES)
    if candidate and _side_by_side(pieces):
        candidate = False  # a table's row of cells Tika read as lines, not a heading
    if len(pieces) == 1:
        uniform = True  # one line: one size and one face at most
    else:
        styles = [line.style for _, line in pieces
                  if line.style is not None and line.style.size]
        # Set alike: one size, and one face where a line's face is known (a line mixing
        # faces, a heading's second line with a word in a code font, says nothing of it).
        faces = {(s.bold, s.font) for s in styles if s.font}
        uniform = len({s.size for s in styles}) <= 1 and len(faces) <= 1
    return HeadingBlock(text if candidate else None, paragraph and prose, len(pieces),
                        first.style, uniform, table=first.kind is BlockKind.TABLE)


# A heading's second or third line is never set in pieces this many of its font sizes
# apart: such a line is a table's row, its cells read after a cell's first line.
MIN_CELL_GAP_SIZES = 4.0


def _side_by_side(pieces: Sequence[tuple[str, CleanLine]]) -> bool:
    """Is the block a table's row of cells Tika read as lines: a line of it stands
    beside the one before it, in its row (over half the shorter's height shared), right
    of where that one starts (header cells, "Portrait", "Name", "King from" … set on two
    lines each, read one after another), or a line after its first is set in pieces
    ``MIN_CELL_GAP_SIZES`` apart (a film's title wrapped in its cell, then the role's
    cell: "Good Morning," / "Miss Dove      Miss Dove")? A heading's lines stand one
    under another, each in one piece."""
    for (_, before), (_, line) in pairwise(pieces):
        a, b = before.style, line.style
        if a is None or b is None or a.page != b.page:
            continue
        shared = min(a.bottom, b.bottom) - max(a.top, b.top)
        if shared > 0.5 * min(a.bottom - a.top, b.bottom - b.top) and b.x0 > a.x0:
            return True
        if b.size and any(right[1] - left[2] >= MIN_CELL_GAP_SIZES * b.size
                          for left, right in pairwise(b.cells)):
            return True
    return False


# A line set in pieces (``LineStyle.cells``) with at least this many gaps between them
# of at least this many of its font sizes is a table's row ("Year   Title   Role
# Notes"), never a heading; a line set with wide word spaces (justified) is not.
MIN_ROW_GAPS = 2
MIN_ROW_GAP_SIZES = 2.0


def is_table_row(style: LineStyle) -> bool:
    """Is a line set as a table's row: pieces with ``MIN_ROW_GAPS`` wide gaps?"""
    if len(style.cells) <= MIN_ROW_GAPS or not style.size:
        return False
    gaps = sum(after[1] - before[2] >= MIN_ROW_GAP_SIZES * style.size
               for before, after in pairwise(style.cells))
    return gaps >= MIN_ROW_GAPS


class RowIndex:
    """The placed lines of each page, to tell a line alone in its row (a heading) from
    one among a table's cells, and a line in the margin from one in the text column."""

    # A neighbour in the same row is a cell when it is in the text column and wider
    # than this many of the line's font sizes (or to its right), and either in a block
    # that is no prose (numbers, codes) or a line of its own (a block of at most two
    # lines) narrower
    # than this share of the page: the other column's text beside a heading in a
    # two-column paper, a note in the margin, and a section number Tika left on a line
    # of its own before its title are not.
    MAX_CELL_WIDTH_SHARE = 0.3
    MIN_CELL_WIDTH_SIZES = 2.5
    # A page is set in two columns when at least this many body lines start at one
    # place in each half of it; a line in one column and one in the other are never
    # cells of one row (an "ABSTRACT" level with a "Keywords" across the gutter).
    MIN_COLUMN_LINES = 5
    ROW_BAND = 16.0  # points: the cells of a page indexed by band
    # A line of its size right beside it, starting in the page's left half, is in its
    # row even a little above or below it, up to this share of a line's height apart,
    # where it starts at the text column's left edge: a glossary's term set a little
    # lower than its definition (a filing's "Defined Terms"), which no reader takes for a
    # heading. (A figure's smaller label beside a heading is not; a catalogue's cells
    # inside its tables are left as the rows they overlap say.)
    MAX_ROW_OFFSET_SHARE = 0.35

    def __init__(self, assembly: Assembly, layout: PdfLayout, body: BodyStyle,
                 block_prose: Sequence[bool] | None = None) -> None:
        """``block_prose``: ``is_prose`` of each block's text, where the caller has it."""
        # Per page: (style, any width) for lines that are no prose, (style, narrow
        # only) for the other lines of short blocks, (style, None) for running text.
        self.cells: dict[int, list[tuple[LineStyle, bool]]] = defaultdict(list)
        column: dict[int, list[float]] = defaultdict(lambda: [math.inf, -math.inf])
        starts: dict[int, Counter[int]] = defaultdict(Counter)
        for n, pieces in enumerate(assembly.blocks):
            prose = (is_prose(" ".join(line.text for _, line in pieces)) if block_prose is None
                     else block_prose[n])
            for _, line in pieces:
                style = line.style
                if style is None:
                    continue
                if not prose:
                    self.cells[style.page].append((style, True))
                elif len(pieces) <= 2:
                    self.cells[style.page].append((style, False))
                else:
                    self.cells[style.page].append((style, None))  # running text
                if style.size and style.size == body.size and style.font == body.font:
                    edges = column[style.page]
                    edges[0], edges[1] = min(edges[0], style.x0), max(edges[1], style.x1)
                    if prose:
                        starts[style.page][round(style.x0)] += 1
        self.columns = dict(column)
        # The left edge of the text column most pages share (rounded): a page whose text
        # is all indented (a list under "Item 15.") has its "Part IV" at the document's
        # left edge, not in a margin.
        lefts = Counter(round(left) for left, _ in column.values() if left < math.inf)
        self.usual_left = lefts.most_common(1)[0][0] if lefts else math.inf
        self.sizes = layout.page_sizes
        # Per page and band of ROW_BAND points: the cells reaching into it, so a row's
        # cells are looked up, not found by reading every cell of the page for every block.
        self.bands: dict[tuple[int, int], list[tuple[LineStyle, bool]]] = defaultdict(list)
        for page, cells in self.cells.items():
            for cell in cells:
                for band in range(int(cell[0].top // self.ROW_BAND),
                                  int(cell[0].bottom // self.ROW_BAND) + 1):
                    self.bands[(page, band)].append(cell)
        # Per two-column page: where its left and right columns start.
        self.column_starts: dict[int, tuple[float, float]] = {}
        for page, counts in starts.items():
            if not 0 < page <= len(self.sizes):
                continue
            middle = self.sizes[page - 1][0] / 2
            left = max(((n, x) for x, n in counts.items() if x < middle), default=(0, 0))
            right = max(((n, x) for x, n in counts.items() if x >= middle), default=(0, 0))
            if min(left[0], right[0]) >= self.MIN_COLUMN_LINES:
                self.column_starts[page] = (left[1], right[1])

    def height(self, style: LineStyle | None) -> float:
        if style is None or not 0 < style.page <= len(self.sizes):
            return 0.0
        return self.sizes[style.page - 1][1]

    def in_margin(self, style: LineStyle | None) -> bool:
        """Beside the page's text column (left of its left edge, and of the left edge
        most pages share, or right of its right edge): a marginal note, a volume
        number, a stamp."""
        if style is None or style.page not in self.columns:
            return False
        left, right = self.columns[style.page]
        return (style.x1 <= left and style.x0 < self.usual_left - 1) or style.x0 >= right

    def _at_left_edge(self, style: LineStyle) -> bool:
        """Does the line start at its page's text column's left edge, or the one most
        pages share (within its font size), as a glossary's terms do (a table's inner
        cells do not)?"""
        edges = self.columns.get(style.page)
        reach = style.size or 0.0
        return (abs(style.x0 - self.usual_left) <= reach
                or (edges is not None and abs(style.x0 - edges[0]) <= reach))

    def shares_row(self, style: LineStyle | None) -> bool:
        if style is None or not 0 < style.page <= len(self.sizes):
            return False
        width = self.sizes[style.page - 1][0]
        height = style.bottom - style.top
        narrowest = self.MIN_CELL_WIDTH_SIZES * (style.size or height)
        starts = self.column_starts.get(style.page)
        reach = self.MAX_ROW_OFFSET_SHARE * height
        near = {id(cell[0]): cell
                for band in range(int((style.top - reach) // self.ROW_BAND),
                                  int((style.bottom + reach) // self.ROW_BAND) + 1)
                for cell in self.bands.get((style.page, band), ())}
        for other, any_width in near.values():  # those that reach into its rows
            if other is style or (other.x0 < style.x1 and other.x1 > style.x0):
                continue  # itself, or above or below it
            if starts is not None and self._across_the_gutter(
                    style, other, starts, self.columns[style.page][0]):
                continue  # the other column's line
            overlap = min(other.bottom, style.bottom) - max(other.top, style.top)
            least = min(height, other.bottom - other.top)
            if (overlap <= 0.5 * least and overlap > -self.MAX_ROW_OFFSET_SHARE * least
                    and style.x1 < other.x0 < width / 2 and self._at_left_edge(style)
                    and style.size and not sizes_differ(style.size, other.size)):
                overlap = least  # beside it, a little above or below: in its row
            if any_width is None:
                # Running text right beside it, starting in the page's left half of a
                # page in one column: a term beside its definition (a filing's "Defined
                # Terms", a glossary), not a heading over text below it.
                if (starts is None and overlap > 0.5 * min(height, other.bottom - other.top)
                        and style.x1 < other.x0 < width / 2 and not self.in_margin(style)):
                    return True
                continue
            cell_width = other.x1 - other.x0
            if (overlap > 0.5 * min(height, other.bottom - other.top)
                    and (any_width or cell_width < self.MAX_CELL_WIDTH_SHARE * width)
                    and (cell_width > narrowest or other.x0 > style.x1)
                    and not self.in_margin(other)):
                return True
        return False

    @staticmethod
    def _across_the_gutter(style: LineStyle, other: LineStyle,
                           starts: tuple[float, float], page_left: float) -> bool:
        """Is ``other`` in the other column of a two-column page from ``style``, which
        starts at its own column's left edge (within a line height of it: an indent)?
        The left column's edge is where most of its paragraphs start or, where most
        are indented (a page of bullets), the page's text edge left of that: a heading
        there is still in the left column. An author's name centred over a grid of
        authors starts elsewhere."""
        reach = style.bottom - style.top
        if min(starts[0], page_left) - 1 <= style.x0 <= starts[0] + reach:
            return style.x1 <= starts[1] <= other.x0 + 1
        if starts[1] - 1 <= style.x0 <= starts[1] + reach:
            return other.x1 <= starts[1]
        return False


# --- slide decks (a presentation exported to PDF) -----------------------------------

# A deck: this many pages or more, half of them or more landscape (as the page template's
# rules tell slides apart, ``furniture/template.py``) and of no paper format
# (``_paper_sheet``), few lines on its median page, and a title (or a section slide's)
# on ``MIN_TITLED_SLIDES`` of its pages or more. A
# landscape report (a register's long table) sets dozens of lines a page and opens few
# of its pages with a line set larger than its text.
MIN_DECK_PAGES = 3
MAX_DECK_LINES_PER_PAGE = 40
MIN_TITLED_SLIDES = 0.5
# A slide's title stands in this top share of its page (the title slide's anywhere).
SLIDE_TITLE_SHARE = 0.25
# A section (divider) slide holds its title and at most one more short block.
MAX_DIVIDER_BLOCKS = 2
MAX_DIVIDER_LINES = 3
# Bullets and marks a slide's title may open with ("◼ Results", "▎Outlook", "• Plan").
_LEADING_MARKS = re.compile(r"^[^\w(（\[「『【\"'“‘]+\s*")
# A slide is no sheet of paper: pages of a paper format turned (A and B series, √2;
# Letter, 11 × 8.5 in; Legal, 14 × 8.5; Tabloid, 17 × 11) are a landscape report's, a
# data sheet's (its tables' numbered titles on most pages); slides are 4:3, 16:9, 16:10.
_PAPER_RATIOS = (math.sqrt(2), 11 / 8.5, 14 / 8.5, 17 / 11)
PAPER_RATIO_TOLERANCE = 0.01


def _paper_sheet(width: float, height: float) -> bool:
    """Is a page a sheet of a paper format, either way up?"""
    if not width or not height:
        return False
    ratio = max(width, height) / min(width, height)
    return any(abs(ratio - paper) <= PAPER_RATIO_TOLERANCE * paper
               for paper in _PAPER_RATIOS)


def _divider(blocks: Sequence[HeadingBlock], indexes: Sequence[int]) -> bool:
    """Is a slide (its blocks' ``indexes``) a section slide: a title and at most a line
    or two more (a number, a subtitle), no table, wherever on the page they stand?"""
    return (len(indexes) <= MAX_DIVIDER_BLOCKS
            and sum(blocks[i].lines for i in indexes) <= MAX_DIVIDER_LINES
            and not any(blocks[i].table for i in indexes))


class SlideTitles(NamedTuple):
    """A deck's slide titles: ``{block index: level}`` and the page each stands on."""

    levels: dict[int, int]
    pages: dict[int, int]


def _slide_title_text(block: HeadingBlock) -> bool:
    """Does a block read like a slide's title (a bullet mark before it left aside)?"""
    text = (block.text or "").strip()
    bare = _LEADING_MARKS.sub("", text)
    return bool(bare) and _reads_like_a_heading(block._replace(text=bare))


# What a block of more lines than a heading's weighs in a deck's text size, a line.
_LINE_CHARS = 20


def _median_size(blocks: Sequence[HeadingBlock]) -> float:
    """The font size half a deck's text is set in or smaller (its characters weighed):
    a deck's titles, set alike on every slide, may outweigh any one size of its text,
    which slides set in many (``body_style`` takes the titles' style then)."""
    weights: Counter[float] = Counter()
    for block in blocks:
        if block.style is not None and block.style.size:
            weights[block.style.size] += len(block.text) if block.text else (
                _LINE_CHARS * block.lines)
    total, seen = sum(weights.values()), 0
    for size in sorted(weights):
        seen += weights[size]
        if 2 * seen >= total:
            return size
    return 0.0


def slide_titles(blocks: Sequence[HeadingBlock], body: BodyStyle | None,
                 page_sizes: Sequence[tuple[float, float]]) -> SlideTitles | None:
    """The titles of a slide deck's slides, or None where the document is no deck.

    A slide's title is its largest block set larger than the deck's text
    (``_median_size``) in the top
    ``SLIDE_TITLE_SHARE`` of the page, of up to three lines that read like a heading
    (on the first page, the title slide, and on a section slide, which holds its title
    alone (``MAX_DIVIDER_BLOCKS``), the largest anywhere). Every one is level 1: a
    section slide's title heads the slides up to the next slide's title, not the
    section's slides (nesting them under it measured worse on the retrieval benchmark:
    the section's words then repeat on every chunk of its slides)."""
    if body is None or len(page_sizes) < MIN_DECK_PAGES or 2 * sum(
            width > height and not _paper_sheet(width, height)
            for width, height in page_sizes) < len(page_sizes):
        return None
    text_size = _median_size(blocks)
    if not text_size:
        return None
    on_page: dict[int, list[int]] = defaultdict(list)
    lines: Counter[int] = Counter()
    for index, block in enumerate(blocks):
        if block.style is not None:
            on_page[block.style.page].append(index)
            lines[block.style.page] += block.lines
    counts = sorted(lines[page] for page in range(1, len(page_sizes) + 1))
    if counts[len(counts) // 2] > MAX_DECK_LINES_PER_PAGE:
        return None
    titles: dict[int, int] = {}
    for page, indexes in on_page.items():
        if not 0 < page <= len(page_sizes):
            continue
        height = page_sizes[page - 1][1]
        candidates = [i for i in indexes
                      if (style := blocks[i].style) is not None and style.size
                      and style.size > text_size and sizes_differ(style.size, text_size)
                      and (page == 1 or _divider(blocks, indexes)
                           or style.top < SLIDE_TITLE_SHARE * height)
                      and _slide_title_text(blocks[i])]
        if not candidates:
            continue
        best = max(candidates, key=lambda i: (blocks[i].style.size,  # type: ignore[union-attr]
                                              -blocks[i].style.top))  # type: ignore[union-attr]
        titles[page] = best
    if len(titles) < MIN_TITLED_SLIDES * len(page_sizes):
        return None
    return SlideTitles({index: 1 for index in titles.values()},
                       {index: page for page, index in titles.items()})


def with_slide_titles(assembly: Assembly, found: Mapping[int, int], slides: SlideTitles
                      ) -> dict[int, int]:
    """``found`` with a deck's slide titles added at their levels, each moved to the
    head of its slide's blocks (a deck's PDF draws a title wherever its shape stands
    in the slide's order), and the other headings found placed under the slide's."""
    blocks = assembly.blocks
    first_on: dict[int, int] = {}
    for index, pieces in enumerate(blocks):
        style = pieces[0][1].style
        if style is not None:
            first_on.setdefault(style.page, index)
    order = list(range(len(blocks)))
    for index, page in sorted(slides.pages.items(), key=lambda item: item[0]):
        start = first_on.get(page, index)
        if start < index:
            at = order.index(index)
            order.insert(order.index(start), order.pop(at))
    position = {old: new for new, old in enumerate(order)}
    blocks[:] = [blocks[i] for i in order]
    out: dict[int, int] = {}
    current = 0  # the level of the slide title over a heading found
    for old in order:
        if old in slides.levels:
            current = out[position[old]] = slides.levels[old]
        elif old in found:
            out[position[old]] = min(max(found[old], current + 1), 6)
    return out
