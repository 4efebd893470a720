"""Decide, per document, what an incremental run does with it (pure).

A document is identified by its ``doc_id`` (``ids.py``: its path below its
input root), so the current file and its previous row meet on that key. The
rule, in order:

1. Previous row but no current file: ``DELETED`` (a ``deleted`` row, no chunks,
   deletes for all its chunk ids). A previous ``deleted`` row is a tombstone
   already reported once: it is dropped (``GONE``), so tombstones do not pile up.
2. Current file but no live previous row: ``NEW``, processed normally.
3. Bytes or config differ (or a hash is unknown, or the previous chunk rows do
   not add up to the previous ``chunk_count``): ``CHANGED``, processed normally.
4. Same bytes and config, previously ``ok``/``unchanged``: ``UNCHANGED``; the
   previous document row (status ``unchanged``) and chunk rows are carried over.
5. Same bytes and config, previously failed (``error``, or ``stale``: failed
   while its last good chunks were kept): a *transient* failure
   (``transforms/errors.py``: a time limit, a server that was down…) is
   ``RETRY``'d; a *permanent* one is ``KEPT_ERROR``: the row, its error and (for
   ``stale``) its last good chunks are carried over without re-processing,
   unless ``retry_errors`` (``--retry-errors``) asks for ``RETRY``.

What happens when a re-processed document fails again is ``reconcile.py``'s
rule: its last good chunks win over the failure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ragbeam.schemas.documents import (
    STATUS_DELETED,
    STATUS_ERROR,
    STATUS_OK,
    STATUS_STALE,
    STATUS_UNCHANGED,
)
from ragbeam.transforms.errors import error_class, is_transient
from ragbeam.transforms.types import SourceFile
from ragbeam.transforms.write.rows import (
    ERROR_CARRIED_KEY,
    ERROR_CLASS_KEY,
    ERROR_STAGE_KEY,
    ERROR_TYPE_KEY,
)

PREVIOUS_STATUS_KEY = "previous_status"
MAP_COLUMNS = ("metadata",)


@dataclass(frozen=True)
class CurrentFile:
    """A matched file and the sha256 of its bytes (None when it could not be hashed)."""

    source: SourceFile
    content_hash: str | None


class Outcome(StrEnum):
    NEW = "new"
    CHANGED = "changed"
    RETRY = "retry"
    UNCHANGED = "unchanged"
    KEPT_ERROR = "kept_error"
    DELETED = "deleted"
    GONE = "gone"

    @property
    def needs_processing(self) -> bool:
        return self in (Outcome.NEW, Outcome.CHANGED, Outcome.RETRY)


def previous_error_type(previous: Mapping[str, Any]) -> str | None:
    """The error type of a failed previous row (``error`` or ``stale``)."""
    metadata = as_python_row(previous).get("metadata") or {}
    if metadata.get(ERROR_TYPE_KEY):
        return metadata[ERROR_TYPE_KEY]
    parts = (previous.get("error") or "").split(": ", 2)
    return parts[1] if len(parts) == 3 else None


def decide(
    current: CurrentFile | None,
    previous: Mapping[str, Any] | None,
    previous_chunk_count: int,
    config_hash: str,
    retry_errors: bool = False,
) -> Outcome:
    """What to do with one document; see the module docstring for the rule."""
    live = previous if previous is not None and previous["status"] != STATUS_DELETED else None
    if current is None:
        return Outcome.DELETED if live is not None else Outcome.GONE
    if live is None:
        return Outcome.NEW
    same_input = (
        current.content_hash is not None
        and current.content_hash == live["content_hash"]
        and live["config_hash"] == config_hash
        and (live["chunk_count"] or 0) == previous_chunk_count
    )
    if not same_input:
        return Outcome.CHANGED
    if live["status"] in (STATUS_OK, STATUS_UNCHANGED):
        return Outcome.UNCHANGED
    if live["status"] in (STATUS_ERROR, STATUS_STALE):
        if retry_errors or is_transient(previous_error_type(live)):
            return Outcome.RETRY
        return Outcome.KEPT_ERROR
    return Outcome.CHANGED  # a status this version does not know: safest to redo


def as_python_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A row read back from Parquet, with map columns as dicts (as the stages make them).

    pyarrow returns a ``map<string,string>`` value as a list of key/value pairs.
    """
    out = dict(row)
    for column in MAP_COLUMNS:
        value = out.get(column)
        if value is not None and not isinstance(value, Mapping):
            out[column] = dict(value)
    return out


def unchanged_document_row(previous: Mapping[str, Any], source_uri: str) -> dict[str, Any]:
    return {**as_python_row(previous), "status": STATUS_UNCHANGED, "source_uri": source_uri}


def kept_error_document_row(previous: Mapping[str, Any], source_uri: str) -> dict[str, Any]:
    row = as_python_row(previous)
    row["metadata"] = {**(row.get("metadata") or {}), ERROR_CARRIED_KEY: "true"}
    row["source_uri"] = source_uri
    return row


def deleted_document_row(previous: Mapping[str, Any], config_hash: str) -> dict[str, Any]:
    """The tombstone of a document that is no longer matched: what it was, no text, no chunks."""
    return {
        "doc_id": previous["doc_id"],
        "source_uri": previous["source_uri"],
        "content_hash": previous["content_hash"],
        "status": STATUS_DELETED,
        "error": None,
        "media_type": previous["media_type"],
        "title": previous["title"],
        "language": previous["language"],
        "page_count": previous["page_count"],
        "bytes": previous["bytes"],
        "char_count": None,
        "chunk_count": 0,
        "strategy": None,
        "config_hash": config_hash,
        "text": None,
        "metadata": {PREVIOUS_STATUS_KEY: previous["status"]},
    }


def error_row_from_document(previous: Mapping[str, Any]) -> dict[str, Any]:
    """Rebuild the ``errors`` row of a carried-over error from its document row.

    The document row holds ``error = "stage: ErrorType: message"`` and the stage
    and type again in its metadata, so the previous ``errors`` table need not be read.
    """
    metadata = as_python_row(previous)["metadata"] or {}
    error = previous["error"] or ""
    parts = error.split(": ", 2)
    stage = metadata.get(ERROR_STAGE_KEY) or (parts[0] if len(parts) == 3 else "unknown")
    error_type = metadata.get(ERROR_TYPE_KEY) or (parts[1] if len(parts) == 3 else "unknown")
    prefix = f"{stage}: {error_type}: "
    message = error[len(prefix):] if error.startswith(prefix) else error
    return {
        "source_uri": previous["source_uri"],
        "doc_id": previous["doc_id"],
        "stage": stage,
        "error_type": error_type,
        "message": message or "(no message)",
        "error_class": metadata.get(ERROR_CLASS_KEY) or str(error_class(error_type)),
    }
