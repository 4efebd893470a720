"""Embed-stage steps over the output rows: a document whose chunks could not all be
embedded fails as a whole (``FailDocumentsWithoutVectors``), and the last good chunks
a failed document keeps get vectors of this run's model (``VectorsForKeptChunks``).
The chunk embedding itself is ``transforms.py`` ``EmbedChunkRows``."""

from __future__ import annotations

import apache_beam as beam

from ragbeam.schemas import ChunkRow, DocumentRow
from ragbeam.schemas.chunks import TEXT_EMBEDDING
from ragbeam.transforms.embed.model import EmbeddingOptions
from ragbeam.transforms.types import FAILURES, Failure, SourceFile, Stage


@beam.typehints.with_output_types(DocumentRow, **{FAILURES: Failure})
class FailDocumentsWithoutVectors(beam.DoFn):
    """An ``ok`` document row whose chunks could not all be embedded → an ``embed``
    failure (side input: doc id → message); other rows pass."""

    def process(self, row: DocumentRow, failed: dict[str, str]):
        message = failed.get(row["doc_id"])
        if message is None:
            yield row
            return
        source = SourceFile(row["source_uri"], row["doc_id"], row["bytes"])
        yield beam.pvalue.TaggedOutput(FAILURES, Failure(
            source, Stage.EMBED, "EmbeddingFailed", message,
            content_hash=row["content_hash"], media_type=row["media_type"]))


def _unfit_vector_dropped(row: ChunkRow, dimension: int, redo_all: bool,
                          text_vector: bool = False, first_kept: bool = False) -> ChunkRow:
    vector = row.get("embedding")
    second = row.get(TEXT_EMBEDDING)
    if (first_kept and not redo_all and vector is not None and len(vector) == dimension
            and (not text_vector or second is None)):
        # Only --text-vector changed: the dense vector stays, the second is made (or,
        # switched off, dropped).
        return {k: v for k, v in row.items() if k != TEXT_EMBEDDING}
    if (redo_all or vector is None or len(vector) != dimension
            or (text_vector and (second is None or len(second) != dimension))):
        out = {**row, "embedding": None}
        out.pop(TEXT_EMBEDDING, None)
        return out
    if not text_vector and TEXT_EMBEDDING in row:
        return {k: v for k, v in row.items() if k != TEXT_EMBEDDING}
    return row


def _cannot_embed_kept_chunks(failed: tuple[str, str]) -> None:
    doc_id, message = failed
    raise RuntimeError(
        f"document {doc_id} failed and its last good chunks have no vector of this run's "
        f"model, which could not embed them either ({message}); nothing was written: fix "
        "the model and run again (the previous output and any store are untouched)")


class VectorsForKeptChunks(beam.PTransform):
    """The last good chunks of a ``stale`` document, with vectors of this run's model.

    They come from an earlier run, which may have had no chunk embeddings, or
    another model (then a config change re-processed the document, and it failed).
    Their vectors are kept when that run's model was this one; otherwise they are
    embedded again here. If even that fails the run fails before anything is
    committed: the embedding column has no nulls, and a last good chunk is never
    dropped, so the previous output stays the one to use.
    """

    def __init__(self, embedding: EmbeddingOptions, dimension: int, redo_all: bool,
                 text_vector: bool = False, first_kept: bool = False) -> None:
        super().__init__()
        # The previous run's dense vectors are this run's first (the layers differ by
        # --text-vector alone: ``LayerPlan.first_vector_kept``).
        self._first_kept = first_kept
        self._embedding = embedding  # threads resolved for the runner
        self._dimension = dimension
        self._redo_all = redo_all  # the previous run's model differs (read before the graph)
        self._text_vector = text_vector  # --text-vector: chunks.text_embedding too

    def expand(self, chunks: beam.PCollection[ChunkRow]) -> beam.PCollection[ChunkRow]:
        # RunInference (apache_beam.ml) only for runs that embed.
        from ragbeam.transforms.embed.transforms import EMBED_FAILED, EmbedChunkRows

        embedded = (chunks
                    | "Unfit vectors" >> beam.Map(_unfit_vector_dropped, self._dimension,
                                                  self._redo_all, self._text_vector,
                                                  self._first_kept
                                                  ).with_output_types(ChunkRow)
                    | "Embed kept chunks" >> EmbedChunkRows(self._embedding, self._text_vector))
        _ = embedded[EMBED_FAILED] | "Fail the run" >> beam.Map(_cannot_embed_kept_chunks)
        return embedded["chunks"]
