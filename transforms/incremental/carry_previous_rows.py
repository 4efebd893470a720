"""``CarryPreviousRows``: the previous run's rows carried over, or sent on to
``Reconcile`` and ``ReuseEmbeddings``, as each document's verdict says."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import apache_beam as beam
from apache_beam.metrics import Metrics

from ragbeam.schemas.changes import ChangeRow
from ragbeam.schemas.chunks import ChunkRow
from ragbeam.schemas.documents import STATUS_DUPLICATE, DocumentRow
from ragbeam.schemas.errors import ErrorRow
from ragbeam.transforms import progress
from ragbeam.transforms.identity.content import CHUNK_BEARING
from ragbeam.transforms.incremental.changes import upsert_row_for_chunk
from ragbeam.transforms.incremental.compare import (
    CARRIED,
    Outcome,
    Verdict,
    as_python_row,
    carried_document_row,
    chunk_outcome,
    deleted_document_row,
    document_outcome,
    error_row_from_document,
    vanished_document_row,
)
from ragbeam.transforms.incremental.embeddings import embedding_key, embedding_source
from ragbeam.transforms.incremental.guard import DeleteGuard
from ragbeam.transforms.incremental.join import CHUNKS, DOCUMENTS, NAMESPACE
from ragbeam.transforms.incremental.layers import LayerPlan, Work, layers_changed, with_layers
from ragbeam.transforms.incremental.previous_tables import read_rows
from ragbeam.transforms.incremental.reconcile import Move, moved_chunk_row
from ragbeam.transforms.incremental.reuse_extraction import document_from_row
from ragbeam.transforms.types import Document

CARRIED_DOCUMENTS = "carried_documents"
CARRIED_CHUNKS = "carried_chunks"
CARRIED_ERRORS = "carried_errors"
CARRIED_CHANGES = "carried_changes"
PREVIOUS_STATE = "previous_state"
PREVIOUS_EMBEDDINGS = "previous_embeddings"
REUSED_DOCUMENTS = "reused_documents"

# Outputs that are no table's rows stay ``Any``: declaring them would change the
# coders of the keyed joins and combines they feed, which this typing does not need.
_UNTYPED = beam.typehints.Any


@beam.typehints.with_output_types(ChunkRow, **{CARRIED_DOCUMENTS: DocumentRow,
                                                CARRIED_ERRORS: ErrorRow,
                                                CARRIED_CHANGES: ChangeRow,
                                                PREVIOUS_STATE: _UNTYPED,
                                                PREVIOUS_EMBEDDINGS: _UNTYPED,
                                                REUSED_DOCUMENTS: Document})
class CarryPreviousRows(beam.DoFn):
    """A previous table's file (and, as side inputs, the verdicts and the delete
    guard's counts) → its rows, each carried over or sent on as its document's
    outcome says:

    * documents: the row carried (``CARRIED_DOCUMENTS``, plus its ``errors`` row
      for a kept failure), a tombstone for a deleted document, and the row itself,
      by doc id, for ``Reconcile`` when the document is processed again or deleted;
    * chunks: the row carried (main output; with its document's new URI and an
      upsert for it if the corpus moved), or, for a document processed again or
      deleted, the row by doc id for ``Reconcile`` and its vector for
      ``ReuseEmbeddings``;
    * when the delete guard holds (``guard.py``), the rows of a vanished document
      are carried as they are (status ``vanished``), not deleted;
    * a document chunked again without extracting it (``RECHUNK``): its cleaned
      ``Document``, rebuilt from the row (``REUSED_DOCUMENTS``), and the row for
      ``Reconcile`` as for any document processed again;
    * a carried chunk's vectors are as this run has them (``layers.py``): kept, or
      cleared for the embed step to make again, or sparse vectors made again or
      dropped, with an upsert when its row is not the previous one any more.
    """

    def __init__(self, config_hash: str, guard: DeleteGuard | None = None,
                 layers: LayerPlan | None = None) -> None:
        self._config_hash = config_hash
        self._guard = guard or DeleteGuard()
        self._layers = layers or LayerPlan()
        self._sparse_vector = None
        self._reused = Metrics.counter(NAMESPACE, "documents_extraction_reused")

    def setup(self) -> None:
        if self._layers.sparse is Work.REDO:  # the tokenizers load only when needed
            from ragbeam.transforms.embed.sparse import with_sparse_vector

            self._sparse_vector = with_sparse_vector

    def _with_layers(self, row: dict[str, Any], change: ChangeRow | None = None):
        """A carried chunk with this run's vectors, and its change row (None: none)."""
        if not self._layers.changes_carried_chunks:
            return row, change
        out = with_layers(row, self._layers, self._sparse_vector)
        if change is None and layers_changed(row, out, self._layers):
            change = upsert_row_for_chunk(out)
        return out, change

    def process(self, file: tuple[str, str], verdicts: Mapping[str, Verdict],
                guard_counts: tuple[str, tuple[int, int, int]] = ("", (0, 0, 0))):
        # The delete guard, over (vanished, previous documents, current files).
        deletes_held = self._guard.holds(*guard_counts[1])
        path, table = file
        carry = self._document if table == DOCUMENTS else self._chunk
        for row in read_rows(path, table):
            yield from carry(row, verdicts.get(row["doc_id"]), deletes_held)

    def _document(self, row: dict[str, Any], verdict: Verdict | None, deletes_held: bool):
        doc_id = row["doc_id"]
        outcome = document_outcome(row, verdict, self._config_hash)
        moved = verdict is not None and verdict.moved_to is not None
        if outcome is Outcome.RECHUNK:
            assert verdict is not None and verdict.source is not None
            self._reused.inc()
            yield beam.pvalue.TaggedOutput(REUSED_DOCUMENTS,
                                           document_from_row(as_python_row(row), verdict.source))
        if outcome in CARRIED:
            progress.tick(progress.CARRIED)
            carried = carried_document_row(row, outcome, verdict)
            if outcome is Outcome.KEPT_ERROR:
                yield beam.pvalue.TaggedOutput(CARRIED_ERRORS, error_row_from_document(carried))
            yield beam.pvalue.TaggedOutput(CARRIED_DOCUMENTS, carried)
        elif (outcome is Outcome.DELETED and deletes_held and not moved
              and row["status"] != STATUS_DUPLICATE):
            # The delete guard holds this run's deletions: served on as it was.
            yield beam.pvalue.TaggedOutput(CARRIED_DOCUMENTS, vanished_document_row(row))
        elif outcome in (Outcome.DUPLICATE, Outcome.ADOPTED) and not moved and \
                row["status"] not in CHUNK_BEARING:
            return  # no chunks to delete; its row is made again (duplicate) or taken over
        elif outcome not in (Outcome.GONE, Outcome.NEW):  # not a tombstone (reported once)
            deleted = outcome in (Outcome.DELETED, Outcome.DUPLICATE)
            if outcome is Outcome.DELETED:
                yield beam.pvalue.TaggedOutput(CARRIED_DOCUMENTS, deleted_document_row(
                    row, self._config_hash, verdict.moved_to if moved else None))
            move = Move(verdict.moved_to, verdict.moved_uri, verdict.moved_modified or "") \
                if moved else None
            # Re-processed, deleted or moved: ``Reconcile`` diffs its chunks against the
            # new ones, serves them on if re-processing fails (last good version wins),
            # or rewrites them under the document that took them over.
            yield beam.pvalue.TaggedOutput(
                PREVIOUS_STATE, (doc_id, (DOCUMENTS, (as_python_row(row), deleted, move))))

    def _chunk(self, row: dict[str, Any], verdict: Verdict | None, deletes_held: bool):
        outcome = chunk_outcome(row, verdict, self._config_hash)
        held = (outcome is Outcome.DELETED and deletes_held
                and (verdict is None or verdict.moved_to is None))
        if held:
            chunk, change = self._with_layers(as_python_row(row))
            if change is not None:
                yield beam.pvalue.TaggedOutput(CARRIED_CHANGES, change)
            yield chunk
        elif outcome in CARRIED:
            uri = verdict.uri if verdict is not None and verdict.uri else row["source_uri"]
            chunk, change = self._with_layers(*moved_chunk_row(row, uri))
            if change is not None:
                yield beam.pvalue.TaggedOutput(CARRIED_CHANGES, change)
            yield chunk
        else:
            chunk = as_python_row(row)
            yield beam.pvalue.TaggedOutput(PREVIOUS_STATE, (chunk["doc_id"], (CHUNKS, chunk)))
            if (outcome.needs_processing and chunk.get("embedding") is not None
                    and self._layers.dense is Work.KEEP):
                # A vector that the document's re-processed chunks may reuse (of this
                # run's model), keyed by what the embedder was given.
                yield beam.pvalue.TaggedOutput(
                    PREVIOUS_EMBEDDINGS, (embedding_key(chunk), embedding_source(chunk)))
