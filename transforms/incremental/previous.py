"""Checks on ``--previous DIR`` before Beam starts (any Beam filesystem)."""

from __future__ import annotations

import os

from apache_beam.io.filesystems import FileSystems

# What an incremental run reads from the previous run's output.
PREVIOUS_TABLES = ("documents", "chunks")


def _same_location(a: str, b: str) -> bool:
    if "://" in a or "://" in b:
        return a.rstrip("/") == b.rstrip("/")
    return os.path.realpath(a) == os.path.realpath(b)


def previous_run_problem(previous: str, output: str) -> str | None:
    """Why ``previous`` cannot serve as the previous run, in words; None if it can.

    It must be a completed run (``run.json`` is written last) with its tables, and
    it must not be the new output, which is cleared before the pipeline reads it.
    """
    if _same_location(previous, output):
        return ("must differ from --output: the new run replaces its output before "
                "reading the previous one; write each run to a new directory")
    try:
        if not FileSystems.exists(FileSystems.join(previous, "run.json")):
            return "is not a completed ragbeam run (no run.json)"
        for table in PREVIOUS_TABLES:
            pattern = FileSystems.join(previous, table, "*.parquet")
            if not FileSystems.match([pattern])[0].metadata_list:
                return f"has no {table} table ({pattern} matches nothing)"
    except Exception as exc:  # unknown scheme, missing bucket, no permission…
        return f"cannot be read: {exc}"
    return None
