"""A nightly sync a person can leave alone (issue 22), on real runs read back from Parquet:
the delete guard (mass vanishing over and under the limit, its absolute form, a store
left untouched), an input root that lists nothing, a foreign ``--previous``, an error
rate that does not flap, and ``--dry-run --previous`` showing the diff."""

from __future__ import annotations

import json
import pathlib
import shutil

import pytest

from ragbeam.pipeline.cli import main
from ragbeam.transforms.plan.guard import DeleteGuard

from conftest import SAMPLES
from helpers import copy_samples, read_table, run_cli, settle

FILES = ("faq.txt", "handbook.md", "station-news.html", "equipment.csv", "sonde-logger.log")
# Generous: a time-out is a transient failure, retried by the next run, which would
# change what these runs count (the shared machine can be very loaded).
EXTRACT_TIMEOUT = "120"


def _args(corpus: pathlib.Path, out: pathlib.Path, *extra: str) -> list[str]:
    return ["--input", str(corpus), "--output", str(out), "--chunk-size", "300",
            "--size-unit", "chars", "--extract-timeout", EXTRACT_TIMEOUT, *extra]


def _statuses(out: pathlib.Path) -> dict[str, str]:
    return {pathlib.Path(d["source_uri"]).name: d["status"]
            for d in read_table(out, "documents").to_pylist()}


def _chunk_ids(out: pathlib.Path) -> set[str]:
    return {r["chunk_id"] for r in read_table(out, "chunks").to_pylist()}


def _deletes(out: pathlib.Path) -> list[dict]:
    return [c for c in read_table(out, "changes").to_pylist() if c["op"] == "delete"]


@pytest.fixture(scope="module")
def first(tmp_path_factory) -> tuple[pathlib.Path, pathlib.Path]:
    """A first run over five files; each test works on its own copy of the corpus."""
    root = tmp_path_factory.mktemp("guard")
    corpus = copy_samples(root / "corpus", FILES)
    settle(corpus)
    run_cli(_args(corpus, root / "run1"))
    return corpus, root / "run1"


@pytest.fixture()
def corpus(first, tmp_path):
    """The first run's corpus, restored after the test (tests remove files from it)."""
    corpus, _ = first
    backup = tmp_path / "backup"
    shutil.copytree(corpus, backup, copy_function=shutil.copy2)
    yield corpus
    shutil.rmtree(corpus)
    shutil.copytree(backup, corpus, copy_function=shutil.copy2)


def test_mass_vanishing_is_held_then_accepted(first, corpus, tmp_path, capsys):
    _, run1 = first
    for name in ("faq.txt", "handbook.md", "station-news.html"):  # 3 of 5: 60 %
        (corpus / name).unlink()
    code = main(["run", *_args(corpus, tmp_path / "run2", "--previous", str(run1))])
    err = capsys.readouterr().err
    assert code == 4
    held = [line for line in err.splitlines() if "vanished" in line]
    assert held == ["ragbeam: error: 3 of 5 documents of the previous run vanished (60%), "
                    "over --max-delete-rate 0.2: none was deleted (their last good chunks "
                    "are kept, documents.status = 'vanished'); if they were removed on "
                    "purpose, run again with --max-delete-rate 1"]
    run2 = tmp_path / "run2"
    summary = json.loads((run2 / "run.json").read_text())
    assert summary["outcome"] == "deletes_held" and summary["documents_vanished"] == 3
    assert _statuses(run2) == {"faq.txt": "vanished", "handbook.md": "vanished",
                               "station-news.html": "vanished", "equipment.csv": "unchanged",
                               "sonde-logger.log": "unchanged"}
    # Nothing was lost: every chunk is served on, and the store is told nothing.
    assert _chunk_ids(run2) == _chunk_ids(run1)
    assert read_table(run2, "changes").num_rows == 0
    # The next night decides again: still held, until the user accepts it.
    run_cli(_args(corpus, tmp_path / "run3", "--previous", str(run2)), expected_exit=4)
    accepted = run_cli(_args(corpus, tmp_path / "run4", "--previous", str(tmp_path / "run3"),
                             "--max-delete-rate", "1"))
    assert accepted["outcome"] == "ok" and accepted["documents_deleted"] == 3
    deleted = {c["chunk_id"] for c in _deletes(tmp_path / "run4")}
    assert deleted == _chunk_ids(run1) - _chunk_ids(tmp_path / "run4")


def test_a_vanished_file_that_comes_back_is_unchanged(first, corpus, tmp_path):
    _, run1 = first
    shutil.move(corpus / "faq.txt", tmp_path / "faq.txt")
    shutil.move(corpus / "handbook.md", tmp_path / "handbook.md")
    run_cli(_args(corpus, tmp_path / "run2", "--previous", str(run1)), expected_exit=4)
    shutil.move(tmp_path / "faq.txt", corpus / "faq.txt")
    shutil.move(tmp_path / "handbook.md", corpus / "handbook.md")
    back = run_cli(_args(corpus, tmp_path / "run3", "--previous", str(tmp_path / "run2")))
    assert back["documents_unchanged"] == 5 and back["changes_upsert"] == 0
    assert set(_statuses(tmp_path / "run3").values()) == {"unchanged"}
    assert _chunk_ids(tmp_path / "run3") == _chunk_ids(run1)


def test_vanishing_under_the_limit_deletes(first, corpus, tmp_path):
    _, run1 = first
    (corpus / "faq.txt").unlink()  # 1 of 5: 20 %, not over the default
    summary = run_cli(_args(corpus, tmp_path / "run2", "--previous", str(run1)))
    assert summary["documents_deleted"] == 1 and summary["changes_delete"] > 0
    # The absolute form: not one document may vanish.
    run_cli(_args(corpus, tmp_path / "run3", "--previous", str(run1), "--max-deletes", "0"),
            expected_exit=4)
    assert _deletes(tmp_path / "run3") == []


def test_an_input_root_that_lists_nothing_is_not_everything_deleted(first, tmp_path, capsys):
    _, run1 = first
    empty = tmp_path / "corpus"
    empty.mkdir()  # an unmounted share: the folder is there, the files are not
    code = main(["run", *_args(empty, tmp_path / "run2", "--previous", str(run1),
                               "--max-delete-rate", "1", "--accept-foreign-previous")])
    assert code == 2
    assert "matched no files; nothing was deleted" in capsys.readouterr().err
    assert not (tmp_path / "run2" / "changes").exists()
    # The guard itself never takes an empty listing as "everything deleted".
    assert DeleteGuard(max_rate=1.0).holds(vanished=5, previous_documents=5, current_files=0)


def test_a_previous_run_of_another_corpus_is_refused(first, tmp_path, capsys):
    _, run1 = first
    other = copy_samples(tmp_path / "other", ("faq.txt", "lab-rules.docx"))
    code = main(["run", *_args(other, tmp_path / "run2", "--previous", str(run1))])
    err = capsys.readouterr().err
    assert code == 2 and not (tmp_path / "run2" / "documents").exists()
    assert f"its input root is {str(first[0])!r}, this run's {str(other)!r}" in err
    assert "--accept-foreign-previous" in err
    code = main(["run", *_args(first[0], tmp_path / "run3", "--previous", str(run1),
                               "--namespace", "team-b")])
    assert code == 2 and "its namespace is '', this run's 'team-b'" in capsys.readouterr().err
    # Said to be intended: it runs (same-named faq.txt unchanged, the rest vanished
    # and held by the guard).
    summary = run_cli(_args(other, tmp_path / "run4", "--previous", str(run1),
                            "--accept-foreign-previous"), expected_exit=4)
    assert summary["documents_vanished"] == 4


def test_a_file_broken_on_night_one_gives_the_same_exit_code_every_night(first, corpus,
                                                                         tmp_path, capsys):
    _, run1 = first
    shutil.copy(SAMPLES / "corrupt.pdf", corpus / "corrupt.pdf")
    rate = ("--max-error-rate", "0.1")  # 1 failing of 6 documents: 16.7 %
    night1 = run_cli(_args(corpus, tmp_path / "night1", "--previous", str(run1), *rate),
                     expected_exit=3)
    night2 = run_cli(_args(corpus, tmp_path / "night2", "--previous",
                           str(tmp_path / "night1"), *rate), expected_exit=3)
    for night in (night1, night2):
        assert (night["documents_failing"], night["documents_indexed"]) == (1, 6)
        assert night["error_rate"] == pytest.approx(1 / 6, abs=1e-6)
    # The summary still tells new failures from kept ones.
    assert (night1["documents_failed"], night1["documents_kept_failed"]) == (1, 0)
    assert (night2["documents_failed"], night2["documents_kept_failed"]) == (0, 1)
    assert "1 of 6 documents are failing (16.7%; 0 of 0 processed in this run failed)" in \
        capsys.readouterr().err


def test_a_dry_run_with_previous_shows_the_diff(first, corpus, tmp_path, capsys):
    _, run1 = first
    for name in ("faq.txt", "handbook.md"):
        (corpus / name).unlink()
    shutil.copy(SAMPLES / "lab-rules.docx", corpus / "lab-rules.docx")
    (corpus / "equipment.csv").write_text("item,count\nboat,2\n", encoding="utf-8")
    code = main(["run", *_args(corpus, tmp_path / "dry", "--previous", str(run1)),
                 "--dry-run", "-v"])
    out = capsys.readouterr().out
    assert code == 0 and not (tmp_path / "dry").exists()
    assert ("since " + str(run1) + ": 2 to process (1 new, 1 changed), 0 chunked again "
            "without extracting, 0 retried, 2 unchanged, 0 kept failures, 2 deleted, 0 moved, "
            "0 duplicates") in out
    assert ("delete guard: would stop the run (exit 4): 2 of 5 documents of the previous run "
            "vanished (40%)") in out
    for line in ("  new        lab-rules.docx", "  changed    equipment.csv",
                 "  deleted    faq.txt", "  deleted    handbook.md"):
        assert line in out


def test_a_held_run_leaves_the_vector_store_untouched(tmp_path, capsys):
    from qdrant_client import QdrantClient

    corpus = copy_samples(tmp_path / "corpus", FILES)
    store = tmp_path / "qdrant"
    sink = ("--sink", f"qdrant:{store}?collection=docs")
    run_cli(_args(corpus, tmp_path / "run1", *sink))
    for name in ("faq.txt", "handbook.md", "station-news.html"):
        (corpus / name).unlink()
    run_cli(_args(corpus, tmp_path / "run2", "--previous", str(tmp_path / "run1"), *sink),
            expected_exit=4)
    client = QdrantClient(path=str(store))
    try:
        points, _ = client.scroll("docs", limit=10_000, with_payload=True)
    finally:
        client.close()
    assert {p.payload["chunk_id"] for p in points} == _chunk_ids(tmp_path / "run1")
