"""Applying every run's ``changes`` to a store that keeps every column gives that run's
``chunks`` table, row for row, through a sequence of real runs: edits, a section
inserted above kept chunks, a deleted and an added file, a failure, a config
change, a corpus moved to another mount point, and the heal after the failure.

The store is a SQLite table with one column per chunk column, as a vector store
with metadata filters would keep them; upserts read the full row from the run's
``chunks`` table, deletes remove by id, exactly as ``docs/incremental.md`` says a
sync job should.
"""

from __future__ import annotations

import json
import pathlib
import shutil
import sqlite3

import numpy as np

from ragbeam.schemas.chunks import chunk_schema

from conftest import SAMPLES, TEST_EXTRACT_TIMEOUT
from helpers import copy_samples, read_table, run_cli

COLUMNS = chunk_schema().names


def _encode(value) -> object:
    if value is None or isinstance(value, str | int | float):
        return value
    if isinstance(value, list) and value and isinstance(value[0], tuple):  # a map column
        return json.dumps(sorted(value), ensure_ascii=False)
    if isinstance(value, list) and value and isinstance(value[0], float):  # the vector
        return np.asarray(value, dtype=np.float32).tobytes()
    return json.dumps(value, ensure_ascii=False)


class Store:
    """A table keeping every column of every chunk, keyed by chunk id."""

    def __init__(self) -> None:
        self.db = sqlite3.connect(":memory:")
        self.db.execute(f"CREATE TABLE chunks ({', '.join(COLUMNS)}, PRIMARY KEY (chunk_id))")

    def apply(self, out: pathlib.Path) -> tuple[int, int]:
        rows = {r["chunk_id"]: r for r in read_table(out, "chunks").to_pylist()}
        changes = read_table(out, "changes").to_pylist()
        for change in changes:
            if change["op"] == "delete":
                deleted = self.db.execute("DELETE FROM chunks WHERE chunk_id = ?",
                                          (change["chunk_id"],)).rowcount
                assert deleted == 1, f"delete of {change['chunk_id']}, which the store lacks"
            else:
                row = rows[change["chunk_id"]]
                self.db.execute(f"INSERT OR REPLACE INTO chunks VALUES "
                                f"({', '.join('?' * len(COLUMNS))})",
                                [_encode(row[c]) for c in COLUMNS])
        ops = [c["op"] for c in changes]
        return ops.count("upsert"), ops.count("delete")

    def rows(self) -> list[tuple]:
        return sorted(self.db.execute(f"SELECT {', '.join(COLUMNS)} FROM chunks").fetchall())


def _table(out: pathlib.Path) -> list[tuple]:
    return sorted(tuple(_encode(r[c]) for c in COLUMNS)
                  for r in read_table(out, "chunks").to_pylist())


def _replace(path: pathlib.Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_changes_keep_a_full_column_store_equal_to_the_chunks_table(tmp_path):
    corpus = copy_samples(tmp_path / "mnt-a" / "corpus",
                          ("faq.txt", "handbook.md", "station-news.html", "站点简介.txt"))
    base = ["--strategy", "recursive", "--embed-chunks", "--extract-timeout",
            TEST_EXTRACT_TIMEOUT]
    store = Store()
    runs: list[pathlib.Path] = []

    def run(*extra: str, expected_exit: int = 0, input_dir: pathlib.Path = corpus) -> dict:
        out = tmp_path / f"run{len(runs) + 1}"
        previous = ["--previous", str(runs[-1])] if runs else []
        summary = run_cli(["--input", str(input_dir), "--output", str(out), *base, *extra,
                           *previous], expected_exit=expected_exit)
        runs.append(out)
        applied = store.apply(out)
        assert store.rows() == _table(out), f"store != chunks after {out.name}"
        assert applied == (summary["changes_upsert"], summary["changes_delete"])
        return summary

    size = ("--chunk-size", "250")
    first = run(*size)
    assert first["changes_delete"] == 0 and first["changes_upsert"] == first["chunks"]

    # Run 2: an edit, a section inserted above kept chunks (they move), a deleted and
    # an added file.
    _replace(corpus / "handbook.md", "Calibration solutions are in the cold room",
             "Calibration solutions, labelled by date, are in the cold room")
    _replace(corpus / "station-news.html", "<body>",
             "<body><h2>Notice</h2><p>The station closes early on Friday for maintenance "
             "of the heating plant; the boathouse stays open until six.</p>")
    (corpus / "faq.txt").unlink()
    shutil.copy(SAMPLES / "sonde-logger.log", corpus / "sonde-logger.log")
    second = run(*size, "--max-delete-rate", "0.25")  # 1 of 4 documents vanished
    assert second["changes_upsert"] and second["changes_delete"]

    # Run 3: an edited document fails (the memory cap): it keeps its chunks, the
    # store is told nothing about it.
    _replace(corpus / "站点简介.txt", "。", "。新增一句。")
    third = run(*size, "--extract-memory-mb", "1", "--max-error-rate", "0.2",
                expected_exit=3)
    assert third["documents_stale"] == 1 and third["changes_delete"] == 0

    # Run 4: a config change re-chunks everything, and heals the stale document.
    fourth = run("--chunk-size", "400")
    assert fourth["documents_ok"] == len(list(corpus.iterdir()))
    assert fourth["changes_delete"] and fourth["documents_stale"] == 0

    # Run 5: the corpus moves to another mount point: the same ids (they come from
    # the path below the input root), so nothing is re-embedded or deleted; every
    # row's source_uri changed, so every chunk is upserted.
    moved = tmp_path / "mnt-b" / "corpus"
    shutil.copytree(corpus, moved)
    shutil.rmtree(tmp_path / "mnt-a")
    fifth = run("--chunk-size", "400", "--accept-foreign-previous", input_dir=moved)
    assert fifth["documents_unchanged"] == fourth["documents_ok"]
    assert (fifth["changes_upsert"], fifth["changes_delete"]) == (fifth["chunks"], 0)
    ids = lambda out: {r["chunk_id"] for r in read_table(out, "chunks").to_pylist()}  # noqa: E731
    assert ids(runs[-1]) == ids(runs[-2])
    assert all(r["source_uri"].startswith(str(moved))
               for r in read_table(runs[-1], "chunks").to_pylist())

    # Run 6: nothing changed.
    sixth = run("--chunk-size", "400", input_dir=moved)  # its previous run is over `moved`
    assert (sixth["changes_upsert"], sixth["changes_delete"]) == (0, 0)
