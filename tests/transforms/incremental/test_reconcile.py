"""Last good version wins: what an incremental run writes for a re-processed document."""

from __future__ import annotations

from ragbeam.schemas.documents import DOCUMENT_SCHEMA
from ragbeam.schemas.errors import ERROR_SCHEMA
from ragbeam.transforms.incremental.changes import chunk_row_digest
from ragbeam.transforms.incremental.reconcile import (
    LAST_GOOD_CONTENT_HASH_KEY,
    PreviousState,
    reconcile_document,
)
from ragbeam.transforms.types import Failure, SourceFile, Stage

CONFIG = "c" * 32


def _document(status: str = "ok", chunk_count: int = 2) -> dict:
    return {
        "doc_id": "d1", "source_uri": "/corpus/a.txt", "content_hash": "old" * 8,
        "status": status, "error": None, "media_type": "text/plain", "title": "A",
        "language": "en", "page_count": None, "bytes": 10, "char_count": 9,
        "chunk_count": chunk_count, "strategy": "recursive", "config_hash": "o" * 32,
        "text": "some text", "metadata": [("route_reason", "default strategy")],
        "spans": None,
    }


def _chunk(chunk_id: str, index: int) -> dict:
    return {"chunk_id": chunk_id, "doc_id": "d1", "chunk_index": index, "text": chunk_id,
            "source_uri": "/corpus/a.txt", "metadata": [("raw_char_start", "0")]}


PREVIOUS = PreviousState(_document(), (_chunk("k1", 0), _chunk("k2", 1)))
TIMEOUT = Failure(SourceFile("/corpus/a.txt", "d1", 12), Stage.EXTRACT, "ExtractionTimeout",
                  "did not finish within 60 s", content_hash="new" * 8)


def test_a_document_that_fails_now_keeps_its_last_good_chunks_and_deletes_nothing():
    out = reconcile_document("d1", [TIMEOUT], PREVIOUS, {}, None, CONFIG)
    (row,) = out.documents
    assert row["status"] == "stale" and set(row) == set(DOCUMENT_SCHEMA.names)
    assert row["error"] == "extract: ExtractionTimeout: did not finish within 60 s"
    assert row["text"] == "some text" and row["chunk_count"] == 2  # offsets still hold
    # The next run compares against the bytes and config that failed…
    assert row["content_hash"] == "new" * 8 and row["config_hash"] == CONFIG
    # …and a reader can still tell which bytes the served chunks came from.
    assert row["metadata"][LAST_GOOD_CONTENT_HASH_KEY] == "old" * 8
    assert row["metadata"]["error_class"] == "transient"
    assert [c["chunk_id"] for c in out.chunks] == ["k1", "k2"]
    assert out.changes == []
    (error,) = out.errors
    assert set(error) == set(ERROR_SCHEMA.names) and error["error_class"] == "transient"


def test_a_stale_document_failing_again_keeps_the_original_last_good_hash():
    first = reconcile_document("d1", [TIMEOUT], PREVIOUS, {}, None, CONFIG).documents[0]
    again = reconcile_document("d1", [TIMEOUT], PreviousState(first, PREVIOUS.chunks), {},
                               None, CONFIG).documents[0]
    assert again["status"] == "stale"
    assert again["metadata"][LAST_GOOD_CONTENT_HASH_KEY] == "old" * 8


def test_a_failure_with_nothing_good_before_it_is_an_error_row():
    for previous in (None, PreviousState(_document("error", chunk_count=0))):
        out = reconcile_document("d1", [TIMEOUT], previous, {}, None, CONFIG)
        assert [d["status"] for d in out.documents] == ["error"]
        assert out.chunks == [] and out.changes == []


def test_a_deleted_document_loses_every_chunk():
    gone = PreviousState(_document(), PREVIOUS.chunks, deleted=True)
    out = reconcile_document("d1", [], gone, {}, None, CONFIG)
    assert [(c["op"], c["chunk_id"]) for c in out.changes] == [("delete", "k1"),
                                                               ("delete", "k2")]
    assert out.documents == []  # its tombstone comes from the comparison step


def test_a_healed_document_is_diffed_row_by_row():
    current = {"k1": chunk_row_digest(_chunk("k1", 0)),  # unchanged
               "k2": chunk_row_digest(_chunk("k2", 2)),  # moved down by an insert
               "k3": chunk_row_digest(_chunk("k3", 1))}  # new
    out = reconcile_document("d1", [], PREVIOUS, current, "/corpus/a.txt", CONFIG)
    assert [(c["op"], c["chunk_id"]) for c in out.changes] == [("upsert", "k2"),
                                                               ("upsert", "k3")]
    assert out.documents == out.chunks == out.errors == []


def test_a_stale_document_in_a_moved_corpus_upserts_its_new_uri():
    moved = Failure(SourceFile("/mnt/new/a.txt", "d1", 12), Stage.EXTRACT,
                    "ExtractionTimeout", "slow", content_hash="new" * 8)
    out = reconcile_document("d1", [moved], PREVIOUS, {}, None, CONFIG)
    assert {c["source_uri"] for c in out.chunks} == {"/mnt/new/a.txt"}
    assert [(c["op"], c["chunk_id"]) for c in out.changes] == [("upsert", "k1"),
                                                               ("upsert", "k2")]
