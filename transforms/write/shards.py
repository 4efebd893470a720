"""The output tables' Parquet files, written without Beam: their names, the shard
writer (``ParquetShard``), and what a commit wrote (``WrittenTables``). The write
stage (``parquet.py``) writes through these, and so does a run written without a
pipeline (``pipeline/unchanged.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ragbeam.transforms import storage

TEMP_DIR = "_temporary"
CODEC = "zstd"
# What one open shard holds in memory (a DoFn instance has one per table per
# bundle, and a worker runs a DoFn instance per thread): rows as Python objects
# until ROWS_PER_BATCH of them or about BATCH_BYTES (a documents row carries its
# whole text), then Arrow batches until ROW_GROUP_BYTES, written as one row
# group. 16 MiB rather than Beam's 64 MiB keeps a worker with many threads
# within its budget; readers do not mind row groups of that size.
ROWS_PER_BATCH = 1000  # rows → Arrow in batches: the per-row Python cost stays low
BATCH_BYTES = 4 << 20
ROW_GROUP_BYTES = 16 << 20


def approximate_row_bytes(row: Mapping[str, Any]) -> int:
    """A cheap estimate of a row's data bytes: its strings and lists (vectors)."""
    size = 0
    for value in row.values():
        if isinstance(value, str):
            size += len(value)
        elif isinstance(value, list | tuple):
            size += 8 * len(value)
        else:
            size += 8
    return size


def table_dir(output: str, table: str) -> str:
    return storage.join(output, table)


def temp_dir(output: str) -> str:
    return storage.join(output, TEMP_DIR)


def final_shard_name(output: str, table: str, index: int, count: int) -> str:
    return storage.join(table_dir(output, table), f"part-{index:05d}-of-{count:05d}.parquet")


@dataclass(frozen=True)
class WrittenTables:
    """What the sink committed: final file names and summed counters, per table."""

    files: Mapping[str, list[str]]
    counts: Mapping[str, Mapping[str, int]]


class ParquetShard:
    """One Parquet file being written row by row: rows are converted to Arrow
    every ``ROWS_PER_BATCH`` and written as a row group every ``ROW_GROUP_BYTES``."""

    def __init__(self, path: str, schema: pa.Schema) -> None:
        self.path = path
        self.rows_written = 0
        self._schema = schema
        self._handle = storage.create(path)
        self._writer = pq.ParquetWriter(self._handle, schema, compression=CODEC)
        self._rows: list[Mapping[str, Any]] = []
        self._rows_bytes = 0
        self._batches: list[pa.RecordBatch] = []
        self._batch_bytes = 0

    def write(self, row: Mapping[str, Any]) -> None:
        self._rows.append(row)
        self._rows_bytes += approximate_row_bytes(row)
        if len(self._rows) >= ROWS_PER_BATCH or self._rows_bytes >= BATCH_BYTES:
            self._to_batch()
            if self._batch_bytes >= ROW_GROUP_BYTES:
                self._write_row_group()

    def close(self) -> str:
        self._to_batch()
        self._write_row_group()
        self._writer.close()
        self._handle.close()
        return self.path

    def _to_batch(self) -> None:
        if self._rows:
            batch = pa.RecordBatch.from_pylist(self._rows, schema=self._schema)
            _check_not_null(batch)
            self._batches.append(batch)
            self._batch_bytes += batch.nbytes
            self.rows_written += len(self._rows)
            self._rows, self._rows_bytes = [], 0

    def _write_row_group(self) -> None:
        if self._batches:
            self._writer.write_table(pa.Table.from_batches(self._batches, schema=self._schema))
            self._batches, self._batch_bytes = [], 0


def _check_not_null(batch: pa.RecordBatch) -> None:
    """Fail on a null in a non-nullable column. Arrow's Parquet writer refuses one in a
    flat column but writes a null fixed-size list (``embedding``) as a list of nulls,
    so it would pass unnoticed."""
    for field, column in zip(batch.schema, batch.columns, strict=True):
        if not field.nullable and column.null_count:
            raise ValueError(f"column {field.name!r} is not nullable but {column.null_count} "
                             f"of {batch.num_rows} rows have no value")


def write_empty_table(path: str, schema: pa.Schema) -> str:
    return ParquetShard(path, schema).close()
