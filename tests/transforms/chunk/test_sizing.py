from __future__ import annotations

import random
import threading

import pytest

from ragbeam.transforms.chunk.base import ChunkOptions
from ragbeam.transforms.chunk.sizing import (
    DEFAULT_ENCODING,
    PASS_EXACT_PATTERNS,
    CharSizer,
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


# Text that tiktoken's pieces make hard to cut: contractions, digits, runs of spaces
# and line breaks, punctuation glued to words, accents, CJK, emoji, a form feed.
ODD_TEXT = (
    "It's they'll I'M we've don't: 12,345.6789 x12y  \n\n  \t end. "
    "Ünïcödé wörds — “quotes” … ½ ² ③ 𝔘𝔫𝔦 😀👍🏽 naïve café\r\n\r\n"
    "中文文本，没有空格。日本語のテキスト。한국어 abc中文def\x0b\x0cg "
    "'''a'b''c'''s'S'LL'Ve'RE'd 1234567890abc1234x 99 word.\n\n\n   \n  Word,\n-Word "
    "(word) [word] {word} <word> word!word?word;word: trailing   "
)
CORPUS_TEXT = (
    "Extraction starts with Tika. The children clean what they extract; the runner "
    "chunks it.\n\nEach chunk is counted in tokens (cl100k), 128 by default, 2,048 "
    "at most — see docs/strategies.md.\n") * 30


def _spans(text: str, seed: int, n: int = 400) -> list[tuple[int, int]]:
    rng = random.Random(seed)
    spans = [(0, len(text)), (3, 3)]
    for _ in range(n):
        start = rng.randrange(len(text) + 1)
        spans.append((start, min(len(text), start + rng.choice((1, 2, 7, 30, 120, 500)))))
    return spans


@pytest.mark.parametrize("text", [ODD_TEXT, ODD_TEXT * 20, CORPUS_TEXT])
def test_a_span_counted_from_the_whole_text_pass_is_counted_as_if_alone(text):
    sizer = TokenSizer()
    encoding = load_encoding(DEFAULT_ENCODING)
    assert sizer.pass_over(text) is not None
    for start, end in _spans(text, seed=len(text)):
        alone = text[start:end]
        assert sizer.span(text, start, end) == len(encoding.encode_ordinary(alone)), alone
        starts = sizer.token_starts(alone)
        assert sizer.span_token_starts(text, start, end) == [start + s for s in starts]


def test_the_pass_is_used_only_for_patterns_known_to_allow_it():
    # TokenPass rests on cl100k's pattern never running a piece on past a letter
    # followed by a non-letter (o200k's, for one, glues "'s" to the word before it).
    assert load_encoding(DEFAULT_ENCODING)._pat_str in PASS_EXACT_PATTERNS
    sizer = TokenSizer()
    sizer._spans_from_pass = False  # as for an encoding with another pattern
    assert sizer.pass_over("The cat's toy.") is None
    assert sizer.span("The cat's toy.", 4, 9) == sizer.size("cat's")
    assert sizer.span_token_starts("The cat's toy.", 4, 9) == [4, 7]


def test_a_text_without_a_token_round_trip_is_measured_span_by_span():
    sizer = TokenSizer()
    odd = "text with a lone surrogate \ud800 inside"
    assert sizer.pass_over(odd) is None
    assert sizer.span(odd, 0, 4) == sizer.size("text")
    assert sizer.span_token_starts(odd, 0, 4) == [0]


def test_the_whole_text_is_tokenised_once_for_all_its_spans():
    sizer = TokenSizer()
    first = sizer.pass_over(CORPUS_TEXT)
    for start, end in _spans(CORPUS_TEXT, seed=1, n=50):
        sizer.span(CORPUS_TEXT, start, end)
    assert sizer.pass_over(CORPUS_TEXT) is first  # kept, not made again
    assert CharSizer().span(CORPUS_TEXT, 4, 9) == 5


def test_each_thread_keeps_its_own_passes():
    sizer = TokenSizer()
    texts = [f"Document {i} has words, numbers ({i}) and more words. " * 50 for i in range(4)]
    seen: dict[int, object] = {}

    def work(i: int) -> None:
        for _ in range(3):
            assert sizer.span(texts[i], 0, len(texts[i])) == sizer.size(texts[i])
        seen[i] = sizer.pass_over(texts[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(seen[i] is not None and seen[i].text is texts[i] for i in range(4))


def test_every_token_sized_strategy_shares_one_sizer():
    assert ChunkOptions().sizer() is ChunkOptions(size=64).sizer() is shared_token_sizer()


def test_token_counts_are_memoised_per_sizer():
    sizer = TokenSizer()
    assert sizer.size("a memoised count") == sizer.size("a memoised count")
    info = sizer.size.cache_info()
    assert (info.hits, info.misses) == (1, 1)
