"""Chunk-level changes between two runs, for vector-store sync (pure).

Chunk ids are content-addressed (doc id, config hash, level, text, occurrence),
so a chunk whose id exists in both runs has the same content and produces no
change row; an id only in the previous run is a ``delete``, an id only in the
current run an ``upsert``. Positional columns (``chunk_index``, offsets, pages)
of a kept chunk may move when text before it changes; ``DIR/chunks`` always has
the current ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, MutableMapping
from typing import Any, TypeVar

from ragbeam.schemas.changes import OP_DELETE, OP_UPSERT

V = TypeVar("V")


def change_row(op: str, chunk_id: str, doc_id: str, source_uri: str) -> dict[str, str]:
    return {"op": op, "chunk_id": chunk_id, "doc_id": doc_id, "source_uri": source_uri}


def upsert_row_for_chunk(chunk: Mapping[str, Any]) -> dict[str, str]:
    """The change row of a chunk when there is no previous run: everything is new."""
    return change_row(OP_UPSERT, chunk["chunk_id"], chunk["doc_id"], chunk["source_uri"])


def document_changes(
    doc_id: str,
    source_uri: str,
    previous_chunk_ids: Iterable[str],
    current_chunk_ids: Iterable[str],
) -> list[dict[str, str]]:
    """Deletes for vanished chunk ids, then upserts for new ones, each sorted by id."""
    previous, current = set(previous_chunk_ids), set(current_chunk_ids)
    return [
        *(change_row(OP_DELETE, cid, doc_id, source_uri) for cid in sorted(previous - current)),
        *(change_row(OP_UPSERT, cid, doc_id, source_uri) for cid in sorted(current - previous)),
    ]


def apply_changes(
    store: MutableMapping[str, V],
    changes: Iterable[Mapping[str, Any]],
    current_chunks: Mapping[str, V],
) -> MutableMapping[str, V]:
    """What a vector store does with a run's changes, in place: ``store`` maps chunk
    id → chunk (the previous run's set); upserts take the chunk from the current
    run's ``chunks`` table. A delete of an id the store does not hold, or an upsert
    of an id the current run does not have, means the change set is wrong."""
    for change in changes:
        chunk_id = change["chunk_id"]
        if change["op"] == OP_DELETE:
            if chunk_id not in store:
                raise KeyError(f"delete of chunk {chunk_id} that the store does not hold")
            del store[chunk_id]
        elif change["op"] == OP_UPSERT:
            store[chunk_id] = current_chunks[chunk_id]
        else:
            raise ValueError(f"unknown change op {change['op']!r}")
    return store
