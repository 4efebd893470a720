"""What a run did to each document, from its ``documents`` table and its previous
run's (pure): the morning report (``ragbeam runs DIR``, ``ragbeam runs DIR --run ID``).

A run's rows say most of it: ``deleted`` (a tombstone written by this run),
``vanished`` (held by the delete guard), a failure of this run (``error``/``stale``
not marked ``error_carried_over``) and whether it was given up on. Whether an
``ok`` document was *added* or *changed* is what its previous row says (none, or a
tombstone: added); an ``unchanged`` row that names ``moved_from`` a document the
previous run had is a move (rows carried on later keep the key: the previous run
tells them apart).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ragbeam.schemas.documents import (
    STATUS_DELETED,
    STATUS_ERROR,
    STATUS_OK,
    STATUS_STALE,
    STATUS_UNCHANGED,
    STATUS_VANISHED,
)
from ragbeam.transforms.plan.decide import MOVED_FROM_KEY, MOVED_TO_KEY
from ragbeam.transforms.plan.retries import gave_up
from ragbeam.transforms.write.rows import ERROR_CARRIED_KEY

# The kinds of the report, in the order shown. "gave up" documents are "failed"
# ones too: failed the same way too many runs in a row, not retried any more.
KINDS = ("added", "changed", "moved", "deleted", "failed", "gave up", "vanished")
COLUMNS = ["doc_id", "source_uri", "status", "metadata", "error"]
# A failure's reason in a report line: its first line, at most this long.
REASON_CHARS = 200


def _metadata(row: Mapping[str, Any]) -> dict[str, str]:
    return dict(row.get("metadata") or {})  # a dict, or pairs as read back from Parquet


def document_report(rows: Iterable[Mapping[str, Any]],
                    previous: Iterable[Mapping[str, Any]] | None) -> dict[str, list[str]]:
    """``{kind: [source_uri, ...]}`` for one run's documents rows (``COLUMNS``), against
    its previous run's rows (None: a first run, or the previous run is gone: every
    ``ok`` row is then "added" when there was no previous run at all)."""
    before = {r["doc_id"]: r["status"] for r in previous or ()}
    out: dict[str, list[str]] = {kind: [] for kind in KINDS}
    for row in rows:
        status, metadata, uri = row["status"], _metadata(row), row["source_uri"]
        if status == STATUS_DELETED:
            if not metadata.get(MOVED_TO_KEY):  # a move is shown under its new path
                out["deleted"].append(uri)
        elif status == STATUS_VANISHED:
            out["vanished"].append(uri)
        elif status == STATUS_OK:
            seen = before.get(row["doc_id"]) not in (None, STATUS_DELETED)
            out["changed" if seen else "added"].append(uri)
        elif status == STATUS_UNCHANGED and metadata.get(MOVED_FROM_KEY) and (
                before.get(row["doc_id"]) in (None, STATUS_DELETED)):
            out["moved"].append(uri)
        elif status in (STATUS_ERROR, STATUS_STALE) and metadata.get(ERROR_CARRIED_KEY) != "true":
            out["failed"].append(uri)
            if gave_up(metadata):
                out["gave up"].append(uri)
    for uris in out.values():
        uris.sort()
    return out


def document_details(rows: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """What a report line adds to a document's path (``{source_uri: words}``): where a
    moved document was (the tombstone this run wrote at its old path is the row of the
    doc id its ``moved_from`` names), and why a failed one failed (its row's error)."""
    rows = list(rows)
    paths = {row["doc_id"]: row["source_uri"] for row in rows
             if row["status"] == STATUS_DELETED}
    details: dict[str, str] = {}
    for row in rows:
        status, metadata, uri = row["status"], _metadata(row), row["source_uri"]
        if status == STATUS_UNCHANGED and (old := paths.get(metadata.get(MOVED_FROM_KEY, ""))):
            details[uri] = f"(from {old})"
        elif status in (STATUS_ERROR, STATUS_STALE) and (error := row.get("error")):
            reason = error.strip().splitlines()[0]
            details[uri] = "— " + (reason if len(reason) <= REASON_CHARS
                                   else reason[:REASON_CHARS - 1] + "…")
    return details
