"""The run library (``pipeline/run.py``): a typed request in, a typed result out, the
same checks and exit codes as ``ragbeam run``."""

from __future__ import annotations

import dataclasses

import pytest

from ragbeam.pipeline.run import (
    EXIT_ERROR_RATE,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    RunFailed,
    RunRequest,
    RunResult,
    UsageError,
    exit_code_for,
    request_from_argv,
    run_pipeline,
)

from conftest import SAMPLES, TEST_EXTRACT_TIMEOUT
from helpers import read_table


def test_a_request_carries_the_settings_that_decide_how_the_run_is_launched():
    request = request_from_argv(["--input", "x", "--output", "out/", "--overwrite",
                                 "--take-over", "--no-preflight", "--direct_num_workers", "1"])
    assert request.config.output == "out"
    assert (request.overwrite, request.take_over, request.preflight) == (True, True, False)
    assert request.beam_args == ("--direct_num_workers", "1")
    assert request.wait and not request.show_progress
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.overwrite = False  # type: ignore[misc]


def test_a_config_files_beam_section_comes_before_the_command_lines_beam_options(tmp_path):
    config = tmp_path / "run.yaml"
    config.write_text("beam:\n  direct_num_workers: 2\n")
    request = request_from_argv(["--config", str(config), "--input", "x", "--output", "o",
                                 "--direct_running_mode", "multi_threading"])
    assert request.beam_args == ("--direct_num_workers=2", "--direct_running_mode",
                                 "multi_threading")


@pytest.mark.parametrize("argv, message", [
    (["--input", "x", "--output", "o", "--chunk-sise", "5"], "did you mean --chunk-size"),
    (["--input", "x"], "--output"),
    (["--input", "x", "--output", "o", "--chunk-size", "0"], "chunk_size"),
])
def test_what_the_cli_exits_2_on_is_a_usage_error(argv, message):
    with pytest.raises(UsageError, match=message):
        request_from_argv(argv)


def test_exit_codes_follow_the_outcome_and_the_exception():
    assert RunResult({"outcome": "ok"}).exit_code == EXIT_OK
    assert RunResult({"outcome": "error_rate_exceeded"}).exit_code == EXIT_ERROR_RATE
    assert RunResult().exit_code == EXIT_OK  # submitted, not waited for
    assert exit_code_for(UsageError("x")) == EXIT_USAGE
    assert exit_code_for(RunFailed("x")) == EXIT_FAILED
    assert exit_code_for(RuntimeError("x")) == EXIT_FAILED


def test_a_missing_input_stops_before_anything_is_written(tmp_path):
    request = RunRequest(request_from_argv(["--input", str(tmp_path / "nowhere"),
                                            "--output", str(tmp_path / "out")]).config)
    with pytest.raises(UsageError, match="matched no files"):
        run_pipeline(request)
    assert not (tmp_path / "out").exists()


def test_a_run_returns_its_run_json(tmp_path):
    out = tmp_path / "out"
    result = run_pipeline(request_from_argv(
        ["--input", str(SAMPLES / "faq.txt"), "--output", str(out),
         "--extract-timeout", TEST_EXTRACT_TIMEOUT]))
    assert result.exit_code == EXIT_OK
    assert result.summary["documents_ok"] == 1
    assert result.summary["chunks"] == read_table(out, "chunks").num_rows > 0
    assert (out / "run.json").exists()


@pytest.mark.parametrize("runner, local", [
    (None, True), ("DirectRunner", True), ("direct", True), ("Direct", True),
    ("directrunner", True), ("apache_beam.runners.direct.direct_runner.DirectRunner", True),
    ("SwitchingDirectRunner", True), ("PrismRunner", False), ("prism", False),
    ("DataflowRunner", False), ("dataflow", False), ("my.own.DirectRunner", False),
])
def test_runner_names_are_resolved_as_beam_resolves_them(runner, local):
    from ragbeam.pipeline.runner import is_local_direct, pipeline_options

    options = pipeline_options(["--runner", runner] if runner else [])
    assert is_local_direct(options) is local


def test_run_json_is_committed_by_the_pipeline_and_completed_in_one_update(tmp_path,
                                                                           monkeypatch):
    """With a vector store: the pipeline writes run.json (its commit marker), the
    launcher completes it once, after the store sync, with the runner's metrics and
    the store's state: two writes in all, each a whole file renamed into place."""
    from ragbeam.transforms import storage

    created: list[str] = []
    create = storage.create

    def counting_create(path, *args, **kwargs):
        created.append(path.rsplit("/", 1)[-1])
        return create(path, *args, **kwargs)

    monkeypatch.setattr(storage, "create", counting_create)
    out = tmp_path / "out"
    summary = run_pipeline(request_from_argv(
        ["--input", str(SAMPLES / "faq.txt"), "--output", str(out), "--extract-timeout",
         TEST_EXTRACT_TIMEOUT, "--sink", f"qdrant:{tmp_path / 'qdrant'}?collection=docs"]
    )).summary
    assert [name for name in created if name.startswith("run.json")] == [
        "run.json.partial", "run.json.partial"]
    assert sorted(p.name for p in out.iterdir() if p.name.startswith("run.json")) == [
        "run.json"]
    import json

    written = json.loads((out / "run.json").read_text())
    assert written == json.loads(json.dumps(summary))
    # The pipeline's part (from the tables' counts) and the launcher's (metrics, store).
    assert written["chunks"] == read_table(out, "chunks").num_rows > 0
    assert written["extraction"]["timeouts"] == 0 and written["reads"]["bytes_read"] > 0
    assert written["embedding"]["model"] and written["embedding"]["texts_encoded"] > 0
    (state,) = written["sinks"]
    assert state["status"] == "synced" and state["points"] == written["chunks"]


def test_a_failed_run_json_update_leaves_the_committed_one_whole(tmp_path, monkeypatch):
    from ragbeam.pipeline.summary import complete_run_json, read_run_json, write_run_json
    from ragbeam.transforms import storage

    write_run_json(str(tmp_path), {"chunks": 3, "embedding": {"model": "m"}})

    def no_rename(*_):
        raise OSError("disk full")

    with monkeypatch.context() as patched:
        patched.setattr(storage, "rename", no_rename)
        with pytest.raises(OSError):
            complete_run_json(str(tmp_path), lambda committed: {"sinks": []})
    assert read_run_json(str(tmp_path)) == {"chunks": 3, "embedding": {"model": "m"}}
    summary = complete_run_json(str(tmp_path), lambda committed: {
        "embedding": {"texts_encoded": committed["chunks"]}})
    assert summary == {"chunks": 3, "embedding": {"model": "m", "texts_encoded": 3}}
    assert read_run_json(str(tmp_path)) == summary
