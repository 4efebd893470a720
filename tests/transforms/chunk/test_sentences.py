from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ragbeam.transforms.chunk.sentences import split_sentences

from conftest import require_shared


def sentences(text: str) -> list[str]:
    return [text[s:e] for s, e in split_sentences(text)]


def test_english_guards_for_abbreviations_initials_decimals_and_urls():
    text = ("Dr. Smith moved to the U.S. in 2019. He paid 3.50 dollars, e.g. for tea, "
            "and read J. Doe et al. on the way. See https://example.com/a.b?q=1. It works!")
    assert sentences(text) == [
        "Dr. Smith moved to the U.S. in 2019.",
        "He paid 3.50 dollars, e.g. for tea, and read J. Doe et al. on the way.",
        "See https://example.com/a.b?q=1.",
        "It works!",
    ]


def test_closing_quotes_and_brackets_stay_with_their_sentence():
    assert sentences('He said "Stop." Then he left. It was late. Fine.') == [
        'He said "Stop."', "Then he left.", "It was late.", "Fine."]
    assert sentences("他说：“好。”然后走了。（完）") == ["他说：“好。”", "然后走了。", "（完）"]


def test_ellipsis_ends_a_sentence_only_before_a_capital():
    assert sentences("Wait... what happened? It was... Nothing.") == [
        "Wait... what happened?", "It was...", "Nothing."]


def test_numbered_lines_and_section_numbers_are_not_sentence_ends():
    text = "1. Introduction\nThe method works. See section 3.2. Results follow."
    assert sentences(text) == ["1. Introduction\nThe method works.",
                               "See section 3.2. Results follow."]


def test_blank_lines_always_end_a_sentence():
    assert sentences("A title without a stop\n\nBody text here.") == [
        "A title without a stop", "Body text here."]


def test_chinese_terminators_full_width_and_after_nfkc():
    # NFKC (the clean stage, with its CJK punctuation protection off) turns ！？ into !?.
    # A clause mark ；does not end a sentence (as in the Chinese UD treebanks), and
    # neither does an ellipsis.
    full = "见 3.2 节。版本 v1.2 发布了！真的吗？是的；好的……然后呢。人口为1097人。2007年他来了。"
    nfkc = "见 3.2 节。版本 v1.2 发布了!真的吗?是的;好的......然后呢。人口为1097人。2007年他来了。"
    expected = ["见 3.2 节。", "版本 v1.2 发布了！", "真的吗？", "是的；好的……然后呢。",
                "人口为1097人。", "2007年他来了。"]
    assert sentences(full) == expected
    # sentencex ends a sentence after an ASCII ellipsis ("......" is NFKC's ……).
    assert sentences(nfkc) == ["见 3.2 节。", "版本 v1.2 发布了!", "真的吗?", "是的;好的......",
                               "然后呢。", "人口为1097人。", "2007年他来了。"]


def test_seed_document_chinese_faq():
    text = require_shared("seeds/001_9a75957f6ac27d53.txt").read_text(encoding="utf-8")
    found = sentences(text)
    assert "Q:语义分块一定要调 LLM 吗?" in found
    assert "不一定,句子向量就够。" in found
    # "3.2 节" is a section number, not the end of a sentence.
    assert any("编号(3.2 节)会误切" in s for s in found)
    assert not any(s.endswith("3.") for s in found)


def test_real_chinese_corpus_text(corpus_dir):
    text = (corpus_dir / "txt" / "zh-prompt-engineering-guide.txt").read_text(encoding="utf-8")
    spans = split_sentences(text)
    found = [text[s:e] for s, e in spans]
    assert "本书是一本全面指南，介绍了各种提示技术，用于从ChatGPT中生成高质量的答案。" in found
    assert len(found) > 200
    # Nearly every sentence ends with a terminator, a blank line or the text's end.
    ends = [text[e - 1] for _, e in spans]
    assert sum(ch in "。！？；：”)）" for ch in ends) > 0.5 * len(ends)


def test_real_english_corpus_text(corpus_dir):
    text = (corpus_dir / "txt" / "norwich-city.txt").read_text(encoding="utf-8")
    found = sentences(text)
    assert len(found) > 100
    assert not any(s.endswith((" Mr.", " Dr.", " e.g.", " U.S.")) for s in found)


@given(st.text(alphabet=st.sampled_from(list("ab. \n。！?;…\"”3")), max_size=300))
@settings(max_examples=300, deadline=None)
def test_spans_are_exact_trimmed_ordered_and_cover_every_visible_character(text):
    spans = split_sentences(text, max_chars=40)
    covered = set()
    previous_end = 0
    for s, e in spans:
        assert previous_end <= s < e <= len(text)
        assert text[s:e] == text[s:e].strip()
        assert e - s <= 40
        covered.update(range(s, e))
        previous_end = e
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())
