"""What an incremental run writes of each previous row (pure): the carry rules.

The previous run's tables stream through the run row by row (``incremental/``
``CarryPreviousRows``; without a pipeline, ``incremental/unchanged.py``). What a row
becomes depends only on the row, its document's ``Verdict`` (``decide.py``: None
when the row alone says it) and whether the delete guard holds this run's deletions
(``guard.py``):

* a documents row (``carry_document``): carried over (``unchanged``, a kept failure
  marked and its ``errors`` row made again, the verdict's URI and time), served on
  as ``vanished`` when the guard holds its deletion, a tombstone when it is deleted,
  nothing when it is a tombstone already (reported once) or the previous row of a
  duplicate or adopted document without chunks; and, for a document processed again,
  deleted or moved, the row itself for ``Reconcile`` (which diffs its chunks against
  the new ones and serves them on if processing fails); for one chunked again without
  extracting (``RECHUNK``), the cleaned ``Document`` rebuilt from it;
* a chunk row (``carry_chunk``): carried with its document's URI (an upsert when the
  corpus moved) and this run's vectors (``layers.py``: an upsert when they changed),
  or carried as it is when the guard holds its document's deletion; otherwise it goes
  to ``Reconcile``, offering its vector to the re-processed document's new chunks
  when this run's vectors are the previous run's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from ragbeam.schemas.changes import OP_UPSERT, ChangeRow, build_change_row, upsert_row_for_chunk
from ragbeam.schemas.documents import (
    STATUS_DELETED,
    STATUS_DUPLICATE,
    STATUS_UNCHANGED,
    STATUS_UNSUPPORTED,
    STATUS_VANISHED,
    DocumentRow,
    build_document_row,
)
from ragbeam.schemas.errors import ErrorRow, build_error_row
from ragbeam.transforms.errors import error_class
from ragbeam.transforms.plan.decide import (
    CARRIED,
    CHUNK_BEARING,
    MOVED_TO_KEY,
    PREVIOUS_STATUS_KEY,
    Outcome,
    Verdict,
    as_python_row,
    chunk_outcome,
    document_outcome,
)
from ragbeam.transforms.plan.layers import LayerPlan, Work, layers_changed, with_layers
from ragbeam.transforms.plan.reuse_extraction import document_from_row
from ragbeam.transforms.types import Document
from ragbeam.transforms.write.rows import (
    ERROR_CARRIED_KEY,
    ERROR_CLASS_KEY,
    ERROR_STAGE_KEY,
    ERROR_TYPE_KEY,
    SOURCE_MODIFIED_KEY,
)

# A carried chunk row → the same row with this run's sparse vector
# (``embed.sparse.with_sparse_vector``; loaded only where sparse vectors are redone).
SparseVector = Callable[[Mapping[str, Any]], dict[str, Any]]


class Move(NamedTuple):
    """The document that takes a moved document's rows over: its id, URI and
    recorded modification time ("" for none)."""

    doc_id: str
    uri: str
    modified: str = ""


class ToReconcile(NamedTuple):
    """A previous documents row that ``Reconcile`` meets with this run's result for its
    document: ``deleted`` (no longer matched, or a duplicate now: every chunk goes),
    ``move`` (its rows are taken over by another document)."""

    row: dict[str, Any]
    deleted: bool
    move: Move | None


class DocumentCarry(NamedTuple):
    """What the run writes of a previous documents row: ``row`` (to the documents
    table as it is: carried, vanished or a tombstone), ``error`` (the errors row of a
    kept failure), ``reconcile`` (for ``Reconcile``), ``reused`` (a ``RECHUNK``'s
    cleaned document). ``outcome``: its document's."""

    outcome: Outcome
    row: dict[str, Any] | None = None
    error: ErrorRow | None = None
    reconcile: ToReconcile | None = None
    reused: Document | None = None


class ChunkCarry(NamedTuple):
    """What the run writes of a previous chunk row: ``row`` (to the chunks table) and
    its ``change`` (an upsert, when the row is not the previous one any more), or
    ``reconcile`` (the row, for ``Reconcile``) and whether it ``offers_vector`` to its
    re-processed document's new chunks."""

    row: dict[str, Any] | None = None
    change: ChangeRow | None = None
    reconcile: dict[str, Any] | None = None
    offers_vector: bool = False


def held(outcome: Outcome, verdict: Verdict | None, deletes_held: bool) -> bool:
    """A previous row whose document vanished while the delete guard holds this run's
    deletions (a moved document's rows are taken over, not held)."""
    return (outcome is Outcome.DELETED and deletes_held
            and (verdict is None or verdict.moved_to is None))


def carry_document(row: Mapping[str, Any], verdict: Verdict | None, config_hash: str,
                   deletes_held: bool = False) -> DocumentCarry:
    """A previous documents row → what the run writes of it (module docstring)."""
    outcome = document_outcome(row, verdict, config_hash)
    reused = None
    if outcome is Outcome.RECHUNK:
        assert verdict is not None and verdict.source is not None
        reused = document_from_row(as_python_row(row), verdict.source)
    if outcome in CARRIED:
        carried = carried_document_row(row, outcome, verdict)
        error = error_row_from_document(carried) if outcome is Outcome.KEPT_ERROR else None
        return DocumentCarry(outcome, carried, error)
    if held(outcome, verdict, deletes_held) and row["status"] != STATUS_DUPLICATE:
        return DocumentCarry(outcome, vanished_document_row(row))  # served on as it was
    moved = verdict is not None and verdict.moved_to is not None
    if outcome in (Outcome.DUPLICATE, Outcome.ADOPTED) and not moved and \
            row["status"] not in CHUNK_BEARING:
        return DocumentCarry(outcome)  # no chunks to delete; its row is made again or taken over
    if outcome in (Outcome.GONE, Outcome.NEW):  # a tombstone (reported once)
        return DocumentCarry(outcome)
    move = None
    if moved:
        assert verdict is not None and verdict.moved_to is not None
        move = Move(verdict.moved_to, verdict.moved_uri or "", verdict.moved_modified or "")
    tombstone = (deleted_document_row(row, config_hash, move.doc_id if move else None)
                 if outcome is Outcome.DELETED else None)
    deleted = outcome in (Outcome.DELETED, Outcome.DUPLICATE)
    return DocumentCarry(outcome, tombstone,
                         reconcile=ToReconcile(as_python_row(row), deleted, move), reused=reused)


def carry_chunk(row: Mapping[str, Any], verdict: Verdict | None, config_hash: str,
                deletes_held: bool = False, layers: LayerPlan | None = None,
                sparse_vector: SparseVector | None = None) -> ChunkCarry:
    """A previous chunk row → what the run writes of it (module docstring)."""
    layers = layers or LayerPlan()
    outcome = chunk_outcome(row, verdict, config_hash)
    if held(outcome, verdict, deletes_held):
        return ChunkCarry(*with_vectors(as_python_row(row), None, layers, sparse_vector))
    if outcome in CARRIED:
        uri = verdict.uri if verdict is not None and verdict.uri else row["source_uri"]
        return ChunkCarry(*with_vectors(*moved_chunk_row(row, uri), layers, sparse_vector))
    chunk = as_python_row(row)
    # A vector that the document's re-processed chunks may reuse (of this run's model).
    offers = (outcome.needs_processing and chunk.get("embedding") is not None
              and layers.dense is Work.KEEP)
    return ChunkCarry(reconcile=chunk, offers_vector=offers)


def with_vectors(row: dict[str, Any], change: ChangeRow | None, layers: LayerPlan,
                 sparse_vector: SparseVector | None
                 ) -> tuple[dict[str, Any], ChangeRow | None]:
    """A carried chunk with this run's vectors (``layers.with_layers``), and its change
    row: the one it had, or an upsert when its vectors changed (None: none)."""
    if not layers.changes_carried_chunks:
        return row, change
    out = with_layers(row, layers, sparse_vector)
    if change is None and layers_changed(row, out, layers):
        change = upsert_row_for_chunk(out)
    return out, change


def moved_chunk_row(row: Mapping[str, Any], source_uri: str
                    ) -> tuple[dict[str, Any], ChangeRow | None]:
    """A carried chunk row with its document's current URI, and the upsert this
    change needs, if it is one (a corpus that moved: same ids, new ``source_uri``)."""
    carried = as_python_row(row)
    if carried["source_uri"] == source_uri:
        return carried, None
    carried["source_uri"] = source_uri
    return carried, build_change_row(OP_UPSERT, carried["chunk_id"], carried["doc_id"], source_uri)


def carried_document_row(previous: Mapping[str, Any], outcome: Outcome,
                         verdict: Verdict | None = None) -> dict[str, Any]:
    """A previous row carried over as ``UNCHANGED`` (status ``unchanged``; an
    ``unsupported`` one keeps its status) or
    ``KEPT_ERROR`` (marked ``ERROR_CARRIED_KEY``), with the verdict's URI and time."""
    row = as_python_row(previous)
    metadata = dict(row.get("metadata") or {})
    if outcome is Outcome.UNCHANGED:
        if row["status"] != STATUS_UNSUPPORTED:  # which stays so: still not indexed
            row["status"] = STATUS_UNCHANGED
        metadata.pop(PREVIOUS_STATUS_KEY, None)  # a vanished document that is back
    else:
        metadata[ERROR_CARRIED_KEY] = "true"
    if verdict is not None and verdict.uri is not None:
        row["source_uri"] = verdict.uri  # the corpus moved: same id, new URI
    if verdict is not None and verdict.modified is not None:
        metadata.pop(SOURCE_MODIFIED_KEY, None)
        if verdict.modified:
            metadata[SOURCE_MODIFIED_KEY] = verdict.modified
    row["metadata"] = metadata
    return row


def vanished_document_row(previous: Mapping[str, Any]) -> dict[str, Any]:
    """A document that is no longer matched, held by the delete guard (``guard.py``):
    its previous row as it was (text, chunks served on), status ``vanished``."""
    row = as_python_row(previous)
    metadata = dict(row.get("metadata") or {})
    metadata.setdefault(PREVIOUS_STATUS_KEY, row["status"])
    return {**row, "status": STATUS_VANISHED, "metadata": metadata}


def deleted_document_row(previous: Mapping[str, Any], config_hash: str,
                         moved_to: str | None = None) -> DocumentRow:
    """The tombstone of a document that is no longer matched: what it was, no text, no
    chunks; ``moved_to``: the doc id that took its chunks over (its bytes moved)."""
    metadata = {PREVIOUS_STATUS_KEY: previous["status"]}
    if moved_to:
        metadata[MOVED_TO_KEY] = moved_to
    return build_document_row(
        doc_id=previous["doc_id"],
        source_uri=previous["source_uri"],
        content_hash=previous["content_hash"],
        status=STATUS_DELETED,
        media_type=previous["media_type"],
        title=previous["title"],
        language=previous["language"],
        page_count=previous["page_count"],
        bytes=previous["bytes"],
        chunk_count=0,
        config_hash=config_hash,
        metadata=metadata,
    )


def error_row_from_document(previous: Mapping[str, Any]) -> ErrorRow:
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
    return build_error_row(
        source_uri=previous["source_uri"],
        doc_id=previous["doc_id"],
        stage=stage,
        error_type=error_type,
        message=message or "(no message)",
        error_class=metadata.get(ERROR_CLASS_KEY) or str(error_class(error_type)),
    )
