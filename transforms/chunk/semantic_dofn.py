"""The Chunk stage's branch for strategies that cut by embeddings (the registry's
``needs_embeddings``: ``semantic``, ``similar_paragraphs``).

``ChunkSemantically``, for documents routed to any such strategy (the routed name
picks the strategy, built from the registry; each is an ``EmbeddingStrategy``,
``chunk/base.py``)::

    (Document, RouteDecision)
      → Plan sentences        the strategy's plan and its texts to embed (pure)
      → Batch by sentences    whole documents, up to SENTENCES_PER_CALL texts a batch
      → Embed and cut         one model call per batch (it spans documents and
                              strategies), then each document's ``assemble`` → chunk
                              rows + one document row

No shuffle: a document and its texts stay in the worker that planned them, and a
batch's vectors live only while the batch is cut. A document with more texts than
fit one call is embedded alone, a call at a time, into its strategy's ``stream``
(``semantic`` keeps only gap distances, ``StreamedGapDistances``): the sentences held
in memory per document are capped, however long the document.

A batch that fails in the model becomes an ``embed`` failure of each document it
touched. It never fails the run.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, cast

import apache_beam as beam
import numpy as np
from apache_beam.metrics import Metrics

from ragbeam.schemas.chunks import ChunkRow
from ragbeam.schemas.documents import DocumentRow
from ragbeam.transforms import progress
from ragbeam.transforms.chunk.base import ChunkOptions, EmbeddingStrategy
from ragbeam.transforms.chunk.dofn import DOCUMENTS, chunked_document_row
from ragbeam.transforms.chunk.records import chunk_rows
from ragbeam.transforms.chunk.searchable import drop_unsearchable
from ragbeam.transforms.chunk.semantic import SemanticOptions
from ragbeam.transforms.chunk.sizing import Sizer, shared_token_sizer
from ragbeam.transforms.chunk.strategies import STRATEGIES, build_strategy, needs_embeddings
from ragbeam.transforms.embed.handler import LazySentenceModel
from ragbeam.transforms.embed.model import EmbeddingOptions, encode_texts
from ragbeam.transforms.types import FAILURES, Document, Failure, RouteDecision, Stage

# Sentences per model call in the embedding branch, in forward passes of
# --embedding-batch-size: sentence-transformers sorts a call's texts by length,
# so a call of many passes pads little (batches of 8 passes measured 0.98x a plain
# encode loop, of 1 pass 0.83x). Also the most sentences of one
# document held in memory at once.
PASSES_PER_CALL = 16


@dataclass(frozen=True)
class PlannedDocument:
    doc: Document
    decision: RouteDecision
    plan: Any  # the strategy's own (semantic: a SemanticPlan)
    inputs: tuple[str, ...]  # the plan's texts to embed, in order


def _failure(doc: Document, stage: Stage, error_type: str, message: str) -> Failure:
    return Failure(doc.source, stage, error_type, message, content_hash=doc.content_hash,
                   media_type=doc.media_type)


class _Strategies:
    """One strategy per routed name and set of routing parameters (a routing table
    may give ``semantic`` its own ``threshold``, ``size``…), built once per worker
    from the registry; each gets the run's option objects it names in ``RUN_OPTIONS``."""

    def __init__(self, chunk: ChunkOptions, semantic: SemanticOptions,
                 embedding: EmbeddingOptions) -> None:
        self._chunk = chunk
        self._run_options: dict[str, Any] = {"semantic": semantic, "embedding": embedding}
        self._built: dict[str, EmbeddingStrategy] = {}

    def for_decision(self, decision: RouteDecision) -> EmbeddingStrategy:
        key = repr((decision.strategy, sorted(decision.params.items())))
        if key not in self._built:
            if not needs_embeddings(decision.strategy):
                raise ValueError(f"strategy {decision.strategy!r} does not cut by embeddings")
            wanted = getattr(STRATEGIES[decision.strategy], "RUN_OPTIONS", ())
            run = {name: value for name, value in self._run_options.items() if name in wanted}
            self._built[key] = cast(EmbeddingStrategy, build_strategy(
                decision.strategy, self._chunk, {**run, **decision.params}))
        return self._built[key]


class PlanSentences(beam.DoFn):
    def __init__(self, chunk: ChunkOptions, semantic: SemanticOptions,
                 embedding: EmbeddingOptions) -> None:
        self._args = (chunk, semantic, embedding)
        self._strategies: _Strategies | None = None

    def setup(self) -> None:
        self._strategies = _Strategies(*self._args)

    def process(self, element: tuple[Document, RouteDecision]):
        doc, decision = element
        assert self._strategies is not None
        try:
            strategy = self._strategies.for_decision(decision)
            plan = strategy.plan(doc)
            inputs = tuple(strategy.embedding_inputs(doc, plan))
        except Exception as exc:
            yield beam.pvalue.TaggedOutput(
                FAILURES, _failure(doc, Stage.CHUNK, type(exc).__name__, str(exc)))
            return
        Metrics.counter("ragbeam.embed", "sentences").inc(len(inputs))
        yield PlannedDocument(doc, decision, plan, inputs)


def sentences_to_embed(planned: PlannedDocument) -> int:
    """A planned document's weight in a batch (at least 1: every document is an element)."""
    return max(1, len(planned.inputs))


@beam.typehints.with_output_types(ChunkRow, **{DOCUMENTS: DocumentRow, FAILURES: Failure})
class EmbedAndCut(beam.DoFn):
    """A batch of planned documents → chunk rows + one document row each (or a failure).

    The sentences of every document in the batch go to the model in one call
    (up to ``max_sentences``; sentence-transformers sorts them by length, so
    they pad little); a document with more is embedded alone, ``max_sentences``
    at a time, and reduced to its gap distances as it goes. The model is loaded
    on the first batch that needs it, once per process (``process_model``).
    """

    def __init__(self, chunk: ChunkOptions, semantic: SemanticOptions,
                 embedding: EmbeddingOptions, config_hash: str, max_sentences: int) -> None:
        self._args = (chunk, semantic, embedding)
        self._config_hash = config_hash
        self._max_sentences = max_sentences
        self._strategies: _Strategies | None = None
        self._tokens: Sizer | None = None
        self._model: LazySentenceModel | None = None
        self._chunks = Metrics.counter("ragbeam", "chunks")
        self._embedded = Metrics.counter("ragbeam.embed", "sentences_embedded")
        self._calls = Metrics.counter("ragbeam.embed", "model_calls")
        self._call_ms = Metrics.distribution("ragbeam.embed", "model_call_ms")

    def setup(self) -> None:
        self._strategies = _Strategies(*self._args)
        self._tokens = shared_token_sizer(self._args[0].encoding)
        self._model = LazySentenceModel(self._args[2])

    def _encode(self, texts: list[str]) -> np.ndarray:
        started = time.perf_counter()
        embedding = self._args[2]
        assert self._model is not None
        vectors = encode_texts(self._model.get(), texts, embedding.batch_size)
        self._calls.inc()
        self._embedded.inc(len(texts))
        self._call_ms.update(int((time.perf_counter() - started) * 1000))
        return vectors

    def process(self, batch: list[PlannedDocument]):
        assert self._strategies is not None
        together = [p for p in batch if len(p.inputs) <= self._max_sentences]
        yield from self._cut_together(together)
        for planned in batch:
            if len(planned.inputs) > self._max_sentences:
                yield from self._cut_streamed(planned)

    def _cut_together(self, batch: list[PlannedDocument]):
        texts = [text for planned in batch for text in planned.inputs]
        try:
            vectors = self._encode(texts) if texts else None
        except Exception as exc:
            message = f"{type(exc).__name__}: {exc}"
            for planned in batch:
                if planned.inputs:
                    yield beam.pvalue.TaggedOutput(FAILURES, _failure(
                        planned.doc, Stage.EMBED, "EmbeddingFailed", message))
                else:  # nothing to embed: cut it all the same
                    yield from self._cut(planned, lambda s, p: s.assemble(
                        p.doc, p.plan, np.zeros((0, 0), dtype=np.float32)))
            return
        offset = 0
        for planned in batch:
            mine = vectors[offset:offset + len(planned.inputs)] if vectors is not None \
                else np.zeros((0, 0), dtype=np.float32)
            offset += len(planned.inputs)
            yield from self._cut(planned, lambda s, p, v=mine: s.assemble(p.doc, p.plan, v))

    def _cut_streamed(self, planned: PlannedDocument):
        """One long document, ``max_sentences`` vectors at a time, into its strategy's
        ``stream`` (which keeps what it needs of them)."""
        assert self._strategies is not None
        stream = self._strategies.for_decision(planned.decision).stream(planned.doc,
                                                                        planned.plan)
        try:
            for start in range(0, len(planned.inputs), self._max_sentences):
                stream.add(self._encode(list(planned.inputs[start:start + self._max_sentences])))
        except Exception as exc:
            yield beam.pvalue.TaggedOutput(FAILURES, _failure(
                planned.doc, Stage.EMBED, "EmbeddingFailed", f"{type(exc).__name__}: {exc}"))
            return
        yield from self._cut(planned, lambda s, p: stream.finish())

    def _cut(self, planned: PlannedDocument, assemble):
        assert self._strategies is not None and self._tokens is not None
        doc, decision = planned.doc, planned.decision
        try:
            result = drop_unsearchable(
                doc, assemble(self._strategies.for_decision(decision), planned))
            rows = chunk_rows(doc, result.chunks, decision.strategy, self._config_hash,
                              self._tokens, embed_text=self._args[0].embed_text)
        except Exception as exc:
            yield beam.pvalue.TaggedOutput(
                FAILURES, _failure(doc, Stage.CHUNK, type(exc).__name__, str(exc)))
            return
        self._chunks.inc(len(rows))
        progress.tick(progress.CHUNKED)
        yield from rows
        yield beam.pvalue.TaggedOutput(
            DOCUMENTS, chunked_document_row(doc, decision, result, len(rows), self._config_hash))


def semantic_partition(element: tuple[Document, RouteDecision], partitions: int) -> int:
    """1 for documents routed to a strategy that cuts by embeddings (the registry's
    ``needs_embeddings``), else 0 (for ``beam.Partition``)."""
    return 1 if needs_embeddings(element[1].strategy) else 0


def sentences_per_call(embedding: EmbeddingOptions) -> int:
    """Sentences per model call in the semantic branch, and the per-document cap."""
    return embedding.batch_size * PASSES_PER_CALL


class ChunkSemantically(beam.PTransform):
    """Documents routed to a strategy that cuts by embeddings → ``{"chunks",
    "documents", "failures"}``."""

    def __init__(self, chunk: ChunkOptions, semantic: SemanticOptions,
                 embedding: EmbeddingOptions, config_hash: str) -> None:
        super().__init__()
        self._chunk, self._semantic, self._embedding = chunk, semantic, embedding
        self._config_hash = config_hash

    def expand(self, routed: beam.PCollection) -> dict[str, beam.PCollection]:
        args = (self._chunk, self._semantic, self._embedding)
        per_call = sentences_per_call(self._embedding)
        planned = routed | "Plan sentences" >> beam.ParDo(PlanSentences(*args)).with_outputs(
            FAILURES, main="planned")
        cut = (
            planned.planned
            | "Batch by sentences" >> beam.BatchElements(
                min_batch_size=per_call, max_batch_size=per_call,
                element_size_fn=sentences_to_embed)
            | "Embed and cut" >> beam.ParDo(
                EmbedAndCut(*args, self._config_hash, max_sentences=per_call)
            ).with_outputs(FAILURES, DOCUMENTS, main="chunks")
        )
        failures = ((planned[FAILURES], cut[FAILURES])
                    | "Semantic failures" >> beam.Flatten())
        return {"chunks": cut.chunks, DOCUMENTS: cut[DOCUMENTS], FAILURES: failures}
