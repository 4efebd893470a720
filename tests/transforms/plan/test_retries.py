"""Retries with a memory: the count of same failures, and when a run gives up."""

from __future__ import annotations

import pytest

from ragbeam.transforms.incremental.reconcile import PreviousState, reconcile_document
from ragbeam.transforms.plan.retries import (
    MAX_ATTEMPTS,
    attempts_now,
    failed_attempts,
    gave_up,
    retry_metadata,
)
from ragbeam.transforms.types import Failure, SourceFile, Stage

CONFIG = "c" * 32
HASH = "h" * 64


def _failed(status: str = "error", error_type: str = "ExtractionMemoryExceeded",
            attempts: int | None = None, content_hash: str = HASH, config: str = CONFIG,
            chunk_count: int = 0) -> dict:
    metadata = [("error_type", error_type), ("error_class", "transient")]
    if attempts is not None:
        metadata.append(("failed_attempts", str(attempts)))
    return {"doc_id": "d1", "source_uri": "/c/a.pdf", "content_hash": content_hash,
            "status": status, "error": f"extract: {error_type}: over the cap",
            "media_type": "application/pdf", "title": None, "language": None,
            "page_count": None, "bytes": 10, "char_count": 9 if chunk_count else None,
            "chunk_count": chunk_count, "strategy": None, "config_hash": config,
            "text": "kept text" if chunk_count else None, "metadata": metadata}


def _failure(error_type: str = "ExtractionMemoryExceeded", content_hash: str = HASH) -> Failure:
    return Failure(SourceFile("/c/a.pdf", "d1", 10), Stage.EXTRACT, error_type, "over the cap",
                   content_hash=content_hash)


def test_the_count_grows_only_for_the_same_failure_of_the_same_input():
    as_dict = lambda row: {**row, "metadata": dict(row["metadata"])}  # noqa: E731
    assert attempts_now(None, "ExtractionMemoryExceeded", HASH, CONFIG) == 1
    assert attempts_now(as_dict(_failed()), "ExtractionMemoryExceeded", HASH, CONFIG) == 2
    assert attempts_now(as_dict(_failed(attempts=2)), "ExtractionMemoryExceeded", HASH,
                        CONFIG) == 3
    # Another way of failing, other bytes, another config: a new count.
    assert attempts_now(as_dict(_failed(attempts=2)), "ExtractionTimeout", HASH, CONFIG) == 1
    assert attempts_now(as_dict(_failed(attempts=2)), "ExtractionMemoryExceeded", "x" * 64,
                        CONFIG) == 1
    assert attempts_now(as_dict(_failed(attempts=2, config="d" * 32)),
                        "ExtractionMemoryExceeded", HASH, CONFIG) == 1
    # Unknown bytes are never "the same bytes".
    assert attempts_now(as_dict(_failed()), "ExtractionMemoryExceeded", None, CONFIG) == 1
    # An ok previous row: a first failure.
    assert attempts_now({**as_dict(_failed()), "status": "ok"}, "ExtractionMemoryExceeded",
                        HASH, CONFIG) == 1


def test_a_transient_failure_is_given_up_on_at_the_last_attempt_a_permanent_one_never():
    assert retry_metadata(1, "ExtractionTimeout") == {}
    assert retry_metadata(MAX_ATTEMPTS - 1, "ExtractionTimeout") == {
        "failed_attempts": str(MAX_ATTEMPTS - 1)}
    marked = retry_metadata(MAX_ATTEMPTS, "ExtractionTimeout")
    assert gave_up(marked) and failed_attempts(marked) == MAX_ATTEMPTS
    # A permanent failure is not retried anyway: counted (with --retry-errors), not marked.
    assert not gave_up(retry_metadata(MAX_ATTEMPTS + 2, "EncryptedDocumentError"))
    assert failed_attempts({}) == 1 and failed_attempts({"failed_attempts": "junk"}) == 1


@pytest.mark.parametrize("chunk_count", [0, 2], ids=["error", "stale"])
def test_reconcile_counts_the_runs_in_a_row_and_gives_up(chunk_count):
    status = "stale" if chunk_count else "error"
    row = _failed(status, chunk_count=chunk_count)
    for attempt in range(2, MAX_ATTEMPTS + 2):
        (row,) = reconcile_document("d1", [_failure()], PreviousState(row), {}, None,
                                    CONFIG).documents
        assert row["status"] == status
        assert failed_attempts(row["metadata"]) == attempt
        assert gave_up(row["metadata"]) == (attempt >= MAX_ATTEMPTS)
    # Failing another way starts again, and is not given up on.
    (row,) = reconcile_document("d1", [_failure("ExtractionTimeout")], PreviousState(row), {},
                                None, CONFIG).documents
    assert failed_attempts(row["metadata"]) == 1 and not gave_up(row["metadata"])
    assert "failed_attempts" not in row["metadata"]
