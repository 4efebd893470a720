"""Stores follow the vector layers: real runs into Qdrant's local mode and Milvus Lite.

``--sparse`` switched on, then off, over a collection a run synced: each switch
extracts and embeds nothing, keeps every chunk id, fills a new physical collection
beside the old one from the run's chunks table and only then points the
collection's name (an alias) at it; the old one is dropped. The first switch of a
collection made before ragbeam made aliases (a collection of its own under the
name) replaces it; later ones are atomic alias switches. Between the steps a client
reading the name gets every chunk; a Milvus Lite client reading it while the run
writes does too (Qdrant's local mode admits one client at a time: there only
between the steps). Chroma has no aliases: such a run is refused with what to do
instead (LanceDB has none either, but renames a table built beside into place:
test_vector_layout_migration.py).
"""

from __future__ import annotations

import contextlib
import io
import pathlib
import threading
import time

import pytest

from conftest import TEST_EXTRACT_TIMEOUT
from helpers import copy_samples, read_table, run_cli
from sink_stores import READERS, assert_store_equals_chunks, qdrant_dense_query

FILES = ("faq.txt", "handbook.md")
COLLECTION = "docs"
ALIASED = ("milvus", "qdrant")
# One vector a chunk (--no-text-vector): the old-style collections made below hold one,
# and the subject here is --sparse's switches; a switch to two vectors a chunk is
# test_vector_layout_migration.py's and test_text_vector_faults.py's.
BASE = ("--chunk-size", "300", "--size-unit", "chars", "--extract-timeout",
        TEST_EXTRACT_TIMEOUT, "--no-text-vector")


def collections(kind: str, path: pathlib.Path) -> tuple[set[str], dict[str, str]]:
    """(physical collections, alias → collection), read with the store's own client."""
    if kind == "qdrant":
        from qdrant_client import QdrantClient

        client = QdrantClient(path=str(path))
        try:
            return ({c.name for c in client.get_collections().collections},
                    {a.alias_name: a.collection_name for a in client.get_aliases().aliases})
        finally:
            client.close()
    from pymilvus import MilvusClient

    client = MilvusClient(uri=str(path))
    try:
        names = set(client.list_collections())
        aliases = {a: name for name in names for a in client.list_aliases(name)["aliases"]}
        return names, aliases
    finally:
        client.close()


def query_results(kind: str, path: pathlib.Path, vector: list[float]) -> tuple[int, int]:
    """(chunks counted, hits of a 5-nearest query) on the collection's name."""
    if kind == "qdrant":
        from qdrant_client import QdrantClient

        client = QdrantClient(path=str(path))
        try:
            hits = client.query_points(COLLECTION, query=qdrant_dense_query(client, vector),
                                       using="embedding", limit=5).points
            return client.count(COLLECTION, exact=True).count, len(hits)
        finally:
            client.close()
    return _milvus_query(str(path), vector)


def _milvus_query(uri: str, vector: list[float]) -> tuple[int, int]:
    from pymilvus import MilvusClient

    client = MilvusClient(uri=uri, dedicated=True)
    try:
        client.load_collection(COLLECTION)
        count = client.query(COLLECTION, filter="", output_fields=["count(*)"])[0]["count(*)"]
        hits = client.search(COLLECTION, data=[vector], anns_field="embedding", limit=5)
        return int(count), len(hits[0])
    finally:
        client.close()


class MilvusWatcher:
    """A client of Milvus Lite querying ``docs`` over and over while a run writes:
    every answer it got, and every failure."""

    def __init__(self, uri: str, vector: list[float]) -> None:
        self._uri, self._vector = uri, vector
        self.answers: list[tuple[int, int]] = []
        self.failures: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        while not self._stop.is_set():
            try:
                self.answers.append(_milvus_query(self._uri, self._vector))
            except Exception as exc:  # what a client would see
                self.failures.append(f"{type(exc).__name__}: {exc}")
            time.sleep(0.05)

    def __enter__(self) -> MilvusWatcher:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=60)


@pytest.fixture(scope="module")
def setup(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("cutover")
    corpus = copy_samples(root / "corpus", FILES)
    readers = {kind: READERS[kind](root) for kind in ALIASED}
    # As ragbeam made collections before it made aliases: a collection of its own.
    from ragbeam.transforms.sink.stores import open_store
    from ragbeam.transforms.sink.uri import parse_sink_uri

    for reader in readers.values():
        with open_store(parse_sink_uri(reader.uri)) as store:
            store.create_collection(384, sparse=False)
    return {"root": root, "corpus": corpus, "readers": readers}


def _run(setup: dict, out: str, *extra: str, previous: str | None = None,
         watch: bool = False) -> dict:
    sinks = [a for r in setup["readers"].values() for a in ("--sink", r.uri)]
    args = ["--input", str(setup["corpus"]), "--output", str(setup["root"] / out), *BASE,
            *sinks, *extra, *(["--previous", str(setup["root"] / previous)] if previous else [])]
    printed = setup.setdefault("printed", {})[out] = io.StringIO()
    if not watch:
        with contextlib.redirect_stdout(printed):
            return run_cli(args)
    before = read_table(setup["root"] / previous, "chunks").to_pylist()
    with (MilvusWatcher(str(setup["readers"]["milvus"].path), before[0]["embedding"]) as watcher,
          contextlib.redirect_stdout(printed)):
        summary = run_cli(args)
    setup.setdefault("watched", {})[out] = watcher
    return summary


def _sink(summary: dict, kind: str) -> dict:
    (state,) = [s for s in summary["sinks"] if s["kind"] == kind]
    return state


def _assert_full_answers(setup: dict, out: str) -> None:
    chunks = read_table(setup["root"] / out, "chunks").to_pylist()
    for kind, reader in setup["readers"].items():
        assert query_results(kind, reader.path, chunks[0]["embedding"]) == (len(chunks), 5)


@pytest.fixture(scope="module")
def runs(setup) -> dict:
    """Dense only into the old-style collections, then --sparse on, off, and the same
    options again; the two switches watched by a Milvus Lite client."""
    out = {"plain": _run(setup, "plain")}
    _assert_full_answers(setup, "plain")
    out["on"] = _run(setup, "on", "--sparse", previous="plain", watch=True)
    _assert_full_answers(setup, "on")
    out["off"] = _run(setup, "off", previous="on", watch=True)
    _assert_full_answers(setup, "off")
    out["again"] = _run(setup, "again", previous="off")
    _assert_full_answers(setup, "again")
    return out


@pytest.mark.parametrize("kind", ALIASED)
def test_an_old_style_collection_that_takes_the_vectors_is_written_in_place(setup, runs, kind):
    state = _sink(runs["plain"], kind)
    assert state["status"] == "synced" and "cutover" not in state
    assert state["upserts"] == runs["plain"]["chunks"] == state["points"]


@pytest.mark.parametrize("kind", ALIASED)
def test_sparse_on_then_off_switches_the_alias_to_a_complete_collection(setup, runs, kind):
    reader = setup["readers"][kind]
    plain, on, off = (read_table(setup["root"] / name, "chunks").to_pylist()
                      for name in ("plain", "on", "off"))
    ids = {r["chunk_id"] for r in plain}
    assert {r["chunk_id"] for r in on} == ids == {r["chunk_id"] for r in off}

    for name, sparse in (("on", True), ("off", False)):
        summary, state = runs[name], _sink(runs[name], kind)
        # Nothing extracted, chunked or embedded again: the vectors are the table's.
        assert summary["documents_processed"] == 0
        assert (summary.get("embedding") or {}).get("texts_encoded", 0) == 0
        assert state["status"] == "synced" and state["mode"] == "full", state
        assert state["sparse"] is sparse
        assert state["upserts"] == len(ids) == state["points"] and state["deletes"] == 0
        cutover = state["cutover"]
        assert cutover["to"].startswith(COLLECTION + "__") and cutover["to"] != cutover["from"]
        # The summary says so, on the sink's line.
        assert (f"{state['sink']} ({COLLECTION}): synced, full sync, {len(ids)} chunks; "
                f"'{COLLECTION}' now names {cutover['to']} ({cutover['from']} dropped)"
                ) in setup["printed"][name].getvalue()
    assert "now names" not in setup["printed"]["again"].getvalue()

    first, second = _sink(runs["on"], kind)["cutover"], _sink(runs["off"], kind)["cutover"]
    # The old-style collection was replaced (a short window without the name), the
    # alias switched after that without one.
    assert first["from"] == COLLECTION and first["window_s"] > 0
    assert second["from"] == first["to"] and second["window_s"] == 0

    physical, aliases = collections(kind, reader.path)
    assert aliases == {COLLECTION: second["to"]}
    assert physical == {second["to"]}  # both old collections are gone
    assert_store_equals_chunks(reader.rows(), setup["root"] / "again")


@pytest.mark.parametrize("kind", ALIASED)
def test_later_nights_write_through_the_alias_incrementally(setup, runs, kind):
    state = _sink(runs["again"], kind)
    assert state["mode"] == "incremental" and "cutover" not in state, state
    assert state["upserts"] == state["deletes"] == 0
    assert state["run_token"] == setup["readers"][kind].marker()


def test_a_client_reading_while_the_run_writes_always_gets_every_chunk(setup, runs):
    """Milvus Lite, read by another client all through the --sparse switches. The
    atomic switch (off) never failed a query; the replacement of the old-style
    collection (on) may have, for the window it reports, and no longer."""
    n = runs["plain"]["chunks"]
    on, off = setup["watched"]["on"], setup["watched"]["off"]
    for watcher in (on, off):
        assert len(watcher.answers) > 10
        assert set(watcher.answers) == {(n, 5)}  # full results, never a partial collection
    assert off.failures == []
    assert len(on.failures) <= 2, on.failures  # at most the queries that met the window


@pytest.mark.parametrize("kind", ALIASED)
def test_a_new_dimension_builds_beside_and_an_incomplete_one_is_never_switched_to(
        tmp_path, kind):
    """Another model's dimension (no second model offline: the sync steps, with rows
    written by the store's client). A new name starts as an alias; the collection
    built for the new vectors stays out of sight until it holds the whole table."""
    from ragbeam.transforms.sink.stores import open_store
    from ragbeam.transforms.sink.sync import finish_sync, new_run_token, prepare_sync
    from ragbeam.transforms.sink.uri import parse_sink_uri

    reader = READERS[kind](tmp_path)
    spec = parse_sink_uri(reader.uri)
    first = prepare_sync(spec, 4, None, new_run_token())
    physical, aliases = collections(kind, reader.path)
    assert first.target is None and len(physical) == 1
    assert aliases == {COLLECTION: next(iter(physical))}  # created as alias → collection
    _insert(kind, reader.path, COLLECTION, 4, 3)
    assert finish_sync(first, str(tmp_path / "run1"), 3)["status"] == "synced"

    second = prepare_sync(spec, 8, None, new_run_token())
    assert second.replaces == aliases[COLLECTION] and second.target not in physical
    _insert(kind, reader.path, second.target, 8, 2)  # not all of the table's 3
    assert finish_sync(second, str(tmp_path / "run2"), 3)["status"] == "failed"
    assert collections(kind, reader.path)[1] == aliases  # clients still get the old one
    assert query_results(kind, reader.path, [1.0, 0, 0, 0]) == (3, 3)

    third = prepare_sync(spec, 8, None, new_run_token())  # the next night: the same one
    assert (third.target, third.replaces) == (second.target, second.replaces)
    _insert(kind, reader.path, third.target, 8, 3)
    state = finish_sync(third, str(tmp_path / "run3"), 3)
    assert state["status"] == "synced" and state["cutover"]["window_s"] == 0
    assert collections(kind, reader.path) == ({third.target}, {COLLECTION: third.target})
    assert query_results(kind, reader.path, [1.0] + [0.0] * 7) == (3, 3)
    with open_store(spec) as store:
        assert store.describe().dimension == 8


def _insert(kind: str, path: pathlib.Path, collection: str, dimension: int, n: int) -> None:
    vectors = [[1.0 if d == i % dimension else 0.0 for d in range(dimension)] for i in range(n)]
    if kind == "qdrant":
        import uuid

        from qdrant_client import QdrantClient, models

        client = QdrantClient(path=str(path))
        try:
            client.upsert(collection, [models.PointStruct(
                id=str(uuid.UUID(int=i + 1)), vector={"embedding": v}, payload={"chunk_id": str(i)})
                for i, v in enumerate(vectors)])
        finally:
            client.close()
        return
    import pyarrow as pa
    from pymilvus import MilvusClient

    from ragbeam.transforms.sink.columns import stored_columns

    client = MilvusClient(uri=str(path))
    try:
        empty = {c.name: (0 if pa.types.is_integer(c.type) else [] if pa.types.is_list(c.type)
                          else {} if pa.types.is_map(c.type) else "") for c in stored_columns()}
        client.upsert(collection, [{**empty, "chunk_id": f"c{i}", "embedding": v}
                                   for i, v in enumerate(vectors)])
    finally:
        client.close()


@pytest.mark.parametrize("kind", ["chroma"])
def test_a_store_without_aliases_refuses_other_vectors_and_says_what_to_do(tmp_path, kind):
    # LanceDB builds beside and renames instead (test_vector_layout_migration.py).
    from ragbeam.transforms.sink.base import SinkMismatch
    from ragbeam.transforms.sink.sync import new_run_token, prepare_sync
    from ragbeam.transforms.sink.uri import parse_sink_uri

    spec = parse_sink_uri(READERS[kind](tmp_path).uri)
    prepare_sync(spec, 4, None, new_run_token())
    with pytest.raises(SinkMismatch, match=r"has no aliases.*another collection"):
        prepare_sync(spec, 8, None, new_run_token())
    # --sparse is no other shape for them: they keep the dense vectors only.
    assert prepare_sync(spec, 4, None, new_run_token(), sparse=True).sparse is False
