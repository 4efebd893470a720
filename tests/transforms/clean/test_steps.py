"""Leaders, de-hyphenation, line joining and Unicode: one pure function each."""

from __future__ import annotations

from collections import Counter

from ragbeam.transforms.clean.hyphenation import (
    _WORD,
    HyphenBreak,
    classify_hyphen_break,
    hyphen_lexicon,
    join_hyphenated,
)
from ragbeam.transforms.clean.leaders import strip_leaders
from ragbeam.transforms.clean.linejoin import LineBreak, classify_line_break
from ragbeam.transforms.clean.text import normalize_unicode


def test_toc_leaders_become_one_space_and_keep_entry_and_number():
    assert strip_leaders("2.3 Simple parsing . . . . . . . 4") == ("2.3 Simple parsing 4", 1)
    assert strip_leaders("Introduction.........................xii") == ("Introduction xii", 1)
    assert strip_leaders("Name ________ Date ________") == ("Name Date", 2)
    # Prose ellipses and decimals are not leaders.
    prose = "Wait... what happened in 3.2.1?"
    assert strip_leaders(prose) == (prose, 0)
    assert strip_leaders("Version 1.2.3") == ("Version 1.2.3", 0)


def test_hyphen_breaks_join_only_before_lowercase_and_keep_real_compounds():
    assert classify_hyphen_break("the manip-", "ulation of text") is HyphenBreak.JOIN
    assert join_hyphenated("the manip-", "", HyphenBreak.JOIN) == "the manip"
    assert classify_hyphen_break("GPT-", "2 was released") is HyphenBreak.KEEP
    assert join_hyphenated("GPT-", "", HyphenBreak.KEEP) == "GPT-"
    assert classify_hyphen_break("see Smith-", "Jones") is HyphenBreak.KEEP
    assert classify_hyphen_break("a range 10-", "20") is HyphenBreak.KEEP
    assert classify_hyphen_break("https://github.com/x/llm-", "examples") is HyphenBreak.KEEP
    assert classify_hyphen_break("a dash -", "then more") is HyphenBreak.NONE
    lexicon = hyphen_lexicon(["an open-source library", "is open-"])
    assert classify_hyphen_break("is open-", "source too", lexicon) is HyphenBreak.KEEP
    assert classify_hyphen_break("soft\u00ad", "Hyphen") is HyphenBreak.JOIN


def test_a_word_in_capitals_broken_joins_when_the_document_writes_it_whole():
    lexicon = hyphen_lexicon(["3. A NEW EFFICIENT SO-", "LUTION", "our solution is fast",
                              "NON-", "LINEAR MODELS"])
    assert classify_hyphen_break("EFFICIENT SO-", "LUTION", lexicon) is HyphenBreak.JOIN
    assert classify_hyphen_break("NON-", "LINEAR MODELS", lexicon) is HyphenBreak.KEEP
    assert classify_hyphen_break("EFFICIENT SO-", "LUTION") is HyphenBreak.KEEP  # no lexicon


def test_the_lexicons_words_are_the_word_patterns_matches():
    """``hyphen_lexicon`` counts its words in C (``_line_passes.word_counts``): the same
    words, as often, as the pattern finds in any script."""
    text = ("state-of-the-art -lead trail- a--b snake_case 3,5 x2 don\u2019t \u00e9t\u00e9-l\u00e0 "
            "\u2010dash a\u2010b \u043f\u0440\u0438\u0432\u0435\u0442 \u65e5\u672c\u8a9e "
            "nb\u00a0sp em\u2003sp tab\tx\nnew-\nline \u00bd \u00b2 \u0664\u0662 -- _ -")
    lexicon = hyphen_lexicon([text])
    assert lexicon == Counter(_WORD.findall(text.casefold().replace("\u2010", "-")))
    assert hyphen_lexicon([""]) == Counter()


def test_line_joining_rules():
    def brk(a: str, b: str, same: bool = True, full: bool = True) -> LineBreak:
        return classify_line_break(a, b, same_block=same, full_width=full)

    assert brk("retrieval can be done", "efficiently using", same=False) is LineBreak.SPACE
    assert brk("named as Large", "Language Models", same=False) is LineBreak.SPACE
    assert brk("named as Large", "Language Models", same=False, full=False) \
        is LineBreak.PARAGRAPH
    assert brk("Keywords - Large Models, GPT", "I. INTRODUCTION", same=False) \
        is LineBreak.PARAGRAPH
    assert brk("the end.", "Next paragraph", same=False) is LineBreak.PARAGRAPH
    assert brk("a list:", "• first item") is LineBreak.LINE
    assert brk("08/30/2015 Long Beach 90", "08/29/2015 Monterey 137", same=False) \
        is LineBreak.PARAGRAPH
    # CJK lines join without a space.
    assert brk("其用地指标按表 7.6 中", "的系数进行调整。", same=False) is LineBreak.JOINED


def test_nfkc_with_and_without_cjk_punctuation_protection():
    assert normalize_unicode("ﬁnal ＡＢＣ１２３") == "final ABC123"
    text = "标准（2020 年版），见表１！"
    assert normalize_unicode(text) == "标准(2020 年版),见表1!"
    assert normalize_unicode(text, protect_cjk_punctuation=True) == "标准（2020 年版），见表1！"
    # The Chinese ellipsis stays; NFKC would make it six dots, i.e. a leader.
    assert normalize_unicode("他感到很奇怪……", protect_cjk_punctuation=True) == "他感到很奇怪……"
    assert strip_leaders("他感到很奇怪……")[1] == 0


def test_pdf_heading_lines_and_what_is_not_one():
    from ragbeam.transforms.clean.headings import find_headings, heading_level

    assert heading_level("2.1 General Information") == (2, "num-2")
    assert heading_level("3 How to Code the Header of Your Paper") == (1, "num-1")
    assert heading_level("IV. CONCLUSION") == (1, "roman")
    assert heading_level("REFERENCES") == (1, "caps")
    assert heading_level("第三章 总则") == (1, "cjk-章")
    # A numbered poem line: a CJK full stop inside it.
    assert heading_level("20、浓绿万枝红一点，动人春色不须多。——王安石《咏石榴花》") is None
    assert heading_level("第二节 用地指标") == (2, "cjk-节")
    for not_heading in ("2.1 Parsing 4", "2 (February 2019), and GPT-3", "BEGIN",
                        "The end of a sentence.", "DEFINITIONS TAGS ::=", "3 apples were eaten",
                        "车道数路段交通量 Q"):
        assert heading_level(not_heading) is None, not_heading
    blocks = ["1 Introduction", "Body text.", "1. Install it", "2. Configure it",
              "2 Method", None, "2.1 Data"]
    assert find_headings(blocks) == {0: 1, 4: 1, 6: 2}


def test_footnotes_and_rows_of_numbers_are_not_joined():
    def brk(a: str, b: str) -> LineBreak:
        return classify_line_break(a, b, same_block=False, full_width=True)

    assert brk("along with analysis on how its output differs from",
               "6We use the unfiltered TriviaQA version") is LineBreak.PARAGRAPH
    assert brk("None BM25 59.1 66.9 55.0 70.9 68.8", "Single DPR 78.4 79.4 73.2 79.8") \
        is LineBreak.PARAGRAPH
    assert brk("we obtain two initial sets of top-2000 passages and", "3D models") \
        is LineBreak.SPACE
