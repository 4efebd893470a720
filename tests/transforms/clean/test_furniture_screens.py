"""The furniture package's shortcuts decide as the plain forms they stand for: a faster
regular expression finds the same matches, and a screen drops only lines the full test
would drop too (benchmarks/furniture_speed.py times them; cleaning_identity.py checks
whole documents)."""

from __future__ import annotations

import re

import pytest

from ragbeam.transforms.clean.furniture import lines as furniture_lines
from ragbeam.transforms.clean.furniture import stamps, template

LINES = [
    "I S O 9001", "ISO 9001:2015", "a b", "ab c d", "x  y", "Г О С Т 7 .1 - 2 0 0 3",
    "1 a b", "a", " a b ", "Page 3 of 10", "page 12 Annual Report", "Annual Report 2023 7",
    "CHAPTER IV. RESULTS", "civil mix did 12iv iv. x-ray _iv éiv", "Chapter 4: Parsing 9",
    "vivid, lid; mild: dill", "p. 7", "Seite 3 von 9", "第 7 页", "Ｆｕｌｌ ｗｉｄｔｈ 12",
    "3 | Page", "Table of Contents", "i", "ii. Preface", "xi-xii", "DO NOT SEND THIS PAGE",
    "Straße 5", "Œuvres complètes", "2 / 4 Footer of the document", "7 Index 50",
    "Tab\tseparated\tline 3", "W", "ebb", "etal.(2017),PeerJ", "8/16", "",
]


@pytest.mark.parametrize("text", LINES)
def test_roman_words_are_found_as_the_plain_pattern_finds_them(text):
    plain = re.compile(r"(?<![^\W\d_])[ivxlcdm]+(?![^\W\d_])")
    shape = " ".join(text.split()).casefold()
    assert ([m.span() for m in furniture_lines._ROMAN_WORD.finditer(shape)]
            == [m.span() for m in plain.finditer(shape)])


@pytest.mark.parametrize("text", LINES)
def test_the_spaced_letter_search_agrees_with_the_spaced_letters(text):
    assert (template._SPACED_LETTER_GAP.search(text) is None) == (
        template._SPACED_LETTERS.search(text) is None)


@pytest.mark.parametrize("text", [line for line in LINES if line.isascii()])
def test_every_word_the_middle_screen_reads_stands_in_the_key(text):
    key = template._group_key(text)
    for word in template._KEPT_WORDS.findall(text.lower()):
        if word not in template._PAGE_WORDS and word.strip("ivxlcdm"):
            assert word in key


@pytest.mark.parametrize("head", ["Webb et al. (2017), PeerJ", "Annual Report", "ISO"])
def test_a_cut_head_opener_is_never_screened_out(head):
    key = furniture_lines.letters(head)
    prefixes = {key[:n] for n in range(1, len(key) + 1)}
    firsts = {key[0]}
    for text in [*LINES, head, head.upper(), head[:3], head[3:], "W", "Webb"]:
        if furniture_lines.letters(text) in prefixes:
            assert stamps._may_open(text, firsts, prefixes)
