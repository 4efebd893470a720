"""The morning report: ``ragbeam runs DIR`` and ``ragbeam runs DIR --run ID`` after
real nights of ``ragbeam sync`` with an edit, an addition, a deletion, a rename and
a failure; the summary headline; ``runs``/``peek`` on folders that are not runs."""

from __future__ import annotations

import pathlib

from ragbeam.pipeline.cli import main
from ragbeam.pipeline.sync import sync
from ragbeam.transforms.incremental.report import document_details, document_report

from conftest import SAMPLES, TEST_EXTRACT_TIMEOUT
from helpers import copy_samples, settle

FILES = ("faq.txt", "handbook.md", "station-news.html", "sonde-logger.log", "equipment.csv")


def _night(state: pathlib.Path, corpus: pathlib.Path, name: str) -> int:
    return main(["sync", "--state", str(state), "--run-name", name, "--input", str(corpus),
                 "--extract-timeout", TEST_EXTRACT_TIMEOUT, "--max-delete-rate", "1",
                 "--max-error-rate", "1"])


def _table(out: str) -> dict[str, dict[str, str]]:
    lines = [line for line in out.splitlines() if line and not line.startswith("next")]
    header = lines[0].replace("finished (UTC)", "finished").replace("gave up", "gave_up")
    names = header.split()
    rows = {}
    for line in lines[1:]:
        cells = line.split()
        cells = [cells[0], " ".join(cells[1:3]), *cells[3:]] if cells[1] != "-" else cells
        if cells[-3].startswith("+"):  # changes: "+12 -3"
            cells = [*cells[:-3], " ".join(cells[-3:-1]), cells[-1]]
        rows[cells[0]] = dict(zip(names, cells, strict=True))
    return rows


def test_the_morning_report_after_an_edit_an_add_a_delete_a_rename_and_a_failure(
        tmp_path, capsys):
    corpus = copy_samples(tmp_path / "corpus", FILES)
    settle(corpus)
    state = tmp_path / "state"
    assert _night(state, corpus, "2026-03-01") == 0
    capsys.readouterr()

    (corpus / "faq.txt").write_text((SAMPLES / "faq.txt").read_text() + "\nQ: New?\nA: Yes.\n")
    (corpus / "new.txt").write_text("A new note about the harbour crane schedule.\n")
    (corpus / "equipment.csv").unlink()
    (corpus / "logs").mkdir()
    (corpus / "sonde-logger.log").rename(corpus / "logs" / "sonde-logger.log")
    (corpus / "corrupt.pdf").write_bytes((SAMPLES / "corrupt.pdf").read_bytes())
    settle(corpus)
    assert _night(state, corpus, "2026-03-02") == 0
    headline = next(line for line in capsys.readouterr().out.splitlines()
                    if line.startswith("ragbeam: ") and "files →" in line)
    # 6 files: faq and new.txt processed, handbook, news and the moved log unchanged,
    # corrupt.pdf failing; not "2 ok, 1 error".
    assert headline.startswith("ragbeam: 6 files → 5 fine (2 ok, 3 unchanged, 1 of them "
                               "moved), 1 failing (1 in this run, 0 kept)"), headline
    # An interrupted night (what the CLI's run returns on SIGTERM) leaves a row too.
    assert sync(str(state), ["--input", str(corpus)], run_one=lambda argv: 143,
                run_name="2026-03-03", report=lambda line: None) == 143

    assert main(["runs", str(state)]) == 0
    rows = _table(capsys.readouterr().out)
    night2 = rows["2026-03-02"]
    assert (night2["added"], night2["changed"], night2["moved"], night2["deleted"],
            night2["failed"], night2["gave_up"]) == ("1", "1", "1", "1", "1", "0")
    assert night2["documents"] == "6" and night2["status"] == "ok"
    assert rows["2026-03-01"]["added"] == str(len(FILES))
    assert rows["2026-03-03"]["status"] == "interrupted"

    assert main(["runs", str(state), "--run", "2026-03-02"]) == 0
    listed = {tuple(line.split(None, 1)) for line in capsys.readouterr().out.splitlines()[1:]
              if not line.startswith("  (")}
    # A move with the path it had; a failure with its reason (issue 41).
    failed = next(rest for kind, rest in listed if kind == "failed")
    assert failed.startswith(f"{corpus / 'corrupt.pdf'} — extract: ")
    assert listed - {("failed", failed)} == {
        ("added", str(corpus / "new.txt")), ("changed", str(corpus / "faq.txt")),
        ("moved", f"{corpus / 'logs' / 'sonde-logger.log'} (from {corpus / 'sonde-logger.log'})"),
        ("deleted", str(corpus / "equipment.csv"))}
    assert main(["runs", str(state), "--run", "2026-09-09"]) == 2


def test_runs_and_peek_say_what_a_folder_is_when_it_is_not_what_they_read(tmp_path, capsys):
    corpus = copy_samples(tmp_path / "corpus", ("faq.txt",))
    state = tmp_path / "state"
    assert _night(state, corpus, "2026-03-01") == 0
    capsys.readouterr()
    run = state / "2026-03-01"
    cases = [(["runs", str(tmp_path / "missing")], "no such folder"),
             (["runs", str(run)], "is a run's output, not a state folder"),
             (["peek", str(tmp_path / "missing")], "no such folder"),
             (["peek", str(state)], f"ragbeam runs {state} lists them"),
             (["peek", str(corpus)], "is not a completed run"),
             (["runs", str(corpus)], "holds no run of ragbeam sync")]
    for argv, message in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and message in err[0], (argv, err)
    assert main(["peek", str(run)]) == 0
    capsys.readouterr()
    empty = tmp_path / "new-state"
    empty.mkdir()
    assert main(["runs", str(empty)]) == 0  # a state folder no sync has written into yet
    assert "no runs under" in capsys.readouterr().out


def test_the_report_of_one_run_by_kind():
    previous = [{"doc_id": d, "status": "ok"} for d in ("a", "b", "c")]
    rows = [
        {"doc_id": "a", "source_uri": "/a", "status": "ok", "metadata": []},
        {"doc_id": "n", "source_uri": "/n", "status": "ok", "metadata": []},
        {"doc_id": "b", "source_uri": "/b", "status": "deleted", "metadata": [("moved_to", "m")]},
        {"doc_id": "m", "source_uri": "/m", "status": "unchanged",
         "metadata": [("moved_from", "b")]},
        {"doc_id": "c", "source_uri": "/c", "status": "deleted", "metadata": []},
        {"doc_id": "e", "source_uri": "/e", "status": "error",
         "metadata": [("failed_attempts", "3"), ("gave_up", "true")]},
        {"doc_id": "k", "source_uri": "/k", "status": "error",
         "metadata": [("error_carried_over", "true")]},
    ]
    assert document_report(rows, previous) == {
        "added": ["/n"], "changed": ["/a"], "moved": ["/m"], "deleted": ["/c"],
        "failed": ["/e"], "gave up": ["/e"], "vanished": []}
    # The next run carries the moved row on: not a move again.
    carried = [{**rows[3]}]
    assert document_report(carried, [{"doc_id": "m", "status": "unchanged"}])["moved"] == []


def test_the_report_of_a_night_whose_stores_switched_to_a_new_collection(tmp_path, capsys):
    """The --sparse night reported only "ok, 2 documents, 2 unchanged": not that the
    store now answers from a new collection (issue 41)."""
    corpus = copy_samples(tmp_path / "corpus", ("faq.txt", "handbook.md"))
    settle(corpus)
    state = tmp_path / "state"
    store = f"qdrant:{tmp_path / 'qdrant-data'}?collection=docs"
    for night, extra in (("2026-03-01", []), ("2026-03-02", ["--sparse"])):
        assert main(["sync", "--state", str(state), "--run-name", night, "-q", "--input",
                     str(corpus), "--extract-timeout", TEST_EXTRACT_TIMEOUT, "--sink", store,
                     *extra]) == 0
    capsys.readouterr()
    assert main(["runs", str(state), "--run", "2026-03-02"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("1 of 1 stores synced (1 switched to a new collection)"), lines
    (store_line,) = [line for line in lines if line.startswith("  store ")]
    assert "(docs): synced, full sync" in store_line and "'docs' now names docs__" in store_line


def test_report_details_say_where_a_move_came_from_and_why_a_failure_failed():
    rows = [
        {"doc_id": "b", "source_uri": "/old/b", "status": "deleted", "error": None,
         "metadata": [("moved_to", "m")]},
        {"doc_id": "m", "source_uri": "/new/b", "status": "unchanged", "error": None,
         "metadata": [("moved_from", "b")]},
        {"doc_id": "e", "source_uri": "/e", "status": "error",
         "error": "extract: ExtractionError: truncated\nmore", "metadata": []},
        {"doc_id": "k", "source_uri": "/k", "status": "ok", "error": None, "metadata": []},
    ]
    assert document_details(rows) == {"/new/b": "(from /old/b)",
                                      "/e": "— extract: ExtractionError: truncated"}
