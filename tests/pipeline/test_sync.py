"""``ragbeam sync`` and ``ragbeam runs``: a state folder of dated runs, over real runs."""

from __future__ import annotations

import json
import os
import pathlib
import socket
import subprocess
import sys

import pytest

from ragbeam.pipeline.cli import main
from ragbeam.pipeline.runs import RunFolder, plan_previous, runs_to_prune
from ragbeam.pipeline.sync import SyncRefused, plan_sync, run_arguments

from conftest import SAMPLES, TEST_EXTRACT_TIMEOUT
from helpers import copy_samples, read_table, settle

OK = {"outcome": "ok"}


def _run(name: str, summary: dict | None = OK, claims: tuple = ()) -> RunFolder:
    return RunFolder(name, f"/state/{name}", summary, None, claims)


# --- the rules, as pure functions --------------------------------------------------

def test_the_previous_is_the_newest_base_named_before_the_run():
    runs = [_run("2026-03-01"), _run("2026-03-02", {"outcome": "error_rate_exceeded"}),
            _run("2026-03-03", None), _run("2026-03-04", {"outcome": "deletes_held"}),
            _run("2026-03-06")]
    # Exit 3 still builds a base; a dead attempt and an outcome that is not a base do not;
    # a backfill never reads a newer run.
    assert plan_previous(runs, "2026-03-05").name == "2026-03-02"
    assert plan_previous(runs, "2026-03-01") is None
    assert plan_previous(runs).name == "2026-03-06"


def test_pruning_keeps_n_bases_and_never_a_run_that_may_be_running():
    runs = [_run("2026-03-01"),
            _run("2026-03-01T120000Z", None),  # no run.json, no claim: dead
            _run("2026-03-01T130000Z", None, (None,)),  # claimed on another host: unknown
            _run("2026-03-01T140000Z", None, (False,)),  # its process is gone: dead
            _run("2026-03-01T150000Z", None, (True,)),  # still running
            _run("2026-03-02", {"outcome": "deletes_held"}),  # completed, no base
            _run("2026-03-03"), _run("2026-03-03T120000Z", None), _run("2026-03-04")]
    gone = [r.name for r in runs_to_prune(runs, keep=2)]
    assert gone == ["2026-03-01", "2026-03-01T120000Z", "2026-03-01T140000Z", "2026-03-02"]
    # Newer than the oldest kept base: kept, even when dead (last night's failure).
    assert "2026-03-03T120000Z" not in gone
    assert runs_to_prune(runs, keep=3) == []  # three bases: nothing to prune
    assert "2026-03-01" not in [r.name for r in runs_to_prune(runs, 2, in_use={"2026-03-01"})]
    with pytest.raises(ValueError):
        runs_to_prune(runs, keep=0)


def test_plan_of_a_retry_of_a_completed_or_a_dead_run():
    runs = [_run("2026-03-01"), _run("2026-03-02"), _run("2026-03-03", None)]
    assert plan_sync("/s", runs, "2026-03-02").done
    replace = plan_sync("/s", runs, "2026-03-03")
    assert (replace.previous, replace.replace) == ("/state/2026-03-02", True)
    assert run_arguments(replace, ["--input", "x"]) == [
        "--input", "x", "--output", "/s/2026-03-03", "--previous", "/state/2026-03-02",
        "--overwrite", "--take-over"]
    with pytest.raises(SyncRefused, match="may still be running"):
        plan_sync("/s", [_run("2026-03-03", None, (None,))], "2026-03-03")


# --- four nights of real runs --------------------------------------------------------

def _night(state: pathlib.Path, corpus: pathlib.Path, name: str, *extra: str) -> int:
    return main(["sync", "--state", str(state), "--keep", "2", "--run-name", name, "-q",
                 "--input", str(corpus), "--extract-timeout", TEST_EXTRACT_TIMEOUT, *extra])


def _summary(state: pathlib.Path, name: str) -> dict:
    return json.loads((state / name / "run.json").read_text())


def _folders(state: pathlib.Path) -> list[str]:
    return sorted(p.name for p in state.iterdir() if p.name != "_claims")


def test_four_nights_with_keep_2(tmp_path, capsys):
    corpus = copy_samples(tmp_path / "corpus", ("faq.txt", "handbook.md"))
    settle(corpus)
    state = tmp_path / "state"

    # Night 1: no previous, a full run.
    assert _night(state, corpus, "2026-03-01") == 0
    assert "previous: none" in capsys.readouterr().out
    assert _summary(state, "2026-03-01")["documents_ok"] == 2

    # A sync killed outright (SIGKILL) left its claim on the state folder; its process
    # is gone, which this host can tell, so the next sync takes the claim over.
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (state / "_claims").mkdir()
    (state / "_claims" / "killed.json").write_text(json.dumps(
        {"run_id": "killed", "host": socket.gethostname(), "pid": dead.pid}))

    # Night 2: one file changed; built on night 1.
    (corpus / "faq.txt").write_text((SAMPLES / "faq.txt").read_text() + "\nQ: New?\nA: Yes.\n")
    settle(corpus)
    assert _night(state, corpus, "2026-03-02") == 0
    second = _summary(state, "2026-03-02")
    assert (second["documents_ok"], second["documents_unchanged"]) == (1, 1)
    assert second["previous"] == str(state / "2026-03-01")

    # Left between nights: an attempt that died without run.json or claim, and one
    # claimed by a run on another host (which cannot be proved dead from here).
    (state / "2026-03-02T120000Z" / "_temporary").mkdir(parents=True)
    (state / "2026-03-02T120000Z" / "_temporary" / "shard").write_bytes(b"partial")
    claims = state / "2026-03-02T130000Z" / "_claims"
    claims.mkdir(parents=True)
    (claims / "x.json").write_text(json.dumps({"host": "elsewhere", "pid": 1}))

    # A night whose run does not start (a bad option: exit 2) prunes nothing, and the
    # next night still builds on night 2.
    assert _night(state, corpus, "2026-03-03", "--chunk-size", "0") == 2
    assert _folders(state) == ["2026-03-01", "2026-03-02", "2026-03-02T120000Z",
                               "2026-03-02T130000Z"]

    # Night 3: built on night 2; three bases now, so night 1 goes. The dead attempt is
    # newer than night 2, the oldest base kept, so it stays for now.
    assert _night(state, corpus, "2026-03-03") == 0
    out = capsys.readouterr().out
    assert f"previous: {state / '2026-03-02'}" in out and "pruned 1 run(s)" in out
    assert _folders(state) == ["2026-03-02", "2026-03-02T120000Z", "2026-03-02T130000Z",
                               "2026-03-03"]
    third = _summary(state, "2026-03-03")
    assert (third["documents_ok"], third["documents_unchanged"]) == (0, 2)

    # A scheduler's retry of night 3: finished work, nothing runs or changes.
    before = (state / "2026-03-03" / "run.json").stat().st_mtime_ns
    assert _night(state, corpus, "2026-03-03") == 0
    assert "already a completed run" in capsys.readouterr().out
    assert (state / "2026-03-03" / "run.json").stat().st_mtime_ns == before

    # Night 4: one of the two documents is gone, over the delete guard's default share
    # (0.2): the night is held (exit 4), is no base, and nothing is pruned.
    os.remove(corpus / "handbook.md")
    assert _night(state, corpus, "2026-03-04") == 4
    assert _summary(state, "2026-03-04")["outcome"] == "deletes_held"
    assert "2026-03-02" in _folders(state)
    # Night 5 accepts the deletion (--max-delete-rate 1) and builds on night 3, the
    # newest base: night 2 goes, and with it the dead attempt older than night 3; the
    # folder claimed elsewhere and the held night (newer than the oldest base kept) stay.
    assert _night(state, corpus, "2026-03-05", "--max-delete-rate", "1") == 0
    assert _folders(state) == ["2026-03-02T130000Z", "2026-03-03", "2026-03-04",
                               "2026-03-05"]
    fourth = _summary(state, "2026-03-05")
    assert (fourth["documents_unchanged"], fourth["documents_deleted"]) == (1, 1)
    chunk_ids = {r["chunk_id"] for r in read_table(state / "2026-03-05", "chunks").to_pylist()}
    faq_ids = {r["chunk_id"] for r in read_table(state / "2026-03-03", "chunks").to_pylist()
               if r["source_uri"].endswith("faq.txt")}
    assert chunk_ids == faq_ids
    assert not (state / "_claims").exists()  # the state's claim was released

    capsys.readouterr()
    assert main(["runs", str(state)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["run", "finished", "(UTC)", "status", "documents", "added",
                                "changed", "moved", "deleted", "failed", "gave", "up",
                                "chunks", "changes", "previous"]
    by_run = {line.split()[0]: line.split() for line in lines[1:-1]}
    assert by_run["2026-03-02T130000Z"][1:3] == ["-", "running"]
    assert by_run["2026-03-04"][3] == "deletes_held"
    # Night 5 deleted handbook.md and added, changed, moved and failed nothing.
    assert by_run["2026-03-05"][3:] == ["ok", "1", "0", "0", "0", "1", "0", "0",
                                        str(len(chunk_ids)), "+0",
                                        f"-{third['chunks'] - len(chunk_ids)}", "2026-03-03"]
    assert lines[-1] == "next --previous: 2026-03-05"


def test_a_state_folder_another_sync_holds_is_refused(tmp_path, capsys):
    from ragbeam.pipeline.claim import claim_output, release_claim

    state = tmp_path / "state"
    claim = claim_output(str(state))  # a live process (this one) holds it
    try:
        assert main(["sync", "--state", str(state), "--input", str(SAMPLES)]) == 2
    finally:
        release_claim(claim)
    err = capsys.readouterr().err
    assert "--state" in err and socket.gethostname() in err and "still running" in err
    assert _folders(state) == []


@pytest.mark.parametrize("option", ["--output", "--previous=x", "--overwrite"])
def test_options_sync_chooses_cannot_be_given(tmp_path, capsys, option):
    args = ["sync", "--state", str(tmp_path), "--input", str(SAMPLES), option]
    assert main([*args, "y"] if option == "--output" else args) == 2
    assert "chosen by ragbeam sync" in capsys.readouterr().err


def test_sync_with_a_sink_keeps_the_store_equal_to_each_night(tmp_path, capsys):
    """Night 2 builds on night 1's run, so the store (Qdrant local mode) is synced
    incrementally from night 2's changes, and equals night 2's chunks table."""
    from qdrant_client import QdrantClient

    corpus = copy_samples(tmp_path / "corpus", ("faq.txt", "handbook.md"))
    settle(corpus)
    state, store = tmp_path / "state", tmp_path / "qdrant"
    sink = ["--sink", f"qdrant:{store}?collection=docs", "--chunk-size", "300",
            "--size-unit", "chars"]
    assert _night(state, corpus, "2026-03-01", *sink) == 0
    (corpus / "faq.txt").write_text((SAMPLES / "faq.txt").read_text() + "\nQ: New?\nA: Yes.\n")
    settle(corpus)
    assert _night(state, corpus, "2026-03-02", *sink) == 0
    (night2,) = _summary(state, "2026-03-02")["sinks"]
    assert (night2["status"], night2["mode"]) == ("synced", "incremental")
    client = QdrantClient(path=str(store))
    try:
        points, _ = client.scroll("docs", limit=10_000, with_payload=True)
    finally:
        client.close()
    chunks = {r["chunk_id"] for r in read_table(state / "2026-03-02", "chunks").to_pylist()}
    assert {p.payload["chunk_id"] for p in points} == chunks


def _stored_ids(store: pathlib.Path, kind: str) -> set[str]:
    """The chunk ids a local store holds (Milvus Lite file, Qdrant local folder)."""
    if kind == "milvus":
        from pymilvus import MilvusClient

        client = MilvusClient(uri=str(store))
        try:
            client.load_collection("docs")  # Milvus Lite: released in every new process
            rows = client.query("docs", filter="", limit=16384, output_fields=["chunk_id"])
        finally:
            client.close()
        return {r["chunk_id"] for r in rows}
    from qdrant_client import QdrantClient

    client = QdrantClient(path=str(store))
    try:
        points, _ = client.scroll("docs", limit=100_000, with_payload=True)
    finally:
        client.close()
    return {p.payload["chunk_id"] for p in points}


def _chunk_ids(out: pathlib.Path) -> set[str]:
    return {r["chunk_id"] for r in read_table(out, "chunks").to_pylist()}


def test_a_held_night_writes_nothing_and_the_next_night_syncs_incrementally(tmp_path):
    """Night 2 loses 2 of 5 files (a share half mounted) and has an edit: the delete
    guard holds it (exit 4) and neither store (Milvus Lite, Qdrant local mode) is
    written: both still hold night 1's chunks. Night 3, the files back, builds on night
    1 again and syncs both stores incrementally (it re-synced every chunk in full)."""
    names = ("faq.txt", "handbook.md", "station-news.html", "站点简介.txt", "sonde-logger.log")
    corpus = copy_samples(tmp_path / "corpus", names)
    settle(corpus)
    state = tmp_path / "state"
    stores = {"milvus": tmp_path / "index.db", "qdrant": tmp_path / "qdrant"}
    sink = ["--sink", f"milvus:{stores['milvus']}?collection=docs",
            "--sink", f"qdrant:{stores['qdrant']}?collection=docs",
            "--chunk-size", "300", "--size-unit", "chars"]
    assert _night(state, corpus, "2026-03-01", *sink) == 0
    night1 = _chunk_ids(state / "2026-03-01")
    assert all(_stored_ids(store, kind) == night1 for kind, store in stores.items())

    aside = tmp_path / "aside"
    aside.mkdir()
    for name in names[1:3]:
        (corpus / name).rename(aside / name)
    (corpus / "faq.txt").write_text((SAMPLES / "faq.txt").read_text() + "\nQ: New?\nA: Yes.\n")
    settle(corpus)
    assert _night(state, corpus, "2026-03-02", *sink) == 4
    held = _summary(state, "2026-03-02")
    assert held["outcome"] == "deletes_held" and held["changes_upsert"] > 0
    for kind, store in stores.items():
        assert _stored_ids(store, kind) == night1, kind  # not one write
    assert {(s["kind"], s["status"], s["marker_restored"]) for s in held["sinks"]} == {
        ("milvus", "held", True), ("qdrant", "held", True)}

    for name in names[1:3]:
        (aside / name).rename(corpus / name)
    settle(corpus)
    assert _night(state, corpus, "2026-03-03", *sink) == 0
    night3 = _summary(state, "2026-03-03")
    assert night3["previous"].endswith("2026-03-01")
    sinks = {s["kind"]: s for s in night3["sinks"]}
    assert {(s["status"], s["mode"]) for s in sinks.values()} == {("synced", "incremental")}
    for kind, store in stores.items():
        assert _stored_ids(store, kind) == _chunk_ids(state / "2026-03-03"), kind
        # Only the edited file's chunks were written (the sink rewrites every chunk of
        # a document with changes), not every chunk again.
        faq = [r for r in read_table(state / "2026-03-03", "chunks").to_pylist()
               if r["source_uri"].endswith("faq.txt")]
        assert sinks[kind]["upserts"] == len(faq) < len(night1)
        assert sinks[kind]["deletes"] == 0
