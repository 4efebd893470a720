"""A collection made by an older run with one vector a chunk meets a run with two
(``--text-vector``, or the other way round): real stores, no mocks.

Qdrant (aliases) and LanceDB (no aliases: its table folders are renamed) fill a new
collection beside the old one from every row of the run's chunks table and put it in
the old one's place only once it holds every chunk. A rebuild that fails midway (a
row the store refuses, as the sink fault tests inject one: here a second vector of
the wrong dimension, after earlier batches were written) leaves the old collection
whole, under its name, with the last good run's chunks and marker; the next run
fills the new one again and switches. Milvus and Chroma keep one vector a chunk
whatever the option says: a run that did not ask for two says so in the state only,
one that asked warns.

The writes go through the sync's own Beam transform (``SyncToVectorStore``) between
``prepare_sync`` and ``finish_sync``, as ``ragbeam run`` does, on synthetic rows
(four dimensions), so no model is loaded.
"""

from __future__ import annotations

import logging
import pathlib

import apache_beam as beam
import pytest

from ragbeam.schemas.chunks import TEXT_EMBEDDING
from ragbeam.transforms.sink.sync import (
    FAILED,
    SYNCED,
    finish_sync,
    new_run_token,
    prepare_sync,
    record_failure,
)
from ragbeam.transforms.sink.transforms import SyncToVectorStore
from ragbeam.transforms.sink.uri import parse_sink_uri

DIM = 4
NAME = "docs"
# The dense layer's keys of a run without and with --text-vector (they name Qdrant's
# physical collections and LanceDB's table built beside).
ONE, TWO = {"dense": "one-vector"}, {"dense": "two-vectors"}


def _row(i: int, second: list[float] | None = None) -> dict:
    return {"chunk_id": f"{i:032x}", "doc_id": f"d{i % 3}", "parent_id": None,
            "chunk_index": i, "level": "chunk", "strategy": "recursive",
            "text": f"Chunk {i} of the guide.", "context": "Guide > Boats", "char_start": 0,
            "char_end": 20, "page_start": None, "page_end": None,
            "heading_path": ["Guide", "Boats"], "source_uri": f"/c/guide{i % 3}.md",
            "media_type": "text/markdown", "config_hash": "h", "metadata": [],
            "embedding": [1.0, float(i), 0.0, 0.5],
            TEXT_EMBEDDING: second if second is not None else [0.0, 1.0, float(i), 0.5],
            "embed_text": None, "token_count": 5}


ROWS = [_row(i) for i in range(12)]
# The last row's second vector has three dimensions: the store refuses its batch.
BROKEN = [*ROWS[:-1], _row(11, [1.0, 2.0, 3.0])]


def _sync(uri: str, rows: list[dict], out: pathlib.Path, previous: pathlib.Path | None,
          two: bool, asked: bool = True) -> dict:
    """One run's sync of ``rows`` into the store: prepare, the Beam writes, finish."""
    spec = parse_sink_uri(uri)
    plan = prepare_sync(spec, DIM, str(previous) if previous else None, new_run_token(),
                        layers=TWO if two else ONE, text_vector=two, text_vector_asked=asked)
    out.mkdir(parents=True, exist_ok=True)
    try:
        with beam.Pipeline(argv=["--direct_num_workers", "1"]) as p:
            _ = ({"chunks": p | "Rows" >> beam.Create(rows),
                  "changes": p | "Changes" >> beam.Create([]),
                  "committed": p | "Committed" >> beam.Create([1])}
                 | SyncToVectorStore(plan))
    except Exception as exc:  # the run fails after its tables: its state says so
        return record_failure(plan, str(out), exc)
    return finish_sync(plan, str(out), len(rows))


# --- what each store holds, read with its own client ---------------------------------

def _lancedb(path: pathlib.Path) -> tuple[set[str], dict]:
    """(tables, {chunk id: (first vector, second or None)}, marker) of table ``NAME``."""
    import lancedb
    import pyarrow as pa

    from ragbeam.transforms.sink.base import MARKER_KEY

    db = lancedb.connect(str(path))
    table = db.open_table(NAME)
    arrow = table.to_arrow()
    two = pa.types.is_list(table.schema.field("embedding").type)
    vectors = {r["chunk_id"]: ((r["embedding"][0], r["embedding"][1]) if two
                               else (r["embedding"], None)) for r in arrow.to_pylist()}
    marker = (table.schema.field("chunk_id").metadata or {}).get(MARKER_KEY.encode())
    return set(db.list_tables().tables), {"vectors": vectors, "marker": marker.decode()}


def _qdrant(path: pathlib.Path) -> tuple[set[str], dict]:
    from qdrant_client import QdrantClient

    from ragbeam.transforms.sink.base import MARKER_KEY
    from ragbeam.transforms.sink.qdrant import QdrantStore

    client = QdrantClient(path=str(path))
    try:
        points, _ = client.scroll(NAME, limit=1000, with_vectors=True)
        vectors = {}
        for point in points:
            vector = point.vector["embedding"]
            two = isinstance(vector[0], list)
            vectors[QdrantStore.chunk_id_of(point.id)] = ((vector[0], vector[1]) if two
                                                          else (vector, None))
        names = {c.name for c in client.get_collections().collections}
        aliases = {a.alias_name: a.collection_name for a in client.get_aliases().aliases}
        marker = (client.get_collection(NAME).config.metadata or {}).get(MARKER_KEY)
        return names, {"vectors": vectors, "marker": marker, "alias": aliases.get(NAME)}
    finally:
        client.close()


READ = {"lancedb": _lancedb, "qdrant": _qdrant}


def _count(kind: str, path: pathlib.Path, collection: str) -> int:
    if kind == "lancedb":
        import lancedb

        return lancedb.connect(str(path)).open_table(collection).count_rows()
    from qdrant_client import QdrantClient

    client = QdrantClient(path=str(path))
    try:
        return client.count(collection, exact=True).count
    finally:
        client.close()


def _close(a: list[float], b: list[float]) -> bool:
    return all(abs(x - y) < 1e-6 for x, y in zip(a, b, strict=True))


def _holds(held: dict, rows: list[dict], two: bool) -> None:
    assert set(held["vectors"]) == {r["chunk_id"] for r in rows}
    for row in rows:
        first, second = held["vectors"][row["chunk_id"]]
        norm = sum(x * x for x in row["embedding"]) ** 0.5
        # Qdrant keeps cosine vectors normalised; LanceDB as given.
        assert _close(first, row["embedding"]) or _close(
            first, [x / norm for x in row["embedding"]])
        assert (second is not None) is two


@pytest.mark.parametrize("kind", ["lancedb", "qdrant"])
def test_one_vector_to_two_rebuilds_beside_and_a_failed_rebuild_leaves_the_old_whole(
        tmp_path, kind):
    uri = f"{kind}:{tmp_path / 'store'}?collection={NAME}&batch_size=4"
    first = _sync(uri, ROWS, tmp_path / "run1", None, two=False)
    assert first["status"] == SYNCED and "multivector" not in first
    _, held1 = READ[kind](tmp_path / "store")
    _holds(held1, ROWS, two=False)

    # The rebuild fails midway: the old collection keeps every chunk, its layout and
    # the last good run's marker, under its name.
    broken = _sync(uri, BROKEN, tmp_path / "run2", tmp_path / "run1", two=True)
    assert broken["status"] == FAILED and broken["cutover"]["from"] is not None, broken
    target = broken["cutover"]["to"]
    assert target.startswith(NAME + "__") and broken["multivector"] is True
    names2, held2 = READ[kind](tmp_path / "store")
    _holds(held2, ROWS, two=False)
    assert held2["marker"] == held1["marker"] == first["run_token"]
    assert target in names2  # the partial one, beside: some batches in, not all
    assert 0 < _count(kind, tmp_path / "store", target) < len(ROWS)

    # The next run (any: here one built on the failed run) fills it again and switches.
    again = _sync(uri, ROWS, tmp_path / "run3", tmp_path / "run2", two=True)
    assert again["status"] == SYNCED and again["mode"] == "full", again
    assert "did not complete" in again["reason"] or "another layer key" in again["reason"]
    assert again["cutover"]["to"] == target and again["points"] == len(ROWS)
    names3, held3 = READ[kind](tmp_path / "store")
    _holds(held3, ROWS, two=True)
    assert held3["marker"] == again["run_token"]
    if kind == "lancedb":  # renamed into the name's place; the old table dropped
        assert names3 == {NAME} and again["cutover"]["renamed"] is True
    else:  # the name is an alias of the new collection; the old one dropped
        assert held3["alias"] == target and target in names3 and len(names3) == 1

    # Later nights write the table in place, incrementally.
    later = _sync(uri, ROWS, tmp_path / "run4", tmp_path / "run3", two=True)
    assert later["status"] == SYNCED and later["mode"] == "incremental", later
    assert "cutover" not in later


@pytest.mark.parametrize("kind", ["lancedb", "qdrant"])
def test_two_vectors_back_to_one_is_the_same_rebuild(tmp_path, kind):
    uri = f"{kind}:{tmp_path / 'store'}?collection={NAME}"
    assert _sync(uri, ROWS, tmp_path / "run1", None, two=True)["status"] == SYNCED
    back = _sync(uri, ROWS, tmp_path / "run2", tmp_path / "run1", two=False)
    assert back["status"] == SYNCED and back["cutover"]["to"] != back["cutover"]["from"]
    _holds(READ[kind](tmp_path / "store")[1], ROWS, two=False)


def test_a_lancedb_rebuild_into_a_new_dimension_is_no_longer_refused(tmp_path):
    uri = f"lancedb:{tmp_path / 'store'}?collection={NAME}"
    assert _sync(uri, ROWS, tmp_path / "run1", None, two=False)["status"] == SYNCED
    spec = parse_sink_uri(uri)
    plan = prepare_sync(spec, 8, str(tmp_path / "run1"), new_run_token(), layers=ONE)
    assert plan.full and plan.target and plan.replaces == NAME
    # Not a ragbeam table: still refused.
    import lancedb
    import pyarrow as pa

    lancedb.connect(str(tmp_path / "other")).create_table(NAME, data=pa.table({"x": [1]}))
    from ragbeam.transforms.sink.base import SinkMismatch

    with pytest.raises(SinkMismatch, match="not made by ragbeam"):
        prepare_sync(parse_sink_uri(f"lancedb:{tmp_path / 'other'}?collection={NAME}"), DIM,
                     None, new_run_token())


@pytest.mark.parametrize("kind", ["chroma", "milvus"])
def test_a_one_vector_store_says_so_quietly_unless_the_option_was_asked_for(
        tmp_path, kind, caplog):
    store = tmp_path / ("store.db" if kind == "milvus" else "store")
    uri = f"{kind}:{store}?collection={NAME}"
    with caplog.at_level(logging.INFO):
        first = _sync(uri, ROWS, tmp_path / "run1", None, two=False)
        default = _sync(uri, ROWS, tmp_path / "run2", tmp_path / "run1", two=True, asked=False)
    assert first["status"] == default["status"] == SYNCED
    assert "warnings" not in default and "multivector" not in default
    assert default["notes"] == [f"{'Chroma' if kind == 'chroma' else 'Milvus'} keeps one "
                                "vector a chunk: chunks.embedding (label > heading + text), "
                                "not chunks.text_embedding"]
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING
                and "two vectors" in r.getMessage()]
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        asked = _sync(uri, ROWS, tmp_path / "run3", tmp_path / "run2", two=True, asked=True)
    assert asked["status"] == SYNCED and "cannot hold two vectors" in asked["warnings"][0]
    assert [r for r in caplog.records if "cannot hold two vectors" in r.getMessage()]
    if kind == "chroma":  # one vector a chunk either way: written in place
        assert "cutover" not in default
