"""``similar_paragraphs``: paragraphs joined while they stay on one topic.

A second strategy that cuts by embeddings, smaller than ``semantic`` and by other
rules; one unit per paragraph instead of one per sentence:

1. ``plan_paragraphs``: the document's paragraphs (blocks between blank lines),
   trimmed; a paragraph over ``size`` is split by the recursive strategy, each
   piece a unit of its own.
2. Embed each unit's text (unit vectors).
3. ``group_units``: walking the units in order, the next one joins the current
   chunk when its cosine similarity with the unit before it is at least
   ``min_similarity`` and the joined text still fits ``size``; otherwise it starts
   a new chunk. Offsets are exact; the whitespace between chunks belongs to none.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ragbeam.transforms.chunk.base import (
    ChunkingResult,
    ChunkOptions,
    CollectedVectors,
    Encode,
    SizedStrategy,
    chunk_batch_by_embeddings,
    spans_to_chunks,
    trim_span,
)
from ragbeam.transforms.chunk.recursive import split_recursive
from ragbeam.transforms.chunk.sizing import Sizer
from ragbeam.transforms.embed.model import EmbeddingOptions, encode_texts, load_sentence_model
from ragbeam.transforms.types import Document

PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
DEFAULT_MIN_SIMILARITY = 0.5


def plan_paragraphs(text: str, size: int, sizer: Sizer) -> list[tuple[int, int]]:
    """Unit spans: paragraphs, and the recursive pieces of those over ``size``."""
    units: list[tuple[int, int]] = []
    start = 0
    for gap in [*PARAGRAPH_BREAK.finditer(text), None]:
        end = gap.start() if gap else len(text)
        s, e = trim_span(text, start, end)
        if s < e:
            if sizer.span(text, s, e) <= size:
                units.append((s, e))
            else:
                units.extend(split_recursive(text, size, sizer, start=s, end=e).spans)
        if gap:
            start = gap.end()
    return units


def group_units(text: str, units: Sequence[tuple[int, int]], vectors: np.ndarray,
                min_similarity: float, size: int, sizer: Sizer) -> list[tuple[int, int]]:
    """Chunk spans: consecutive units joined while similar and within ``size``."""
    if len(vectors) != len(units):
        raise ValueError(f"expected {len(units)} unit vectors, got {len(vectors)}")
    spans: list[tuple[int, int]] = []
    for i, (s, e) in enumerate(units):
        if spans and float(np.dot(vectors[i - 1], vectors[i])) >= min_similarity \
                and sizer.span(text, spans[-1][0], e) <= size:
            spans[-1] = (spans[-1][0], e)
        else:
            spans.append((s, e))
    return spans


class SimilarParagraphsStrategy(SizedStrategy):
    """``similar_paragraphs``: an ``EmbeddingStrategy`` (``base.py``); ``chunk`` embeds
    with a model loaded in this process, the pipeline batches across documents
    (``chunk/semantic_dofn.py``). A document's vectors are few (one per paragraph),
    so its ``stream`` keeps them all (``CollectedVectors``)."""

    name = "similar_paragraphs"
    needs_embeddings = True
    RUN_OPTIONS = frozenset({"embedding"})
    PARAMS = frozenset({"min_similarity"})

    def __init__(self, options: ChunkOptions, params: Mapping[str, Any]) -> None:
        params = dict(params)
        self.embedding: EmbeddingOptions = params.pop("embedding", None) or EmbeddingOptions()
        super().__init__(options, params)
        value = params.get("min_similarity", DEFAULT_MIN_SIMILARITY)
        if isinstance(value, bool) or not isinstance(value, int | float) \
                or not -1.0 <= value <= 1.0:
            raise ValueError(f"params.min_similarity: expected a number in [-1, 1], "
                             f"got {value!r}")
        self.min_similarity = float(value)
        self._model: Any = None

    def plan(self, doc: Document) -> list[tuple[int, int]]:
        return plan_paragraphs(doc.text, self.size, self.sizer)

    def embedding_inputs(self, doc: Document, plan: list[tuple[int, int]]) -> list[str]:
        return [doc.text[s:e] for s, e in plan]

    def assemble(self, doc: Document, plan: list[tuple[int, int]], vectors: np.ndarray
                 ) -> ChunkingResult:
        spans = group_units(doc.text, plan, vectors, self.min_similarity, self.size,
                            self.sizer)
        return ChunkingResult(spans_to_chunks(doc, spans),
                              {"units": len(plan), "chunks": len(spans)})

    def stream(self, doc: Document, plan: list[tuple[int, int]]) -> CollectedVectors:
        return CollectedVectors(self, doc, plan)

    def chunk_batch(self, docs: Sequence[Document], encode: Encode) -> list[ChunkingResult]:
        return chunk_batch_by_embeddings(self, docs, encode)

    def _encode(self, texts: list[str]) -> np.ndarray:
        if self._model is None:
            self._model = load_sentence_model(self.embedding)
        return encode_texts(self._model, texts, self.embedding.batch_size)

    def chunk(self, doc: Document) -> ChunkingResult:
        return self.chunk_batch([doc], self._encode)[0]
