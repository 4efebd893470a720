"""Retries with a memory, over five real nights.

A file that always hits the memory cap is retried by the next two nights (its
failure is transient), then given up on: night 4 does not extract it, and says so
(``documents.metadata.gave_up``, ``run.json`` ``documents_gave_up``); night 5 asks
with ``--retry-errors`` and extracts it again. An empty file is the same input every
night: kept, never read again. Then an edit gives the hopeless file a fresh start.
"""

from __future__ import annotations

import pathlib

from ragbeam.pipeline.cli import main

from helpers import copy_samples, read_table, run_cli, settle

HOPELESS = "faq.txt"


def _night(corpus: pathlib.Path, out: pathlib.Path, previous: pathlib.Path | None,
           *extra: str) -> dict:
    args = ["--input", str(corpus), "--output", str(out), "--strategy", "recursive",
            # Every document fails or is empty: the rate is not what this test is about.
            "--max-error-rate", "1", "--extract-memory-mb", "1", *extra]
    if previous is not None:
        args += ["--previous", str(previous)]
    return run_cli(args)


def _rows(out: pathlib.Path) -> dict[str, dict]:
    return {pathlib.Path(r["source_uri"]).name: {**r, "metadata": dict(r["metadata"])}
            for r in read_table(out, "documents").to_pylist()}


def test_a_hopeless_file_is_given_up_on_and_an_empty_file_is_unchanged(tmp_path, capsys):
    corpus = copy_samples(tmp_path / "corpus", [HOPELESS])
    (corpus / "empty.pdf").write_bytes(b"")
    settle(corpus)
    nights = [tmp_path / f"night{i}" for i in range(1, 7)]
    summaries, previous = [], None
    for i, out in enumerate(nights[:5]):
        extra = ("--retry-errors",) if i == 4 else ()
        summaries.append(_night(corpus, out, previous, *extra))
        previous = out
    rows = [_rows(out) for out in nights[:5]]

    hopeless = [r[HOPELESS] for r in rows]
    assert {r["status"] for r in hopeless} == {"error"}
    assert {r["metadata"]["error_type"] for r in hopeless} == {"ExtractionMemoryExceeded"}
    # Nights 1-3 extract it and fail; the third failure gives up; night 4 carries the
    # row over without extracting it; night 5 (--retry-errors) extracts it again.
    assert [r["metadata"].get("failed_attempts", "1") for r in hopeless] == [
        "1", "2", "3", "3", "4"]
    assert [r["metadata"].get("gave_up") == "true" for r in hopeless] == [
        False, False, True, True, True]
    assert [r["metadata"].get("error_carried_over") == "true" for r in hopeless] == [
        False, False, False, True, False]
    assert [s["documents_failed"] for s in summaries] == [2, 1, 1, 0, 2]
    assert [s["documents_gave_up"] for s in summaries] == [0, 0, 1, 1, 1]
    assert [s["extraction"]["memory_kills"] for s in summaries] == [1, 1, 1, 0, 1]

    # The empty file: the same (empty) bytes, unchanged every night: kept, not read.
    empty = [r["empty.pdf"] for r in rows]
    assert {r["metadata"]["error_type"] for r in empty} == {"EmptyFileError"}
    assert [r["metadata"].get("error_carried_over") == "true" for r in empty] == [
        False, True, True, True, False]  # night 5: --retry-errors retries it too
    assert all(s["changes_upsert"] == s["changes_delete"] == 0 for s in summaries)

    # The morning after: the summary and peek say so.
    capsys.readouterr()
    assert main(["peek", str(nights[3])]) == 0
    out = capsys.readouterr().out
    assert f"✗ {HOPELESS}: error, gave up (not retried): extract: ExtractionMemoryExceeded" in out
    assert "1 gave up" in out

    # New bytes: a fresh start, extracted (and failing) once more, count 1.
    with (corpus / HOPELESS).open("a", encoding="utf-8") as f:
        f.write("\nOne more line.\n")
    settle(corpus)
    summary = _night(corpus, nights[5], nights[4])
    row = _rows(nights[5])[HOPELESS]
    assert summary["documents_failed"] == 1 and summary["documents_gave_up"] == 0
    assert "failed_attempts" not in row["metadata"] and "gave_up" not in row["metadata"]
