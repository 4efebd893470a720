"""Per-document decisions of an incremental run (``plan/decide.py``); the carried
rows themselves: ``test_carry.py``."""

from __future__ import annotations

import itertools

import pytest

from ragbeam.transforms.plan.carry import carried_document_row
from ragbeam.transforms.plan.decide import (
    CARRIED,
    CurrentFile,
    Outcome,
    as_python_row,
    chunk_outcome,
    decide,
    document_outcome,
    head_of,
    needs_hash,
    verdict_for,
)
from ragbeam.transforms.types import SourceFile
from ragbeam.transforms.write.rows import SOURCE_MODIFIED_KEY, settled_modified

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
    assert decide(_current(), _previous(status), CONFIG) is Outcome.UNCHANGED


@pytest.mark.parametrize(("current", "previous", "why"), [
    (_current("b" * 64), _previous(), "other bytes"),
    (_current(), _previous(config_hash="d" * 32), "other config"),
    (_current(None), _previous(content_hash=None), "hash unknown on both sides is not equal"),
    (_current(), _previous(status="some-future-status"), "unknown status"),
])
def test_anything_else_is_processed_again(current, previous, why):
    assert decide(current, previous, CONFIG) is Outcome.CHANGED, why




def test_new_deleted_and_gone():
    assert decide(_current(), None, CONFIG) is Outcome.NEW
    assert decide(None, _previous(), CONFIG) is Outcome.DELETED
    # A tombstone from an earlier run: reported once, then forgotten…
    assert decide(None, _previous("deleted", chunk_count=0), CONFIG) is Outcome.GONE
    # …and a file that comes back after it is new.
    assert decide(_current(), _previous("deleted", chunk_count=0), CONFIG) is Outcome.NEW


def test_an_unchanged_error_is_kept_unless_retries_are_asked_for():
    previous = _previous("error", chunk_count=0)
    previous["metadata"] = {"error_type": "EncryptedDocumentError"}
    assert decide(_current(), previous, CONFIG) is Outcome.KEPT_ERROR
    assert decide(_current(), previous, CONFIG, retry_errors=True) is Outcome.RETRY
    assert Outcome.RETRY.needs_processing and not Outcome.KEPT_ERROR.needs_processing
    # Changed bytes are processed whatever the previous status.
    assert decide(_current("b" * 64), previous, CONFIG) is Outcome.CHANGED


@pytest.mark.parametrize("error_type", [
    "ExtractionTimeout", "ExtractionMemoryExceeded", "ExtractorCrashed",
    "TikaServerUnavailable", "TikaServerError", "EmbeddingFailed", "OcrUnavailable"])
@pytest.mark.parametrize("status", ["error", "stale"])
def test_a_transient_failure_is_retried_without_being_asked(error_type, status):
    previous = _previous(status, chunk_count=0)
    previous["metadata"] = [("error_type", error_type)]  # as read back from Parquet
    assert decide(_current(), previous, CONFIG) is Outcome.RETRY


@pytest.mark.parametrize("reason", ["OcrTimeLimit", "OcrUnavailable"])
@pytest.mark.parametrize("status", ["ok", "unchanged"])
def test_an_ok_document_marked_incomplete_is_retried_and_its_verdict_says_so(status, reason):
    """OCR stopped by a time limit, or not run for want of Tesseract
    (metadata.incomplete): the document is served, but the next run reads it
    again, also through the slim rows of the join."""
    previous = _previous(status)
    previous["metadata"] = [("route_reason", "default strategy"),
                            ("incomplete", reason)]
    assert decide(_current(), previous, CONFIG) is Outcome.RETRY
    assert decide(_current(), head_of(previous), CONFIG) is Outcome.RETRY
    assert verdict_for(_current(), previous, Outcome.RETRY, CONFIG).outcome == "retry"
    # A reason that is not a transient error type does not make it retried.
    previous["metadata"] = [("incomplete", "SomethingPermanent")]
    assert decide(_current(), previous, CONFIG) is Outcome.UNCHANGED


@pytest.mark.parametrize("status", ["error", "stale"])
def test_a_transient_failure_given_up_on_is_kept_until_something_changes(status):
    previous = _previous(status, chunk_count=0)
    previous["metadata"] = [("error_type", "ExtractionMemoryExceeded"),
                            ("failed_attempts", "3"), ("gave_up", "true")]
    for seen in (previous, head_of(previous)):  # the join sees the slim head
        assert decide(_current(), seen, CONFIG) is Outcome.KEPT_ERROR
        assert decide(_current(), seen, CONFIG, retry_errors=True) is Outcome.RETRY
        assert decide(_current("b" * 64), seen, CONFIG) is Outcome.CHANGED  # new bytes
        assert decide(_current(), seen, "d" * 32) is Outcome.CHANGED  # config, version


def test_an_empty_file_with_a_recorded_hash_is_kept_not_redone():
    """Read records the hash of an empty file's (no) bytes: the same empty file is the
    same input, and its permanent failure is kept."""
    from ragbeam.transforms.read.dofn import EMPTY_HASH

    previous = _previous("error", content_hash=EMPTY_HASH, chunk_count=0)
    previous["metadata"] = [("error_type", "EmptyFileError")]
    assert decide(_current(EMPTY_HASH), previous, CONFIG) is Outcome.KEPT_ERROR


def test_a_failure_never_hashed_is_the_same_while_the_listing_says_so():
    """Read refused the file before reading it (too large): no hash on either side, but
    the same size and recorded time are the same file, failing the same way."""
    previous = _previous("error", content_hash=None, chunk_count=0)
    previous["metadata"] = [("error_type", "FileTooLargeError"),
                            (SOURCE_MODIFIED_KEY, repr(MODIFIED))]
    same = CurrentFile(_listed(), None)
    assert decide(same, previous, CONFIG) is Outcome.KEPT_ERROR
    assert decide(same, head_of(previous), CONFIG) is Outcome.KEPT_ERROR
    assert decide(CurrentFile(_listed(modified=MODIFIED + 60), None), previous,
                  CONFIG) is Outcome.CHANGED
    # An ok row without a hash is not trusted by the listing alone.
    assert decide(same, {**previous, "status": "ok"}, CONFIG) is Outcome.CHANGED


def test_a_permanent_stale_failure_is_kept_with_its_chunks():
    previous = _previous("stale", chunk_count=2)
    previous["error"] = "extract: ExtractionError: Tika failed"
    assert decide(_current(), previous, CONFIG) is Outcome.KEPT_ERROR
    assert decide(_current(), previous, CONFIG, retry_errors=True) is Outcome.RETRY


def test_map_columns_read_back_from_parquet_become_dicts():
    assert as_python_row({"metadata": [("k", "v")]})["metadata"] == {"k": "v"}
    assert as_python_row({"metadata": {"k": "v"}})["metadata"] == {"k": "v"}


MODIFIED = 1_700_000_000.25
LISTED = MODIFIED + 3600


def _listed(uri: str = "/corpus/a.txt", size: int = 10, modified: float = MODIFIED,
            listed: float = LISTED) -> SourceFile:
    return SourceFile(uri, "d1", size, modified=modified, listed=listed)


def test_a_file_listed_as_recorded_needs_no_hash():
    previous = _previous()
    previous["metadata"] = [(SOURCE_MODIFIED_KEY, repr(MODIFIED))]
    assert not needs_hash(_listed(), previous, CONFIG)
    assert needs_hash(_listed(), previous, CONFIG, verify=True)
    assert needs_hash(_listed(modified=MODIFIED + 1), previous, CONFIG)
    assert needs_hash(_listed(size=11), previous, CONFIG)
    assert needs_hash(_listed(modified=0.0), previous, CONFIG)  # a filesystem without times
    # Nothing to compare a hash with: the document is processed whatever its bytes.
    for other in (None, _previous(config_hash="d" * 32), _previous(content_hash=None),
                  _previous("deleted")):
        assert not needs_hash(_listed(modified=MODIFIED + 1), other, CONFIG)
    # A row that recorded no time (the file was modified just before its listing).
    assert needs_hash(_listed(), _previous(), CONFIG)


def test_the_head_keeps_what_the_decision_reads_and_not_the_text():
    previous = _previous("error")
    previous["metadata"] = [("error_type", "ExtractionTimeout"), ("dc:title", "x" * 1000),
                            (SOURCE_MODIFIED_KEY, repr(MODIFIED))]
    head = head_of(previous)
    assert "text" not in head
    assert head["metadata"] == {"error_type": "ExtractionTimeout",
                                SOURCE_MODIFIED_KEY: repr(MODIFIED)}
    assert decide(_current(), head, CONFIG) is decide(_current(), previous, CONFIG)


def test_an_untouched_document_needs_no_verdict():
    previous = _previous()
    previous["metadata"] = [(SOURCE_MODIFIED_KEY, repr(MODIFIED))]
    current = CurrentFile(_listed(), HASH)
    assert verdict_for(current, previous, decide(current, previous, CONFIG), CONFIG) is None
    # A config change is seen by the carrying steps themselves: no verdict either.
    changed = _previous(config_hash="d" * 32)
    assert verdict_for(current, changed, decide(current, changed, CONFIG), CONFIG) is None


_STATUSES = ("ok", "unchanged", "error", "stale", "deleted", "some-future-status")
# ":gave_up": a transient failure the same way MAX_ATTEMPTS runs in a row (retries.py).
_ERRORS = ("ExtractionTimeout", "EncryptedDocumentError", "ExtractionTimeout:gave_up")
_CURRENTS = ("absent", "same", "moved", "touched", "edited", "unsettled")


def _case(status, same_config, error_type, current_kind, retry_errors):
    previous = _previous(status, config_hash=CONFIG if same_config else "d" * 32)
    error_type, _, mark = error_type.partition(":")
    previous["metadata"] = [(SOURCE_MODIFIED_KEY, repr(MODIFIED)), ("error_type", error_type)]
    if mark:
        previous["metadata"] += [("failed_attempts", "3"), ("gave_up", "true")]
    uri = "/moved/a.txt" if current_kind == "moved" else "/corpus/a.txt"
    modified = {"touched": MODIFIED + 60, "unsettled": LISTED - 1}.get(current_kind, MODIFIED)
    current = None if current_kind == "absent" else CurrentFile(
        _listed(uri, modified=modified), "b" * 64 if current_kind == "edited" else HASH)
    return previous, current


@pytest.mark.parametrize(("status", "same_config", "error_type", "current_kind", "retry"),
                         list(itertools.product(_STATUSES, (True, False), _ERRORS, _CURRENTS,
                                                (False, True))))
def test_the_carrying_steps_reach_the_joins_decision(status, same_config, error_type,
                                                     current_kind, retry):
    """Every combination: what ``Carry documents`` and ``Carry chunks`` do with a
    previous row, from the row and its verdict alone, is what the join decided."""
    previous, current = _case(status, same_config, error_type, current_kind, retry)
    outcome = decide(current, head_of(previous), CONFIG, retry)
    verdict = verdict_for(current, head_of(previous), outcome, CONFIG)
    on_rows = document_outcome(previous, verdict, CONFIG)
    if outcome in (Outcome.NEW, Outcome.GONE):  # a tombstone: dropped either way
        assert on_rows is Outcome.GONE
    else:
        assert on_rows is outcome
    if status in ("ok", "unchanged", "stale", "some-future-status"):  # rows with chunks
        # A stale document's last good chunks may come from any config.
        for chunk_config in {previous["config_hash"], CONFIG, "e" * 32}:
            if status != "stale" and chunk_config != previous["config_hash"]:
                continue
            on_chunks = chunk_outcome({"config_hash": chunk_config}, verdict, CONFIG)
            assert (on_chunks in CARRIED) == (outcome in CARRIED)
            assert on_chunks.needs_processing == outcome.needs_processing
    if outcome in CARRIED:  # the carried row describes the file as listed now
        row = carried_document_row(previous, on_rows, verdict)
        assert row["source_uri"] == current.source.uri
        assert row["metadata"].get(SOURCE_MODIFIED_KEY, "") == settled_modified(current.source)
