"""Chunk-level change sets: applying them to the previous chunk set gives the new one."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragbeam.schemas.changes import upsert_row_for_chunk
from ragbeam.schemas.chunks import chunk_schema
from ragbeam.transforms.incremental.changes import (
    apply_changes,
    chunk_row_digest,
    document_changes,
)


def _same(*ids: str) -> dict[str, str]:
    return {cid: f"digest of {cid}" for cid in ids}


def test_vanished_ids_are_deleted_new_ids_upserted_kept_ids_silent():
    rows = document_changes("d", "/a.md", _same("k1", "gone1", "k2", "gone2"),
                            _same("new", "k2", "k1"))
    assert rows == [
        {"op": "delete", "chunk_id": "gone1", "doc_id": "d", "source_uri": "/a.md"},
        {"op": "delete", "chunk_id": "gone2", "doc_id": "d", "source_uri": "/a.md"},
        {"op": "upsert", "chunk_id": "new", "doc_id": "d", "source_uri": "/a.md"},
    ]
    assert document_changes("d", "/a.md", _same("k1", "k2"), _same("k2", "k1")) == []


def test_a_kept_chunk_whose_row_moved_is_upserted():
    moved = {**_same("k1", "k2"), "k2": "k2 now at chunk_index 5"}
    assert document_changes("d", "/a", _same("k1", "k2"), moved) == [
        {"op": "upsert", "chunk_id": "k2", "doc_id": "d", "source_uri": "/a"}]


def _chunk_row(**changes) -> dict:
    row = {
        "chunk_id": "c", "doc_id": "d", "parent_id": None, "chunk_index": 3, "level": "chunk",
        "strategy": "recursive", "text": "Text.", "context": "A > B", "embed_text": None,
        "char_start": 10, "char_end": 15, "page_start": 2, "page_end": 2,
        "heading_path": ["A", "B"], "token_count": 2, "char_count": 5, "source_uri": "/a",
        "media_type": "text/plain", "config_hash": "h", "metadata": {"raw_char_start": "4"},
        "embedding": [0.1, 0.2, 0.30000001],
    }
    return {**row, **changes}


def test_a_row_digest_survives_parquet_and_sees_every_column(tmp_path):
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    row = _chunk_row()
    pq.write_table(pa.Table.from_pylist([row], schema=chunk_schema()), tmp_path / "c.parquet")
    (back,) = pq.read_table(tmp_path / "c.parquet").to_pylist()
    assert back["metadata"] == [("raw_char_start", "4")]  # pyarrow's form of a map
    assert chunk_row_digest(back) == chunk_row_digest(row)
    # A column the run leaves empty: absent from a stage's row, null when read back
    # (``sparse`` without --sparse). Same row, same digest: no spurious upsert.
    without = {k: v for k, v in back.items() if k != "sparse"}
    assert chunk_row_digest(without) == chunk_row_digest({**without, "sparse": None})
    assert chunk_row_digest(_chunk_row(embedding=np.array(row["embedding"], dtype=np.float32))) \
        == chunk_row_digest(row)
    for column, value in [("chunk_index", 4), ("char_start", 11), ("page_end", 3),
                          ("heading_path", ["A"]), ("context", "A"), ("source_uri", "/b"),
                          ("metadata", {"raw_char_start": "5"}), ("embedding", [0.1, 0.2, 0.4])]:
        assert chunk_row_digest(_chunk_row(**{column: value})) != chunk_row_digest(row), column


def test_without_a_previous_run_every_chunk_is_an_upsert():
    assert upsert_row_for_chunk({"chunk_id": "c", "doc_id": "d", "source_uri": "/a", "x": 1}) == {
        "op": "upsert", "chunk_id": "c", "doc_id": "d", "source_uri": "/a"}


ids = st.sets(st.sampled_from([f"c{i}" for i in range(12)]), max_size=12)


@given(previous=ids, current=ids)
@settings(max_examples=300, deadline=None)
def test_applying_changes_to_the_previous_set_gives_the_current_set(previous, current):
    changes = document_changes("d", "/a", _same(*previous), _same(*current))
    new_rows = {cid: f"new {cid}" for cid in current}
    store = apply_changes({cid: f"old {cid}" for cid in previous}, changes, new_rows)
    assert set(store) == current
    # Only ids that were not there before got rows from the new run.
    assert {cid for cid, v in store.items() if v.startswith("new")} == current - previous


def test_a_wrong_change_set_is_caught():
    with pytest.raises(KeyError):
        apply_changes({}, [{"op": "delete", "chunk_id": "x"}], {})
    with pytest.raises(KeyError):
        apply_changes({}, [{"op": "upsert", "chunk_id": "x"}], {})
    with pytest.raises(ValueError):
        apply_changes({}, [{"op": "merge", "chunk_id": "x"}], {})
