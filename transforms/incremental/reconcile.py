"""One document's outcome in an incremental run, after processing (pure).

Inputs, per ``doc_id``: the failure this run recorded for it (if any), its
previous state (its previous document row and chunk rows, for every document
that was re-processed or deleted) and the ids and digests of the chunks it has
now. The rule:

* **Last good version wins.** A document that fails now but had good chunks
  (previous status ``ok``, ``unchanged`` or ``stale``) keeps them: its chunk
  rows and text are carried over, its row becomes ``stale`` with the new error,
  and no ``delete`` is emitted. Only a document that is gone from the inputs
  loses its chunks.
* A document that fails with nothing good before it is an ``error`` row.
* Otherwise the changes are the difference between its previous and current
  chunks (``changes.document_changes``): deletes, upserts of new chunks, and
  upserts of kept chunks whose row changed.
* A document whose bytes moved to another path (``transforms/plan/content.py``; ``Move``) has
  its rows rewritten under the document that took them over (``adopted_rows``):
  same text, offsets and vectors, that document's doc id, URI and chunk ids; its
  own chunk ids are deleted, the new ones upserted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragbeam.schemas.changes import OP_UPSERT, build_change_row
from ragbeam.schemas.documents import GOOD_STATUSES, STATUS_STALE, STATUS_UNCHANGED
from ragbeam.transforms.ids import chunk_ids_for
from ragbeam.transforms.incremental.changes import (
    chunk_row_digest,
    document_changes,
)
from ragbeam.transforms.plan.carry import Move, moved_chunk_row
from ragbeam.transforms.plan.decide import MOVED_FROM_KEY, as_python_row
from ragbeam.transforms.plan.retries import attempts_now, retry_metadata, without_retry_keys
from ragbeam.transforms.types import Failure
from ragbeam.transforms.write.rows import (
    ERROR_CARRIED_KEY,
    SOURCE_MODIFIED_KEY,
    error_document_row,
    error_row,
    error_rows,
    failure_metadata,
    failure_text,
    source_metadata,
)

# documents.metadata of a stale row: which bytes and config its chunks come from.
LAST_GOOD_CONTENT_HASH_KEY = "last_good_content_hash"
LAST_GOOD_CONFIG_HASH_KEY = "last_good_config_hash"


@dataclass(frozen=True)
class PreviousState:
    """A document's rows in the previous run, when this run re-processes or deletes it."""

    document: Mapping[str, Any]
    chunks: tuple[Mapping[str, Any], ...] = ()
    deleted: bool = False  # no longer matched (or a duplicate now): every chunk goes
    move: Move | None = None  # its rows are taken over by another document

    @property
    def has_good_chunks(self) -> bool:
        return not self.deleted and self.document["status"] in GOOD_STATUSES


@dataclass
class Reconciled:
    """Rows to write for one document (its ``ok`` row and new chunks are written as
    they come from the chunk stage; everything else comes from here)."""

    documents: list[dict[str, Any]] = field(default_factory=list)
    chunks: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    changes: list[dict[str, str]] = field(default_factory=list)


def first_failure(failures: Iterable[Failure]) -> Failure | None:
    """A document fails at one stage; should several failures meet, pick one
    deterministically."""
    return min(failures, key=lambda f: (str(f.stage), f.error_type, f.message), default=None)


def moved_chunk_rows(rows: Iterable[Mapping[str, Any]], source_uri: str
                     ) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """``moved_chunk_row`` for each of a document's chunk rows."""
    moved = [moved_chunk_row(row, source_uri) for row in rows]
    changes = [change for _, change in moved if change is not None]
    return [row for row, _ in moved], sorted(changes, key=lambda c: c["chunk_id"])


def stale_document_row(previous: Mapping[str, Any], failure: Failure, config_hash: str
                       ) -> dict[str, Any]:
    """The previous good row, served on: status ``stale``, the new error, and the
    current file's hash and config (so the next run sees whether either changed)."""
    row = as_python_row(previous)
    old_metadata = dict(row.get("metadata") or {})
    metadata = {k: v for k, v in without_retry_keys(old_metadata).items()
                if k not in (ERROR_CARRIED_KEY, SOURCE_MODIFIED_KEY)}
    metadata.update(failure_metadata(failure))
    metadata.update(retry_metadata(
        attempts_now(row, failure.error_type, failure.content_hash, config_hash),
        failure.error_type))
    metadata.update(source_metadata(failure.source))  # the file that failed now
    was_stale = row["status"] == STATUS_STALE
    metadata[LAST_GOOD_CONTENT_HASH_KEY] = (
        old_metadata.get(LAST_GOOD_CONTENT_HASH_KEY) if was_stale else row["content_hash"]) or ""
    metadata[LAST_GOOD_CONFIG_HASH_KEY] = (
        old_metadata.get(LAST_GOOD_CONFIG_HASH_KEY) if was_stale else row["config_hash"]) or ""
    size = failure.source.size_bytes
    row.update(
        status=STATUS_STALE,
        error=failure_text(failure),
        source_uri=failure.source.uri,
        content_hash=failure.content_hash,
        bytes=size if size >= 0 else None,
        config_hash=config_hash,
        metadata=metadata,
    )
    return row


def reconcile_document(
    doc_id: str,
    failures: Sequence[Failure],
    previous: PreviousState | None,
    current: Mapping[str, str],
    source_uri: str | None,
    config_hash: str,
) -> Reconciled:
    """See the module docstring. ``current`` maps this run's chunk ids of the
    document to their row digests; ``source_uri`` is its current URI (None when
    only the previous run knew it)."""
    out = Reconciled()
    previous_digests = ({row["chunk_id"]: chunk_row_digest(as_python_row(row))
                         for row in previous.chunks} if previous is not None else {})
    failure = first_failure(failures)
    if failure is not None:
        if previous is not None and previous.has_good_chunks:
            out.errors.append(error_row(failure))
            out.documents.append(stale_document_row(previous.document, failure, config_hash))
            out.chunks, out.changes = moved_chunk_rows(previous.chunks, failure.source.uri)
        else:
            out.errors.extend(error_rows(failure))
            document = error_document_row(failure, config_hash)
            before = as_python_row(previous.document) if previous is not None else None
            document["metadata"].update(retry_metadata(
                attempts_now(before, failure.error_type, failure.content_hash, config_hash),
                failure.error_type))
            out.documents.append(document)
            out.changes = document_changes(doc_id, failure.source.uri, previous_digests, {})
        return out
    uri = source_uri or (previous.document["source_uri"] if previous is not None else "")
    out.changes = document_changes(doc_id, uri, previous_digests, current)
    if previous is not None and previous.move is not None:
        document, chunks = adopted_rows(previous.document, previous.chunks, previous.move)
        out.documents.append(document)
        out.chunks.extend(chunks)
        out.changes.extend(build_change_row(OP_UPSERT, c["chunk_id"], c["doc_id"], c["source_uri"])
                           for c in sorted(chunks, key=lambda c: c["chunk_id"]))
    return out


def adopted_rows(document: Mapping[str, Any], chunks: Iterable[Mapping[str, Any]], move: Move
                 ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A moved document's previous rows under the document that takes them over:
    its doc id and URI, status ``unchanged`` (nothing was processed; ``moved_from``
    names the old doc id), and the chunk ids a fresh run would give it (``ids.py``:
    the same identities, in the same order, under the new doc id)."""
    row = as_python_row(document)
    metadata = {k: v for k, v in (row.get("metadata") or {}).items()
                if k not in (SOURCE_MODIFIED_KEY, ERROR_CARRIED_KEY)}
    if move.modified:
        metadata[SOURCE_MODIFIED_KEY] = move.modified
    metadata[MOVED_FROM_KEY] = row["doc_id"]
    adopted = {**row, "doc_id": move.doc_id, "source_uri": move.uri,
               "status": STATUS_UNCHANGED, "metadata": metadata}
    ordered = sorted((as_python_row(c) for c in chunks), key=lambda c: c["chunk_index"])
    new_ids = chunk_ids_for(move.doc_id, row["config_hash"],
                            ((c["level"], c["context"], c["text"]) for c in ordered))
    renamed = dict(zip((c["chunk_id"] for c in ordered), new_ids, strict=True))
    rewritten = [{**c, "chunk_id": renamed[c["chunk_id"]], "doc_id": move.doc_id,
                  "source_uri": move.uri,
                  "parent_id": renamed.get(c["parent_id"]) if c.get("parent_id") else None}
                 for c in ordered]
    return adopted, rewritten
