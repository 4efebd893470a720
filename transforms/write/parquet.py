"""Write stage: every output table of a run through one Parquet sink.

Why not one ``beam.io.WriteToParquet`` per table, as before: each expands into
13 transforms and 5 fused stages (initialise, write, group, pre-finalise,
finalise), and Beam pays per transform (signature inspection at construction
and again in every worker) and per stage (one bundle each). With four tables
that was half of an incremental re-run's time, where every document is carried
over and the run is nothing but fixed cost. One sink needs one shuffle for all
tables, and the tables also appear together: nothing is renamed into place
before every table's shards are written.

It keeps the commit protocol of Beam's file sinks:

* each bundle writes its own shard per table, under ``OUTPUT/_temporary/``;
* the shard names leave the bundle only when the bundle commits, so the files
  of a failed or retried attempt are never renamed into place;
* one finalize step (after a shuffle that sees every committed shard) renames
  them to ``OUTPUT/TABLE/part-NNNNN-of-MMMMM.parquet``, writes an empty file
  for a table without rows (readers always find the schema) and deletes
  ``_temporary``. Like Beam's ``FileBasedSink.finalize_write``, it learns what
  is where from two listings and renames in batches on a thread pool, so its
  cost on an object store does not grow one round trip per shard. It can be
  retried: renames already done are skipped.

Each shard also carries counts of what it wrote (``stats.py``: rows by status,
error type, change op…), emitted with its name, so the finalize step knows the
committed output's counts exactly, without reading anything back: its one
output, ``WrittenTables``, is what ``run.json`` is made from.
"""

from __future__ import annotations

import collections
import os
import shutil
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import apache_beam as beam
import pyarrow as pa
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics import Metrics
from apache_beam.transforms.window import GlobalWindows

from ragbeam.transforms.write.shards import (
    ParquetShard,
    WrittenTables,
    final_shard_name,
    table_dir,
    temp_dir,
    write_empty_table,
)

_ALL_SHARDS = "shards"  # the one key the finalize step groups every shard under


# Renames run in batches (``FileSystems.get_chunk_size``: 100 on GCS, one batch
# request each) on up to this many threads, as Beam's own file sinks do.
RENAME_THREADS = 16


class LostShardError(Exception):
    """A committed shard is neither at its temporary nor at its final name."""


def finalize_tables(output: str, schemas: Mapping[str, pa.Schema],
                    shards: Iterable[tuple[str, str]]) -> list[str]:
    """Rename committed ``(table, temp path)`` shards into their final names.

    Every table in ``schemas`` gets at least one file. What is where is found by
    two listings (the temp dir, the output's tables), not one existence check per
    shard; the renames go in batches on a thread pool. Idempotent: a shard
    already renamed by an earlier attempt (temp gone, final there) is skipped,
    and one renamed halfway (an object store's copy done, delete not) is renamed
    again. Returns the final file names, table by table.
    """
    by_table: dict[str, list[str]] = {table: [] for table in schemas}
    for table, path in shards:
        by_table[table].append(path)
    sources: list[str] = []
    destinations: list[str] = []
    for table, schema in schemas.items():
        paths = sorted(by_table[table])  # temp names are random: sorted, the order is stable
        if not paths:
            paths = [write_empty_table(_temp_shard_name(output, table), schema)]
        if "://" not in output:  # local: rename needs the directory; object stores have none
            _mkdirs(table_dir(output, table))
        for index, path in enumerate(paths):
            sources.append(path)
            destinations.append(final_shard_name(output, table, index, len(paths)))
    in_temp = _listed(FileSystems.join(temp_dir(output), "*"))
    in_place = _listed(*(FileSystems.join(table_dir(output, t), "*.parquet") for t in schemas))
    pending = []
    for source, destination in zip(sources, destinations, strict=True):
        if source in in_temp:
            pending.append((source, destination))
        elif destination not in in_place:
            raise LostShardError(f"Rename of {source} to {destination} impossible: the "
                                 "committed shard is at neither name")
    _rename_in_batches(output, pending)
    remove_temp_dir(output)
    return destinations


def _listed(*patterns: str) -> set[str]:
    return {m.path for result in FileSystems.match(list(patterns)) for m in result.metadata_list}


def _rename_in_batches(output: str, pairs: list[tuple[str, str]]) -> None:
    if not pairs:
        return
    size = max(1, FileSystems.get_chunk_size(output))
    batches = [pairs[i:i + size] for i in range(0, len(pairs), size)]

    def rename(batch: list[tuple[str, str]]) -> None:
        FileSystems.rename([s for s, _ in batch], [d for _, d in batch])

    if len(batches) == 1:
        rename(batches[0])
        return
    with ThreadPoolExecutor(min(RENAME_THREADS, len(batches))) as pool:
        for future in [pool.submit(rename, batch) for batch in batches]:
            future.result()  # the first failure, if any, fails the finalize (retried)


def remove_temp_dir(output: str) -> None:
    """Delete ``_temporary``: by then it holds only shards of failed attempts."""
    temp = temp_dir(output)
    if "://" not in output:
        shutil.rmtree(temp, ignore_errors=True)
        return
    leftovers = FileSystems.match([FileSystems.join(temp, "*")])[0].metadata_list
    if leftovers:  # object stores have no directories: delete what is under the prefix
        FileSystems.delete([m.path for m in leftovers])


def _temp_shard_name(output: str, table: str) -> str:
    return FileSystems.join(temp_dir(output), f"{table}-{uuid.uuid4().hex}.parquet")


def _mkdirs(path: str) -> None:
    if not FileSystems.exists(path):
        FileSystems.mkdirs(path)


RowCounters = Callable[[Mapping[str, Any]], Iterable[str]]


class WriteShards(beam.DoFn):
    """Rows of one table → one temp shard per bundle; emits ``(key, (table, path,
    counts))`` from ``finish_bundle``, i.e. only for bundles that commit."""

    def __init__(self, output: str, table: str, schema: pa.Schema,
                 counters: RowCounters | None = None) -> None:
        self._output = output
        self._table = table
        self._schema = schema
        self._counters = counters
        self._shard: ParquetShard | None = None
        self._counts: collections.Counter[str] = collections.Counter()
        self._rows = Metrics.counter("ragbeam.write", f"{table}_rows")

    def start_bundle(self) -> None:
        self._shard = None
        self._counts = collections.Counter()
        if "://" not in self._output:  # marks the write stage as started (see docs/reliability.md)
            os.makedirs(temp_dir(self._output), exist_ok=True)

    def process(self, row: Mapping[str, Any]) -> None:
        if self._shard is None:
            self._shard = ParquetShard(_temp_shard_name(self._output, self._table), self._schema)
        self._shard.write(row)
        if self._counters is not None:
            self._counts.update(self._counters(row))

    def finish_bundle(self) -> Iterator[beam.utils.windowed_value.WindowedValue]:
        if self._shard is None:
            return
        shard, self._shard = self._shard, None
        path = shard.close()
        self._rows.inc(shard.rows_written)
        counts = {"rows": shard.rows_written, **self._counts}
        yield GlobalWindows.windowed_value((_ALL_SHARDS, (self._table, path, counts)))


class FinalizeTables(beam.DoFn):
    """All committed shards (plus the ``None`` seed) → one ``WrittenTables``."""

    def __init__(self, output: str, schemas: Mapping[str, pa.Schema]) -> None:
        self._output = output
        self._schemas = dict(schemas)

    def process(self, element: tuple[str, Iterable[tuple[str, str, Mapping[str, int]] | None]]
                ) -> Iterator[WrittenTables]:
        _, shards = element
        committed = [shard for shard in shards if shard is not None]
        counts: dict[str, collections.Counter[str]] = {
            table: collections.Counter() for table in self._schemas}
        for table, _, shard_counts in committed:
            counts[table].update(shard_counts)
        final = finalize_tables(self._output, self._schemas,
                                ((table, path) for table, path, _ in committed))
        files = {table: [path for path in final
                         if path.startswith(table_dir(self._output, table) + "/")]
                 for table in self._schemas}
        yield WrittenTables(files, {table: dict(sorted(c.items()))
                                    for table, c in counts.items()})


class WriteTables(beam.PTransform):
    """``{table: rows}`` → ``OUTPUT/TABLE/part-*.parquet`` for every table, with the
    given Arrow schemas; outputs one ``WrittenTables`` once all are in place.
    ``counters`` (per table) name what to count in each row (``stats.py``)."""

    def __init__(self, output: str, schemas: Mapping[str, pa.Schema],
                 counters: Mapping[str, RowCounters] | None = None) -> None:
        super().__init__()
        self._output = output
        self._schemas = dict(schemas)
        self._counters = dict(counters or {})

    def expand(self, tables: Mapping[str, beam.PCollection[dict]]
               ) -> beam.PCollection[WrittenTables]:
        if set(tables) != set(self._schemas):
            raise ValueError(f"tables {sorted(tables)} != schemas {sorted(self._schemas)}")
        pipeline = next(iter(tables.values())).pipeline
        # The seed makes the group exist even when no bundle wrote anything.
        seed = (pipeline | "Seed" >> beam.Impulse()
                | "Seed key" >> beam.Map(lambda _: (_ALL_SHARDS, None)))
        shards = [rows | f"Write {table}" >> beam.ParDo(
                      WriteShards(self._output, table, self._schemas[table],
                                  self._counters.get(table)))
                  for table, rows in tables.items()]
        return (
            (seed, *shards)
            | "All shards" >> beam.Flatten()
            | "After every bundle" >> beam.GroupByKey()
            | "Rename into place" >> beam.ParDo(FinalizeTables(self._output, self._schemas))
        )
