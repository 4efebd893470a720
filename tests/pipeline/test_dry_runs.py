"""Dry runs tell the truth: ``--dry-run --previous`` names the options that differ
from the previous run's and counts only what would be processed; ``ragbeam sync
--dry-run`` previews the next night with the run the sync would build on."""

from __future__ import annotations

import pathlib

from ragbeam.pipeline.cli import main
from ragbeam.transforms.incremental.previous import option_differences

from conftest import SAMPLES, TEST_EXTRACT_TIMEOUT
from helpers import copy_samples, run_cli, settle

FILES = ("faq.txt", "handbook.md", "sonde-logger.log")


def _edit(corpus: pathlib.Path) -> None:
    (corpus / "faq.txt").write_text((SAMPLES / "faq.txt").read_text() + "\nQ: New?\nA: Yes.\n")
    settle(corpus)


def test_a_dry_run_against_previous_names_the_options_and_counts_what_it_would_do(
        tmp_path, capsys):
    corpus = copy_samples(tmp_path / "corpus", FILES)
    settle(corpus)
    run1 = tmp_path / "run1"
    run_cli(["--input", str(corpus), "--output", str(run1),
             "--extract-timeout", TEST_EXTRACT_TIMEOUT])
    _edit(corpus)
    capsys.readouterr()
    base = ["run", "--input", str(corpus), "--output", str(tmp_path / "run2"),
            "--previous", str(run1), "--dry-run", "--extract-timeout", TEST_EXTRACT_TIMEOUT]
    assert main(base) == 0
    out = capsys.readouterr().out
    assert "3 files matched, 1 would be processed" in out, out
    assert f"options: as in {run1}" in out
    assert "1 to process (0 new, 1 changed)" in out and "2 unchanged" in out

    assert main([*base, "--chunk-size", "300"]) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if "options that differ" in line)
    assert "--chunk-size 96 → 300" in line and "chunks redone (new chunk ids)" in line
    assert "chunked again from the previous run's text, not extracted" in line
    assert "3 files matched, 3 would be processed" in out
    # A new chunking re-chunks the unchanged documents from their rows, as the run would.
    assert ("1 to process (0 new, 1 changed), 2 chunked again without extracting" in out), out
    # An option outside the config hash is named, and said to redo nothing.
    assert main([*base[:-2], "--extract-timeout", "45"]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines()
                if "options that differ" in line)
    assert f"--extract-timeout {float(TEST_EXTRACT_TIMEOUT)} → 45.0" in line
    assert "(layers: extraction and chunks kept (same chunk ids))" in line
    # A vector layer switched on: named, with what it redoes (every chunk), while no
    # document would be processed.
    assert main([*base, "--sparse", "--embed-chunks"]) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if "options that differ" in line)
    assert "--sparse false → true" in line and "--embed-chunks false → true" in line
    assert ("layers: extraction and chunks kept (same chunk ids); dense vectors made for "
            "every chunk; sparse vectors made for every chunk)") in line, line
    assert "3 files matched, 1 would be processed" in out
    assert not (tmp_path / "run2").exists()


def test_sync_dry_run_previews_the_next_night_and_writes_nothing(tmp_path, capsys):
    corpus = copy_samples(tmp_path / "corpus", FILES)
    settle(corpus)
    state = tmp_path / "state"
    sync = ["sync", "--state", str(state), "--input", str(corpus),
            "--extract-timeout", TEST_EXTRACT_TIMEOUT]
    assert main([*sync, "--run-name", "2026-03-01"]) == 0
    _edit(corpus)
    capsys.readouterr()
    assert main([*sync, "--run-name", "2026-03-02", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert f"would write {state / '2026-03-02'} (previous: {state / '2026-03-01'})" in out
    assert "3 files matched, 1 would be processed" in out and "options: as in" in out
    assert sorted(p.name for p in state.iterdir()) == ["2026-03-01"]
    # Then the night itself does what the preview said.
    assert main([*sync, "--run-name", "2026-03-02"]) == 0
    assert "0 deleted" in capsys.readouterr().out


def test_option_differences_name_flags_and_versions():
    previous = {"effective_config": {"chunk_size": 128, "sparse": False, "output": "/a",
                                     "exclude": []},
                "config": {"ragbeam": "0.1.0", "format_version": 4}}
    settings = {"chunk_size": 300, "sparse": True, "output": "/b", "exclude": ["*.tmp"]}
    assert option_differences(previous, settings, {"ragbeam": "0.2.0", "format_version": 4}) == [
        "--chunk-size 128 → 300", '--exclude - → ["*.tmp"]', "--sparse false → true",
        "ragbeam's version \"0.1.0\" → \"0.2.0\""]
    assert option_differences({}, settings, {}) == []
