"""A run in which nothing changed, written without starting a pipeline.

``ragbeam run --previous DIR``: when the listing and DIR's documents prove that
every document is carried over as it was, and every layer's key is DIR's
(``transforms/incremental/unchanged.py`` decides), the pipeline would only
stream DIR's tables to the new output. Starting Beam for that (building the
graph, running its stages) is most of such a run's cost, so the run is written
here instead, with what the pipeline would have written, table by table:

* ``chunks``: DIR's files copied as they are (never linked: a later edit of one
  run's files must not change the other's), when their schema is the one this run
  writes; otherwise the pipeline runs;
* ``documents``: DIR's rows carried as ``CarryPreviousRows`` carries them (status
  ``unchanged``, a kept failure marked, a new modification time recorded; a
  tombstone, reported once, dropped); ``errors``: the kept failures' rows;
  ``changes``: none;
* ``run.json``: ``summarize`` over the counts the Parquet sink would have kept,
  with ``"pipeline": false`` and the reads the decision cost.

With ``--sink``, only when every store holds the previous run's chunks (an
incremental sync): it then holds this run's too, which ``finish_sync`` checks (the
store's count against the chunks table) before marking it synced; no chunk is
written to it. A store that needs a full sync takes the pipeline.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow.parquet as pq
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from ragbeam.pipeline.config import RunConfig
from ragbeam.transforms.incremental.unchanged import CarryOver
from ragbeam.transforms.types import SourceFile


def listed_sources(rows: Sequence[Mapping[str, Any]]) -> list[SourceFile]:
    """``run.dry_run``'s rows as the Match stage's ``SourceFile``s."""
    return [SourceFile(r["path"], r["doc_id"], r["bytes"], r["modified"], r["listed"])
            for r in rows]


def _files(run: str, table: str) -> list[str]:
    pattern = FileSystems.join(run, table, "*.parquet")
    return sorted(m.path for m in FileSystems.match([pattern])[0].metadata_list)


def _schema(path: str):
    with FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED) as f:
        return pq.read_schema(f)


def _rows_of(path: str) -> int:
    with FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED) as f:
        return pq.ParquetFile(f).metadata.num_rows


@dataclass(frozen=True)
class Unchanged:
    """Nothing to do: the previous run's files to carry, and the verdicts."""

    document_files: list[str]
    chunk_files: list[str]
    plan: CarryOver


def nothing_to_do(config: RunConfig, sources: Sequence[SourceFile]) -> Unchanged | None:
    """Whether every document of ``sources`` is carried from ``config.previous`` as it
    was (then the run needs no pipeline), deciding as the pipeline does; writes
    nothing. None: the pipeline runs."""
    from ragbeam.pipeline.summary import read_run_json
    from ragbeam.transforms.identity.hashing import hash_file
    from ragbeam.transforms.incremental.previous_tables import DOCUMENTS, read_rows
    from ragbeam.transforms.incremental.unchanged import carry_over
    from ragbeam.transforms.plan.decide import HEAD_COLUMNS, head_of
    from ragbeam.transforms.plan.layers import recorded_layer_keys

    if not config.previous:
        return None
    previous = config.previous
    before = recorded_layer_keys(read_run_json(previous))
    now = config.layer_keys
    # Every layer as before (a key the previous run did not record is not compared:
    # its chunk layer's key covers its extraction's).
    if any(before[layer] != now[layer] for layer in ("chunks", "dense", "sparse")) or (
            before["extraction"] not in (None, now["extraction"])):
        return None
    document_files = _files(previous, "documents")
    heads = [head_of(row) for path in document_files
             for row in read_rows(path, DOCUMENTS, HEAD_COLUMNS)]
    max_bytes = config.match.max_file_bytes
    plan = carry_over(sources, heads, config.config_hash, config.route,
                      lambda s: hash_file(s.uri, s.size_bytes, max_bytes),
                      config.retry_errors, config.verify_hashes)
    if plan is None:
        return None
    schemas = config.table_schemas()
    chunk_files = _files(previous, "chunks")
    if any(_schema(path) != schemas["chunks"] or
           _schema(path).metadata != schemas["chunks"].metadata for path in chunk_files):
        return None  # written by another schema: the pipeline writes this run's
    return Unchanged(document_files, chunk_files, plan)


def _copy_files(sources: Sequence[str], destinations: Sequence[str]) -> None:
    """Copy each file, within one file system by the file system's own copy, across
    two (a previous run in a bucket, a new one on local disk) as a stream: Beam's
    ``FileSystems.copy`` needs both sides on the same file system."""
    for source, destination in zip(sources, destinations, strict=True):
        if FileSystems.get_scheme(source) == FileSystems.get_scheme(destination):
            FileSystems.copy([source], [destination])
            continue
        with FileSystems.open(source, compression_type=CompressionTypes.UNCOMPRESSED) as read, \
                FileSystems.create(destination,
                                   compression_type=CompressionTypes.UNCOMPRESSED) as write:
            while block := read.read(8 << 20):
                write.write(block)


class _NothingRan:
    """A runner result whose metrics are those of a run that processed nothing."""

    def metrics(self) -> _NothingRan:
        return self

    def query(self, _filter: object = None) -> dict[str, list]:
        return {"counters": [], "gauges": [], "distributions": []}


def write_unchanged(config: RunConfig, unchanged: Unchanged, started: float
                    ) -> dict[str, Any]:
    """Write the run from ``config.previous`` (``nothing_to_do`` said so); its run.json."""
    from ragbeam.pipeline.runner import metrics_summary
    from ragbeam.pipeline.summary import summarize, write_run_json
    from ragbeam.transforms.incremental.previous_tables import DOCUMENTS, read_rows
    from ragbeam.transforms.incremental.unchanged import carried_rows
    from ragbeam.transforms.write.parquet import (
        ParquetShard,
        WrittenTables,
        final_shard_name,
        table_dir,
        write_empty_table,
    )
    from ragbeam.transforms.write.stats import TABLE_COUNTERS

    document_files, chunk_files, plan = (unchanged.document_files, unchanged.chunk_files,
                                         unchanged.plan)
    schemas = config.table_schemas()
    files: dict[str, list[str]] = {}
    counts: dict[str, dict[str, int]] = {}

    def count(table: str, row: Mapping[str, Any]) -> None:
        for name in TABLE_COUNTERS[table](row):
            counts.setdefault(table, {})[name] = counts.setdefault(table, {}).get(name, 0) + 1

    for table in schemas:
        if not FileSystems.exists(directory := table_dir(config.output, table)):
            FileSystems.mkdirs(directory)
    copies = [final_shard_name(config.output, "chunks", i, len(chunk_files))
              for i in range(len(chunk_files))]
    _copy_files(chunk_files, copies)
    files["chunks"] = copies
    rows = sum(_rows_of(path) for path in chunk_files)
    counts["chunks"] = {"rows": rows, **({"embedded": rows} if config.embed_chunks else {})}

    errors: list[dict[str, Any]] = []
    files["documents"] = []
    for i, path in enumerate(document_files):
        shard = ParquetShard(final_shard_name(config.output, "documents", i,
                                              len(document_files)), schemas["documents"])
        for row in read_rows(path, DOCUMENTS):
            carried, error = carried_rows(row, plan.verdicts.get(row["doc_id"]),
                                          config.config_hash)
            if carried is None:
                continue
            shard.write(carried)
            count("documents", carried)
            if error is not None:
                errors.append(error)
                count("errors", error)
        files["documents"].append(shard.close())
    shard = ParquetShard(final_shard_name(config.output, "errors", 0, 1), schemas["errors"])
    for error in sorted(errors, key=lambda e: e["doc_id"]):
        shard.write(error)
    files["errors"] = [shard.close()]
    files["changes"] = [write_empty_table(final_shard_name(config.output, "changes", 0, 1),
                                          schemas["changes"])]

    summary = summarize(config, WrittenTables(files, counts), time.perf_counter() - started)
    # The launcher's sections a pipeline run has (extraction, coverage, embeddings, …),
    # as a run that processed nothing reports them, so readers of run.json find the
    # same keys whichever way the run went.
    summary.update(metrics_summary(_NothingRan()))
    summary["pipeline"] = False
    summary["reads"] = {"bytes_read": 0, "bytes_hashed": plan.bytes_hashed,
                        "files_hashed": plan.files_hashed,
                        "files_unchanged_by_listing": plan.files_unchanged_by_listing}
    write_run_json(config.output, summary)
    return summary
