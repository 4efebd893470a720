"""``--text-vector``: real runs into real stores, no mocks.

Each chunk has two vectors (``embedding``: label > nearest heading + text;
``text_embedding``: the text alone). Qdrant (local mode) and LanceDB hold both as one
multivector and score a query by the closer one: checked against a brute-force
maximum of the two cosines read back from the run's Parquet. Milvus Lite and Chroma
keep ``embedding`` alone, and the run says so once. Two runs of the same files give
the same ids and vectors; an incremental run keeps them, and one that switches the
option on fills ``text_embedding`` without re-chunking.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

from ragbeam.schemas import TEXT_EMBEDDING, embedding_metadata_of, has_text_vectors

from conftest import TEST_EXTRACT_TIMEOUT
from helpers import copy_samples, read_table, run_cli

FILES = ("faq.txt", "handbook.md", "station-news.html")
COLLECTION = "docs"

pytestmark = pytest.mark.slow  # whole runs, with the embedding model


def _args(corpus: pathlib.Path, out: pathlib.Path, *extra: str) -> list[str]:
    # fp32 torch on every machine: runs embedded apart are compared to 1e-5 below; where
    # ``auto`` picks bf16 (a CPU with AVX512-BF16 or AMX), texts batched differently
    # differ by ~1e-3 (what is carried over is compared exactly either way).
    return ["--input", str(corpus), "--output", str(out), "--chunk-size", "300",
            "--size-unit", "chars", "--extract-timeout", TEST_EXTRACT_TIMEOUT,
            "--embedding-backend", "torch", "--embedding-precision", "fp32", *extra]


def _vectors(out: pathlib.Path) -> tuple[list[str], np.ndarray, np.ndarray | None]:
    table = read_table(out, "chunks").sort_by("chunk_id")
    ids = table.column("chunk_id").to_pylist()
    first = np.array(table.column("embedding").to_pylist(), dtype=np.float32)
    second = (np.array(table.column(TEXT_EMBEDDING).to_pylist(), dtype=np.float32)
              if TEXT_EMBEDDING in table.schema.names else None)
    return ids, first, second


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("twovec")
    corpus = copy_samples(root / "corpus", FILES)
    stores = root / "stores"
    sinks = [f"qdrant:{stores / 'qdrant'}?collection={COLLECTION}",
             f"lancedb:{stores / 'lancedb'}?collection={COLLECTION}",
             f"chroma:{stores / 'chroma'}?collection={COLLECTION}",
             f"milvus:{stores / 'milvus.db'}?collection={COLLECTION}"]
    first = run_cli(_args(corpus, root / "run1", "--text-vector",
                          *[a for s in sinks for a in ("--sink", s)]))
    # The same corpus embedded without the option (each test that reads it stands alone).
    run_cli(_args(corpus, root / "plain", "--embed-chunks", "--no-text-vector"))
    return {"root": root, "corpus": corpus, "stores": stores, "first": first}


def test_a_text_vector_run_writes_both_vectors_and_says_so(runs):
    out = runs["root"] / "run1"
    table = read_table(out, "chunks")
    assert has_text_vectors(table.schema)
    assert embedding_metadata_of(table.schema)["text_vector"]
    assert runs["first"]["embedding"]["text_vector"]
    ids, first, second = _vectors(out)
    assert second is not None and second.shape == first.shape and len(ids) > 5
    assert np.allclose(np.linalg.norm(second, axis=1), 1.0, atol=1e-4)
    # A chunk with a header has two different vectors; one without, the same twice.
    assert (np.abs((first * second).sum(axis=1)) < 0.9999).any()


def _brute_force(out: pathlib.Path, query: np.ndarray) -> dict[str, float]:
    ids, first, second = _vectors(out)
    return dict(zip(ids, np.maximum(first @ query, second @ query).tolist(), strict=True))


def _query(out: pathlib.Path) -> np.ndarray:
    # A query between two chunks' vectors: no chunk is its exact match.
    _, first, second = _vectors(out)
    q = first[0] + second[-1]
    return (q / np.linalg.norm(q)).astype(np.float32)


def test_qdrant_scores_a_chunk_by_its_closer_vector(runs):
    from qdrant_client import QdrantClient

    out = runs["root"] / "run1"
    query = _query(out)
    want = _brute_force(out, query)
    client = QdrantClient(path=str(runs["stores"] / "qdrant"))
    try:
        config = client.get_collection(COLLECTION).config.params.vectors["embedding"]
        assert config.multivector_config.comparator.value == "max_sim"
        points = client.query_points(COLLECTION, query=[query.tolist()], using="embedding",
                                     limit=len(want), with_payload=True).points
    finally:
        client.close()
    got = {p.payload["chunk_id"]: p.score for p in points}
    assert got.keys() == want.keys()
    assert max(abs(got[c] - want[c]) for c in want) < 1e-4


def test_lancedb_scores_a_chunk_by_its_closer_vector(runs):
    from ragbeam.transforms.sink.writers import connect_lancedb

    out = runs["root"] / "run1"
    query = _query(out)
    want = _brute_force(out, query)
    table = connect_lancedb(str(runs["stores"] / "lancedb")).open_table(COLLECTION)
    rows = (table.search(query, vector_column_name="embedding").distance_type("cosine")
            .limit(len(want)).to_arrow().to_pylist())
    got = {r["chunk_id"]: 1.0 - r["_distance"] for r in rows}
    assert got.keys() == want.keys()
    assert max(abs(got[c] - want[c]) for c in want) < 1e-4
    assert all(len(r["embedding"]) == 2 for r in rows)


@pytest.mark.parametrize("kind", ["chroma", "milvus"])
def test_a_store_that_cannot_hold_two_vectors_keeps_embedding_and_says_so(runs, kind):
    (state,) = [s for s in runs["first"]["sinks"] if s["kind"] == kind]
    assert state["status"] == "synced" and not state.get("multivector")
    assert len(state["warnings"]) == 1 and "embedding only" in state["warnings"][0]
    for other in ("qdrant", "lancedb"):
        (kept,) = [s for s in runs["first"]["sinks"] if s["kind"] == other]
        assert kept["multivector"] is True and "warnings" not in kept
    out = runs["root"] / "run1"
    ids, first, _ = _vectors(out)
    stored = _stored_vectors(runs["stores"], kind)
    assert sorted(stored) == ids
    assert np.allclose(np.array([stored[c] for c in ids]), first, atol=1e-6)


def _stored_vectors(stores: pathlib.Path, kind: str) -> dict[str, list[float]]:
    if kind == "chroma":
        from ragbeam.transforms.sink.writers import chroma_client

        got = chroma_client(str(stores / "chroma")).get_collection(
            COLLECTION, embedding_function=None).get(include=["embeddings"])
        return dict(zip(got["ids"], [list(v) for v in got["embeddings"]], strict=True))
    from pymilvus import MilvusClient

    client = MilvusClient(uri=str(stores / "milvus.db"))
    try:
        rows = client.query(COLLECTION, filter="chunk_id != ''",
                            output_fields=["chunk_id", "embedding"])
    finally:
        client.close()
    return {r["chunk_id"]: list(r["embedding"]) for r in rows}


def test_the_same_files_give_the_same_ids_and_vectors(runs):
    again = runs["root"] / "run2"
    run_cli(_args(runs["corpus"], again, "--text-vector"))
    ids1, first1, second1 = _vectors(runs["root"] / "run1")
    ids2, first2, second2 = _vectors(again)
    assert ids1 == ids2
    # Batches may pad a text differently: float rounding only (encode_texts).
    assert np.allclose(first1, first2, atol=1e-5) and np.allclose(second1, second2, atol=1e-5)


def test_an_incremental_run_keeps_both_vectors_and_switching_on_fills_the_second(runs):
    root, corpus = runs["root"], runs["corpus"]
    run_cli(_args(corpus, root / "run3", "--text-vector", "--previous", str(root / "run1")))
    ids1, first1, second1 = _vectors(root / "run1")
    ids3, first3, second3 = _vectors(root / "run3")
    assert ids1 == ids3  # carried over: the very vectors
    assert np.array_equal(first1, first3) and np.array_equal(second1, second3)

    switched = run_cli(_args(corpus, root / "run4", "--text-vector",
                             "--previous", str(root / "plain")))
    assert switched["layers"]["dense"] != json.loads(
        (root / "plain" / "run.json").read_text())["layers"]["dense"]
    ids4, first4, second4 = _vectors(root / "run4")
    assert ids4 == ids1 and second4 is not None
    assert np.allclose(first4, first1, atol=1e-5) and np.allclose(second4, second1, atol=1e-5)
    # Only the option changed: the dense vectors are the plain run's, kept as they were,
    # and each chunk's text alone was embedded (one text a chunk, not two).
    _, plain_first, _ = _vectors(root / "plain")
    assert np.array_equal(first4, plain_first)
    assert switched["embedding"]["texts_encoded"] == len(ids4)
    assert switched["changes_upsert"] == len(ids4)  # every row changed: a new column
    # … and off again: the column goes, the dense vectors stay (nothing embedded).
    off = root / "run5"
    dropped = run_cli(_args(corpus, off, "--embed-chunks", "--no-text-vector", "--previous",
                            str(root / "run4")))
    ids5, first5, second5 = _vectors(off)
    assert ids5 == ids1 and second5 is None and np.array_equal(first5, first4)
    assert dropped["embedding"].get("texts_encoded", 0) == 0
    assert not has_text_vectors(read_table(off, "chunks").schema)


def test_ragbeam_eval_reads_two_vectors_from_the_chunks_schema(runs):
    from ragbeam.evaluate.run_data import load_run

    assert load_run(str(runs["root"] / "run1"), with_text=False).text_vectors is True
    assert load_run(str(runs["root"] / "plain"), with_text=False).text_vectors is False


def test_an_incremental_sync_keeps_both_vectors_of_every_chunk_in_the_stores(runs):
    """Last: it edits the corpus. The stores hold run1's chunks; a run on it with one
    file edited syncs incrementally and the stores hold the new table's two vectors."""
    from qdrant_client import QdrantClient

    from ragbeam.transforms.sink.writers import connect_lancedb

    root, corpus, stores = runs["root"], runs["corpus"], runs["stores"]
    faq = corpus / "faq.txt"
    faq.write_text(faq.read_text(encoding="utf-8") + "\n\nA new closing question: where "
                   "are the spare batteries kept? In the blue cabinet.\n", encoding="utf-8")
    sinks = [f"qdrant:{stores / 'qdrant'}?collection={COLLECTION}",
             f"lancedb:{stores / 'lancedb'}?collection={COLLECTION}"]
    summary = run_cli(_args(corpus, root / "run6", "--text-vector", "--previous",
                            str(root / "run1"), *[a for s in sinks for a in ("--sink", s)]))
    assert {s["mode"] for s in summary["sinks"]} == {"incremental"}
    ids, first, second = _vectors(root / "run6")
    client = QdrantClient(path=str(stores / "qdrant"))
    try:
        points, _ = client.scroll(COLLECTION, limit=10_000, with_payload=True,
                                  with_vectors=True)
    finally:
        client.close()
    held = {p.payload["chunk_id"]: np.asarray(p.vector["embedding"]) for p in points}
    lance = connect_lancedb(str(stores / "lancedb")).open_table(COLLECTION).to_arrow()
    lance_held = dict(zip(lance.column("chunk_id").to_pylist(),
                          [np.asarray(v) for v in lance.column("embedding").to_pylist()],
                          strict=True))
    for store in (held, lance_held):
        assert sorted(store) == ids
        for i, chunk_id in enumerate(ids):
            assert np.allclose(store[chunk_id], [first[i], second[i]], atol=1e-6)
