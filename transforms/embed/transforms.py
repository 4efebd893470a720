"""The Embed stage: chunk embeddings (``--embed-chunks``).

``EmbedChunkRows`` fills the ``embedding`` column of chunk rows that do not have
one yet, through RunInference and the run's model. A batch that fails in the
model is retried once, then fails the documents of the chunks it could not
embed: an ``ok`` document never has a chunk without its vector. It never fails
the run. (Semantic chunking, which embeds sentences to cut, is part of the Chunk
stage: ``transforms/chunk/semantic_dofn.py``.)
"""

from __future__ import annotations

from typing import Any

import apache_beam as beam
import numpy as np
from apache_beam.metrics import Metrics
from apache_beam.ml.inference.base import KeyedModelHandler, RunInference

from ragbeam.schemas.chunks import TEXT_EMBEDDING, ChunkRow
from ragbeam.transforms import progress
from ragbeam.transforms.embed.handler import (
    EXTRA_TEXTS,
    OVER_WINDOW,
    LazySentenceModel,
    SentenceEmbeddingHandler,
    encode_counted,
    flat_texts,
    regrouped,
)
from ragbeam.transforms.embed.model import EmbeddingOptions
from ragbeam.transforms.embed.text import chunk_embedding_texts, first_vector_kept
from ragbeam.transforms.metrics import counter_totals, summed


def embed_sentences(handler: SentenceEmbeddingHandler) -> RunInference:
    return RunInference(KeyedModelHandler(handler)).with_exception_handling()


def _without_embedding(row: dict[str, Any], partitions: int, text_vector: bool = False) -> int:
    if row.get("embedding") is None or (text_vector and row.get(TEXT_EMBEDDING) is None):
        return 0
    return 1


EMBED_FAILED = "embed_failed"


def with_vectors(row: ChunkRow, vectors: Any) -> ChunkRow:
    """``row`` with its vector, or with ``--text-vector`` its two (a ``(2, dimension)``
    block: the dense text's, then the chunk text's)."""
    vectors = np.asarray(vectors)
    if vectors.ndim == 1:
        return {**row, "embedding": [float(x) for x in vectors]}
    if first_vector_kept(row):  # its text twice, encoded once: only the second is new
        return {**row, TEXT_EMBEDDING: [float(x) for x in vectors[1]]}
    return {**row, "embedding": [float(x) for x in vectors[0]],
            TEXT_EMBEDDING: [float(x) for x in vectors[1]]}


# Rows that kept their dense vector and got only the second: their pair is one text
# encoded once, so ``texts_encoded`` counts one for them, not two.
FIRST_VECTORS_KEPT = "first_vectors_kept"


def _embedding_texts(row: ChunkRow, text_vector: bool) -> tuple[ChunkRow, Any]:
    if text_vector and first_vector_kept(row):
        Metrics.counter("ragbeam.embed", FIRST_VECTORS_KEPT).inc()
    return row, chunk_embedding_texts(row, text_vector)


def _with_vector(row: ChunkRow, result: Any) -> ChunkRow:
    # Counted on the progress line by the handler, per forward pass.
    return with_vectors(row, result.inference)


@beam.typehints.with_output_types(ChunkRow, **{EMBED_FAILED: tuple[str, str]})
class RetryFailedBatches(beam.DoFn):
    """A batch RunInference could not embed → embedded once more, here; rows that
    still get no vector become ``(doc_id, message)`` on ``EMBED_FAILED``, so their
    documents fail (never an ``ok`` document with a null vector).

    The model is loaded on the first failed batch only (most runs have none), once
    per process (``process_model``, shared with RunInference's handler).
    """

    def __init__(self, embedding: EmbeddingOptions) -> None:
        self._embedding = embedding
        self._model: LazySentenceModel | None = None
        self._retried = Metrics.counter("ragbeam.embed", "chunks_retried")
        self._failed = Metrics.counter("ragbeam.embed", "chunks_failed")

    def process(self, failed: tuple[list[tuple[dict[str, Any], str]], BaseException]):
        batch, first_error = failed
        self._retried.inc(len(batch))
        try:
            if self._model is None:
                self._model = LazySentenceModel(self._embedding)
            texts, per = flat_texts([text for _, text in batch])
            vectors = regrouped(encode_counted(self._model.get(), texts,
                                               self._embedding.batch_size, progress.EMBEDDED,
                                               per=per), per)
        except Exception as exc:
            self._failed.inc(len(batch))
            message = (f"{type(first_error).__name__}: {first_error}; "
                       f"retried: {type(exc).__name__}: {exc}")
            for doc_id in sorted({row["doc_id"] for row, _ in batch}):
                yield beam.pvalue.TaggedOutput(EMBED_FAILED, (doc_id, message))
            return
        for (row, _), vector in zip(batch, vectors, strict=True):
            yield with_vectors(row, vector)


class EmbedChunkRows(beam.PTransform):
    """Fill ``embedding`` for chunk rows that have none (rows that do are passed on).
    With ``text_vector`` (``--text-vector``), ``text_embedding`` too: each row's dense
    text and chunk text go into the same cross-document batch, one model call for
    both (a text equal to its dense text is encoded once: ``encode_texts``).

    Returns ``{"chunks": rows, EMBED_FAILED: (doc_id, message)}``: a batch that
    fails is retried once; the documents of rows that still have no vector are
    listed on ``EMBED_FAILED`` and must be failed by the caller.
    """

    def __init__(self, embedding: EmbeddingOptions, text_vector: bool = False) -> None:
        super().__init__()
        self._embedding = embedding
        self._text_vector = text_vector

    def expand(self, rows: beam.PCollection) -> dict[str, beam.PCollection]:
        text_vector = self._text_vector
        todo, done = rows | "Needs embedding" >> beam.Partition(_without_embedding, 2,
                                                                text_vector)
        embedded, dead = (
            todo
            | "Chunk text" >> beam.Map(_embedding_texts, text_vector)
            | "Embed chunks" >> embed_sentences(
                SentenceEmbeddingHandler(self._embedding, count_over_window=True,
                                         tick=progress.EMBEDDED,
                                         texts_per_element=2 if text_vector else 1))
        )
        filled = embedded | "Set embedding" >> beam.MapTuple(_with_vector).with_output_types(
            ChunkRow)
        retried = dead.failed_inferences | "Retry failed batches" >> beam.ParDo(
            RetryFailedBatches(self._embedding)).with_outputs(EMBED_FAILED, main="rows")
        chunks = (done, filled, retried.rows) | "All chunk rows" >> beam.Flatten()
        return {"chunks": chunks, EMBED_FAILED: retried[EMBED_FAILED]}


# RunInference's own counter of the texts it gave the model (in our namespace).
MODEL_INPUTS = "num_inferences"


def embedding_summary(result: Any) -> dict[str, int]:
    """Chunk-embedding counters of a finished run (for run.json and the warning):
    ``chunks_over_window``, and ``texts_encoded``: texts the model embedded in this run
    (reused vectors and duplicates cost none); empty when the runner reports no
    metrics."""
    totals = counter_totals(result, "ragbeam.embed")
    if totals is None:
        return {}
    summary = summed(totals, {("ragbeam.embed", OVER_WINDOW): OVER_WINDOW})
    # RunInference prefixes its counter names with the model handler's name.
    # With --text-vector each element is two texts: the second ones are counted apart.
    summary["texts_encoded"] = sum(value for (_, name), value in totals.items()
                                   if name.endswith(MODEL_INPUTS) or name == EXTRA_TEXTS) - sum(
        value for (_, name), value in totals.items() if name == FIRST_VECTORS_KEPT)
    return summary
