"""ragbeam's own files are never input (issue 41): the output and state folders inside
the input, and any earlier ragbeam output there, are left out and said once."""

from __future__ import annotations

import json
import shutil

from ragbeam.pipeline.cli import main

from conftest import TEST_EXTRACT_TIMEOUT
from helpers import copy_samples, read_table, settle

USER_FILES = ("faq.txt", "handbook.md")


def _sources(output) -> set[str]:
    return {row["source_uri"].rsplit("/", 1)[-1]
            for row in read_table(output, "documents").to_pylist()}


def test_an_output_inside_the_input_is_never_indexed_nor_its_next_run_s_input(
        tmp_path, monkeypatch, capsys):
    """`ragbeam run --input . --output out` read its own claim file and run.json; the
    next run made error rows of the previous run's Parquet files and tripped the
    delete guard (exit 4)."""
    corpus = copy_samples(tmp_path / "docs", USER_FILES)
    # A user's own file named run.json is the user's: indexed.
    (corpus / "run.json").write_text(json.dumps({"steps": ["boil water", "add tea"]}))
    settle(corpus)
    monkeypatch.chdir(corpus)
    common = ["--input", ".", "--extract-timeout", TEST_EXTRACT_TIMEOUT, "-q"]
    assert main(["run", *common, "--output", "out"]) == 0
    err = capsys.readouterr().err
    assert err.count("not indexed: ragbeam's own files") == 1 and str(corpus / "out") in err
    assert _sources(corpus / "out") == {*USER_FILES, "run.json"}

    # Again over the same folder, now holding a whole run, incrementally into another
    # output: nothing of the first run is read, nothing vanished, exit 0.
    assert main(["run", *common, "--output", "out2", "--previous", "out"]) == 0
    summary = json.loads((corpus / "out2" / "run.json").read_text())
    assert summary["documents_unchanged"] == 3 and summary["documents_error"] == 0
    assert _sources(corpus / "out2") == {*USER_FILES, "run.json"}

    # An earlier output copied anywhere below the input is ragbeam's too.
    shutil.copytree(corpus / "out", corpus / "archive" / "old-run")
    assert main(["run", *common, "--output", "out3"]) == 0
    assert _sources(corpus / "out3") == {*USER_FILES, "run.json"}
    assert str(corpus / "archive" / "old-run") in capsys.readouterr().err


def test_a_sync_state_folder_inside_the_input_is_never_indexed(tmp_path, monkeypatch):
    corpus = copy_samples(tmp_path / "docs", USER_FILES)
    settle(corpus)
    monkeypatch.chdir(corpus)
    for night in ("2026-03-01", "2026-03-02"):
        assert main(["sync", "--state", "state", "--run-name", night, "-q", "--input", ".",
                     "--extract-timeout", TEST_EXTRACT_TIMEOUT]) == 0
        assert _sources(corpus / "state" / night) == set(USER_FILES)
    second = json.loads((corpus / "state" / "2026-03-02" / "run.json").read_text())
    assert (second["documents_unchanged"], second["documents_deleted"]) == (2, 0)
