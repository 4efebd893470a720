"""The Beam side of embeddings: semantic chunking and chunk embeddings.

``ChunkSemantically``, for documents routed to ``semantic``::

    (Document, RouteDecision)
      → Plan sentences        sections and sentences with exact offsets (pure: semantic.py)
      → Sentences to embed    ((doc_id, index), text), one element per sentence
      → Embed sentences       RunInference: batches span documents, one model per process
      → Regroup by document   CoGroupByKey(plan, vectors)
      → Assemble chunks       breakpoints → chunk rows + one document row

``EmbedChunkRows`` (``--embed-chunks``) fills the ``embedding`` column of chunk
rows that do not have one yet, through the same handler.

A batch that fails in the model becomes an ``embed`` failure of each document
it touched (semantic), or is retried once and then fails the documents of the
chunks it could not embed (chunk embeddings): an ``ok`` document never has a
chunk without its vector. It never fails the run.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import apache_beam as beam
import numpy as np
from apache_beam.metrics import Metrics
from apache_beam.ml.inference.base import KeyedModelHandler, RunInference
from apache_beam.utils import shared

from ragbeam.transforms import progress
from ragbeam.transforms.chunk.base import ChunkOptions
from ragbeam.transforms.chunk.records import chunk_rows, embed_text_for
from ragbeam.transforms.chunk.semantic import SemanticOptions, SemanticPlan, SemanticStrategy
from ragbeam.transforms.chunk.sizing import Sizer, TokenSizer
from ragbeam.transforms.embed.handler import SentenceEmbeddingHandler
from ragbeam.transforms.embed.model import EmbeddingOptions, encode_texts, load_sentence_model
from ragbeam.transforms.route.router import RouteDecision
from ragbeam.transforms.types import FAILURES, Document, Failure, Stage
from ragbeam.transforms.write.rows import ok_document_row

DOCUMENTS = "documents"
_FAILED = -1  # sentence index that marks a failed batch in the regrouped vectors


@dataclass(frozen=True)
class PlannedDocument:
    doc: Document
    decision: RouteDecision
    plan: SemanticPlan
    inputs: tuple[str, ...]  # one text to embed per planned sentence


def _failure(doc: Document, stage: Stage, error_type: str, message: str) -> Failure:
    return Failure(doc.source, stage, error_type, message, content_hash=doc.content_hash,
                   media_type=doc.media_type)


class _Strategies:
    """One ``SemanticStrategy`` per set of routing parameters (a routing table may
    give ``semantic`` its own ``threshold``, ``size``…), built once per worker."""

    def __init__(self, chunk: ChunkOptions, semantic: SemanticOptions,
                 embedding: EmbeddingOptions) -> None:
        self._base = (chunk, {"semantic": semantic, "embedding": embedding})
        self._built: dict[str, SemanticStrategy] = {}

    def for_decision(self, decision: RouteDecision) -> SemanticStrategy:
        key = repr(sorted(decision.params.items()))
        if key not in self._built:
            chunk, base = self._base
            self._built[key] = SemanticStrategy(chunk, {**base, **decision.params})
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
        yield doc.doc_id, PlannedDocument(doc, decision, plan, inputs)


def sentence_elements(keyed: tuple[str, PlannedDocument]
                      ) -> Iterable[tuple[tuple[str, int], str]]:
    doc_id, planned = keyed
    for index, text in enumerate(planned.inputs):
        yield (doc_id, index), text


def failed_batch_markers(failed: tuple[list[tuple[Any, str]], BaseException]
                         ) -> Iterable[tuple[str, tuple[int, str]]]:
    batch, exc = failed
    message = f"{type(exc).__name__}: {exc}"
    for doc_id in sorted({key[0] for key, _ in batch}):
        yield doc_id, (_FAILED, message)


class AssembleSemanticChunks(beam.DoFn):
    """``(doc_id, {planned, vectors})`` → chunk rows + one document row (or a failure)."""

    def __init__(self, chunk: ChunkOptions, semantic: SemanticOptions,
                 embedding: EmbeddingOptions, config_hash: str) -> None:
        self._args = (chunk, semantic, embedding)
        self._config_hash = config_hash
        self._strategies: _Strategies | None = None
        self._tokens: Sizer | None = None
        self._chunks = Metrics.counter("ragbeam", "chunks")

    def setup(self) -> None:
        self._strategies = _Strategies(*self._args)
        self._tokens = TokenSizer(self._args[0].encoding)

    def process(self, element: tuple[str, dict[str, list[Any]]]):
        _, grouped = element
        assert self._strategies is not None and self._tokens is not None
        for planned in grouped["planned"]:  # exactly one per doc_id
            doc, decision = planned.doc, planned.decision
            received = grouped["vectors"]
            errors = [message for index, message in received if index == _FAILED]
            if errors:
                yield beam.pvalue.TaggedOutput(
                    FAILURES, _failure(doc, Stage.EMBED, "EmbeddingFailed", errors[0]))
                continue
            try:
                by_index = dict(received)
                if sorted(by_index) != list(range(len(planned.inputs))):
                    raise ValueError(f"expected {len(planned.inputs)} sentence vectors, "
                                     f"got {len(by_index)}")
                dim = len(next(iter(by_index.values()))) if by_index else 0
                vectors = (np.stack([by_index[i] for i in range(len(by_index))])
                           if by_index else np.zeros((0, dim), dtype=np.float32))
                strategy = self._strategies.for_decision(decision)
                result = strategy.assemble(doc, planned.plan, vectors)
                rows = chunk_rows(doc, result.chunks, decision.strategy, self._config_hash,
                                  self._tokens, embed_text=self._args[0].embed_text)
            except Exception as exc:
                yield beam.pvalue.TaggedOutput(
                    FAILURES, _failure(doc, Stage.CHUNK, type(exc).__name__, str(exc)))
                continue
            metadata = dict(doc.metadata)
            metadata["route_reason"] = decision.reason
            metadata.update({f"chunk_{k}": str(v) for k, v in result.stats.items()})
            self._chunks.inc(len(rows))
            progress.tick(progress.CHUNKED)
            yield from rows
            yield beam.pvalue.TaggedOutput(
                DOCUMENTS,
                ok_document_row(doc, self._config_hash, decision.strategy, len(rows), metadata))


def semantic_partition(element: tuple[Document, RouteDecision], partitions: int) -> int:
    """1 for documents routed to ``semantic``, else 0 (for ``beam.Partition``)."""
    return 1 if element[1].strategy == "semantic" else 0


def embed_sentences(handler: SentenceEmbeddingHandler) -> RunInference:
    return RunInference(KeyedModelHandler(handler)).with_exception_handling()


class ChunkSemantically(beam.PTransform):
    """Documents routed to ``semantic`` → ``{"chunks", "documents", "failures"}``."""

    def __init__(self, chunk: ChunkOptions, semantic: SemanticOptions,
                 embedding: EmbeddingOptions, config_hash: str) -> None:
        super().__init__()
        self._chunk, self._semantic, self._embedding = chunk, semantic, embedding
        self._config_hash = config_hash

    def expand(self, routed: beam.PCollection) -> dict[str, beam.PCollection]:
        args = (self._chunk, self._semantic, self._embedding)
        planned = routed | "Plan sentences" >> beam.ParDo(PlanSentences(*args)).with_outputs(
            FAILURES, main="planned")
        embedded, dead = (
            planned.planned
            | "Sentences to embed" >> beam.FlatMap(sentence_elements)
            | "Embed sentences" >> embed_sentences(SentenceEmbeddingHandler(self._embedding))
        )
        vectors = embedded | "Vector by document" >> beam.MapTuple(
            lambda key, result: (key[0], (key[1], result.inference)))
        lost = dead.failed_inferences | "Failed batches" >> beam.FlatMap(failed_batch_markers)
        all_vectors = (vectors, lost) | "All vectors" >> beam.Flatten()
        assembled = (
            {"planned": planned.planned, "vectors": all_vectors}
            | "Regroup by document" >> beam.CoGroupByKey()
            | "Assemble chunks" >> beam.ParDo(
                AssembleSemanticChunks(*args, self._config_hash)
            ).with_outputs(FAILURES, DOCUMENTS, main="chunks")
        )
        failures = ((planned[FAILURES], assembled[FAILURES])
                    | "Semantic failures" >> beam.Flatten())
        return {"chunks": assembled.chunks, "documents": assembled[DOCUMENTS],
                "failures": failures}


def chunk_embedding_text(row: dict[str, Any]) -> str:
    """What a chunk is embedded from: its contextual header, then its text."""
    if row.get("embed_text"):
        return str(row["embed_text"])
    return embed_text_for(row.get("context") or "", row["text"])


def _without_embedding(row: dict[str, Any], partitions: int) -> int:
    return 0 if row.get("embedding") is None else 1


EMBED_FAILED = "embed_failed"


def _with_vector(row: dict[str, Any], result: Any) -> dict[str, Any]:
    progress.tick(progress.EMBEDDED)
    return {**row, "embedding": [float(x) for x in result.inference]}


class RetryFailedBatches(beam.DoFn):
    """A batch RunInference could not embed → embedded once more, here; rows that
    still get no vector become ``(doc_id, message)`` on ``EMBED_FAILED``, so their
    documents fail (never an ``ok`` document with a null vector).

    The model is loaded on the first failed batch only (most runs have none), once
    per process (``apache_beam.utils.shared``).
    """

    def __init__(self, embedding: EmbeddingOptions) -> None:
        self._embedding = embedding
        self._shared = shared.Shared()
        self._retried = Metrics.counter("ragbeam.embed", "chunks_retried")
        self._failed = Metrics.counter("ragbeam.embed", "chunks_failed")

    def _model(self) -> Any:
        return self._shared.acquire(lambda: _SharedModel(load_sentence_model(self._embedding)),
                                    tag=repr(self._embedding)).model

    def process(self, failed: tuple[list[tuple[dict[str, Any], str]], BaseException]):
        batch, first_error = failed
        self._retried.inc(len(batch))
        try:
            vectors = encode_texts(self._model(), [text for _, text in batch],
                                   self._embedding.batch_size)
        except Exception as exc:
            self._failed.inc(len(batch))
            message = (f"{type(first_error).__name__}: {first_error}; "
                       f"retried: {type(exc).__name__}: {exc}")
            for doc_id in sorted({row["doc_id"] for row, _ in batch}):
                yield beam.pvalue.TaggedOutput(EMBED_FAILED, (doc_id, message))
            return
        progress.tick(progress.EMBEDDED, len(batch))
        for (row, _), vector in zip(batch, vectors, strict=True):
            yield {**row, "embedding": [float(x) for x in vector]}


class _SharedModel:
    """``shared.Shared`` keeps weak references: the model needs a class instance."""

    def __init__(self, model: Any) -> None:
        self.model = model


class EmbedChunkRows(beam.PTransform):
    """Fill ``embedding`` for chunk rows that have none (rows that do are passed on).

    Returns ``{"chunks": rows, EMBED_FAILED: (doc_id, message)}``: a batch that
    fails is retried once; the documents of rows that still have no vector are
    listed on ``EMBED_FAILED`` and must be failed by the caller.
    """

    def __init__(self, embedding: EmbeddingOptions) -> None:
        super().__init__()
        self._embedding = embedding

    def expand(self, rows: beam.PCollection) -> dict[str, beam.PCollection]:
        todo, done = rows | "Needs embedding" >> beam.Partition(_without_embedding, 2)
        embedded, dead = (
            todo
            | "Chunk text" >> beam.Map(lambda row: (row, chunk_embedding_text(row)))
            | "Embed chunks" >> embed_sentences(
                SentenceEmbeddingHandler(self._embedding, count_over_window=True))
        )
        filled = embedded | "Set embedding" >> beam.MapTuple(_with_vector)
        retried = dead.failed_inferences | "Retry failed batches" >> beam.ParDo(
            RetryFailedBatches(self._embedding)).with_outputs(EMBED_FAILED, main="rows")
        chunks = (done, filled, retried.rows) | "All chunk rows" >> beam.Flatten()
        return {"chunks": chunks, EMBED_FAILED: retried[EMBED_FAILED]}


def embedding_summary(result: Any) -> dict[str, int]:
    """Chunk-embedding counters of a finished run (for run.json and the warning):
    ``chunks_over_window``; empty when the runner reports no metrics."""
    from apache_beam.metrics.metric import MetricsFilter

    from ragbeam.transforms.embed.handler import OVER_WINDOW

    try:
        metrics = result.metrics().query(MetricsFilter().with_namespace("ragbeam.embed"))
    except Exception:
        return {}
    total = 0
    for counter in metrics.get("counters", ()):
        if counter.key.metric.name == OVER_WINDOW:
            value = counter.committed if counter.committed is not None else counter.attempted
            total += int(value or 0)
    return {OVER_WINDOW: total}
