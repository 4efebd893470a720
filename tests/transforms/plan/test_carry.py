"""The carry rules (``plan/carry.py``): what an incremental run writes of each previous
documents and chunk row, given its document's verdict and whether the delete guard
holds the run's deletions. ``CarryPreviousRows`` (Beam) and the night without a
pipeline write exactly these; the real runs are tests/pipeline/test_incremental.py,
test_unattended_guards.py and test_unchanged.py."""

from __future__ import annotations

import pytest

from ragbeam.schemas.documents import DOCUMENT_SCHEMA
from ragbeam.transforms.plan.carry import (
    Move,
    carried_document_row,
    carry_chunk,
    carry_document,
    deleted_document_row,
    error_row_from_document,
)
from ragbeam.transforms.plan.decide import Outcome, Verdict, as_python_row
from ragbeam.transforms.plan.layers import LayerPlan, Work
from ragbeam.transforms.types import BlockKind, SourceFile
from ragbeam.transforms.write.rows import ERROR_CARRIED_KEY, SOURCE_MODIFIED_KEY

CONFIG = "c" * 32
HASH = "a" * 64
MODIFIED = 1_700_000_000.25


def _document(status: str = "ok", config_hash: str = CONFIG, chunk_count: int = 2) -> dict:
    """A previous documents row as pyarrow reads it back (metadata as pairs)."""
    return {
        "doc_id": "d1", "source_uri": "/corpus/a.txt", "content_hash": HASH,
        "status": status, "error": None, "media_type": "text/plain", "title": "A",
        "language": "en", "page_count": None, "bytes": 10, "char_count": 9,
        "chunk_count": chunk_count, "strategy": "recursive", "config_hash": config_hash,
        "text": "some text", "spans": None,
        "metadata": [("route_reason", "default strategy"),
                     (SOURCE_MODIFIED_KEY, repr(MODIFIED))],
    }


def _failed(status: str = "error", error_type: str = "ExtractionError") -> dict:
    row = _document(status, chunk_count=0 if status == "error" else 2)
    row["error"] = f"extract: {error_type}: Tika failed"
    row["metadata"] += [("error_stage", "extract"), ("error_type", error_type)]
    return row


def _chunk(config_hash: str = CONFIG, embedding: list[float] | None = None) -> dict:
    return {"chunk_id": "k1", "doc_id": "d1", "source_uri": "/corpus/a.txt", "text": "some",
            "context": "A", "config_hash": config_hash, "embedding": embedding,
            "metadata": [("raw_char_start", "0")]}


DELETED = Verdict(str(Outcome.DELETED))
MOVED = Verdict(str(Outcome.DELETED), moved_to="d2", moved_uri="/corpus/b.txt",
                moved_modified=repr(MODIFIED))


def test_carried_rows_keep_everything_but_the_status():
    previous = _document()
    row = carried_document_row(previous, Outcome.UNCHANGED)
    assert row["status"] == "unchanged"
    assert row["metadata"] == as_python_row(previous)["metadata"]
    assert {k: v for k, v in row.items() if k not in ("status", "metadata")} == {
        k: v for k, v in previous.items() if k not in ("status", "metadata")}


def test_deleted_row_has_no_text_and_no_chunks_and_fits_the_schema():
    row = deleted_document_row(_document(), "n" * 32)
    assert row["status"] == "deleted" and row["chunk_count"] == 0
    assert row["text"] is None and row["config_hash"] == "n" * 32
    assert row["metadata"] == {"previous_status": "ok"}
    assert set(row) == set(DOCUMENT_SCHEMA.names)


def test_a_kept_error_rebuilds_its_dead_letter():
    previous = _failed()
    previous["error"] = "extract: ExtractionError: Tika failed: bad xref: at 12"
    assert error_row_from_document(previous) == {
        "source_uri": "/corpus/a.txt", "doc_id": "d1", "stage": "extract",
        "error_type": "ExtractionError", "message": "Tika failed: bad xref: at 12",
        "error_class": "permanent",
    }


def test_an_untouched_document_and_its_chunks_are_carried_as_they_are():
    carried = carry_document(_document(), None, CONFIG)
    assert carried.outcome is Outcome.UNCHANGED
    assert carried.row == carried_document_row(_document(), Outcome.UNCHANGED)
    assert (carried.error, carried.reconcile, carried.reused) == (None, None, None)
    chunk = carry_chunk(_chunk(), None, CONFIG)
    assert chunk.row == as_python_row(_chunk())
    assert (chunk.change, chunk.reconcile) == (None, None)


def test_a_moved_corpus_carries_the_rows_under_the_new_uri_with_an_upsert_per_chunk():
    verdict = Verdict(str(Outcome.UNCHANGED), uri="/moved/a.txt", modified=repr(MODIFIED + 60))
    row = carry_document(_document(), verdict, CONFIG).row
    assert row["source_uri"] == "/moved/a.txt"
    assert row["metadata"][SOURCE_MODIFIED_KEY] == repr(MODIFIED + 60)
    # A time that is not settled any more is not recorded.
    untimed = carry_document(_document(), Verdict(str(Outcome.UNCHANGED), modified=""), CONFIG)
    assert SOURCE_MODIFIED_KEY not in untimed.row["metadata"]
    chunk = carry_chunk(_chunk(), verdict, CONFIG)
    assert chunk.row["source_uri"] == "/moved/a.txt"
    assert chunk.change == {"op": "upsert", "chunk_id": "k1", "doc_id": "d1",
                            "source_uri": "/moved/a.txt"}


@pytest.mark.parametrize("status", ["error", "stale"])
def test_a_kept_failure_is_marked_its_errors_row_made_again_and_its_chunks_served(status):
    carried = carry_document(_failed(status), None, CONFIG)
    assert carried.outcome is Outcome.KEPT_ERROR
    assert carried.row["status"] == status and carried.row["metadata"][ERROR_CARRIED_KEY] == "true"
    assert carried.error == error_row_from_document(_failed(status))
    if status == "stale":  # its last good chunks, under whatever config made them
        verdict = Verdict(str(Outcome.KEPT_ERROR))
        assert carry_chunk(_chunk("e" * 32), verdict, CONFIG).row is not None


def test_a_document_processed_again_goes_to_reconcile_and_offers_its_vectors():
    carried = carry_document(_document(config_hash="d" * 32), None, CONFIG)
    assert carried.outcome is Outcome.CHANGED and carried.row is None
    assert carried.reconcile == (as_python_row(_document(config_hash="d" * 32)), False, None)
    vector = [0.5, 0.5]
    kept = LayerPlan(dense=Work.KEEP)
    chunk = carry_chunk(_chunk("d" * 32, vector), None, CONFIG, layers=kept)
    assert chunk.row is None and chunk.reconcile == as_python_row(_chunk("d" * 32, vector))
    assert chunk.offers_vector
    # Another model's vectors, or none, are not offered.
    redone = LayerPlan(dense=Work.REDO)
    assert not carry_chunk(_chunk("d" * 32, vector), None, CONFIG, layers=redone).offers_vector
    assert not carry_chunk(_chunk("d" * 32), None, CONFIG, layers=kept).offers_vector


def test_a_deleted_document_leaves_a_tombstone_and_its_chunks_go_to_reconcile():
    carried = carry_document(_document(), DELETED, CONFIG)
    assert carried.row == deleted_document_row(_document(), CONFIG)
    assert carried.reconcile == (as_python_row(_document()), True, None)
    chunk = carry_chunk(_chunk([0.5]), DELETED, CONFIG, layers=LayerPlan(dense=Work.KEEP))
    assert chunk.row is None and chunk.reconcile is not None and not chunk.offers_vector


def test_a_held_deletion_serves_the_document_and_its_chunks_on_as_they_were():
    """The delete guard applied: no tombstone, nothing for ``Reconcile`` (so no delete),
    the row served on as ``vanished``, every chunk carried as it was."""
    carried = carry_document(_document(), DELETED, CONFIG, deletes_held=True)
    expected = {**as_python_row(_document()), "status": "vanished"}
    expected["metadata"] = {**expected["metadata"], "previous_status": "ok"}
    assert carried.row == expected
    assert carried.reconcile is None
    chunk = carry_chunk(_chunk(), DELETED, CONFIG, deletes_held=True)
    assert chunk.row == as_python_row(_chunk()) and chunk.reconcile is None
    assert chunk.change is None
    # Held under other vectors: the chunk is carried with this run's (and upserted).
    redone = carry_chunk(_chunk(embedding=[0.5]), DELETED, CONFIG, deletes_held=True,
                         layers=LayerPlan(dense=Work.REDO))
    assert redone.row["embedding"] is None and redone.change["op"] == "upsert"


def test_a_held_run_still_moves_a_document_and_deletes_a_previous_duplicate():
    carried = carry_document(_document(), MOVED, CONFIG, deletes_held=True)
    assert carried.row["status"] == "deleted" and carried.row["metadata"]["moved_to"] == "d2"
    assert carried.reconcile == (as_python_row(_document()), True,
                                 Move("d2", "/corpus/b.txt", repr(MODIFIED)))
    assert carry_chunk(_chunk(), MOVED, CONFIG, deletes_held=True).reconcile is not None
    duplicate = carry_document(_document("duplicate", chunk_count=0), DELETED, CONFIG,
                               deletes_held=True)
    assert duplicate.row["status"] == "deleted" and duplicate.reconcile is not None


def test_what_leaves_nothing_behind():
    # A tombstone, reported once.
    assert carry_document(_document("deleted"), None, CONFIG).row is None
    # A duplicate or adopting document whose previous row had no chunks: its row is
    # made again (duplicate) or taken over (adopted).
    for outcome in (Outcome.DUPLICATE, Outcome.ADOPTED):
        carried = carry_document(_failed(), Verdict(str(outcome)), CONFIG)
        assert (carried.row, carried.reconcile) == (None, None)
    # A duplicate now, with chunks of its own before: they are deleted.
    carried = carry_document(_document(), Verdict(str(Outcome.DUPLICATE)), CONFIG)
    assert carried.row is None and carried.reconcile[1] is True


def test_a_rechunked_document_is_rebuilt_from_its_row_and_its_chunks_reconciled():
    row = {**_document(), "spans": [{"start": 0, "end": 9, "kind": str(BlockKind.PARAGRAPH),
                                     "page": None, "level": 0, "raw_start": 0, "raw_end": 9,
                                     "block": 0}]}
    source = SourceFile("/corpus/a.txt", "d1", 10, MODIFIED, MODIFIED + 3600)
    carried = carry_document(row, Verdict(str(Outcome.RECHUNK), source=source), "n" * 32)
    assert carried.reused is not None and carried.reused.text == "some text"
    assert carried.reused.source == source and carried.row is None
    assert carried.reconcile == (as_python_row(row), False, None)


def test_carried_chunks_take_this_run_s_vectors():
    chunk = carry_chunk(_chunk(embedding=[0.5]), None, CONFIG, layers=LayerPlan(dense=Work.DROP))
    assert chunk.row["embedding"] is None and chunk.change["op"] == "upsert"
    kept = carry_chunk(_chunk(embedding=[0.5]), None, CONFIG, layers=LayerPlan(dense=Work.KEEP))
    assert kept.row["embedding"] == [0.5] and kept.change is None
    with pytest.raises(ValueError, match="sparse"):
        carry_chunk(_chunk(), None, CONFIG, layers=LayerPlan(sparse=Work.REDO))
    sparse = carry_chunk(_chunk(), None, CONFIG, layers=LayerPlan(sparse=Work.REDO),
                         sparse_vector=lambda row: {**row, "sparse": {"indices": [1],
                                                                      "values": [1.0]}})
    assert sparse.row["sparse"] == {"indices": [1], "values": [1.0]}
    assert sparse.change["op"] == "upsert"
