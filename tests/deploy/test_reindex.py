"""deploy/schedule/reindex.py: the dated-folder and --previous rules every scheduler uses."""

from __future__ import annotations

import datetime as dt
import importlib.util
import json
import sys

import pytest

from conftest import REPO, SAMPLES, TEST_EXTRACT_TIMEOUT
from helpers import copy_samples, read_table


def _load_reindex():
    path = REPO / "deploy" / "schedule" / "reindex.py"
    spec = importlib.util.spec_from_file_location("deploy_reindex", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


reindex = _load_reindex()


def test_first_run_has_no_previous():
    assert reindex.plan_run("gs://b/runs", dt.date(2026, 3, 1), []) == ("gs://b/runs/2026-03-01",
                                                                          None)


def test_previous_is_the_newest_earlier_completed_run():
    completed = ["2026-02-27", "2026-02-28", "2026-03-02", "latest", "2026-3-1"]
    output, previous = reindex.plan_run("/runs", dt.date(2026, 3, 1), completed)
    assert output == "/runs/2026-03-01"
    # Not the later 2026-03-02 (a backfill must not read the future), nor non-date folders.
    assert previous == "/runs/2026-02-28"


def test_ragbeam_options_with_underscores_are_hyphenated_but_beam_options_are_not():
    known = reindex.ragbeam_option_names()
    assert {"--max-file-bytes", "--input", "--chunk-size"} <= known
    argv = ["--max_file_bytes=5", "--chunk_size", "300", "--temp_location=gs://t",
            "--input=/x", "--direct_num_workers", "2"]
    assert reindex.hyphenate_ragbeam_options(argv, known) == [
        "--max-file-bytes=5", "--chunk-size", "300", "--temp_location=gs://t", "--input=/x",
        "--direct_num_workers", "2"]


def test_output_and_previous_cannot_be_given(tmp_path):
    with pytest.raises(SystemExit):
        reindex.main(["--output-root", str(tmp_path), "--input", str(SAMPLES),
                      "--output", str(tmp_path / "x")])


def _run_json(folder):
    return json.loads((folder / "run.json").read_text())


def test_successive_scheduled_runs_chain_through_previous(tmp_path, capsys):
    corpus = copy_samples(tmp_path / "corpus", ("faq.txt", "handbook.md"))
    root = tmp_path / "runs"
    common = ["--output_root", str(root), "--input", str(corpus),
              "--extract_timeout", TEST_EXTRACT_TIMEOUT]

    assert reindex.main([*common, "--run_date", "2026-03-01"]) == 0
    first = _run_json(root / "2026-03-01")
    assert first["documents_ok"] == 2 and first["documents_unchanged"] == 0

    (corpus / "faq.txt").write_text((SAMPLES / "faq.txt").read_text() + "\nQ: New?\nA: Yes.\n")
    assert reindex.main([*common, "--run_date", "2026-03-02"]) == 0
    second = _run_json(root / "2026-03-02")
    assert (second["documents_ok"], second["documents_unchanged"]) == (1, 1)
    assert "previous: " + str(root / "2026-03-01") in capsys.readouterr().out

    # A retry of a completed date is a no-op that succeeds.
    before = (root / "2026-03-02" / "run.json").stat().st_mtime_ns
    assert reindex.main([*common, "--run_date", "2026-03-02"]) == 0
    assert "already a completed run" in capsys.readouterr().out
    assert (root / "2026-03-02" / "run.json").stat().st_mtime_ns == before

    # An interrupted attempt (tables, no run.json) is replaced, not refused.
    (root / "2026-03-03" / "chunks").mkdir(parents=True)
    (root / "2026-03-03" / "chunks" / "part-junk.parquet").write_bytes(b"partial")
    # --submit-only: the pipeline writes run.json itself (here the local runner
    # still finishes before returning).
    assert reindex.main([*common, "--run_date", "2026-03-03", "--submit_only"]) == 0
    third = _run_json(root / "2026-03-03")
    assert (third["documents_ok"], third["documents_unchanged"]) == (0, 2)
    assert not (root / "2026-03-03" / "chunks" / "part-junk.parquet").exists()
    chunk_ids = lambda day: {r["chunk_id"] for r in read_table(root / day, "chunks").to_pylist()}  # noqa: E731
    assert chunk_ids("2026-03-03") == chunk_ids("2026-03-02")
    assert third["chunks"] == second["chunks"] == len(chunk_ids("2026-03-03"))
