"""Parent-child chunking: small chunks to search, their large parent to read.

Parents are the structure strategy's sections (``structure.py``) at
``parent_size`` (default twice ``size``: a parent must fit the context budget
it is sent into; at the 128-token default of the time, 256-token parents scored best of
2×, 3× and 4× on the tuning questions at a 600-token budget, and 4× parents of
1,000-character children — ~1,000 tokens — never fitted one): heading sections where the
document has headings, recursive windows of ``parent_size`` where it has none
or a section is too long. Children are recursive chunks of at most ``size``
inside each parent. Output order is parent, its children, next parent…; each
child's ``parent`` is its parent's index, which the writer turns into the
parent's ``chunk_id``. Children cover every non-whitespace character of the
document; parents cover their children. ``size`` caps children,
``parent_size`` caps parents.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragbeam.transforms.chunk.base import (
    ChunkingResult,
    ChunkOptions,
    HeadingIndex,
    SizedStrategy,
)
from ragbeam.transforms.chunk.recursive import split_recursive
from ragbeam.transforms.chunk.structure import MIN_SIZE_RATIO, split_by_structure
from ragbeam.transforms.types import Chunk, ChunkLevel, Document

PARENT_SIZE_FACTOR = 2


class ParentChildStrategy(SizedStrategy):
    name = "parent_child"
    PARAMS = frozenset({"parent_size"})

    def __init__(self, options: ChunkOptions, params: Mapping[str, Any]) -> None:
        super().__init__(options, params)
        self.parent_size = int(params.get("parent_size", self.size * PARENT_SIZE_FACTOR))
        if self.parent_size < self.size:
            raise ValueError("parent_child: parent_size must be at least size")

    def chunk(self, doc: Document) -> ChunkingResult:
        headings = HeadingIndex(doc)
        parents, parent_hard_cuts = split_by_structure(
            doc, self.parent_size, 0, self.sizer, int(self.parent_size * MIN_SIZE_RATIO),
            headings)
        chunks: list[Chunk] = []
        hard_cuts = 0
        for parent in parents:
            parent_index = len(chunks)
            chunks.append(Chunk(parent.start, parent.end, parent.text, ChunkLevel.PARENT,
                                heading_path=parent.heading_path))
            result = split_recursive(doc.text, self.size, self.sizer, self.overlap,
                                     parent.start, parent.end)
            hard_cuts += result.hard_cuts
            chunks.extend(
                Chunk(s, e, doc.text[s:e], ChunkLevel.CHILD, parent=parent_index,
                      heading_path=parent.heading_path)
                for s, e in result.spans
            )
        return ChunkingResult(chunks, {"hard_cuts": hard_cuts, "parents": len(parents),
                                       "parent_hard_cuts": parent_hard_cuts})
