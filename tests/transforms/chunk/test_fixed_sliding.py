from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragbeam.transforms.chunk.base import ChunkOptions
from ragbeam.transforms.chunk.fixed import split_fixed, window_count
from ragbeam.transforms.chunk.sizing import CharSizer, TokenSizer
from ragbeam.transforms.chunk.strategies import build_strategy

CHARS = CharSizer()


@given(text=st.text(min_size=1, max_size=2000).filter(lambda t: t.strip()),
       size=st.integers(2, 200), overlap_share=st.floats(0, 0.95))
@settings(max_examples=200, deadline=None)
def test_fixed_windows_overlap_exactly_and_follow_the_count_formula(text, size, overlap_share):
    overlap = min(int(size * overlap_share), size - 1)
    spans = split_fixed(text, size, overlap, CHARS)
    first = len(text) - len(text.lstrip())
    last = len(text.rstrip())
    assert len(spans) == window_count(last - first, size, overlap)
    assert spans[0][0] == first and spans[-1][1] == last
    for (s0, e0), (s1, e1) in itertools.pairwise(spans):
        assert e0 - s0 == size, "every window but the last is full"
        assert e0 - s1 == overlap, "consecutive windows share exactly the overlap"
        assert e1 > e0, "no trailing window made only of overlap"


def test_count_formula_from_the_seeds():
    # N = ceil((L − O) / (S − O)): 1000 chars, S=400, O=100 → ceil(900/300) = 3
    assert window_count(1000, 400, 100) == 3
    assert len(split_fixed("x" * 1000, 400, 100, CHARS)) == 3
    assert window_count(1001, 400, 100) == 4
    assert window_count(400, 400, 100) == 1


def test_fixed_in_tokens_overlaps_by_tokens():
    tokens = TokenSizer()
    text = "The lake station was built in 1985 on the north shore of the lake. " * 30
    spans = split_fixed(text, 40, 10, tokens)
    assert all(tokens.size(text[s:e]) <= 40 for s, e in spans)
    for (_, e0), (s1, _) in itertools.pairwise(spans):
        assert 8 <= tokens.size(text[s1:e0]) <= 10


@pytest.mark.parametrize(("size", "ratio", "step"), [(400, 0.25, 300), (100, 0.5, 50),
                                                     (10, 0.0, 10), (3, 0.9, 1)])
def test_sliding_steps_by_size_times_one_minus_ratio(size, ratio, step):
    strategy = build_strategy("sliding", ChunkOptions(unit="chars", size=size),
        {"overlap_ratio": ratio})
    text = "abcdefghij" * 100
    chunks = strategy.chunk(_doc(text)).chunks
    assert all(b.start - a.start == step for a, b in itertools.pairwise(chunks))
    assert all(len(c.text) == size for c in chunks[:-1])


def test_sliding_rejects_a_ratio_of_one():
    with pytest.raises(ValueError, match="overlap_ratio"):
        build_strategy("sliding", ChunkOptions(), {"overlap_ratio": 1.0})


def _doc(text):
    from ragbeam.transforms.types import Document, SourceFile

    return Document(SourceFile("file:///t", "d", len(text)), "h", "text/plain", text)
