"""Built-in strategies, registered by name (importing this module registers them)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragbeam.transforms.chunk.base import ChunkingResult, ChunkOptions, register, spans_to_chunks
from ragbeam.transforms.chunk.recursive import split_recursive
from ragbeam.transforms.types import Document


class RecursiveStrategy:
    """Separator-ladder splitting (see ``recursive.py``) over the whole document."""

    name = "recursive"

    def __init__(self, options: ChunkOptions, params: Mapping[str, Any]) -> None:
        self._size = int(params.get("size", options.size))
        self._overlap = int(params.get("overlap", options.overlap))
        self._sizer = options.sizer()

    def chunk(self, doc: Document) -> ChunkingResult:
        result = split_recursive(doc.text, self._size, self._sizer, self._overlap)
        return ChunkingResult(spans_to_chunks(doc, result.spans), {"hard_cuts": result.hard_cuts})


register("recursive")(RecursiveStrategy)
