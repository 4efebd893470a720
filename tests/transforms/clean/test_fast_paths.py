"""Cleaning's shortcuts (issue 42, branch ``cleanrest``) answer as the plain rule does.

Each shortcut skips work where a cheap test shows the rule cannot hold, or computes the
same value another way; here each is checked against the plain rule, written out as it
read before, on random inputs built from the characters the shortcut turns on.
"""

from __future__ import annotations

import itertools
import math
import random
import re
from collections import Counter

from ragbeam.transforms.clean import headings, leaders, linejoin, tables, title


def _random_texts(pieces: list[str], count: int, seed: int, most: int = 12) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(pieces) for _ in range(rng.randrange(0, most)))
            for _ in range(count)]


def _is_prose_plain(text: str) -> bool:
    tokens = text.split()
    words = len(tokens)
    if words < headings.MIN_PROSE_WORDS and not text.isascii():
        words += len(headings._UNSPACED.findall(text)) // 2
    if words < headings.MIN_PROSE_WORDS:
        return False
    visible = sum(map(len, tokens))
    letters = sum(map(str.isalpha, text))
    return letters >= headings.MIN_PROSE_LETTER_SHARE * max(visible, 1)


def test_is_prose_of_ascii_text_counts_as_the_plain_rule():
    pieces = ["a", "word", "Two", " ", "  ", "\t", "\n", "\x0b", "\x1c", "1", "42", ".", ",",
              "-", "é", "日本"]
    spaced = "\x1c\x1c\x0b\x1f".join(["ab"] * 8)  # str.split's whitespace is no letter, nor seen
    for text in [spaced, *_random_texts(pieces, 3000, 1, most=24)]:
        assert headings.is_prose(text) == _is_prose_plain(text), repr(text)
    assert headings.is_prose(spaced)


def test_outline_key_of_ascii_text_is_the_words_pattern_s():
    for text in _random_texts([chr(c) for c in range(128)], 3000, 2, most=16):
        assert headings._outline_key(text) == " ".join(
            headings._KEY_WORD.findall(text.casefold())), repr(text)


def _columns_plain(rows: list[tables._Row]) -> list[list[float]]:
    spans = sorted([cell.x0, cell.x1] for row in rows for cell in row.cells)
    columns: list[list[float]] = []
    for x0, x1 in spans:
        if columns and x0 <= columns[-1][1]:
            columns[-1][1] = max(columns[-1][1], x1)
        else:
            columns.append([x0, x1])
    return columns


def test_table_column_bands_are_the_plain_merge_s_nan_and_inverted_spans_included():
    rng = random.Random(3)
    odd = [0.0, 1.0, 2.5, 5.0, math.nan, -1.0, 10.0]

    def coordinate(high: float) -> float:
        return rng.choice(odd) if rng.random() < 0.3 else rng.uniform(0, high)

    for _ in range(3000):
        rows = [tables._Row([tables._Cell("x", coordinate(10), coordinate(12), [0])
                             for _ in range(rng.randrange(0, 4))], 0.0, 1.0, 1.0)
                for _ in range(rng.randrange(0, 4))]
        assert repr(tables._columns(rows)) == repr(_columns_plain(rows))


def test_a_cell_s_value_and_words_are_worked_out_once_and_kept():
    cell = tables._Cell("$ 96,388 net", 0.0, 1.0, [0])
    assert (cell.value, cell.words) == (tables.is_value("$ 96,388 net"), 3)
    cell.text = "changed"  # kept: not worked out again
    assert (cell.value, cell.words) == (tables.is_value("$ 96,388 net"), 3)


def test_url_continues_without_a_slash_or_www_is_the_full_rule_s_no():
    pieces = ["h", "ttp", "s", "://", ":", "/", "www.", "ww", "w.", ".org", "ex", " ", "-",
              ")", "a", "ftp", "=", "x.co/", "%", "_", "(h", "ttps://e", "tp://"]
    texts = [text.strip() or "a" for text in _random_texts(pieces, 6000, 4, most=8)]
    pairs = [("see (h", "ttps://example.org"), ("at ht", "tp://x"), ("prose", "text"),
             *zip(texts[::2], texts[1::2], strict=True)]
    assert linejoin.url_continues("see (h", "ttps://example.org")
    for line, next_line in pairs:
        tail = line.rsplit(None, 1)[-1]
        head = next_line.split(None, 1)[0]
        start = linejoin._URL_START.search(tail[-8:] + head[:8])
        plain = bool(start and start.start() < len(tail[-8:]) < start.end()) or (
            bool(linejoin._URL_TOKEN.search(tail))
            and not tail.rstrip(".,;:").endswith((")", ">", '"'))
            and bool(linejoin._URL_CONTINUATION.search(head.rstrip(linejoin._CLOSING))))
        assert linejoin.url_continues(line, next_line) == plain, (line, next_line)


def test_leaders_counted_first_are_stripped_as_the_patterns_strip_them():
    pieces = ["2.3 Simple parsing", " ", ".", ". ", "_", "…", "·", "4", "iv", "wait", "x"]
    for line in _random_texts(pieces, 3000, 5):
        if not leaders._THREE_DOTS.search(line):
            assert leaders.strip_leaders(line) == (line, 0)
        text, before_number = leaders._LEADER_BEFORE_NUMBER.subn(" ", line)
        text, long_runs = leaders._LONG_LEADER.subn(" ", text)
        plain = ((text.strip(), before_number + long_runs) if before_number or long_runs
                 else (line, 0))
        assert leaders.strip_leaders(line) == plain, repr(line)


def test_kind_and_period_searched_only_where_their_words_are_find_what_the_patterns_find():
    pieces = ["Form 10-Q", "FORM 8-K", "form", " ", "Annual Report", "ANNUAL REPORT",
              "Earnings Call", "conference call", "Results", "Quarterly Reſults", "RELEASE",
              "for the quarter ended March 31, 2024", "ENDED", "Date of Report: May 1, 2023",
              "third quarter of fiscal 2024", "Q3 FY24", "2024年度第2四半期決算概要",
              "Investor Presentatİon", "Study Protocol", "K", "text"]
    assert title.document_kind("Quarterly Reſults") == "Quarterly Reſults"
    for opening in _random_texts(pieces, 2000, 6, most=6):
        text = " ".join(opening.split())
        periods = [(m.start(), order, m.group(1)) for order, pattern in enumerate(title._PERIODS)
                   if (m := pattern.search(text))]
        assert title.document_period(opening) == (title.period_as_named(min(periods)[2])
                                                  if periods else None), opening
        kinds = []
        if m := title._FORM.search(text):
            kinds.append((m.start(), f"Form {m.group(1).replace(' ', '')}"))
        if m := title._REPORT.search(text):
            kinds.append((m.start(), " ".join(w[:1].upper() + w[1:].lower()
                                              for w in m.group(1).split())))
        if m := title._CJK_REPORT.search(text):
            kinds.append((m.start(), m.group(1)))
        if call := title._call_kind(text):
            kinds.append(call)
        assert title.document_kind(opening) == (min(kinds)[1] if kinds else None), opening


def test_report_words_hold_no_i():
    # An ignore-case pattern matches "i" as "ı" and "İ" too, which casefold keeps apart.
    assert not any(re.search("i", word) for word in title._REPORT_WORDS)
    assert not any(word and re.search("i", word) for words in title._PERIOD_WORDS
                   if words for word in words)


def _block_lines_plain(block, options):
    """``document._block_lines`` as it read in Python (before ``_line_passes.c``), for a
    block without a layout: every line split by regex and cleaned by ``clean_line_text``."""
    from ragbeam.transforms.clean.base import CleanLine
    from ragbeam.transforms.clean.document import clean_line_text

    traced = block.raw_start >= 0 and block.raw_end - block.raw_start == len(block.text)
    lines, after_blank, start = [], False, 0
    for piece in [*re.finditer(r"\r\n|\r|\n", block.text), None]:
        raw_line = block.text[start:piece.start() if piece else None]
        line_start, start = start, piece.end() if piece else 0
        soft_hyphen = raw_line.rstrip().endswith("\u00ad")
        text = clean_line_text(raw_line, options)
        if not text:
            after_blank = bool(lines)
            continue
        lead = len(raw_line) - len(raw_line.lstrip())
        trimmed_end = len(raw_line.rstrip())
        lines.append(CleanLine(
            text + ("\u00ad" if soft_hyphen else ""), block.kind, 3, block.page, block.level,
            block.raw_start + line_start + lead if traced else block.raw_start,
            block.raw_start + line_start + trimmed_end if traced else block.raw_end,
            after_blank, block.detached, lead))
        after_blank = False
    return lines


def test_block_lines_in_c_split_trim_and_clean_as_clean_line_text_does():
    """``_line_passes.block_lines`` trims plain ASCII lines itself and hands every other
    line to Python: the lines, texts and raw offsets are the plain rule's for CJK,
    right-to-left text, combining marks, characters outside the BMP, controls, tabs,
    no-break and double spaces, soft hyphens and every kind of line break."""
    from ragbeam.transforms.clean.document import CleanOptions, _block_lines
    from ragbeam.transforms.types import Block, BlockKind

    pieces = ["word", " ", "  ", "\t", "\n", "\r", "\r\n", "\n\n", "\u00a0", "\u3000",
              "中文", "，", "ｱ", "שלום", "مرحبا", "e\u0301", "\u0301", "\U0001d400",
              "\U00020001", "\u00ad", "-", "\x7f", "\x00", "\x0c", "\u200b", "ﬁ", "Ⅻ",
              "~", "A.", "1,2"]
    options = CleanOptions()
    for n, text in enumerate(_random_texts(pieces, 1500, seed=42, most=14)):
        offset = -1 if n % 7 == 0 else 100
        end = offset + len(text) + (1 if n % 5 == 0 else 0)
        block = Block(BlockKind.PARAGRAPH, text, page=n % 3 or None, raw_start=offset,
                      raw_end=end)
        assert _block_lines(block, 3, options) == _block_lines_plain(block, options), text


def _hyphen_lexicon_plain(lines: list[str]):
    """``hyphenation.hyphen_lexicon`` as it read in Python (before ``_line_passes.c``):
    every word a ``_WORD`` match, the asked pairs counted over neighbouring words."""
    from ragbeam.transforms.clean.hyphenation import _WORD, _broken_words

    text = "\n".join(lines).casefold().replace("\u2010", "-")
    words = _WORD.findall(text)
    counts = Counter(words)
    broken = Counter(_broken_words(text))
    asked = {(left.rsplit("-", 1)[-1], right.split("-", 1)[0]) for left, right in broken}
    asked = {(left, right) for left, right in asked if counts[left] > 1 and counts[right] > 1}
    pairs = Counter(filter(asked.__contains__, itertools.pairwise(words)))
    for pair in asked:
        counts[pair] = pairs[pair] - broken[pair]
    return counts


def test_hyphen_lexicon_in_c_counts_the_words_and_pairs_the_regex_finds():
    """``_line_passes.word_counts`` finds the words ``_WORD`` (``re``'s ``\\w``) finds and
    counts the asked pairs as neighbouring words: the same lexicon for CJK, right-to-left
    text, combining marks, characters outside the BMP, other scripts' digits, ligatures
    and letters that case-fold longer, hyphens of both kinds at a line's end."""
    from ragbeam.transforms.clean.hyphenation import hyphen_lexicon

    pieces = ["state", "of", "the", "art", "level", "x", "-", "\u2010", "-\n", "\n", " ",
              "_", ".", "ß", "ﬁ", "İ", "Σ", "中文", "漢", "مرحبا", "שלום", "e\u0301",
              "\u0301", "\U0001d400", "\U00020001", "٣", "²", "Ⅻ", "\u00ad", "\t", "’",
              "\u200d", "9", "A", " state", " art", "-\n", " of "]
    asked_any = 0
    for text in _random_texts(pieces, 3000, seed=7, most=80):
        lines = text.split("\n")
        expected = _hyphen_lexicon_plain(lines)
        got = hyphen_lexicon(lines)
        assert got == expected, lines
        asked_any += any(isinstance(key, tuple) for key in expected)
    assert asked_any > 25  # the pairs were exercised, not only the words
