"""``--text-vector`` through the failures a nightly run meets, real stores, no mocks:

* a store server that goes down mid-sync (Milvus Lite's gRPC server, the sink fault
  tests' ``milvus_server``, stopped after the run has prepared it and marked it
  ``writing``): the run fails after its tables, and every store's state says so
  (one pipeline writes them all: Qdrant's local mode and LanceDB, which keep both
  vectors, stop with it); with the server back, the next run re-syncs every store in
  full and each equals the chunks table, both vectors where the store keeps two;
* a ``gs://`` output (the GCS emulator of ``tests/object_stores.py``): the chunks
  table in the bucket has both vectors, and an incremental run against that
  ``--previous`` reuses them (nothing embedded again) and keeps a LanceDB sink equal
  to its chunks table.
"""

from __future__ import annotations

import io
import json
import pathlib

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ragbeam.pipeline import run as run_module
from ragbeam.pipeline.cli import main
from ragbeam.schemas.chunks import TEXT_EMBEDDING

from conftest import SAMPLES, TEST_EXTRACT_TIMEOUT
from helpers import copy_samples, read_table
from object_stores import gcs_emulator
from sink_stores import READERS, assert_store_equals_chunks, milvus_lite_server, milvus_rows

pytestmark = pytest.mark.slow  # whole runs, with the embedding model

COLLECTION = "docs"
FILES = ("faq.txt", "handbook.md")


@pytest.fixture
def milvus_server(tmp_path):
    with milvus_lite_server(tmp_path / "srv") as server:
        yield server


def _states(out: pathlib.Path) -> dict[str, dict]:
    return {json.loads(p.read_text())["kind"]: json.loads(p.read_text())
            for p in (out / "sinks").glob("*.json")}


def _two_vectors_stored(reader, out: pathlib.Path) -> None:
    """A store that keeps both vectors equals the chunks table: the same ids and texts,
    and each chunk's pair (its dense text's vector, its text's) as in Parquet."""
    table = {r["chunk_id"]: r for r in read_table(out, "chunks").to_pylist()}
    stored = reader.rows()
    assert stored.keys() == table.keys()
    for chunk_id, row in stored.items():
        assert row["text"] == table[chunk_id]["text"]
        vectors = np.asarray(row["embedding"], dtype=np.float32)
        assert vectors.shape == (2, len(table[chunk_id]["embedding"])), chunk_id
        np.testing.assert_allclose(vectors[0], table[chunk_id]["embedding"], atol=1e-5)
        np.testing.assert_allclose(vectors[1], table[chunk_id][TEXT_EMBEDDING], atol=1e-5)


def test_a_store_down_mid_sync_fails_the_run_and_the_next_run_converges(
        tmp_path, milvus_server, monkeypatch, capsys):
    server, port = milvus_server
    corpus = copy_samples(tmp_path / "corpus", FILES)
    readers = {kind: READERS[kind](tmp_path) for kind in ("qdrant", "lancedb")}
    milvus = f"milvus://127.0.0.1:{port}?collection={COLLECTION}"
    args = ["run", "--input", str(corpus), "--chunk-size", "300", "--size-unit", "chars",
            "--extract-timeout", TEST_EXTRACT_TIMEOUT, "--text-vector", "--sink", milvus,
            *[a for r in readers.values() for a in ("--sink", r.uri)]]
    assert main([*args, "--output", str(tmp_path / "run1")]) == 0, capsys.readouterr().err

    # An edit, then the server goes away once the run has prepared every store.
    faq = corpus / "faq.txt"
    faq.write_text(faq.read_text(encoding="utf-8") + "\n\nQ: Is there a sauna?\nA: Yes, "
                   "by the lake.\n", encoding="utf-8")
    prepare = run_module.prepare_sink_plans

    def prepare_then_stop(config):
        plans = prepare(config)
        server.terminate()
        server.wait(timeout=30)
        return plans

    monkeypatch.setattr(run_module, "prepare_sink_plans", prepare_then_stop)
    code = main([*args, "--output", str(tmp_path / "run2"), "--previous",
                 str(tmp_path / "run1")])
    err = capsys.readouterr().err
    assert code == 1, err
    assert f"sink {milvus}" in err and "the next run re-syncs the store in full" in err
    states = _states(tmp_path / "run2")
    assert states["milvus"]["status"] == "failed"
    assert states["milvus"]["warnings"]  # asked for two vectors: Milvus keeps one, said
    # One pipeline writes every store: the others' writes stopped with it, and no
    # state trusts them (the next run re-syncs them in full too).
    for kind in readers:
        assert states[kind]["status"] == "failed" and states[kind]["multivector"] is True
    monkeypatch.undo()

    # The server back on its data: the next run converges, Milvus in full.
    with milvus_lite_server(tmp_path / "srv", port):
        assert main([*args, "--output", str(tmp_path / "run3"), "--previous",
                     str(tmp_path / "run2")]) == 0, capsys.readouterr().err
        states = _states(tmp_path / "run3")
        assert states["milvus"]["status"] == "synced" and states["milvus"]["mode"] == "full"
        assert "did not complete" in states["milvus"]["reason"]
        assert_store_equals_chunks(milvus_rows(f"http://127.0.0.1:{port}"),
                                   tmp_path / "run3")
        summary = json.loads((tmp_path / "run3" / "run.json").read_text())
        assert summary["embedding"].get("texts_encoded", 0) == 0  # both vectors reused
        for kind, reader in readers.items():
            assert states[kind]["status"] == "synced" and states[kind]["mode"] == "full"
            _two_vectors_stored(reader, tmp_path / "run3")


BUCKET = "ragbeam-tv"


def _gcs_table(output: str, name: str) -> pa.Table:
    from apache_beam.io.filesystems import FileSystems

    paths = sorted(m.path for m in FileSystems.match([f"{output}/{name}/*.parquet"])[0]
                   .metadata_list)
    assert paths, f"no {name} table under {output}"
    tables = []
    for path in paths:
        with FileSystems.open(path) as f:
            tables.append(pq.read_table(io.BytesIO(f.read())))
    return pa.concat_tables(tables)


def _gcs_json(uri: str) -> dict:
    from apache_beam.io.filesystems import FileSystems

    with FileSystems.open(uri) as f:
        return json.loads(f.read().decode("utf-8"))


def test_a_gs_output_keeps_both_vectors_and_an_incremental_run_reuses_them(tmp_path):
    (tmp_path / "gcs").mkdir()
    with gcs_emulator(tmp_path / "gcs", BUCKET):
        corpus = copy_samples(tmp_path / "corpus", FILES)
        lancedb = READERS["lancedb"](tmp_path)
        first, second = f"gs://{BUCKET}/runs/first", f"gs://{BUCKET}/runs/second"
        args = ["run", "--input", str(corpus), "--chunk-size", "300", "--size-unit",
                "chars", "--extract-timeout", TEST_EXTRACT_TIMEOUT, "--text-vector",
                "--sink", lancedb.uri]
        assert main([*args, "--output", first]) == 0
        chunks = _gcs_table(first, "chunks")
        assert TEXT_EMBEDDING in chunks.schema.names
        assert chunks.column(TEXT_EMBEDDING).null_count == 0 and chunks.num_rows > 0
        summary = _gcs_json(f"{first}/run.json")
        assert summary["embedding"]["texts_encoded"] > chunks.num_rows  # two a chunk
        assert summary["sinks"][0]["multivector"] is True

        (corpus / "handbook.md").write_text(
            (SAMPLES / "handbook.md").read_text(encoding="utf-8") + "\n\n## Sauna\n\nThe "
            "sauna by the lake is heated on Fridays.\n", encoding="utf-8")
        assert main([*args, "--output", second, "--previous", first]) == 0
        again = _gcs_table(second, "chunks")
        summary = _gcs_json(f"{second}/run.json")
        state = summary["sinks"][0]
        assert state["status"] == "synced" and state["mode"] == "incremental", state
        # Only the edited document's new chunks were embedded (two texts each at most).
        before = {r["chunk_id"]: r for r in chunks.to_pylist()}
        new = [r for r in again.to_pylist() if r["chunk_id"] not in before]
        assert 0 < summary["embedding"]["texts_encoded"] <= 2 * len(new)
        for row in again.to_pylist():
            if row["chunk_id"] in before:  # kept: both vectors as they were
                assert row[TEXT_EMBEDDING] == before[row["chunk_id"]][TEXT_EMBEDDING]
        stored = lancedb.rows()
        assert stored.keys() == {r["chunk_id"] for r in again.to_pylist()}
        for row in again.to_pylist():
            np.testing.assert_allclose(np.asarray(stored[row["chunk_id"]]["embedding"])[1],
                                       row[TEXT_EMBEDDING], atol=1e-5)
