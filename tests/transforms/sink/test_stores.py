"""Real runs into real stores: every store of ``sink/stores.py STORES`` in its
embedded form (Milvus Lite, Qdrant's local mode, LanceDB, Chroma), and a Milvus
server (Milvus Lite's own gRPC server, in a child process) reached with a password.

After every run, each store is read back with its own client (``tests/sink_stores.py``)
and compared with that run's ``chunks`` table: the same chunk ids, texts, vectors and
fields, sparse vectors where the store keeps them. The suite is parametrized over the
stores: a new store is covered by adding its reader.
"""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess
import sys

import pytest

from ragbeam.pipeline.cli import main
from ragbeam.transforms.sink.stores import STORES

from conftest import SAMPLES, TEST_EXTRACT_TIMEOUT
from helpers import copy_samples, read_table, run_cli
from sink_stores import (
    READERS,
    assert_store_equals_chunks,
    milvus_lite_server,
    milvus_rows,
    qdrant_dense_query,
)

KINDS = sorted(READERS)

FILES = ("faq.txt", "handbook.md", "station-news.html", "站点简介.txt")
EDIT_BEFORE = "Calibration solutions are in the cold room, second shelf."
EDIT_AFTER = "Calibration solutions are on the top shelf of the left rack in the cold room."
COLLECTION = "docs"
SECRET = "Sup3r-S3cret-pw"


def test_every_registered_store_has_a_reader():
    assert set(READERS) == set(STORES)
    assert {k for k, r in READERS.items() if r.keeps_sparse} == \
        {k for k, s in STORES.items() if s.keeps_sparse}


def _state(out: pathlib.Path, kind: str) -> dict:
    (path,) = (out / "sinks").glob(f"{kind}-{COLLECTION}-*.json")
    return json.loads(path.read_text())


@pytest.fixture(scope="module")
def stores(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("stores")
    corpus = copy_samples(root / "corpus", FILES)
    return {"root": root, "corpus": corpus,
            "readers": {kind: reader(root) for kind, reader in READERS.items()}}


def _run(stores: dict, out: str, *extra: str) -> dict:
    sinks = [arg for reader in stores["readers"].values() for arg in ("--sink", reader.uri)]
    return run_cli(["--input", str(stores["corpus"]), "--output", str(stores["root"] / out),
                    "--chunk-size", "300", "--size-unit", "chars",
                    "--extract-timeout", TEST_EXTRACT_TIMEOUT, *sinks, "--sparse", *extra])


def _check(stores: dict, kind: str, out: pathlib.Path) -> None:
    reader = stores["readers"][kind]
    assert_store_equals_chunks(reader.rows(), out, reader.keeps_sparse)


@pytest.fixture(scope="module")
def first_run(stores) -> dict:
    return _run(stores, "run1")


@pytest.mark.parametrize("kind", KINDS)
def test_a_first_run_fills_each_store_with_the_chunks_table(stores, first_run, kind):
    out = stores["root"] / "run1"
    sinks = {s["kind"]: s for s in first_run["sinks"]}
    assert set(sinks) == set(KINDS)
    state = sinks[kind]
    assert state["status"] == "synced" and state["mode"] == "full"
    assert state["points"] == first_run["chunks"] == state["upserts"] > 10
    assert state["sparse"] is READERS[kind].keeps_sparse
    _check(stores, kind, out)
    assert _state(out, kind)["run_token"] == stores["readers"][kind].marker()
    assert all(r["sparse"]["indices"] for r in read_table(out, "chunks").to_pylist())


def test_a_store_without_sparse_vectors_says_so_once(tmp_path, caplog):
    """--sparse with LanceDB and Chroma: one warning per such sink, at prepare; the
    collection is made without sparse vectors."""
    from ragbeam.transforms.sink.sync import new_run_token, prepare_sync
    from ragbeam.transforms.sink.uri import parse_sink_uri

    for kind in KINDS:
        caplog.clear()
        spec = parse_sink_uri(READERS[kind](tmp_path).uri)
        with caplog.at_level("WARNING"):
            plan = prepare_sync(spec, 384, None, new_run_token(), sparse=True)
        said = [r.getMessage() for r in caplog.records if "keeps no sparse" in r.getMessage()]
        assert plan.sparse is READERS[kind].keeps_sparse
        assert len(said) == (0 if READERS[kind].keeps_sparse else 1), said


def test_a_qdrant_collection_with_its_own_idf_is_replaced_not_written(tmp_path):
    """A collection synced before the query carried the IDF (sparse scheme /3: Qdrant's
    ``Modifier.IDF``) would apply an IDF twice: a run builds the new collection beside it
    and switches the name to it, as for any other sparse layer."""
    from qdrant_client import QdrantClient, models

    from ragbeam.transforms.sink.base import DENSE_VECTOR, SPARSE_VECTOR
    from ragbeam.transforms.sink.sync import new_run_token, prepare_sync
    from ragbeam.transforms.sink.uri import parse_sink_uri

    client = QdrantClient(path=str(tmp_path / "qdrant"))
    try:
        client.create_collection(
            COLLECTION, vectors_config={DENSE_VECTOR: models.VectorParams(
                size=384, distance=models.Distance.COSINE)},
            sparse_vectors_config={SPARSE_VECTOR: models.SparseVectorParams(
                modifier=models.Modifier.IDF)})
    finally:
        client.close()
    spec = parse_sink_uri(f"qdrant:{tmp_path / 'qdrant'}?collection={COLLECTION}")
    plan = prepare_sync(spec, 384, None, new_run_token(), sparse=True)
    assert plan.full and plan.replaces == COLLECTION
    assert plan.target is not None and plan.target.startswith(f"{COLLECTION}__")
    client = QdrantClient(path=str(tmp_path / "qdrant"))
    try:
        made = client.get_collection(plan.target).config.params.sparse_vectors[SPARSE_VECTOR]
    finally:
        client.close()
    assert made.modifier in (None, models.Modifier.NONE)


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


@pytest.mark.parametrize("kind", KINDS)
def test_an_incremental_run_applies_edits_inserts_and_deletes(stores, second_run, kind):
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
    (state,) = [s for s in second_run["sinks"] if s["kind"] == kind]
    assert state["status"] == "synced" and state["mode"] == "incremental", state
    assert (state["upserts"], state["deletes"]) == (len(rows_of_changed), deletes)
    assert state["points"] == second_run["chunks"]
    _check(stores, kind, out)


@pytest.fixture(scope="module")
def third_run(stores, second_run) -> dict:
    """What a run killed while writing leaves in every store: its marker, some writes
    (a chunk deleted), not all; and a chunk no table has."""
    run2 = stores["root"] / "run2"
    victim = read_table(run2, "chunks").to_pylist()[0]
    for reader in stores["readers"].values():
        reader.leave_as_a_killed_run(victim, "f" * 32)
    return _run(stores, "run3", "--previous", str(run2))


@pytest.mark.parametrize("kind", KINDS)
def test_a_store_left_by_a_dead_run_is_resynced_in_full(stores, third_run, kind):
    summary = third_run
    assert summary["changes_upsert"] == summary["changes_delete"] == 0  # nothing changed...
    (state,) = [s for s in summary["sinks"] if s["kind"] == kind]
    # ...but no store can be trusted to hold run 2
    assert state["status"] == "synced" and state["mode"] == "full", state
    assert "no longer holds" in state["reason"] and state["deletes"] == 1
    _check(stores, kind, stores["root"] / "run3")


@pytest.mark.parametrize("kind", KINDS)
def test_a_refused_run_leaves_the_store_alone(stores, third_run, kind):
    """A run refused before Beam starts (its output already holds a run) leaves every
    store's marker and contents as the last synced run left them."""
    reader = stores["readers"][kind]
    before_marker, before = reader.marker(), reader.rows()
    code = main(["run", "--input", str(stores["corpus"]), "--output",
                 str(stores["root"] / "run3"), "--sink", reader.uri,
                 "--extract-timeout", TEST_EXTRACT_TIMEOUT])
    assert code == 2
    assert reader.marker() == before_marker and reader.rows().keys() == before.keys()


@pytest.fixture(scope="module")
def held_run(stores, third_run) -> dict:
    """Three of the four files vanish: over the delete guard's 20 %, the run is held
    (exit 4): it deletes nothing, so every store keeps what run 3 left in it."""
    before = {kind: reader.rows()
              for kind, reader in stores["readers"].items()}
    aside = stores["root"] / "aside"
    aside.mkdir()
    moved = sorted(p for p in stores["corpus"].iterdir() if p.name != "handbook.md")
    for path in moved:
        path.rename(aside / path.name)
    try:
        sinks = [a for r in stores["readers"].values() for a in ("--sink", r.uri)]
        run_cli(["--input", str(stores["corpus"]), "--output", str(stores["root"] / "run4"),
                 "--chunk-size", "300", "--size-unit", "chars", "--extract-timeout",
                 TEST_EXTRACT_TIMEOUT, *sinks, "--sparse", "--previous",
                 str(stores["root"] / "run3")], expected_exit=4)
    finally:
        for path in moved:
            (aside / path.name).rename(path)
    return before


@pytest.mark.parametrize("kind", KINDS)
def test_a_held_run_leaves_the_store_untouched(stores, held_run, kind):
    rows = held_run[kind]
    after = stores["readers"][kind].rows()
    assert after.keys() == rows.keys()
    assert all(after[c]["text"] == rows[c]["text"] for c in rows)


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
    assert_store_equals_chunks(milvus_rows(str(tmp_path / "index.db")), tmp_path / "run2")


def test_local_stores_need_the_in_process_runner(tmp_path, capsys):
    code = main(["run", "--input", str(SAMPLES / "faq.txt"), "--output", str(tmp_path / "o"),
                 "--sink", f"qdrant:{tmp_path / 'q'}", "--direct_num_workers", "2"])
    assert code == 2
    assert "one worker" in capsys.readouterr().err


@pytest.fixture
def milvus_server(tmp_path):
    """A Milvus reached over the network (it accepts any token, so a password can be
    given and must never be written)."""
    with milvus_lite_server(tmp_path / "srv") as server:
        yield server


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
    assert_store_equals_chunks(milvus_rows(f"http://127.0.0.1:{port}", f"root:{SECRET}"),
                               tmp_path / "run1")

    server.terminate()  # the store goes away: a clear, redacted error at once (issue 41:
    server.wait(timeout=30)  # a refused connection is not retried)
    assert main([*args, "--output", str(tmp_path / "run2"),
                 "--previous", str(tmp_path / "run1")]) == 2
    out2, err2 = capsys.readouterr()
    assert (f"ragbeam: error: sink {shown}: 127.0.0.1:{port} refused the connection: is "
            "the server running there?") in err2
    assert "retrying in" not in err2 + caplog.text
    for text in (out, err, out2, err2, caplog.text, _texts_of_output(tmp_path / "run1")):
        assert SECRET not in text


HYBRID_DOCS = {
    "logger.txt": "Unit XQ-7741 stores its readings in the station archive every ten minutes.",
    "wifi.txt": "The main building has Wi-Fi. Coverage on the lake is poor.",
    "boats.txt": "Boats may only be taken out between sunrise and one hour before sunset.",
    "freezer.txt": "Samples for nutrient analysis go to the freezer within two hours.",
    "meals.txt": "Breakfast is served at seven in the dining hall; dinner at six.",
}
HYBRID_QUESTION = "Is there wireless internet access in the house? (ticket XQ-7741)"


@pytest.fixture(scope="module")
def hybrid_stores(tmp_path_factory) -> dict[str, pathlib.Path]:
    root = tmp_path_factory.mktemp("hybrid")
    corpus = root / "corpus"
    corpus.mkdir()
    for name, text in HYBRID_DOCS.items():
        (corpus / name).write_text(text, encoding="utf-8")
    run_cli(["--input", str(corpus), "--output", str(root / "out"), "--sparse",
             "--sink", f"milvus:{root / 'index.db'}?collection={COLLECTION}",
             "--sink", f"qdrant:{root / 'qdrant'}?collection={COLLECTION}"])
    return {"root": root, "out": root / "out"}


def _source_names(uris) -> set[str]:
    return {uri.rsplit("/", 1)[-1] for uri in uris}


def test_a_hybrid_query_finds_what_only_the_sparse_and_only_the_dense_side_finds(
        hybrid_stores):
    """The code XQ-7741 is found by its terms only; "wireless internet" by meaning only
    (Wi-Fi shares no term with it). Each store's own hybrid query returns both."""
    from pymilvus import AnnSearchRequest, MilvusClient, RRFRanker
    from qdrant_client import QdrantClient, models

    import ragbeam
    from ragbeam.evaluate.retrieval import EmbeddingCache

    dense = EmbeddingCache().encode([HYBRID_QUESTION], role="query")[0].tolist()
    sparse = ragbeam.encode_sparse_query(
        HYBRID_QUESTION, ragbeam.load_term_frequencies(str(hybrid_stores["out"])))
    root = hybrid_stores["root"]
    # BM25 as the table's vectors and the query's IDF give it: what each store must score
    # (no IDF of its own on top)
    (logger,) = [r["sparse"] for r in read_table(hybrid_stores["out"], "chunks").to_pylist()
                 if r["source_uri"].endswith("logger.txt")]
    weights = sparse.as_dict()
    bm25 = sum(weights.get(i, 0.0) * v for i, v in zip(logger["indices"], logger["values"],
                                                          strict=True))
    assert bm25 > 0

    milvus = MilvusClient(str(root / "index.db"))
    try:
        dense_request = AnnSearchRequest([dense], "embedding", {"metric_type": "COSINE"}, 1)
        sparse_request = AnnSearchRequest([sparse.as_dict()], "sparse", {"metric_type": "IP"},
                                          1)
        fields = ["source_uri"]
        [[hit]] = milvus.search(COLLECTION, [sparse.as_dict()], anns_field="sparse", limit=1)
        assert hit["distance"] == pytest.approx(bm25, rel=1e-4)
        by_dense, by_sparse, fused = (
            _source_names(h["entity"]["source_uri"] for h in hits[0]) for hits in (
                milvus.search(COLLECTION, [dense], anns_field="embedding", limit=1,
                              output_fields=fields),
                milvus.search(COLLECTION, [sparse.as_dict()], anns_field="sparse", limit=5,
                              output_fields=fields),
                milvus.hybrid_search(COLLECTION, [dense_request, sparse_request],
                                     RRFRanker(60), limit=2, output_fields=fields)))
    finally:
        milvus.close()
    assert by_dense == {"wifi.txt"} and by_sparse == {"logger.txt"}  # nothing else shares a term
    assert fused == {"wifi.txt", "logger.txt"}

    qdrant = QdrantClient(path=str(root / "qdrant"))
    try:
        sparse_query = models.SparseVector(indices=list(sparse.indices),
                                           values=list(sparse.values))
        dense = qdrant_dense_query(qdrant, dense)
        [point] = qdrant.query_points(COLLECTION, query=sparse_query, using="sparse",
                                      limit=1).points
        assert point.score == pytest.approx(bm25, rel=1e-4)
        by_dense, by_sparse, fused = (_source_names(p.payload["source_uri"] for p in points)
                                      for points in (
            qdrant.query_points(COLLECTION, query=dense, using="embedding", limit=1).points,
            qdrant.query_points(COLLECTION, query=sparse_query, using="sparse", limit=5).points,
            qdrant.query_points(COLLECTION, prefetch=[
                models.Prefetch(query=dense, using="embedding", limit=1),
                models.Prefetch(query=sparse_query, using="sparse", limit=1)],
                query=models.RrfQuery(rrf=models.Rrf(k=61)), limit=2).points))  # eval's k=60
    finally:
        qdrant.close()
    assert by_dense == {"wifi.txt"} and by_sparse == {"logger.txt"}
    assert fused == {"wifi.txt", "logger.txt"}


def test_a_query_encoded_by_the_public_function_matches_the_stored_vocabulary(hybrid_stores):
    import ragbeam
    from ragbeam.transforms.embed.sparse import SPARSE_SCHEME

    out = hybrid_stores["out"]
    chunks = read_table(out, "chunks")
    assert json.loads(chunks.schema.metadata[b"ragbeam.sparse"])["scheme"] == \
        SPARSE_SCHEME["scheme"]
    assert json.loads((out / "run.json").read_text())["sparse"]["scheme"] == \
        SPARSE_SCHEME["scheme"]
    (logger,) = [r for r in chunks.to_pylist() if r["source_uri"].endswith("logger.txt")]
    query = ragbeam.encode_sparse_query("Where does XQ-7741 store its readings?",
                                        ragbeam.load_term_frequencies(str(out)))
    assert len(query) == 4  # xq, 7741, store, read
    assert set(query.indices) <= set(logger["sparse"]["indices"])
    for kind in ("milvus", "qdrant"):
        stored = READERS[kind](hybrid_stores["root"]).rows()[logger["chunk_id"]]
        assert set(query.indices) <= set(stored["sparse"])


def test_syncs_from_new_processes_are_quiet_and_incremental(tmp_path):
    """What cron runs: a first sync into a new Milvus Lite file, then an incremental
    one, each in its own process. No client library's ERROR line or traceback on
    either, and the second (whose process finds the collection released) applies its
    changes."""
    corpus = copy_samples(tmp_path / "corpus", ("faq.txt", "handbook.md"))
    sink = f"milvus:{tmp_path / 'index.db'}?collection={COLLECTION}"
    base = [sys.executable, "-m", "ragbeam.pipeline.cli", "run", "--input", str(corpus),
            "--sparse", "--sink", sink]
    first = subprocess.run([*base, "--output", str(tmp_path / "run1")], capture_output=True,
                           text=True, timeout=600)
    handbook = corpus / "handbook.md"
    handbook.write_text(handbook.read_text(encoding="utf-8").replace(EDIT_BEFORE, EDIT_AFTER),
                        encoding="utf-8")
    second = subprocess.run([*base, "--output", str(tmp_path / "run2"), "--previous",
                             str(tmp_path / "run1")], capture_output=True, text=True,
                            timeout=600)
    for done in (first, second):
        assert done.returncode == 0, done.stderr[-3000:]
        for text in (done.stdout, done.stderr):
            assert "ERROR" not in text and "Traceback" not in text, text[-3000:]
    state = _state(tmp_path / "run2", "milvus")
    assert state["status"] == "synced" and state["mode"] == "incremental", state
    assert_store_equals_chunks(milvus_rows(str(tmp_path / "index.db")), tmp_path / "run2")
