from __future__ import annotations

import itertools
import pathlib
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragbeam.transforms.chunk.recursive import split_recursive
from ragbeam.transforms.chunk.sizing import CharSizer, TokenSizer

CHARS = CharSizer()


def _check(text: str, spans, size: int, sizer=CHARS) -> None:
    covered = set()
    for s, e in spans:
        assert 0 <= s < e <= len(text)
        piece = text[s:e]
        assert piece == piece.strip(), "chunks are trimmed"
        covered.update(range(s, e))
    missing = [i for i, ch in enumerate(text) if not ch.isspace() and i not in covered]
    assert not missing, "non-whitespace characters lost"
    assert spans == sorted(spans)


@given(st.text(max_size=3000), st.integers(min_value=1, max_value=400))
@settings(max_examples=200, deadline=None)
def test_any_text_is_covered_exactly_and_capped(text, size):
    result = split_recursive(text, size, CHARS)
    _check(text, result.spans, size)
    assert all(e - s <= size for s, e in result.spans)


def test_paragraphs_and_sentences_are_preferred_boundaries():
    para = "This is a sentence about boats. " * 8
    text = (para.strip() + "\n\n") * 5
    spans = split_recursive(text, 400, CHARS).spans
    for s, e in spans:
        assert text[s:e].endswith(".")


def test_chinese_without_spaces_splits_at_sentence_ends():
    text = "湖畔野外站建于一九八五年，位于湖泊北岸。" * 30
    spans = split_recursive(text, 100, CHARS).spans
    assert len(spans) > 1
    assert all(text[s:e].endswith("。") for s, e in spans)
    assert all(e - s <= 100 for s, e in spans)


def test_decimals_are_not_sentence_ends():
    text = "Version 3.2 of the tool is out. " * 40
    for s, e in split_recursive(text, 120, CHARS).spans:
        assert not text[s:e].endswith("3.")


def test_hard_cut_only_without_any_separator():
    text = "x" * 1050
    result = split_recursive(text, 100, CHARS)
    assert result.hard_cuts == 10 and all(e - s <= 100 for s, e in result.spans)


def test_short_tail_is_merged_back():
    text = "A" * 300 + " " + "B" * 10
    assert split_recursive(text, 400, CHARS).spans == [(0, len(text))]
    text = "word " * 90  # 450 chars: 400 + short tail that does not fit → kept
    spans = split_recursive(text, 400, CHARS).spans
    assert all(e - s <= 400 for s, e in spans)


def test_overlap_repeats_whole_sentences_within_budget():
    text = " ".join(f"Sentence number {i} is here." for i in range(60))
    spans = split_recursive(text, 200, CHARS, overlap=60).spans
    for (_, e0), (s1, e1) in itertools.pairwise(spans):
        assert s1 < e0, "consecutive chunks overlap"
        assert e0 - s1 <= 60
        assert text[s1:e1].startswith("Sentence")
        assert e1 - s1 <= 200


def test_token_unit_caps_by_tokens():
    tokens = TokenSizer()
    text = pathlib.Path(textwrap.__file__).read_text(encoding="utf-8")
    spans = split_recursive(text, 128, tokens).spans
    assert all(tokens.size(text[s:e]) <= 128 for s, e in spans)
    _check(text, spans, 128, tokens)


@pytest.mark.parametrize("text", ["", " ", "\n\n\t", "a", "你"])
def test_empty_and_tiny_documents(text):
    spans = split_recursive(text, 10, CHARS).spans
    assert spans == ([] if not text.strip() else [(0, len(text))])


def test_deterministic():
    text = pathlib.Path(textwrap.__file__).read_text(encoding="utf-8")
    assert split_recursive(text, 300, CHARS) == split_recursive(text, 300, CHARS)


def test_sentences_end_after_closing_quotes_and_citation_marks():
    text = ('The company was founded in 1975.[3] Its founder said: "We build tools." '
            "Sales grew quickly.[12][13] ") * 12
    spans = split_recursive(text, 90, CHARS).spans
    assert len(spans) > 3
    for s, e in spans:
        assert text[s:e].endswith(('.[3]', '."', ".[12][13]")), text[s:e][-20:]


def test_thousands_separators_are_not_cut_points():
    text = "It employs 221,000 people in 190 countries, with revenue of 211,915 million " * 8
    for s, e in split_recursive(text, 60, CHARS).spans:
        assert not text[s:e].endswith(("221,", "211,"))
        assert not text[s:e].startswith(("000", "915"))


def test_a_line_break_inside_a_sentence_is_no_line_level_boundary():
    """A line the joiner left inside a sentence (a word or a comma, then a lowercase
    word) is cut only as whitespace is; rows of a list that start alike stay lines."""
    text = ("In no event and under no legal theory,\nwhether in tort or otherwise, shall "
            "any party be liable. ") * 6
    for s, e in split_recursive(text, 120, CHARS).spans:
        assert not text[s:e].endswith("theory,")
    rows = "".join(f"detail line {i}\n" for i in range(30))
    assert all(rows[s:e].endswith(tuple("0123456789"))
               for s, e in split_recursive(rows, 100, CHARS).spans)


def test_a_short_paragraph_before_one_that_does_not_fit_takes_its_first_sentences():
    """A chunk would close far below the limit only because the next paragraph does not
    fit whole: it takes that paragraph's first sentences instead of standing alone."""
    short = "Thanks to the crew."
    long_paragraph = " ".join(f"The crane number {i} was greased and tested." for i in range(9))
    text = f"{long_paragraph}\n\n{short}\n\n{long_paragraph}"
    spans = split_recursive(text, 400, CHARS).spans
    assert all(e - s >= 100 for s, e in spans)
    assert all(text[s:e].endswith(".") for s, e in spans)


def test_a_short_last_piece_of_an_oversized_row_is_evened_out_with_the_one_before():
    """A table row a little over the limit ends in a short piece: the last two chunks
    are cut again where both are at least a quarter of the limit."""
    row = " | ".join(["q3 up"] * 40)  # 317 characters
    spans = split_recursive(row, 300, CHARS).spans
    assert len(spans) == 2 and all(e - s >= 75 for s, e in spans)
