"""The Beam side of a sync: after the tables are committed, make one store equal
the ``chunks`` table.

    full sync:        chunks + the store's ids → Join by chunk id → full_sync_writes()
    incremental sync: chunks + changes → Join by document → incremental_writes()
      (records.py: upsert rows, delete ids)
      → Delete                   in batches, retried; waits for the committed tables
      → Upsert                   Beam's own writer (apache_beam.ml.rag.ingestion),
                                 after every delete

Usage, inside any pipeline that has committed its tables (``committed`` is any
PCollection that is complete only then, e.g. ``WriteTables``' file names)::

    plan = prepare_sync(parse_sink_uri("qdrant:./index"), 384, previous=None,
                        run_token=new_run_token())
    {"chunks": chunks, "changes": changes, "committed": written} | SyncToVectorStore(plan)

then ``finish_sync(plan, ...)`` once the pipeline is done (``sync.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import apache_beam as beam
from apache_beam.metrics import Metrics

from ragbeam.transforms.metrics import counter_totals, summed
from ragbeam.transforms.sink.base import VectorStore, retrying
from ragbeam.transforms.sink.records import (
    DELETE,
    UPSERT,
    embeddable_item,
    full_sync_writes,
    incremental_writes,
)
from ragbeam.transforms.sink.stores import open_store
from ragbeam.transforms.sink.sync import SyncPlan

METRICS_NAMESPACE = "ragbeam.sink"


def counter_name(plan: SyncPlan, what: str) -> str:
    return f"{plan.spec.key}.{what}"


def sink_counters(result: Any, plan: SyncPlan) -> dict[str, int]:
    """``upserts`` and ``deletes`` of one sink in a finished run (empty if the
    runner reports no metrics)."""
    totals = counter_totals(result, METRICS_NAMESPACE)
    if totals is None:
        return {}
    return summed(totals, {(METRICS_NAMESPACE, counter_name(plan, what)): what
                           for what in ("upserts", "deletes")})


class ListStoredIds(beam.DoFn):
    """One impulse → every chunk id the store holds (full sync only)."""

    def __init__(self, plan: SyncPlan) -> None:
        self._plan = plan

    def process(self, _: Any, committed: int) -> Iterator[tuple[str, bool]]:
        spec = self._plan.write_spec  # the new collection in a cutover

        def list_ids() -> list[str]:
            with open_store(spec) as store:
                return store.stored_ids()

        for chunk_id in retrying(spec, "list stored ids", list_ids):
            yield chunk_id, True


class DeleteFromStore(beam.DoFn):
    """Chunk ids → deleted, in batches of the sink's ``batch_size``; emits the number
    deleted per batch. The ``committed`` side input holds it back until the tables
    are in place."""

    def __init__(self, plan: SyncPlan) -> None:
        self._plan = plan
        self._batch: list[str] = []
        self._deletes = Metrics.counter(METRICS_NAMESPACE, counter_name(plan, "deletes"))

    def start_bundle(self) -> None:
        self._batch = []

    def process(self, chunk_id: str, committed: int) -> Iterator[int]:
        self._batch.append(chunk_id)
        if len(self._batch) >= self._plan.spec.batch_size:
            yield self._flush()

    def finish_bundle(self) -> Iterator[beam.utils.windowed_value.WindowedValue]:
        if self._batch:
            yield beam.transforms.window.GlobalWindows.windowed_value(self._flush())

    def _flush(self) -> int:
        batch, self._batch = self._batch, []
        spec = self._plan.write_spec  # the new collection in a cutover

        def delete() -> None:
            # Opened per batch: a local store (Milvus Lite, Qdrant's local mode) is
            # locked by its client, and Beam's upsert writer opens its own later.
            with open_store(spec) as store:
                store.delete(batch)

        retrying(spec, f"delete {len(batch)} chunks", delete)
        self._deletes.inc(len(batch))
        return len(batch)


def _tagged(write: tuple[str, Any]) -> Any:
    kind, value = write
    return value if kind == UPSERT else beam.pvalue.TaggedOutput(DELETE, value)


def _full_sync_writes(element: tuple[str, Mapping[str, Iterable[Any]]]) -> Iterator[Any]:
    chunk_id, grouped = element
    write = full_sync_writes(chunk_id, grouped["chunk"], any(grouped["stored"]))
    if write is not None:
        yield _tagged(write)


def _incremental_writes(element: tuple[str, Mapping[str, Iterable[Any]]]) -> Iterator[Any]:
    _, grouped = element
    for write in incremental_writes(grouped["chunk"], grouped["change"]):
        yield _tagged(write)


class _ToItem(beam.DoFn):
    """Chunk row → Beam's ``EmbeddableItem`` under the store's id; waits for the deletes."""

    def __init__(self, plan: SyncPlan, store_type: type[VectorStore]) -> None:
        self._plan = plan
        self._store_type = store_type
        self._upserts = Metrics.counter(METRICS_NAMESPACE, counter_name(plan, "upserts"))

    def process(self, row: Mapping[str, Any], deleted: int) -> Iterator[Any]:
        self._upserts.inc()
        yield embeddable_item(row, self._store_type.item_id(row["chunk_id"]),
                              self._plan.multivector)


class SyncToVectorStore(beam.PTransform):
    """``{"chunks", "changes", "committed"}`` → the store of ``plan`` equals ``chunks``.

    ``chunks``: every row of the run's chunks table (with vectors); ``changes``: the
    run's change rows; ``committed``: a PCollection complete only once the tables
    are (nothing is written to the store before); optional ``held``: one bool, True
    when the delete guard held the run, which then writes nothing to the store.
    Returns Beam's writer output.
    """

    def __init__(self, plan: SyncPlan) -> None:
        super().__init__()
        self._plan = plan

    def expand(self, inputs: Mapping[str, beam.PCollection]) -> beam.PCollection:
        plan = self._plan
        store = open_store(plan.write_spec)  # not connected: its type and Beam writer config
        committed = beam.pvalue.AsSingleton(
            inputs["committed"] | "Tables committed" >> beam.combiners.Count.Globally())
        chunks = inputs["chunks"]
        if plan.full:
            stored = (chunks.pipeline
                      | "Start listing" >> beam.Create([None])
                      | "Stored ids" >> beam.ParDo(ListStoredIds(plan), committed))
            writes = (
                {"chunk": chunks | "Chunk by id" >> beam.Map(lambda r: (r["chunk_id"], r)),
                 "stored": stored}
                | "Join by chunk id" >> beam.CoGroupByKey()
                | "Plan writes" >> beam.FlatMap(_full_sync_writes).with_outputs(
                    DELETE, main=UPSERT))
        else:
            writes = (
                {"chunk": chunks | "Chunk by document" >> beam.Map(lambda r: (r["doc_id"], r)),
                 "change": inputs["changes"] | "Change by document" >> beam.Map(
                     lambda c: (c["doc_id"], c))}
                | "Join by document" >> beam.CoGroupByKey()
                | "Plan writes" >> beam.FlatMap(_incremental_writes).with_outputs(
                    DELETE, main=UPSERT))
        if "held" in inputs:  # one bool: this run writes nothing to the store (exit 4)
            held = beam.pvalue.AsSingleton(inputs["held"])
            writes = {kind: writes[kind] | f"Unless held ({kind})" >> beam.Filter(
                lambda _, held: not held, held) for kind in (DELETE, UPSERT)}
        deleted = (
            writes[DELETE]
            | "Delete" >> beam.ParDo(DeleteFromStore(plan), committed)
            | "Count deleted" >> beam.CombineGlobally(sum))
        return (
            writes[UPSERT]
            | "To items" >> beam.ParDo(_ToItem(plan, type(store)),
                                       beam.pvalue.AsSingleton(deleted))
            | "Upsert" >> store.write_config(plan.dimension, plan.sparse).create_write_transform()
        )
