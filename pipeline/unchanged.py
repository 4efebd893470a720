"""A run in which nothing changed, written without starting a pipeline.

``ragbeam run --previous DIR``: when the listing and DIR's documents prove that
every document is carried over as it was, and every layer's key is DIR's
(``transforms/incremental/unchanged.py`` decides, by the run's own plan), the
pipeline would only stream DIR's tables to the new output. Starting Beam for that
(importing it, building the graph, running its stages) is most of such a run's
cost, so the run is written here instead, with what the pipeline would have
written, table by table, and without importing Beam: the files go through
``transforms/storage.py`` (local paths, ``gs://``):

* ``chunks`` and ``terms`` (their document frequencies): DIR's files copied as they
  are (never linked: a later edit of one run's files must not change the other's),
  when their schemas are the ones this run writes; otherwise the pipeline runs;
* ``documents``: DIR's rows carried by the carry rules ``CarryPreviousRows`` applies
  (``transforms/plan/carry.py``: status ``unchanged``, a kept failure marked, a new
  modification time recorded; a tombstone, reported once, dropped); ``errors``: the
  kept failures' rows; ``changes``: none;
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

from ragbeam.pipeline.config import RunConfig
from ragbeam.pipeline.summary import metrics_summary, read_run_json, summarize, write_run_json
from ragbeam.transforms import storage
from ragbeam.transforms.identity.hashing import hash_file
from ragbeam.transforms.incremental.previous_tables import DOCUMENTS, read_rows
from ragbeam.transforms.incremental.unchanged import CarryOver, carried_rows, carry_over
from ragbeam.transforms.metrics import NOTHING_RAN
from ragbeam.transforms.plan.decide import HEAD_COLUMNS, head_of
from ragbeam.transforms.plan.layers import recorded_layer_keys
from ragbeam.transforms.types import SourceFile
from ragbeam.transforms.write.read import table_files
from ragbeam.transforms.write.shards import (
    ParquetShard,
    WrittenTables,
    final_shard_name,
    table_dir,
    write_empty_table,
)
from ragbeam.transforms.write.stats import TABLE_COUNTERS

# The tables an unchanged run copies from the previous one as they are.
COPIED_TABLES = ("chunks", "terms")


def listed_sources(rows: Sequence[Mapping[str, Any]]) -> list[SourceFile]:
    """``run.dry_run``'s rows as the Match stage's ``SourceFile``s."""
    return [SourceFile(r["path"], r["doc_id"], r["bytes"], r["modified"], r["listed"])
            for r in rows]


def _schema(path: str):
    with storage.open_read(path) as f:
        return pq.read_schema(f)


def _rows_of(path: str) -> int:
    with storage.open_read(path) as f:
        return pq.ParquetFile(f).metadata.num_rows


@dataclass(frozen=True)
class Unchanged:
    """Nothing to do: the previous run's files to carry, and the verdicts."""

    document_files: list[str]
    chunk_files: list[str]
    term_files: list[str]
    plan: CarryOver


def nothing_to_do(config: RunConfig, sources: Sequence[SourceFile]) -> Unchanged | None:
    """Whether every document of ``sources`` is carried from ``config.previous`` as it
    was (then the run needs no pipeline), deciding as the pipeline does; writes
    nothing. None: the pipeline runs."""
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
    document_files = table_files(previous, "documents")
    heads = [head_of(row) for path in document_files
             for row in read_rows(path, DOCUMENTS, HEAD_COLUMNS)]
    max_bytes = config.match.max_file_bytes
    plan = carry_over(sources, heads, config.config_hash, config.route,
                      lambda s: hash_file(s.uri, s.size_bytes, max_bytes),
                      config.retry_errors, config.verify_hashes)
    if plan is None:
        return None
    schemas = config.table_schemas()
    files = {table: table_files(previous, table) for table in COPIED_TABLES}
    if not files["terms"] or any(
            _schema(path) != schemas[table] or _schema(path).metadata != schemas[table].metadata
            for table in COPIED_TABLES for path in files[table]):
        return None  # written by another schema (or version): the pipeline writes this run's
    return Unchanged(document_files, files["chunks"], files["terms"], plan)


def write_unchanged(config: RunConfig, unchanged: Unchanged, started: float
                    ) -> dict[str, Any]:
    """Write the run from ``config.previous`` (``nothing_to_do`` said so); its run.json.
    The chunks files are copied (never linked: editing one run's files must not change
    another's), also from one file system to another."""
    document_files, chunk_files, plan = (unchanged.document_files, unchanged.chunk_files,
                                         unchanged.plan)
    schemas = config.table_schemas()
    files: dict[str, list[str]] = {}
    counts: dict[str, dict[str, int]] = {}

    def count(table: str, row: Mapping[str, Any]) -> None:
        for name in TABLE_COUNTERS[table](row):
            counts.setdefault(table, {})[name] = counts.setdefault(table, {}).get(name, 0) + 1

    for table in schemas:
        storage.mkdirs(table_dir(config.output, table))
    for table, sources in (("chunks", chunk_files), ("terms", unchanged.term_files)):
        copies = [final_shard_name(config.output, table, i, len(sources))
                  for i in range(len(sources))]
        for source, destination in zip(sources, copies, strict=True):
            storage.copy(source, destination)
        files[table] = copies
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
    summary.update(metrics_summary(NOTHING_RAN))
    summary["pipeline"] = False
    summary["reads"] = {"bytes_read": 0, "bytes_hashed": plan.bytes_hashed,
                        "files_hashed": plan.files_hashed,
                        "files_unchanged_by_listing": plan.files_unchanged_by_listing}
    write_run_json(config.output, summary)
    return summary
