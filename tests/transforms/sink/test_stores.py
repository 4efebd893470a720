"""Real runs into real stores: Milvus Lite, Qdrant's local mode, and a Milvus server
(Milvus Lite's own gRPC server, in a child process) reached with a password.

After every run, each store is read back with its own client and compared with
that run's ``chunks`` table: the same chunk ids, texts, vectors and fields.
"""

from __future__ import annotations

import contextlib
import json
import pathlib
import shutil
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

from ragbeam.pipeline.cli import main
from ragbeam.transforms.sink.base import MARKER_KEY

from conftest import SAMPLES, TEST_EXTRACT_TIMEOUT
from helpers import copy_samples, read_table, run_cli

FILES = ("faq.txt", "handbook.md", "station-news.html", "站点简介.txt")
EDIT_BEFORE = "Calibration solutions are in the cold room, second shelf."
EDIT_AFTER = "Calibration solutions are on the top shelf of the left rack in the cold room."
COLLECTION = "docs"
SECRET = "Sup3r-S3cret-pw"


def _milvus_rows(uri: str, token: str = "") -> dict[str, dict]:
    from pymilvus import MilvusClient

    client = MilvusClient(uri=uri, token=token)
    try:
        rows = client.query(COLLECTION, filter="", limit=16384,
                            output_fields=["chunk_id", "text", "embedding", "doc_id",
                                           "chunk_index", "char_start", "heading_path"])
    finally:
        client.close()
    return {r["chunk_id"]: {**r, "embedding": list(r["embedding"])} for r in rows}


def _milvus_marker(uri: str) -> str | None:
    from pymilvus import MilvusClient

    client = MilvusClient(uri=uri)
    try:
        return client.describe_collection(COLLECTION)["properties"].get(MARKER_KEY)
    finally:
        client.close()


def _qdrant_rows(path: pathlib.Path) -> dict[str, dict]:
    from qdrant_client import QdrantClient

    client = QdrantClient(path=str(path))
    try:
        points, _ = client.scroll(COLLECTION, limit=100_000, with_payload=True,
                                  with_vectors=True)
    finally:
        client.close()
    return {p.payload["chunk_id"]: {**p.payload, "point_id": str(p.id),
                                    "embedding": p.vector["embedding"]} for p in points}


def assert_store_equals_chunks(stored: dict[str, dict], out: pathlib.Path) -> None:
    chunks = {r["chunk_id"]: r for r in read_table(out, "chunks").to_pylist()}
    assert set(stored) == set(chunks), (
        f"store has {len(set(stored) - set(chunks))} extra and lacks "
        f"{len(set(chunks) - set(stored))} chunks")
    for chunk_id, row in chunks.items():
        got = stored[chunk_id]
        assert got["text"] == row["text"]
        assert got["doc_id"] == row["doc_id"] and got["chunk_index"] == row["chunk_index"]
        assert got["char_start"] == row["char_start"]
        assert list(got["heading_path"]) == row["heading_path"]
        np.testing.assert_allclose(got["embedding"], row["embedding"], atol=1e-6)


def _state(out: pathlib.Path, kind: str) -> dict:
    (path,) = (out / "sinks").glob(f"{kind}-{COLLECTION}-*.json")
    return json.loads(path.read_text())


@pytest.fixture(scope="module")
def stores(tmp_path_factory) -> dict[str, pathlib.Path]:
    root = tmp_path_factory.mktemp("stores")
    corpus = copy_samples(root / "corpus", FILES)
    return {"root": root, "corpus": corpus, "milvus": root / "index.db",
            "qdrant": root / "qdrant"}


def _run(stores: dict[str, pathlib.Path], out: str, *extra: str) -> dict:
    return run_cli(["--input", str(stores["corpus"]), "--output", str(stores["root"] / out),
                    "--chunk-size", "300", "--size-unit", "chars",
                    "--extract-timeout", TEST_EXTRACT_TIMEOUT,
                    "--sink", f"milvus:{stores['milvus']}?collection={COLLECTION}",
                    "--sink", f"qdrant:{stores['qdrant']}?collection={COLLECTION}", *extra])


@pytest.fixture(scope="module")
def first_run(stores) -> dict:
    return _run(stores, "run1")


def test_a_first_run_fills_both_stores_with_the_chunks_table(stores, first_run):
    out = stores["root"] / "run1"
    sinks = {s["kind"]: s for s in first_run["sinks"]}
    assert set(sinks) == {"milvus", "qdrant"}
    for state in sinks.values():
        assert state["status"] == "synced" and state["mode"] == "full"
        assert state["points"] == first_run["chunks"] == state["upserts"] > 10
    assert_store_equals_chunks(_milvus_rows(str(stores["milvus"])), out)
    assert_store_equals_chunks(_qdrant_rows(stores["qdrant"]), out)
    assert _state(out, "milvus")["run_token"] == _milvus_marker(str(stores["milvus"]))


@pytest.fixture(scope="module")
def second_run(stores, first_run) -> dict:
    handbook = stores["corpus"] / "handbook.md"
    text = handbook.read_text(encoding="utf-8")
    assert EDIT_BEFORE in text
    handbook.write_text(text.replace(EDIT_BEFORE, EDIT_AFTER), encoding="utf-8")
    (stores["corpus"] / "faq.txt").unlink()
    shutil.copy(SAMPLES / "sonde-logger.log", stores["corpus"] / "sonde-logger.log")
    # 1 of 4 documents vanished: over the delete guard's default 20 %, meant here.
    return _run(stores, "run2", "--previous", str(stores["root"] / "run1"),
                "--max-delete-rate", "0.25")


def test_an_incremental_run_applies_edits_inserts_and_deletes(stores, second_run):
    """Only the documents that changed are written: every chunk of the edited and the
    new file (a kept chunk below the edit moved: its offsets change), the deleted
    file's chunks deleted; the unchanged files are not touched."""
    out = stores["root"] / "run2"
    changes = read_table(out, "changes").to_pylist()
    deletes = sum(c["op"] == "delete" for c in changes)
    changed_docs = {c["doc_id"] for c in changes}
    rows_of_changed = [r for r in read_table(out, "chunks").to_pylist()
                       if r["doc_id"] in changed_docs]
    assert deletes and second_run["documents_deleted"] == 1
    assert second_run["documents_unchanged"] == 2 and len(rows_of_changed) < second_run["chunks"]
    for state in second_run["sinks"]:
        assert state["status"] == "synced" and state["mode"] == "incremental", state
        assert (state["upserts"], state["deletes"]) == (len(rows_of_changed), deletes)
        assert state["points"] == second_run["chunks"]
    assert_store_equals_chunks(_milvus_rows(str(stores["milvus"])), out)
    assert_store_equals_chunks(_qdrant_rows(stores["qdrant"]), out)


def test_a_store_left_by_a_dead_run_is_resynced_in_full(stores, second_run):
    """What a run killed while writing leaves: its marker, some writes, not all."""
    from pymilvus import MilvusClient
    from qdrant_client import QdrantClient, models

    run2 = stores["root"] / "run2"
    victim = read_table(run2, "chunks").to_pylist()[0]
    stray = {**victim, "chunk_id": "f" * 32, "text": "a chunk no table has"}
    milvus = MilvusClient(str(stores["milvus"]))
    milvus.alter_collection_properties(COLLECTION, properties={MARKER_KEY: "writing:deadrun"})
    milvus.delete(COLLECTION, ids=[victim["chunk_id"]])
    milvus.close()
    qdrant = QdrantClient(path=str(stores["qdrant"]))
    qdrant.update_collection(COLLECTION, metadata={MARKER_KEY: "writing:deadrun"})
    qdrant.upsert(COLLECTION, points=[models.PointStruct(
        id="ffffffff-ffff-ffff-ffff-ffffffffffff", vector={"embedding": victim["embedding"]},
        payload={"chunk_id": stray["chunk_id"], "text": stray["text"]})])
    qdrant.close()

    summary = _run(stores, "run3", "--previous", str(run2))
    out = stores["root"] / "run3"
    assert summary["changes_upsert"] == summary["changes_delete"] == 0  # nothing changed...
    for state in summary["sinks"]:  # ...but neither store can be trusted to hold run 2
        assert state["status"] == "synced" and state["mode"] == "full", state
        assert "no longer holds" in state["reason"]
    assert_store_equals_chunks(_milvus_rows(str(stores["milvus"])), out)
    assert_store_equals_chunks(_qdrant_rows(stores["qdrant"]), out)


def test_a_sink_failure_after_the_commit_fails_the_run_and_the_next_run_converges(
        tmp_path, capsys):
    """A chunk longer than Milvus's VARCHAR limit: Milvus refuses the upsert. The
    tables are complete and the output is a valid --previous; the next run (smaller
    chunks) re-syncs the store in full."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copy(SAMPLES / "faq.txt", corpus / "faq.txt")
    words = ("alpha", "station", "river", "sample", "probe", "calibration", "weather")
    (corpus / "long.txt").write_text(" ".join(words[i % 7] for i in range(12_000)),
                                     encoding="utf-8")
    sink = f"milvus:{tmp_path / 'index.db'}?collection={COLLECTION}"
    args = ["run", "--input", str(corpus), "--sink", sink,
            "--extract-timeout", TEST_EXTRACT_TIMEOUT]
    code = main([*args, "--output", str(tmp_path / "run1"), "--chunk-size", "90000"])
    err = capsys.readouterr().err
    assert code == 1
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"ragbeam: error: sink {sink}: ") and "max_length" in last
    assert "the next run re-syncs the store in full" in last
    summary = json.loads((tmp_path / "run1" / "run.json").read_text())
    assert summary["documents_ok"] == 2 and summary["sinks"][0]["status"] == "failed"
    assert _state(tmp_path / "run1", "milvus")["status"] == "failed"

    code = main([*args, "--output", str(tmp_path / "run2"), "--chunk-size", "1000",
                 "--previous", str(tmp_path / "run1")])
    assert code == 0, capsys.readouterr().err
    state = _state(tmp_path / "run2", "milvus")
    assert state["status"] == "synced" and state["mode"] == "full"
    assert "did not complete" in state["reason"]
    assert_store_equals_chunks(_milvus_rows(str(tmp_path / "index.db")), tmp_path / "run2")


def test_local_stores_need_the_in_process_runner(tmp_path, capsys):
    code = main(["run", "--input", str(SAMPLES / "faq.txt"), "--output", str(tmp_path / "o"),
                 "--sink", f"qdrant:{tmp_path / 'q'}", "--direct_num_workers", "2"])
    assert code == 2
    assert "one worker" in capsys.readouterr().err


def _free_port() -> int:
    with contextlib.closing(socket.socket()) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def milvus_server(tmp_path):
    """Milvus Lite's gRPC server in a child process: a Milvus reached over the network
    (it accepts any token, so a password can be given and must never be written)."""
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "milvus_lite", "server", "--data-dir", str(tmp_path / "srv"),
         "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with contextlib.closing(socket.socket()) as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.2)
    else:
        server.kill()
        pytest.fail("milvus-lite server did not start")
    yield server, port
    server.terminate()
    server.wait(timeout=30)


def _texts_of_output(out: pathlib.Path) -> str:
    """Everything a run wrote, as text (Parquet values read back, not compressed bytes)."""
    parts = [p.read_text(encoding="utf-8") for p in out.rglob("*.json")]
    for table in ("chunks", "documents", "errors", "changes"):
        parts.append(str(read_table(out, table).to_pylist()))
    return "\n".join(parts)


def test_a_password_in_the_uri_is_used_and_never_written(tmp_path, milvus_server, capsys,
                                                          caplog):
    server, port = milvus_server
    sink = f"milvus://root:{SECRET}@127.0.0.1:{port}?collection={COLLECTION}"
    shown = f"milvus://root:***@127.0.0.1:{port}?collection={COLLECTION}"
    args = ["run", "--input", str(SAMPLES / "faq.txt"), "--sink", sink,
            "--extract-timeout", TEST_EXTRACT_TIMEOUT]
    assert main([*args, "--output", str(tmp_path / "run1")]) == 0
    out, err = capsys.readouterr()
    summary = json.loads((tmp_path / "run1" / "run.json").read_text())
    assert summary["sinks"][0]["sink"] == shown and summary["sinks"][0]["status"] == "synced"
    assert shown in out
    assert_store_equals_chunks(_milvus_rows(f"http://127.0.0.1:{port}", f"root:{SECRET}"),
                               tmp_path / "run1")

    server.terminate()  # the store goes away: retried, then a clear, redacted error
    server.wait(timeout=30)
    assert main([*args, "--output", str(tmp_path / "run2"),
                 "--previous", str(tmp_path / "run1")]) == 2
    out2, err2 = capsys.readouterr()
    assert f"ragbeam: error: sink {shown}: prepare failed after 4 attempts" in err2
    assert (err2 + caplog.text).count("retrying in") == 3
    for text in (out, err, out2, err2, caplog.text, _texts_of_output(tmp_path / "run1")):
        assert SECRET not in text
