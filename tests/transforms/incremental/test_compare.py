"""Per-document decisions of an incremental run, and the rows it carries over."""

from __future__ import annotations

import pytest

from ragbeam.schemas.documents import DOCUMENT_SCHEMA
from ragbeam.transforms.incremental.compare import (
    ERROR_CARRIED_KEY,
    CurrentFile,
    Outcome,
    as_python_row,
    decide,
    deleted_document_row,
    error_row_from_document,
    kept_error_document_row,
    unchanged_document_row,
)
from ragbeam.transforms.types import SourceFile

CONFIG = "c" * 32
HASH = "a" * 64


def _current(content_hash: str | None = HASH) -> CurrentFile:
    return CurrentFile(SourceFile("/corpus/a.txt", "d1", 10), content_hash)


def _previous(status: str = "ok", content_hash: str | None = HASH, config_hash: str = CONFIG,
              chunk_count: int = 2) -> dict:
    return {
        "doc_id": "d1", "source_uri": "/corpus/a.txt", "content_hash": content_hash,
        "status": status, "error": None, "media_type": "text/plain", "title": "A",
        "language": "en", "page_count": None, "bytes": 10, "char_count": 9,
        "chunk_count": chunk_count, "strategy": "recursive", "config_hash": config_hash,
        "text": "some text",
        # As pyarrow reads a map column back: a list of key/value pairs.
        "metadata": [("route_reason", "default strategy")],
    }


@pytest.mark.parametrize("status", ["ok", "unchanged"])
def test_same_bytes_and_config_is_unchanged(status):
    assert decide(_current(), _previous(status), 2, CONFIG) is Outcome.UNCHANGED


@pytest.mark.parametrize(("current", "previous", "why"), [
    (_current("b" * 64), _previous(), "other bytes"),
    (_current(), _previous(config_hash="d" * 32), "other config"),
    (_current(None), _previous(content_hash=None), "hash unknown on both sides is not equal"),
    (_current(), _previous(status="some-future-status"), "unknown status"),
])
def test_anything_else_is_processed_again(current, previous, why):
    assert decide(current, previous, 2, CONFIG) is Outcome.CHANGED, why


def test_previous_chunks_that_do_not_add_up_force_processing():
    # A previous chunks table missing rows must not be carried over as complete.
    assert decide(_current(), _previous(chunk_count=3), 2, CONFIG) is Outcome.CHANGED


def test_new_deleted_and_gone():
    assert decide(_current(), None, 0, CONFIG) is Outcome.NEW
    assert decide(None, _previous(), 2, CONFIG) is Outcome.DELETED
    # A tombstone from an earlier run: reported once, then forgotten…
    assert decide(None, _previous("deleted", chunk_count=0), 0, CONFIG) is Outcome.GONE
    # …and a file that comes back after it is new.
    assert decide(_current(), _previous("deleted", chunk_count=0), 0, CONFIG) is Outcome.NEW


def test_an_unchanged_error_is_kept_unless_retries_are_asked_for():
    previous = _previous("error", chunk_count=0)
    previous["metadata"] = {"error_type": "EncryptedDocumentError"}
    assert decide(_current(), previous, 0, CONFIG) is Outcome.KEPT_ERROR
    assert decide(_current(), previous, 0, CONFIG, retry_errors=True) is Outcome.RETRY
    assert Outcome.RETRY.needs_processing and not Outcome.KEPT_ERROR.needs_processing
    # Changed bytes are processed whatever the previous status.
    assert decide(_current("b" * 64), previous, 0, CONFIG) is Outcome.CHANGED


@pytest.mark.parametrize("error_type", [
    "ExtractionTimeout", "ExtractionMemoryExceeded", "ExtractorCrashed",
    "TikaServerUnavailable", "TikaServerError", "EmbeddingFailed"])
@pytest.mark.parametrize("status", ["error", "stale"])
def test_a_transient_failure_is_retried_without_being_asked(error_type, status):
    previous = _previous(status, chunk_count=0)
    previous["metadata"] = [("error_type", error_type)]  # as read back from Parquet
    assert decide(_current(), previous, 0, CONFIG) is Outcome.RETRY


def test_a_permanent_stale_failure_is_kept_with_its_chunks():
    previous = _previous("stale", chunk_count=2)
    previous["error"] = "extract: ExtractionError: Tika failed"
    assert decide(_current(), previous, 2, CONFIG) is Outcome.KEPT_ERROR
    assert decide(_current(), previous, 2, CONFIG, retry_errors=True) is Outcome.RETRY


def test_carried_rows_keep_everything_but_the_status():
    previous = _previous()
    row = unchanged_document_row(previous, previous["source_uri"])
    assert row["status"] == "unchanged"
    assert row["metadata"] == {"route_reason": "default strategy"}
    assert {k: v for k, v in row.items() if k not in ("status", "metadata")} == {
        k: v for k, v in previous.items() if k not in ("status", "metadata")}


def test_deleted_row_has_no_text_and_no_chunks_and_fits_the_schema():
    row = deleted_document_row(_previous(), "n" * 32)
    assert row["status"] == "deleted" and row["chunk_count"] == 0
    assert row["text"] is None and row["config_hash"] == "n" * 32
    assert row["metadata"] == {"previous_status": "ok"}
    assert set(row) == set(DOCUMENT_SCHEMA.names)


def test_a_kept_error_rebuilds_its_dead_letter():
    previous = _previous("error", chunk_count=0)
    previous.update(
        error="extract: ExtractionError: Tika failed: bad xref: at 12",
        metadata=[("error_stage", "extract"), ("error_type", "ExtractionError")],
    )
    row = kept_error_document_row(previous, "/moved/a.txt")
    assert row["status"] == "error" and row["metadata"][ERROR_CARRIED_KEY] == "true"
    assert row["source_uri"] == "/moved/a.txt"
    assert error_row_from_document(previous) == {
        "source_uri": "/corpus/a.txt", "doc_id": "d1", "stage": "extract",
        "error_type": "ExtractionError", "message": "Tika failed: bad xref: at 12",
        "error_class": "permanent",
    }


def test_map_columns_read_back_from_parquet_become_dicts():
    assert as_python_row({"metadata": [("k", "v")]})["metadata"] == {"k": "v"}
    assert as_python_row({"metadata": {"k": "v"}})["metadata"] == {"k": "v"}
