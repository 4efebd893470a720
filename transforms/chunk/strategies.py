"""Built-in strategies, registered by name (importing this module registers them)."""

from __future__ import annotations

from ragbeam.transforms.chunk.base import (
    ChunkingResult,
    SizedStrategy,
    register,
    spans_to_chunks,
)
from ragbeam.transforms.chunk.recursive import split_recursive
from ragbeam.transforms.types import Document


class RecursiveStrategy(SizedStrategy):
    """Separator-ladder splitting (see ``recursive.py``) over the whole document."""

    name = "recursive"

    def chunk(self, doc: Document) -> ChunkingResult:
        result = split_recursive(doc.text, self.size, self.sizer, self.overlap)
        return ChunkingResult(spans_to_chunks(doc, result.spans), {"hard_cuts": result.hard_cuts})


register("recursive")(RecursiveStrategy)

# Each strategy module registers itself on import.
from ragbeam.transforms.chunk import (  # noqa: E402, F401, I001
    fixed,
    sliding,
    structure,
    parent_child,
    code,
    faq,
    log,
    table,
    semantic,
)
