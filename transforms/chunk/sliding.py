"""Sliding windows: fixed windows whose overlap is a share of the window.

``step = size · (1 − overlap_ratio)`` (rounded, at least one unit), so
``overlap = size − step``; everything else, including exact offsets and the
window count, is the fixed strategy's (``fixed.py``). Suited to OCR-like text
without reliable separators, where any boundary is as good as another and the
overlap keeps a sentence cut at one edge whole in the neighbouring window.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragbeam.transforms.chunk.base import (
    ChunkingResult,
    ChunkOptions,
    SizedStrategy,
    spans_to_chunks,
)
from ragbeam.transforms.chunk.fixed import split_fixed
from ragbeam.transforms.types import Document


class SlidingStrategy(SizedStrategy):
    """Fixed windows stepping by ``size · (1 − overlap_ratio)`` (rounded, at least 1)."""

    name = "sliding"
    PARAMS = frozenset({"overlap_ratio"})
    DEFAULT_OVERLAP_RATIO = 0.25

    def __init__(self, options: ChunkOptions, params: Mapping[str, Any]) -> None:
        super().__init__(options, {k: v for k, v in params.items() if k != "overlap"})
        ratio = float(params.get("overlap_ratio", self.DEFAULT_OVERLAP_RATIO))
        if not 0 <= ratio < 1:
            raise ValueError("sliding: overlap_ratio must be in [0, 1)")
        self.step = max(1, round(self.size * (1 - ratio)))
        self.overlap = self.size - self.step

    def chunk(self, doc: Document) -> ChunkingResult:
        spans = split_fixed(doc.text, self.size, self.overlap, self.sizer)
        return ChunkingResult(spans_to_chunks(doc, spans))

