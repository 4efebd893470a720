"""Second-run faults: a document that changed and then fails keeps its last good chunks.

Each test is three real runs over a small corpus. Run 1 is healthy. Before run 2
two documents are edited, and run 2 fails them (a time limit, the memory cap, a
Tika server that was stopped, a model that cannot load): no chunk of theirs is
deleted, they become ``stale``, and the run exits 3. Run 3 is healthy again and
heals them without ``--retry-errors``: their failures were transient.
"""

from __future__ import annotations

import json
import pathlib
import shutil

import pytest

from ragbeam.pipeline.cli import main

from conftest import TEST_EXTRACT_TIMEOUT
from helpers import cold_start_seconds, copy_samples, read_table, run_cli
from tika_server import tika_like_server

FILES = ("faq.txt", "handbook.md", "station-news.html", "站点简介.txt")
EDITED = ("faq.txt", "handbook.md")


def _corpus(root: pathlib.Path) -> pathlib.Path:
    corpus = copy_samples(root / "corpus", FILES)
    return corpus


def _edit(corpus: pathlib.Path) -> None:
    for name in EDITED:
        path = corpus / name
        path.write_text(path.read_text(encoding="utf-8") + "\n\nOne more paragraph, added "
                        "between two runs, about the new opening hours.\n", encoding="utf-8")


def _args(corpus: pathlib.Path, out: pathlib.Path, *extra: str) -> list[str]:
    # The error rate is over the whole corpus: the two edited documents that fail are
    # half of it, which the default 50 % allows.
    return ["--input", str(corpus), "--output", str(out), "--strategy", "recursive",
            "--chunk-size", "300", "--max-error-rate", "0.25", *extra]


def _by_name(out: pathlib.Path, table: str) -> dict[str, list[dict]]:
    rows: dict[str, list[dict]] = {}
    for row in read_table(out, table).to_pylist():
        rows.setdefault(pathlib.Path(row["source_uri"]).name, []).append(row)
    return rows


def _chunk_ids(out: pathlib.Path) -> dict[str, set[str]]:
    return {name: {r["chunk_id"] for r in rows}
            for name, rows in _by_name(out, "chunks").items()}


def _check_last_good_version_won(run1: pathlib.Path, run2: pathlib.Path, summary: dict,
                                 error_type: str, failed: tuple[str, ...] = EDITED) -> None:
    docs = {name: rows[0] for name, rows in _by_name(run2, "documents").items()}
    assert {n: d["status"] for n, d in docs.items() if n in failed} == dict.fromkeys(
        failed, "stale")
    for name in failed:
        meta = dict(docs[name]["metadata"])
        assert meta["error_type"] == error_type and meta["error_class"] == "transient"
        assert docs[name]["error"].split(": ")[1] == error_type
    # Not one chunk was lost: the index keeps serving what it had…
    assert _chunk_ids(run2) == _chunk_ids(run1)
    # …and the sync job is told to delete nothing.
    assert [c for c in read_table(run2, "changes").to_pylist() if c["op"] == "delete"] == []
    errors = read_table(run2, "errors").to_pylist()
    assert sorted(pathlib.Path(e["source_uri"]).name for e in errors) == sorted(failed)
    assert {e["error_class"] for e in errors} == {"transient"}
    assert summary["documents_stale"] == len(failed)
    assert summary["outcome"] == "error_rate_exceeded"


def _check_healed(run2: pathlib.Path, run3: pathlib.Path, summary: dict) -> None:
    statuses = {name: rows[0]["status"] for name, rows in _by_name(run3, "documents").items()}
    assert {statuses[n] for n in EDITED} == {"ok"}
    assert summary["documents_stale"] == 0 and summary["outcome"] == "ok"
    # The healed documents now have the edit; their changes go against what the
    # store holds since run 2 (the last good chunks), so applying them is exact.
    changes = read_table(run3, "changes").to_pylist()
    assert {pathlib.Path(c["source_uri"]).name for c in changes} <= set(EDITED)
    before, after = _chunk_ids(run2), _chunk_ids(run3)
    for name in EDITED:
        assert {c["chunk_id"] for c in changes if c["op"] == "delete"
                and c["source_uri"].endswith(name)} == before[name] - after[name]
        assert any("opening hours" in r["text"] for r in _by_name(run3, "chunks")[name])


@pytest.mark.parametrize(("fault", "error_type"), [
    # The time limit and the memory cap are not part of the config fingerprint:
    # only the edited documents are re-processed, and they fail.
    (("--extract-timeout", "0.001"), "ExtractionTimeout"),
    (("--extract-memory-mb", "1"), "ExtractionMemoryExceeded"),
], ids=["timeout", "memory-cap"])
def test_a_failing_second_run_keeps_the_last_good_chunks_and_the_next_run_heals(
        tmp_path, fault, error_type):
    corpus = _corpus(tmp_path)
    run1, run2, run3 = (tmp_path / f"run{i}" for i in (1, 2, 3))
    run_cli(_args(corpus, run1, "--extract-timeout", TEST_EXTRACT_TIMEOUT))
    _edit(corpus)
    summary = run_cli(_args(corpus, run2, "--previous", str(run1), *fault), expected_exit=3)
    _check_last_good_version_won(run1, run2, summary, error_type)
    healed = run_cli(_args(corpus, run3, "--previous", str(run2),
                           "--extract-timeout", TEST_EXTRACT_TIMEOUT))
    _check_healed(run2, run3, healed)


def test_a_tika_server_that_went_down(tmp_path, capsys):
    corpus = _corpus(tmp_path)
    run1, run2, run3 = (tmp_path / f"run{i}" for i in (1, 2, 3))
    # The time limit is not fingerprinted: the runs with a server that answers get one
    # no document reaches under any load, the run with a stopped server a short one.
    # Its retries wait a third of it (server_retry_delays), and must be over before it
    # ends, counted from the extraction child's start: sized from what a child's start
    # takes on this machine now, at least 6 s (retries of ~1.5 s a document).
    answering = ("--extract-timeout", TEST_EXTRACT_TIMEOUT)
    stopped = ("--extract-timeout", f"{max(6.0, 10 * cold_start_seconds()):.1f}")
    with tika_like_server() as (url, _):
        run_cli(_args(corpus, run1, "--tika-server", url, *answering))
    _edit(corpus)
    # The server is stopped now. Preflight notices before anything is touched…
    code = main(["run", *_args(corpus, run2, "--tika-server", url, "--previous", str(run1),
                               *stopped)])
    assert code == 2 and "does not answer" in capsys.readouterr().err
    assert not (run2 / "documents").exists()
    # …and without preflight every document fails, and nothing is lost: the server's
    # version is unknown, so the fingerprint changed and every document was retried.
    summary = run_cli(_args(corpus, run2, "--tika-server", url, "--previous", str(run1),
                            "--no-preflight", *stopped), expected_exit=3)
    _check_last_good_version_won(run1, run2, summary, "TikaServerUnavailable", failed=FILES)
    assert summary["error_rate"] == 1.0
    with tika_like_server() as (url, _):
        healed = run_cli(_args(corpus, run3, "--tika-server", url, "--previous", str(run2),
                               *answering))
    _check_healed(run2, run3, healed)
    assert healed["config_hash"] == json.loads((run1 / "run.json").read_text())["config_hash"]


def test_a_model_that_stops_loading(tmp_path):
    from ragbeam.transforms.embed.model import default_model_path

    model = tmp_path / "model"
    shutil.copytree(default_model_path(), model)
    # The tokenizer breaks: the model no longer loads, but its identity (package or
    # path, and the hash of its weights) is the same, so only edited documents are
    # re-processed. (Broken weights would be another model: everything re-processed.)
    tokenizer = model / "tokenizer.json"
    good = tokenizer.read_bytes()
    corpus = _corpus(tmp_path)
    run1, run2, run3 = (tmp_path / f"run{i}" for i in (1, 2, 3))
    # Backend and precision explicit: ``auto`` would time every backend on this copy of
    # the model (a new model to the probe's cache), which is not what is tested here.
    embed = ("--embed-chunks", "--embedding-model", str(model), "--embedding-backend", "torch",
             "--embedding-precision", "fp32")
    run_cli(_args(corpus, run1, *embed))
    _edit(corpus)
    tokenizer.write_bytes(good[:1000])
    summary = run_cli(_args(corpus, run2, "--previous", str(run1), "--no-preflight", *embed),
                      expected_exit=3)
    _check_last_good_version_won(run1, run2, summary, "EmbeddingFailed")
    # No ok document has a chunk without its vector, and the stale ones keep theirs.
    assert all(r["embedding"] is not None for r in read_table(run2, "chunks").to_pylist())
    tokenizer.write_bytes(good)
    healed = run_cli(_args(corpus, run3, "--previous", str(run2), *embed))
    _check_healed(run2, run3, healed)
    assert healed["chunks_embedded"] == healed["chunks"]


def test_kept_chunks_get_vectors_when_a_run_switches_embeddings_on(tmp_path):
    corpus = _corpus(tmp_path)
    run1, run2 = tmp_path / "run1", tmp_path / "run2"
    run_cli(_args(corpus, run1))  # no vectors
    # Embeddings switched on (the dense layer only) with a cleaning change (the
    # extraction layer: every document is re-processed), and every one fails (the
    # memory cap). Their last good chunks are kept, and the embedding column has no
    # nulls: they are embedded with this run's model.
    summary = run_cli(_args(corpus, run2, "--previous", str(run1), "--embed-chunks",
                            "--no-clean", "dehyphenate", "--extract-memory-mb", "1"),
                      expected_exit=3)
    assert summary["documents_stale"] == len(FILES)
    assert _chunk_ids(run2) == _chunk_ids(run1)
    rows = read_table(run2, "chunks").to_pylist()
    assert rows and all(r["embedding"] is not None and len(r["embedding"]) == 384
                        for r in rows)
