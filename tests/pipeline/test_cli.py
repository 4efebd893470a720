"""The command line: errors before Beam starts (exit 2), the config file, exit codes,
and one run per output."""

from __future__ import annotations

import gc
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

from ragbeam.pipeline import cli
from ragbeam.pipeline.cli import main

from conftest import SAMPLES
from helpers import read_table, run_cli

VENV_BIN = pathlib.Path(sys.executable).parent


def test_nothing_matched_is_a_usage_error(tmp_path, capsys):
    code = main(["run", "--input", str(tmp_path / "nope" / "*.pdf"),
                 "--output", str(tmp_path / "o")])
    assert code == 2
    assert "matched no files" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_filters_that_exclude_everything_are_a_usage_error(tmp_path, capsys):
    code = main(["run", "--input", str(SAMPLES), "--include", "*.nothing",
                 "--output", str(tmp_path / "o")])
    assert code == 2
    assert "after --include/--exclude" in capsys.readouterr().err


def test_unwritable_output_is_a_usage_error(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    code = main(["run", "--input", str(SAMPLES / "faq.txt"), "--output", str(blocker / "out")])
    assert code == 2
    assert "not writable" in capsys.readouterr().err


def test_existing_output_needs_overwrite(samples_run, capsys):
    code = main(["run", "--input", str(SAMPLES / "faq.txt"), "--output", str(samples_run.path)])
    assert code == 2
    assert "--overwrite" in capsys.readouterr().err


def test_bad_chunk_options_are_usage_errors(tmp_path, capsys):
    code = main(["run", "--input", str(SAMPLES / "faq.txt"), "--output", str(tmp_path / "o"),
                 "--chunk-size", "100", "--chunk-overlap", "100"])
    assert code == 2
    assert "overlap" in capsys.readouterr().err


# --- No option is dropped -------------------------------------------------------------

@pytest.mark.parametrize(("typo", "suggestion"), [
    (["--stratgy", "fixed"], "--strategy"),
    (["--chunk_size", "200"], "--chunk-size"),
    (["--direct_num_worker", "2"], "--direct_num_workers"),
    (["--embed-chunk"], "--embed-chunks"),
])
def test_an_unknown_option_exits_2_with_a_suggestion(tmp_path, capsys, typo, suggestion):
    code = main(["run", "--input", str(SAMPLES / "faq.txt"), "--output", str(tmp_path / "o"),
                 *typo])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"did you mean {suggestion}?" in err
    assert not (tmp_path / "o").exists()


def test_beam_options_still_reach_beam(tmp_path):
    summary = run_cli(["--input", str(SAMPLES / "faq.txt"), "--output", str(tmp_path / "o"),
                       "--direct_num_workers", "1", "--direct_running_mode", "in_memory"])
    assert summary["documents_ok"] == 1


# --- One validated config ------------------------------------------------------------

@pytest.mark.parametrize(("config", "message"), [
    ("chunk_size: '200'\n", r"chunk_size: Input should be a valid integer \(got '200'\)"),
    ("chunk_sise: 200\n", r"chunk_sise: unknown key \(did you mean 'chunk_size'\?\)"),
    ("max_error_rate: 2\n", r"max_error_rate: Input should be less than or equal to 1"),
    ("no_clean: [join_line]\n", r"no_clean\[0\]: Input should be"),
    ("routing:\n  detection:\n    long_prose: {enabled: 'false'}\n",
     r"routing\.detection\.long_prose\.enabled: Input should be a valid boolean"),
    ("routing:\n  detection:\n    long_prose: {min_chars: '700'}\n",
     r"routing\.detection\.long_prose\.min_chars: Input should be a valid integer"),
    ("routing:\n  rulez: []\n", r"routing\.rulez: unknown key"),
    ("routing:\n  rules:\n    - {strategy: fixed, paths: ['*'], params: {size: '200'}}\n",
     r"routing\.rules\[0\].*params\.size: expected an integer"),
    ("routing:\n  rules:\n    - {strategy: fixd, paths: ['*']}\n",
     r"routing\.rules\[0\].*unknown chunking strategy 'fixd'"),
    ("beam: {direct_num_worker: 2}\n", r"--direct_num_worker \(did you mean --direct_num_workers"),
    ("- a list\n", r"expected a mapping at the top level"),
])
def test_config_mistakes_exit_2_with_the_key_path(tmp_path, capsys, config, message):
    path = tmp_path / "ragbeam.yaml"
    path.write_text(config, encoding="utf-8")
    code = main(["run", "--input", str(SAMPLES / "faq.txt"), "--output", str(tmp_path / "o"),
                 "--config", str(path)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert re.search(message, err), err
    assert not (tmp_path / "o").exists()


def test_a_config_file_holds_every_option_and_flags_override_it(tmp_path):
    out = tmp_path / "o"
    config = tmp_path / "ragbeam.toml"
    config.write_text(
        f'input = ["{SAMPLES}"]\n'
        f'output = "{out}"\n'
        'exclude = ["*.py", "*.pdf"]\n'
        'strategy = "fixed"\n'
        'size_unit = "chars"\n'
        "chunk_size = 120\n"
        "max_error_rate = 0.25\n"
        "[beam]\n"
        'direct_running_mode = "in_memory"\n', encoding="utf-8")
    assert main(["run", "--config", str(config), "--chunk-size", "150"]) == 0
    summary = json.loads((out / "run.json").read_text())
    effective = summary["effective_config"]
    assert effective["chunk_size"] == 150  # the flag wins
    assert effective["strategy"] == "fixed" and effective["max_error_rate"] == 0.25
    assert effective["exclude"] == ["*.py", "*.pdf"]
    assert effective["beam"] == {"direct_running_mode": "in_memory"}
    chunks = read_table(out, "chunks").to_pylist()
    assert {c["strategy"] for c in chunks} == {"fixed"}
    assert max(c["char_count"] for c in chunks) <= 150


# --- Failure fails ---------------------------------------------------------------------

def test_a_run_where_every_document_fails_exits_3_after_writing_everything(tmp_path, capsys):
    out = tmp_path / "o"
    code = main(["run", "--input", str(SAMPLES / "corrupt.pdf"), "--output", str(out)])
    err = capsys.readouterr().err
    assert code == 3
    assert ("1 of 1 documents are failing (100.0%; 1 of 1 processed in this run failed), "
            "over --max-error-rate 50.0%") in err
    summary = json.loads((out / "run.json").read_text())
    assert summary["outcome"] == "error_rate_exceeded" and summary["error_rate"] == 1.0
    assert read_table(out, "documents").num_rows == 1  # every table written


@pytest.mark.parametrize(("rate", "expected"), [("0.1", 3), ("0.2", 0)])
def test_the_error_rate_threshold(tmp_path, rate, expected):
    # 9 samples, one broken (corrupt.pdf): an error rate of 1/9 = 11 %.
    summary = run_cli(["--input", str(SAMPLES), "--exclude", "*.py", "--output",
                       str(tmp_path / "o"), "--max-error-rate", rate], expected_exit=expected)
    assert summary["documents_failed"] == 1 and summary["documents_processed"] == 9
    assert summary["max_error_rate"] == float(rate)


# --- One run per output ----------------------------------------------------------------

def test_two_runs_started_together_into_one_output(tmp_path):
    out = tmp_path / "o"
    command = [str(VENV_BIN / "ragbeam"), "run", "--input", str(SAMPLES), "--exclude", "*.py",
               "--output", str(out)]
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    procs = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=env) for _ in range(2)]
    results = [(p.wait(timeout=600), p.stderr.read()) for p in procs]
    codes = sorted(code for code, _ in results)
    assert codes == [0, 2], results
    loser = next(err for code, err in results if code == 2)
    # Refused by the winner's claim while it runs, or, where the winner was done
    # before the loser got that far (a fast machine), by its finished tables.
    assert ("is claimed by run" in loser and "started" in loser) or (
        "already holds a run" in loser), loser
    # The output is exactly one run's: one row per sample, no mix.
    documents = read_table(out, "documents").to_pylist()
    assert len(documents) == 9 == len({d["doc_id"] for d in documents})
    chunks = read_table(out, "chunks").to_pylist()
    assert len(chunks) == len({c["chunk_id"] for c in chunks}) == json.loads(
        (out / "run.json").read_text())["chunks"]
    assert not list((out / "_claims").glob("*.json")) if (out / "_claims").exists() else True


@pytest.fixture
def collector_restored():
    yield
    gc.unfreeze()
    gc.enable()


def test_the_command_pauses_the_collector_while_it_starts_and_resumes_it_for_the_run(
        tmp_path, capsys, collector_restored):
    cli.pause_collector()
    assert not gc.isenabled()
    code = main(["run", "--input", str(SAMPLES / "faq.txt"), "--output", str(tmp_path / "o"),
                 "--dry-run"])
    assert code == 0 and "1 files would be processed" in capsys.readouterr().out
    # On again once Beam is imported, with what start-up loaded frozen out of its reach.
    assert gc.isenabled() and gc.get_freeze_count() > 10_000
    gc.unfreeze()
    cli.pause_collector()
    assert main(["runs", str(tmp_path)]) == 0  # every other command: on before it works
    assert gc.isenabled()


def test_main_in_someone_s_own_process_leaves_their_collector_alone(tmp_path,
                                                                   collector_restored):
    gc.disable()
    assert main(["runs", str(tmp_path)]) == 0
    assert not gc.isenabled() and gc.get_freeze_count() == 0
