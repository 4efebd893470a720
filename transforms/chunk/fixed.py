"""Fixed-size windows.

The baseline every other strategy is measured against: windows of ``size``
units (characters or tokens) stepping by ``size − overlap``, cut wherever the
count falls, blind to words and sentences. For a text of length ``L`` there
are ``N = ceil((L − O) / (S − O))`` windows (one when ``L ≤ S``); the last one
ends at the end of the text and always holds text no earlier window had, so
there is never a trailing window made only of overlap.

Windows run over the document's text from its first to its last
non-whitespace character and are *not* trimmed, so consecutive windows share
exactly ``overlap`` units. In tokens, window edges are token boundaries (a
token that starts inside a multi-byte character starts at that character), and
a window whose re-counted size exceeds ``size`` is shortened by whole tokens.
"""

from __future__ import annotations

import math

from ragbeam.transforms.chunk.base import (
    ChunkingResult,
    SizedStrategy,
    spans_to_chunks,
    trim_span,
)
from ragbeam.transforms.chunk.sizing import Sizer, TokenizingSizer
from ragbeam.transforms.types import Document


def window_count(length: int, size: int, overlap: int) -> int:
    """``N = ceil((L − O) / (S − O))``, and 1 for anything up to one window."""
    if length <= 0:
        return 0
    if length <= size:
        return 1
    return math.ceil((length - overlap) / (size - overlap))


def _token_boundaries(text: str, start: int, end: int, sizer: TokenizingSizer) -> list[int]:
    """Offsets in ``text`` where the tokens of ``text[start:end]`` start, plus ``end``."""
    offsets = sizer.span_token_starts(text, start, end)
    if offsets is None:  # text without an exact token round trip (a lone surrogate):
        offsets = list(range(start, end))  # every character a boundary: windows only shrink
    bounds = [start]
    for offset in offsets[1:]:
        if offset > bounds[-1]:
            bounds.append(offset)
    if end > bounds[-1]:
        bounds.append(end)
    return bounds


def split_fixed(text: str, size: int, overlap: int, sizer: Sizer) -> list[tuple[int, int]]:
    """Fixed windows over ``text`` (see the module docstring for the rule)."""
    if not 0 <= overlap < size:
        raise ValueError("overlap must be >= 0 and smaller than size")
    start, end = trim_span(text, 0, len(text))
    if start >= end:
        return []
    if sizer.unit == "chars":  # arithmetic, no boundary list: a 50 MB text stays cheap
        step = size - overlap
        n = window_count(end - start, size, overlap)
        return [(start + k * step, min(start + k * step + size, end)) for k in range(n)]
    bounds = _token_boundaries(text, start, end, sizer)  # type: ignore[arg-type]
    units = len(bounds) - 1
    spans: list[tuple[int, int]] = []
    first = 0
    while True:
        last = min(first + size, units)
        while last > first + 1 and sizer.span(text, bounds[first], bounds[last]) > size:
            last -= 1  # re-encoding a slice can merge differently than the whole text
        spans.append((bounds[first], bounds[last]))
        if last >= units:
            return spans
        # The next window starts `overlap` units before this one ends (and
        # always after this one starts, so a shortened window still advances).
        first = max(last - overlap, first + 1)


class FixedStrategy(SizedStrategy):
    """``size`` units per window, ``overlap`` units shared with the previous one."""

    name = "fixed"

    def chunk(self, doc: Document) -> ChunkingResult:
        spans = split_fixed(doc.text, self.size, self.overlap, self.sizer)
        return ChunkingResult(spans_to_chunks(doc, spans))
