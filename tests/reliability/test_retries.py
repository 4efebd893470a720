"""A transient failure injected once into a real stage: retried without duplicates.

Which local runner retries what (Beam 2.77, measured here):

* ``BundleBasedDirectRunner`` (Beam's legacy direct runner) retries a failed
  bundle up to 4 times and commits only the output of the attempt that
  succeeded, like Dataflow in batch mode (4 attempts per work item).
* The FnApiRunner (ragbeam's local default, see ``pipeline/runner.py``) does
  not retry: the run fails, and since ``run.json`` is written only after a
  successful run, the output is visibly unfinished.

The injected stage is the real ``ChunkDocument`` with one addition: on its first
attempt at ``handbook.md`` it emits every row for that document and *then*
raises, so a runner that kept a failed attempt's output would write those rows
twice. Idempotency comes from the ids: they depend only on the input and the
config, never on the attempt.
"""

from __future__ import annotations

import collections
import json
import pathlib

import pytest

import ragbeam.pipeline.graph as graph
from ragbeam.transforms.chunk.dofn import ChunkDocument

from conftest import SAMPLES, TEST_EXTRACT_TIMEOUT
from helpers import read_table, run_cli

FLAKY_DOCUMENT = "handbook.md"
ATTEMPTS_FILE: pathlib.Path | None = None  # set per test; read by the workers in-process


class ChunkDocumentFailingOnce(ChunkDocument):
    """The real chunk stage, plus one transient failure after all of one document's output."""

    def process(self, element):
        yield from super().process(element)
        doc, _ = element
        if pathlib.PurePath(doc.source.uri).name != FLAKY_DOCUMENT:
            return
        assert ATTEMPTS_FILE is not None
        attempts = int(ATTEMPTS_FILE.read_text()) if ATTEMPTS_FILE.exists() else 0
        ATTEMPTS_FILE.write_text(str(attempts + 1))
        if attempts == 0:
            raise RuntimeError("injected transient failure (first attempt only)")


@pytest.fixture
def flaky_chunk_stage(monkeypatch, tmp_path):
    global ATTEMPTS_FILE
    ATTEMPTS_FILE = tmp_path / "attempts"
    monkeypatch.setattr(graph, "ChunkDocument", ChunkDocumentFailingOnce)
    yield ATTEMPTS_FILE
    ATTEMPTS_FILE = None


def _args(out: pathlib.Path, *beam_args: str) -> list[str]:
    return ["--input", str(SAMPLES), "--exclude", "*.py", "--output", str(out),
            "--extract-timeout", TEST_EXTRACT_TIMEOUT, *beam_args]


def test_retried_bundle_writes_each_row_once_with_the_same_ids(flaky_chunk_stage, tmp_path,
                                                               samples_run):
    out = tmp_path / "out"
    summary = run_cli(_args(out, "--runner", "BundleBasedDirectRunner"))
    assert int(flaky_chunk_stage.read_text()) == 2  # failed once, retried once

    chunks = read_table(out, "chunks").to_pylist()
    ids = [c["chunk_id"] for c in chunks]
    assert len(ids) == len(set(ids)), "a retried bundle duplicated chunk rows"
    docs = read_table(out, "documents").to_pylist()
    assert not [u for u, n in collections.Counter(d["source_uri"] for d in docs).items()
                if n > 1], "a retried bundle duplicated document rows"
    # Same ids and rows as an undisturbed run on the default runner.
    assert sorted(ids) == sorted(c["chunk_id"] for c in samples_run.table("chunks").to_pylist())
    assert summary["documents_ok"] == samples_run.summary["documents_ok"]
    handbook = [c for c in chunks if c["source_uri"].endswith(FLAKY_DOCUMENT)]
    assert handbook, "the flaky document lost its chunks"


def test_fnapi_runner_does_not_retry_and_leaves_no_run_json(flaky_chunk_stage, tmp_path,
                                                            capsys):
    out = tmp_path / "out"
    run_cli(_args(out), expected_exit=1)  # the pipeline failed: exit 1, with the reason
    assert "injected transient failure" in capsys.readouterr().err
    assert int(flaky_chunk_stage.read_text()) == 1
    assert not (out / "run.json").exists()
    assert not list(out.glob("chunks/*.parquet"))


def test_run_json_records_a_finished_run(samples_run):
    """The completeness marker readers rely on: written last, parseable, with counts."""
    data = json.loads((samples_run.path / "run.json").read_text())
    assert data["files_matched"] == (data["documents_ok"] + data["documents_error"]
                                     + data["documents_stale"])
