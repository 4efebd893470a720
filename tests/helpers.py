"""Test helpers: run the real CLI, read tables back with pyarrow."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import time

import pyarrow as pa
import pyarrow.parquet as pq


def read_table(output: pathlib.Path, name: str) -> pa.Table:
    files = sorted((pathlib.Path(output) / name).glob("*.parquet"))
    assert files, f"no Parquet files under {output}/{name}"
    return pa.concat_tables([pq.read_table(f) for f in files])


def copy_samples(folder: pathlib.Path, names: tuple[str, ...] | list[str]) -> pathlib.Path:
    """A corpus folder (created) holding copies of these files of ``samples/``."""
    from conftest import SAMPLES

    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copy(SAMPLES / name, folder / name)
    return folder


def run_cli(args: list[str], expected_exit: int = 0) -> dict:
    """Run ``ragbeam run ARGS`` in-process and return run.json."""
    from ragbeam.pipeline.cli import main

    code = main(["run", *args])
    assert code == expected_exit, f"ragbeam run exited {code}, not {expected_exit}"
    if code in (1, 2):  # nothing ran, or the pipeline failed: no run.json
        return {}
    out = pathlib.Path(args[args.index("--output") + 1])
    return json.loads((out / "run.json").read_text())


def chunks_by_doc(output: pathlib.Path) -> dict[str, list[dict]]:
    rows = read_table(output, "chunks").to_pylist()
    by_doc: dict[str, list[dict]] = {}
    for row in sorted(rows, key=lambda r: (r["doc_id"], r["chunk_index"])):
        by_doc.setdefault(row["doc_id"], []).append(row)
    return by_doc


def settle(path: pathlib.Path, age_s: float = 3600.0) -> None:
    """Give a file, or every file under a folder, a modification time ``age_s`` in the
    past: one an incremental run records and trusts (``rows.SETTLED_AFTER_S``)."""
    when = time.time() - age_s
    files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
    for file in files:
        os.utime(file, (when, when))


def closed_port() -> int:
    """A port of 127.0.0.1 nothing listens on (bound, then released): "unreachable"."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
