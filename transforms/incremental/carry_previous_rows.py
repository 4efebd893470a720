"""``CarryPreviousRows``: the previous run's rows carried over, or sent on to
``Reconcile`` and ``ReuseEmbeddings``, as each document's verdict says."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import apache_beam as beam
from apache_beam.metrics import Metrics

from ragbeam.schemas.changes import ChangeRow
from ragbeam.schemas.chunks import ChunkRow
from ragbeam.schemas.documents import DocumentRow
from ragbeam.schemas.errors import ErrorRow
from ragbeam.transforms import progress
from ragbeam.transforms.embed.sparse import with_sparse_vector
from ragbeam.transforms.incremental.embeddings import embedding_key, embedding_source
from ragbeam.transforms.incremental.join import CHUNKS, DOCUMENTS, NAMESPACE
from ragbeam.transforms.incremental.previous_tables import read_rows
from ragbeam.transforms.plan.carry import carry_chunk, carry_document
from ragbeam.transforms.plan.decide import CARRIED, Verdict
from ragbeam.transforms.plan.guard import DeleteGuard
from ragbeam.transforms.plan.layers import LayerPlan, Work
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
    guard's counts) → its rows, each carried over or sent on as the carry rules say
    (``plan/carry.py``): carried documents and their kept failures' ``errors`` rows,
    vanished rows and tombstones (``CARRIED_DOCUMENTS``, ``CARRIED_ERRORS``), carried
    chunks (main output) with their upserts (``CARRIED_CHANGES``); the previous rows
    of documents processed again, deleted or moved, by doc id, for ``Reconcile``
    (``PREVIOUS_STATE``), and their chunks' vectors for ``ReuseEmbeddings``
    (``PREVIOUS_EMBEDDINGS``); the cleaned ``Document`` of each document chunked
    again without extracting it (``REUSED_DOCUMENTS``)."""

    def __init__(self, config_hash: str, guard: DeleteGuard | None = None,
                 layers: LayerPlan | None = None) -> None:
        self._config_hash = config_hash
        self._guard = guard or DeleteGuard()
        self._layers = layers or LayerPlan()
        self._sparse_vector = None
        self._reused = Metrics.counter(NAMESPACE, "documents_extraction_reused")

    def setup(self) -> None:
        if self._layers.sparse is Work.REDO:  # the tokenizers load only when needed

            self._sparse_vector = with_sparse_vector

    def process(self, file: tuple[str, str], verdicts: Mapping[str, Verdict],
                guard_counts: tuple[str, tuple[int, int, int]] = ("", (0, 0, 0))):
        # The delete guard, over (vanished, previous documents, current files).
        deletes_held = self._guard.holds(*guard_counts[1])
        path, table = file
        carry = self._document if table == DOCUMENTS else self._chunk
        for row in read_rows(path, table):
            yield from carry(row, verdicts.get(row["doc_id"]), deletes_held)

    def _document(self, row: dict[str, Any], verdict: Verdict | None, deletes_held: bool):
        carried = carry_document(row, verdict, self._config_hash, deletes_held)
        if carried.reused is not None:
            self._reused.inc()
            yield beam.pvalue.TaggedOutput(REUSED_DOCUMENTS, carried.reused)
        if carried.outcome in CARRIED:
            progress.tick(progress.CARRIED)
        if carried.error is not None:
            yield beam.pvalue.TaggedOutput(CARRIED_ERRORS, carried.error)
        if carried.row is not None:
            yield beam.pvalue.TaggedOutput(CARRIED_DOCUMENTS, carried.row)
        if carried.reconcile is not None:
            yield beam.pvalue.TaggedOutput(
                PREVIOUS_STATE, (row["doc_id"], (DOCUMENTS, tuple(carried.reconcile))))

    def _chunk(self, row: dict[str, Any], verdict: Verdict | None, deletes_held: bool):
        carried = carry_chunk(row, verdict, self._config_hash, deletes_held, self._layers,
                              self._sparse_vector)
        if carried.change is not None:
            yield beam.pvalue.TaggedOutput(CARRIED_CHANGES, carried.change)
        if carried.row is not None:
            yield carried.row
        if carried.reconcile is not None:
            chunk = carried.reconcile
            yield beam.pvalue.TaggedOutput(PREVIOUS_STATE, (chunk["doc_id"], (CHUNKS, chunk)))
            if carried.offers_vector:  # keyed by what the embedder was given
                yield beam.pvalue.TaggedOutput(
                    PREVIOUS_EMBEDDINGS, (embedding_key(chunk), embedding_source(chunk)))
