"""Same input and config → same ids and chunks, on different runner modes."""

from __future__ import annotations

from conftest import SAMPLES, TEST_EXTRACT_TIMEOUT
from helpers import read_table, run_cli


def _chunk_set(out):
    return sorted((r["chunk_id"], r["doc_id"], r["parent_id"], r["text"], r["char_start"])
                  for r in read_table(out, "chunks").to_pylist())


def test_ids_and_chunks_identical_across_runs_and_runner_modes(samples_run, tmp_path):
    out = tmp_path / "mp"
    summary = run_cli(["--input", str(SAMPLES), "--exclude", "*.py", "--output", str(out),
                       "--extract-timeout", TEST_EXTRACT_TIMEOUT,
                       "--direct_num_workers", "2", "--direct_running_mode", "multi_processing"])
    assert summary["config_hash"] == samples_run.summary["config_hash"]
    assert _chunk_set(out) == _chunk_set(samples_run.path)
    docs = lambda o: sorted((d["doc_id"], d["status"], d["content_hash"])  # noqa: E731
                            for d in read_table(o, "documents").to_pylist())
    assert docs(out) == docs(samples_run.path)


def test_a_changed_option_changes_the_config_hash_and_ids(samples_run, tmp_path):
    out = tmp_path / "small"
    summary = run_cli(["--input", str(SAMPLES / "handbook.md"), "--output", str(out),
                       "--chunk-size", "300"])
    assert summary["config_hash"] != samples_run.summary["config_hash"]
    new_ids = {r["chunk_id"] for r in read_table(out, "chunks").to_pylist()}
    assert not new_ids & {r["chunk_id"] for r in read_table(samples_run.path, "chunks").to_pylist()}
