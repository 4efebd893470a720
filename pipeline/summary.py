"""After a run: count what was written and write ``run.json`` (last, only on success)."""

from __future__ import annotations

import collections
import importlib.metadata
import json
from typing import Any

import pyarrow.parquet as pq
from apache_beam.io.filesystems import FileSystems

from ragbeam.pipeline.config import RunConfig
from ragbeam.transforms.embed.model import model_identity


def table_files(output: str, table: str) -> list[str]:
    pattern = FileSystems.join(output, table, "*.parquet")
    matches = FileSystems.match([pattern])[0].metadata_list
    return sorted(m.path for m in matches)


def read_table_columns(output: str, table: str, columns: list[str]):
    import pyarrow as pa

    tables = []
    for path in table_files(output, table):
        with FileSystems.open(path) as f:
            tables.append(pq.read_table(pa.BufferReader(f.read()), columns=columns))
    return pa.concat_tables(tables) if tables else None


def count_rows(output: str, table: str) -> int:
    total = 0
    for path in table_files(output, table):
        with FileSystems.open(path) as f:
            import pyarrow as pa

            total += pq.ParquetFile(pa.BufferReader(f.read())).metadata.num_rows
    return total


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def summarize(config: RunConfig, wall_seconds: float, extra: dict[str, Any] | None = None
              ) -> dict[str, Any]:
    docs = read_table_columns(config.output, "documents", ["status"])
    statuses = collections.Counter(docs.column("status").to_pylist()) if docs else {}
    errors = read_table_columns(config.output, "errors", ["stage", "error_type"])
    by_type = collections.Counter(
        f"{s}: {t}" for s, t in zip(errors.column("stage").to_pylist(),
                                    errors.column("error_type").to_pylist(), strict=True)
    ) if errors else {}
    changes = read_table_columns(config.output, "changes", ["op"])
    ops = collections.Counter(changes.column("op").to_pylist()) if changes else {}
    import ragbeam

    summary: dict[str, Any] = {
        # A deleted document's row is a tombstone: its file was not matched.
        "files_matched": sum(statuses.values()) - statuses.get("deleted", 0),
        "documents_ok": statuses.get("ok", 0),
        "documents_error": statuses.get("error", 0),
        "documents_unchanged": statuses.get("unchanged", 0),
        "documents_deleted": statuses.get("deleted", 0),
        "chunks": count_rows(config.output, "chunks"),
        "previous": config.previous,
        "changes_upsert": ops.get("upsert", 0),
        "changes_delete": ops.get("delete", 0),
        "errors_by_type": dict(sorted(by_type.items())),
        "config_hash": config.config_hash,
        "config": config.fingerprint_fields(),
        "versions": {
            "ragbeam": ragbeam.__version__,
            "apache-beam": _version("apache-beam"),
            "iscc-tika": _version("iscc-tika"),
            "pyarrow": _version("pyarrow"),
            "tiktoken": _version("tiktoken"),
            "model": (model_identity(config.embedding.model)
                      if config.uses_embeddings else None),
        },
        "wall_seconds": round(wall_seconds, 3),
    }
    summary.update(extra or {})
    return summary


def write_run_json(output: str, summary: dict[str, Any]) -> str:
    path = FileSystems.join(output, "run.json")
    with FileSystems.create(path) as f:
        f.write(json.dumps(summary, indent=2, sort_keys=True).encode("utf-8"))
    return path


# --- Extraction coverage (issue 18): OCR and the PDF fallback --------------------------
# Beam counters of the extract stage (transforms/extract/dofn.py): work done in this run,
# so documents carried over by an incremental run are not counted again.
COVERAGE_COUNTERS = {"ocr_documents": "ocr_documents", "ocr_pages": "ocr_pages",
                     "extract_pdf_fallbacks": "pdf_fallbacks"}


def coverage_summary(result: Any) -> dict[str, int]:
    """``{"ocr_documents", "ocr_pages", "pdf_fallbacks"}`` of a finished run ({} without
    metrics support)."""
    from apache_beam.metrics.metric import MetricsFilter

    try:
        metrics = result.metrics().query(MetricsFilter().with_namespace("ragbeam"))
    except Exception:  # a runner without metrics support
        return {}
    totals = dict.fromkeys(COVERAGE_COUNTERS.values(), 0)
    for counter in metrics.get("counters", ()):
        key = COVERAGE_COUNTERS.get(counter.key.metric.name)
        if key is not None:
            value = counter.committed if counter.committed is not None else counter.attempted
            totals[key] += int(value or 0)
    return totals
