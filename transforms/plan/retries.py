"""Retries with a memory (pure): when an incremental run stops retrying a failure.

A *transient* failure (``transforms/errors.py``: a time limit, the memory cap, a
crashed extraction process…) is retried by the next run, because the same bytes
may well succeed then. But a file that hits the memory cap or the time limit
every time would be re-extracted every night, forever, at the cost of the cap.
So each failed row counts the runs in a row that failed it *the same way* (same
``error_type``) with the same bytes and config (``FAILED_ATTEMPTS_KEY``); with
the ``MAX_ATTEMPTS``-th it is marked ``GAVE_UP_KEY`` and later runs carry it over
like a permanent failure: not retried until its bytes change, the config changes
(ragbeam's version is part of it), or ``--retry-errors`` asks.

A failure of another type, other bytes or another config starts the count again.
A permanent failure is never retried anyway: it is counted, never marked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragbeam.schemas.documents import STATUS_ERROR, STATUS_STALE
from ragbeam.transforms.errors import is_transient
from ragbeam.transforms.write.rows import ERROR_TYPE_KEY, FAILED_ATTEMPTS_KEY, GAVE_UP_KEY

# Runs in a row that fail a document the same way before the next ones stop trying.
MAX_ATTEMPTS = 3


def failed_attempts(metadata: Mapping[str, str] | None) -> int:
    """How many runs in a row failed a failed row's document the same way (1 when not
    recorded: the key is written from the second failure on)."""
    try:
        return max(1, int((metadata or {}).get(FAILED_ATTEMPTS_KEY, "1")))
    except ValueError:
        return 1


def gave_up(metadata: Mapping[str, str] | None) -> bool:
    """A failed row whose transient failure is not retried any more."""
    return (metadata or {}).get(GAVE_UP_KEY) == "true"


def attempts_now(previous: Mapping[str, Any] | None, error_type: str,
                 content_hash: str | None, config_hash: str) -> int:
    """The count for a document that failed now with ``error_type``: one more than its
    previous row's when that row failed the same way on the same bytes and config,
    else 1. ``previous``: its previous documents row, metadata as a dict."""
    if previous is None or previous.get("status") not in (STATUS_ERROR, STATUS_STALE):
        return 1
    metadata = previous.get("metadata") or {}
    same = (metadata.get(ERROR_TYPE_KEY) == error_type
            and content_hash is not None and previous.get("content_hash") == content_hash
            and previous.get("config_hash") == config_hash)
    return failed_attempts(metadata) + 1 if same else 1


def retry_metadata(attempts: int, error_type: str) -> dict[str, str]:
    """The metadata keys a failed row gets for its count (none for a first failure, so
    a first failure's row is the same in a first and in an incremental run)."""
    if attempts <= 1:
        return {}
    out = {FAILED_ATTEMPTS_KEY: str(attempts)}
    if is_transient(error_type) and attempts >= MAX_ATTEMPTS:
        out[GAVE_UP_KEY] = "true"
    return out


def without_retry_keys(metadata: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in metadata.items() if k not in (FAILED_ATTEMPTS_KEY, GAVE_UP_KEY)}
