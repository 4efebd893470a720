"""A night on which nothing changed needs no pipeline (``pipeline/unchanged.py``):
what it writes is compared, table by table, with what the pipeline writes for the
same unchanged input."""

from __future__ import annotations

import json
import os
import pathlib

import pytest

from conftest import TEST_EXTRACT_TIMEOUT
from helpers import cli_in_fresh_process, copy_samples, read_table, run_cli, settle

FILES = ("handbook.md", "faq.txt", "corrupt.pdf")
# What only a pipeline's runner metrics say, or the wall clock: not compared.
LAUNCHER_ONLY = {"wall_seconds", "pipeline", "extraction", "extraction_coverage", "cleaning",
                 "identity", "embeddings", "reads", "embedding", "extracted"}


def _run(corpus: pathlib.Path, out: pathlib.Path, previous: pathlib.Path | None = None,
         *extra: str) -> dict:
    prev = ("--previous", str(previous)) if previous else ()
    return run_cli(["--input", str(corpus), "--output", str(out), "--chunk-size", "200",
                    "--size-unit", "chars", "--extract-timeout", TEST_EXTRACT_TIMEOUT,
                    *prev, *extra])


def _table(out: pathlib.Path, name: str) -> list[dict]:
    rows = read_table(out, name).to_pylist()
    return sorted(rows, key=lambda r: (r.get("doc_id") or "", r.get("chunk_id") or "",
                                       r.get("index") or 0))


def _same_run(shortcut: pathlib.Path, pipeline: pathlib.Path, a: dict, b: dict) -> None:
    for name in ("documents", "chunks", "errors", "changes", "terms"):
        assert _table(shortcut, name) == _table(pipeline, name), name
        assert read_table(shortcut, name).schema == read_table(pipeline, name).schema, name
    differ = {k for k in a.keys() | b.keys() if a.get(k) != b.get(k)} - LAUNCHER_ONLY
    differ.discard("files")  # how many files a table is written in
    differ.discard("previous")  # checked by the caller: the runs compared may differ in it
    if "effective_config" in differ:  # their --output (and --previous) differ
        options = lambda s: {k: v for k, v in s["effective_config"].items()  # noqa: E731
                             if k not in ("output", "previous")}
        assert options(a) == options(b)
        differ.discard("effective_config")
    assert not differ, {k: (a.get(k), b.get(k)) for k in differ}


def test_an_unchanged_night_does_not_import_beam(first, tmp_path):
    """Listing, the previous run's files and the new run's go through ``storage.py``,
    not Beam's filesystems; no Beam option is given, so none is parsed."""
    corpus, run1 = first
    out = tmp_path / "night"
    code, beam = cli_in_fresh_process(
        ["run", "--input", str(corpus), "--output", str(out), "--chunk-size", "200",
         "--size-unit", "chars", "--extract-timeout", TEST_EXTRACT_TIMEOUT,
         "--previous", str(run1)])
    assert code == 0 and beam == []
    summary = json.loads((out / "run.json").read_text())
    assert summary["pipeline"] is False and summary["documents_unchanged"] == 2


@pytest.fixture
def pipeline_always(monkeypatch):
    """The pipeline runs even when nothing changed (the run it is compared with)."""
    import ragbeam.pipeline.run as run_library  # where the run asks unchanged.py

    monkeypatch.setattr(run_library, "nothing_to_do", lambda config, sources: None)


@pytest.fixture(scope="module")
def first(tmp_path_factory) -> tuple[pathlib.Path, pathlib.Path]:
    base = tmp_path_factory.mktemp("unchanged")
    corpus = copy_samples(base / "corpus", FILES)
    # Settled times, recorded by every run alike (a file modified seconds before a run
    # gets no recorded time: the runs compared would differ by when they ran).
    settle(corpus)
    summary = _run(corpus, base / "run1")
    assert summary.get("pipeline") is not False
    return corpus, base / "run1"


def test_an_unchanged_night_is_written_without_a_pipeline(first, tmp_path, monkeypatch):
    corpus, run1 = first
    short = _run(corpus, tmp_path / "short", run1)
    assert short["pipeline"] is False
    assert short["documents_unchanged"] == 2 and short["documents_kept_failed"] == 1
    assert short["reads"]["files_unchanged_by_listing"] == 3  # nothing read or hashed
    # Its output is a --previous like any other: the next night again.
    again = _run(corpus, tmp_path / "again", tmp_path / "short")
    assert again["pipeline"] is False
    import ragbeam.pipeline.run as run_library  # where the run asks unchanged.py

    monkeypatch.setattr(run_library, "nothing_to_do", lambda config, sources: None)
    full = _run(corpus, tmp_path / "full", run1)
    assert full.get("pipeline") is not False
    _same_run(tmp_path / "short", tmp_path / "full", short, full)
    full_again = _run(corpus, tmp_path / "full-again", tmp_path / "full")
    _same_run(tmp_path / "again", tmp_path / "full-again", again, full_again)


def test_an_unchanged_sparse_night_copies_its_term_frequencies(tmp_path, monkeypatch):
    """The ``terms`` table (document frequencies of the chunks) is copied with the
    chunks, and equals what the pipeline counts for the same chunks."""
    corpus = copy_samples(tmp_path / "corpus", FILES)
    settle(corpus)
    run1 = tmp_path / "run1"
    _run(corpus, run1, None, "--sparse")
    short = _run(corpus, tmp_path / "short", run1, "--sparse")
    assert short["pipeline"] is False
    assert _table(tmp_path / "short", "terms") == _table(run1, "terms")
    import ragbeam.pipeline.run as run_library  # where the run asks unchanged.py

    monkeypatch.setattr(run_library, "nothing_to_do", lambda config, sources: None)
    full = _run(corpus, tmp_path / "full", run1, "--sparse")
    _same_run(tmp_path / "short", tmp_path / "full", short, full)


def test_a_touched_file_with_the_same_bytes_records_its_new_time(tmp_path, monkeypatch):
    touched = copy_samples(tmp_path / "corpus", FILES)
    for name in FILES:  # settled times, recorded by the first run
        os.utime(touched / name, (1_600_000_000, 1_600_000_000 + len(name)))
    run1 = tmp_path / "run1"
    _run(touched, run1)
    for name in FILES:  # same bytes, other times
        os.utime(touched / name, (1_700_000_000, 1_700_000_000 + len(name)))
    args: tuple[str, ...] = ()
    short = _run(touched, tmp_path / "short", run1, *args)
    assert short["pipeline"] is False and short["reads"]["files_hashed"] == 3
    import ragbeam.pipeline.run as run_library  # where the run asks unchanged.py

    monkeypatch.setattr(run_library, "nothing_to_do", lambda config, sources: None)
    full = _run(touched, tmp_path / "full", run1, *args)
    _same_run(tmp_path / "short", tmp_path / "full", short, full)
    times = lambda out: {d["doc_id"]: dict(d["metadata"]).get("source_modified")  # noqa: E731
                         for d in _table(out, "documents")}
    assert all(times(tmp_path / "short")[i] != t for i, t in times(run1).items())


@pytest.mark.parametrize("change", ["edit", "option", "sparse"])
def test_any_work_takes_the_pipeline(first, tmp_path, change):
    corpus, run1 = first
    extra: tuple[str, ...] = ()
    if change == "edit":
        corpus = copy_samples(tmp_path / "corpus", FILES)
        (corpus / "faq.txt").write_text("A new question?\n\nA new answer.\n", encoding="utf-8")
        extra = ("--accept-foreign-previous",)
    elif change == "option":
        extra = ("--no-clean", "dehyphenate")
    else:
        extra = ("--sparse",)
    summary = _run(corpus, tmp_path / "out", run1, *extra)
    assert summary.get("pipeline") is not False


def test_an_unchanged_night_with_a_store_writes_no_chunk_to_it(tmp_path, monkeypatch):
    from qdrant_client import QdrantClient

    corpus = copy_samples(tmp_path / "corpus", ("faq.txt", "handbook.md"))
    settle(corpus)
    sink = ("--sink", f"qdrant:{tmp_path / 'qdrant'}?collection=docs")
    _run(corpus, tmp_path / "night1", None, *sink)
    night2 = _run(corpus, tmp_path / "night2", tmp_path / "night1", *sink)
    assert night2["pipeline"] is False
    (state,) = night2["sinks"]
    assert (state["status"], state["mode"], state["upserts"], state["deletes"]) == (
        "synced", "incremental", 0, 0)
    client = QdrantClient(path=str(tmp_path / "qdrant"))
    try:
        points, _ = client.scroll("docs", limit=10_000, with_payload=True)
    finally:
        client.close()
    chunks = {r["chunk_id"] for r in read_table(tmp_path / "night2", "chunks").to_pylist()}
    assert {p.payload["chunk_id"] for p in points} == chunks
    # The next night builds on it as on any synced run: incremental again.
    night3 = _run(corpus, tmp_path / "night3", tmp_path / "night2", *sink)
    assert night3["pipeline"] is False and night3["sinks"][0]["mode"] == "incremental"
