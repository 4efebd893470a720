from __future__ import annotations

import pytest

from ragbeam.transforms.chunk.base import ChunkOptions
from ragbeam.transforms.chunk.sizing import (
    DEFAULT_ENCODING,
    CharSizer,
    SpanCounter,
    TokenSizer,
    load_encoding,
    shared_token_sizer,
)
from ragbeam.transforms.route.router import RouteOptions, check_route_options


def test_the_preflight_check_builds_every_strategy_without_loading_the_encoding():
    # The check runs before a run starts extracting: loading the encoding there
    # (0.3 s) would delay the first document.
    load_encoding.cache_clear()
    check_route_options(RouteOptions(), ChunkOptions())
    assert load_encoding.cache_info().currsize == 0


def test_a_token_sizer_counts_with_the_encoding_loaded_on_first_use():
    load_encoding.cache_clear()
    sizer = TokenSizer()
    text = "Extraction, cleaning and chunking — then the tokens are counted."
    assert sizer.size(text) == len(load_encoding(DEFAULT_ENCODING).encode_ordinary(text))
    assert sizer.prefix_within(text, 3) < len(text)
    assert load_encoding.cache_info().currsize == 1


def test_an_unknown_encoding_still_fails_the_preflight_check():
    with pytest.raises(ValueError, match="unknown tiktoken encoding 'no-such-encoding'"):
        check_route_options(RouteOptions(), ChunkOptions(encoding="no-such-encoding"))


def test_span_counter_counts_spans_from_one_tokenisation():
    text = "The first sentence is here. A second one follows it.\n\nA new paragraph, 2024."
    sizer = TokenSizer()
    sizer.token_starts(text)  # the splitter's whole-document pass, which the rows reuse
    counter = SpanCounter(text, sizer)
    assert counter._starts is not None
    assert counter.count(0, len(text)) == sizer.size(text)
    for sentence in ("The first sentence is here.", "A second one follows it.",
                     "A new paragraph, 2024."):
        start = text.index(sentence)
        assert counter.count(start, start + len(sentence)) == sizer.size(sentence)
    assert counter.count(5, 5) == 0
    assert SpanCounter(text, CharSizer()).count(4, 9) == 5
    odd = "text with a lone surrogate \ud800 inside"
    assert SpanCounter(odd, sizer).count(0, 4) == sizer.size("text")  # measured alone


def test_span_counter_without_a_whole_text_pass_measures_each_span_once():
    sizer = TokenSizer()
    text = "Section one has a body.\n\nSection two has another."
    assert sizer.size(text[:23]) == 6  # the strategy measured this span
    counter = SpanCounter(text, sizer)
    assert counter._starts is None  # no pass of this text to reuse: none is made
    assert counter.count(0, 23) == 6
    assert sizer.size.cache_info().hits == 1


def test_every_token_sized_strategy_shares_one_sizer():
    assert ChunkOptions().sizer() is ChunkOptions(size=64).sizer() is shared_token_sizer()


def test_token_counts_are_memoised_per_sizer():
    sizer = TokenSizer()
    assert sizer.size("a memoised count") == sizer.size("a memoised count")
    info = sizer.size.cache_info()
    assert (info.hits, info.misses) == (1, 1)
