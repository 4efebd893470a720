"""Which writes make a store equal the chunks table, and how a chunk row is stored (pure)."""

from __future__ import annotations

import uuid

import pytest

from ragbeam.transforms.sink.qdrant import QdrantStore
from ragbeam.transforms.sink.records import (
    DELETE,
    UPSERT,
    MissingVector,
    embeddable_item,
    full_sync_writes,
    incremental_writes,
    stored_fields,
)
from ragbeam.transforms.sink.sync import SYNCED, choose_mode

ROW = {"chunk_id": "0123456789abcdef0123456789abcdef", "doc_id": "d", "parent_id": None,
       "chunk_index": 3, "level": "chunk", "strategy": "recursive", "text": "Boats leave at 9.",
       "context": "Guide > Boats", "char_start": 10, "char_end": 27, "page_start": None,
       "page_end": None, "heading_path": ["Guide", "Boats"], "source_uri": "/c/guide.md",
       "media_type": "text/markdown", "config_hash": "h",
       "metadata": [("raw_char_start", "4")], "embedding": [0.6, 0.8],
       "embed_text": "not stored", "token_count": 5}


@pytest.mark.parametrize("rows, stored, expected", [
    ([ROW], True, UPSERT),
    ([ROW], False, UPSERT),
    ([], True, DELETE),
    ([], False, None),
])
def test_a_full_sync_makes_every_id_match_the_table(rows, stored, expected):
    write = full_sync_writes(ROW["chunk_id"], rows, stored)
    assert (write[0] if write else None) == expected
    if write:
        assert write[1] == (ROW if expected == UPSERT else ROW["chunk_id"])


def _change(op: str, chunk_id: str) -> dict:
    return {"op": op, "chunk_id": chunk_id, "doc_id": "d", "source_uri": "/c/guide.md"}


def test_an_incremental_sync_rewrites_whole_documents_that_changed():
    moved = {**ROW, "chunk_id": "1" * 32, "char_start": 99}  # kept id, new offsets, no change row
    added = {**ROW, "chunk_id": "2" * 32}
    writes = incremental_writes([moved, added],
                                [_change("delete", "3" * 32), _change("upsert", "2" * 32)])
    assert writes == [(UPSERT, moved), (UPSERT, added), (DELETE, "3" * 32)]


def test_an_incremental_sync_leaves_unchanged_documents_alone():
    assert incremental_writes([ROW], []) == []


def test_the_chunks_table_wins_over_a_wrong_change_set():
    # an upsert of an id the table lacks is a delete; a delete of a row's id is an upsert
    assert incremental_writes([], [_change("upsert", "9" * 32)]) == [(DELETE, "9" * 32)]
    assert incremental_writes([ROW], [_change("delete", ROW["chunk_id"])]) == [(UPSERT, ROW)]
    # a deleted document: only deletes
    assert incremental_writes([], [_change("delete", "a" * 32), _change("delete", "b" * 32)]
                              ) == [(DELETE, "a" * 32), (DELETE, "b" * 32)]


def test_stored_fields_are_json_ready_and_keep_what_search_needs():
    fields = stored_fields(ROW)
    assert fields["metadata"] == {"raw_char_start": "4"}  # Parquet map pairs → dict
    assert fields["chunk_id"] == ROW["chunk_id"] and fields["heading_path"] == ["Guide", "Boats"]
    assert "embed_text" not in fields and "embedding" not in fields
    item = embeddable_item(ROW, "id-1")
    assert item.id == "id-1" and item.content.text == ROW["text"]
    assert item.dense_embedding == [0.6, 0.8] and item.metadata == fields


def test_a_row_without_a_vector_cannot_be_stored():
    with pytest.raises(MissingVector, match="no embedding"):
        embeddable_item({**ROW, "embedding": None}, "x")


def test_qdrant_point_ids_are_the_chunk_ids_as_uuids():
    point = QdrantStore.item_id(ROW["chunk_id"])
    assert uuid.UUID(point).hex == ROW["chunk_id"]
    assert QdrantStore.chunk_id_of(point) == ROW["chunk_id"]


def test_incremental_only_when_the_store_holds_the_previous_run():
    synced = {"status": SYNCED, "run_token": "t1"}
    assert choose_mode(True, synced, "t1", created=False)[0] is False
    assert choose_mode(True, synced, "writing:t2", created=False)[0] is True  # a run died
    assert choose_mode(True, synced, "t0", created=False)[0] is True  # synced by another run
    assert choose_mode(True, {"status": "failed", "run_token": "t1"}, "t1", False)[0] is True
    assert choose_mode(True, None, "t1", created=False)[0] is True
    assert choose_mode(False, None, None, created=False)[0] is True
    assert choose_mode(True, synced, "t1", created=True)[0] is True  # collection was dropped
