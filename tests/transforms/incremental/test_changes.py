"""Chunk-level change sets: applying them to the previous chunk set gives the new one."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragbeam.transforms.incremental.changes import (
    apply_changes,
    document_changes,
    upsert_row_for_chunk,
)


def test_vanished_ids_are_deleted_new_ids_upserted_kept_ids_silent():
    rows = document_changes("d", "/a.md", ["k1", "gone1", "k2", "gone2"], ["new", "k2", "k1"])
    assert rows == [
        {"op": "delete", "chunk_id": "gone1", "doc_id": "d", "source_uri": "/a.md"},
        {"op": "delete", "chunk_id": "gone2", "doc_id": "d", "source_uri": "/a.md"},
        {"op": "upsert", "chunk_id": "new", "doc_id": "d", "source_uri": "/a.md"},
    ]
    assert document_changes("d", "/a.md", ["k1", "k2"], ["k2", "k1"]) == []


def test_without_a_previous_run_every_chunk_is_an_upsert():
    assert upsert_row_for_chunk({"chunk_id": "c", "doc_id": "d", "source_uri": "/a", "x": 1}) == {
        "op": "upsert", "chunk_id": "c", "doc_id": "d", "source_uri": "/a"}


ids = st.sets(st.sampled_from([f"c{i}" for i in range(12)]), max_size=12)


@given(previous=ids, current=ids)
@settings(max_examples=300, deadline=None)
def test_applying_changes_to_the_previous_set_gives_the_current_set(previous, current):
    changes = document_changes("d", "/a", previous, current)
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
