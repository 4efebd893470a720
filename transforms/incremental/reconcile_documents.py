"""``Reconcile``: this run's failures and chunk digests meet the previous rows of
re-processed and deleted documents by doc id; ``reconcile.py`` decides the rows."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import apache_beam as beam
from apache_beam.metrics import Metrics

from ragbeam.schemas.changes import ChangeRow
from ragbeam.schemas.chunks import ChunkRow
from ragbeam.schemas.documents import STATUS_STALE, DocumentRow
from ragbeam.schemas.errors import ErrorRow
from ragbeam.transforms.incremental.carry_previous_rows import PREVIOUS_STATE
from ragbeam.transforms.incremental.changes import chunk_row_digest
from ragbeam.transforms.incremental.join import (
    CHUNKS,
    DIGESTS,
    DOCUMENTS,
    FAILURES,
    NAMESPACE,
    grouped_by_tag,
)
from ragbeam.transforms.incremental.reconcile import PreviousState, reconcile_document


@beam.typehints.with_output_types(ChangeRow, documents=DocumentRow, chunks=ChunkRow,
                                  errors=ErrorRow)
class ReconcileDocuments(beam.DoFn):
    """``(doc_id, [(FAILURES, Failure) | (DIGESTS, (uri, chunk_id, digest)) |
    (DOCUMENTS, (row, deleted, move)) | (CHUNKS, row)])`` → the rows ``reconcile.py``
    decides, each under its table's tag (``documents``, ``chunks``, ``errors``;
    changes are the main output)."""

    def __init__(self, config_hash: str) -> None:
        self._config_hash = config_hash
        self._stale = Metrics.counter(NAMESPACE, "stale")

    def process(self, element: tuple[str, Iterable[tuple[str, Any]]]):
        doc_id, values = element
        grouped = grouped_by_tag(values)
        current = grouped.get(DIGESTS, [])
        document = next(iter(grouped.get(DOCUMENTS, ())), None)
        previous = None
        if document is not None:
            row, deleted, move = document
            previous = PreviousState(row, tuple(grouped.get(CHUNKS, ())), deleted=deleted,
                                     move=move)
        result = reconcile_document(
            doc_id,
            grouped.get(FAILURES, []),
            previous,
            {chunk_id: digest for _, chunk_id, digest in current},
            current[0][0] if current else None,
            self._config_hash,
        )
        self._stale.inc(sum(d["status"] == STATUS_STALE for d in result.documents))
        for table, rows in (("documents", result.documents), ("chunks", result.chunks),
                            ("errors", result.errors)):
            for row in rows:
                yield beam.pvalue.TaggedOutput(table, row)
        yield from result.changes


def _chunk_digest(row: Mapping[str, Any]) -> tuple[str, tuple[str, tuple[str, str, str]]]:
    return row["doc_id"], (DIGESTS, (row["source_uri"], row["chunk_id"], chunk_row_digest(row)))


class Reconcile(beam.PTransform):
    """This run's failures and chunk rows + the previous rows of re-processed and
    deleted documents → ``{"documents", "chunks", "errors", "changes"}``: error or
    stale rows, carried chunks of stale documents, error rows, and every change row
    of re-processed, new and deleted documents (``reconcile.py``).

    Input: ``{"failures", "chunks"}`` of this run and ``"previous_state"`` from
    ``CompareWithPrevious``.
    """

    def __init__(self, config_hash: str) -> None:
        super().__init__()
        self._config_hash = config_hash

    def expand(self, inputs: Mapping[str, beam.PCollection]) -> dict[str, beam.PCollection]:
        failures = inputs["failures"] | "Failures by doc id" >> beam.Map(
            lambda failure: (failure.source.doc_id, (FAILURES, failure)))
        current = inputs["chunks"] | "Chunk digests by doc id" >> beam.Map(_chunk_digest)
        reconciled = (
            (failures, current, inputs[PREVIOUS_STATE])
            | "Together" >> beam.Flatten()
            | "Join by doc id" >> beam.GroupByKey()
            | "Last good version wins" >> beam.ParDo(
                ReconcileDocuments(self._config_hash)
            ).with_outputs("documents", "chunks", "errors", main="changes")
        )
        return {tag: reconciled[tag] for tag in ("documents", "chunks", "errors", "changes")}
