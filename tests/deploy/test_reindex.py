"""deploy/schedule/reindex.py: ``ragbeam sync`` under the spelling Airflow and Flex
Templates use (the sync rules themselves: tests/pipeline/test_sync.py)."""

from __future__ import annotations

import importlib.util
import json
import runpy
import sys

import pytest

from conftest import REPO, SAMPLES, TEST_EXTRACT_TIMEOUT
from helpers import copy_samples


def _load_reindex():
    path = REPO / "deploy" / "schedule" / "reindex.py"
    spec = importlib.util.spec_from_file_location("deploy_reindex", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


reindex = _load_reindex()


def test_ragbeam_options_with_underscores_are_hyphenated_but_beam_options_are_not():
    known = reindex.ragbeam_option_names()
    assert {"--max-file-bytes", "--input", "--chunk-size"} <= known
    argv = ["--max_file_bytes=5", "--chunk_size", "300", "--temp_location=gs://t",
            "--input=/x", "--direct_num_workers", "2"]
    assert reindex.hyphenate_ragbeam_options(argv, known) == [
        "--max-file-bytes=5", "--chunk-size", "300", "--temp_location=gs://t", "--input=/x",
        "--direct_num_workers", "2"]


def test_its_options_become_ragbeam_syncs():
    assert reindex.sync_arguments(
        ["--output_root=gs://b/runs", "--run_date", "2026-03-01", "--submit_only",
         "--keep=3", "--input=gs://b/docs", "--temp_location=gs://t"]) == [
        "--state=gs://b/runs", "--run-name", "2026-03-01", "--submit-only", "--keep=3",
        "--input=gs://b/docs", "--temp_location=gs://t"]


def test_output_and_previous_cannot_be_given(tmp_path, capsys):
    assert reindex.main(["--output-root", str(tmp_path), "--input", str(SAMPLES),
                         "--output", str(tmp_path / "x")]) == 2
    assert "chosen by ragbeam sync" in capsys.readouterr().err


def _run_json(folder):
    return json.loads((folder / "run.json").read_text())


def test_successive_scheduled_runs_chain_through_previous(tmp_path, capsys):
    corpus = copy_samples(tmp_path / "corpus", ("faq.txt", "handbook.md"))
    root = tmp_path / "runs"
    common = ["--output_root", str(root), "--input", str(corpus),
              "--extract_timeout", TEST_EXTRACT_TIMEOUT]

    assert reindex.main([*common, "--run_date", "2026-03-01"]) == 0
    assert _run_json(root / "2026-03-01")["documents_ok"] == 2
    # --submit-only: the pipeline writes run.json itself (here the local runner still
    # finishes before returning).
    assert reindex.main([*common, "--run_date", "2026-03-02", "--submit_only"]) == 0
    second = _run_json(root / "2026-03-02")
    assert (second["documents_ok"], second["documents_unchanged"]) == (0, 2)
    assert "previous: " + str(root / "2026-03-01") in capsys.readouterr().out


def test_run_by_a_scheduler_it_ends_within_the_deadline_after_sigterm(monkeypatch, capsys):
    """Airflow runs this file (Flex Templates too): its process is the task's, and a
    stopped task must end before the scheduler's SIGKILL with the one line, or the
    stacks of a clean-up that hung, as ``ragbeam`` does (``interrupts.EXIT_DEADLINE_S``).
    It had no deadline: a hung clean-up waited for Airflow's SIGKILL (60 s), silent."""
    from ragbeam.pipeline import interrupts

    monkeypatch.setattr(interrupts, "_exit_deadline_s", None)
    monkeypatch.setattr(sys, "argv", ["reindex.py", "--help"])
    with pytest.raises(SystemExit):
        runpy.run_path(str(REPO / "deploy" / "schedule" / "reindex.py"), run_name="__main__")
    assert interrupts._exit_deadline_s == interrupts.EXIT_DEADLINE_S
    assert "--state" in capsys.readouterr().out
