"""Chunk-level changes between two runs, for vector-store sync (pure).

The contract: applying a run's ``changes`` to a store that held the previous
run's ``chunks`` table, column for column, gives exactly this run's ``chunks``
table (``apply_changes``). So:

* a chunk id only in the previous run is a ``delete``;
* a chunk id only in this run is an ``upsert``;
* a chunk id in both whose row differs in any column is an ``upsert`` too: its
  text cannot differ (ids are content-addressed), but its position can
  (``chunk_index``, offsets, pages move when a section is inserted above it),
  and so can its source URI (a moved corpus) or its vector.

Rows are compared through ``chunk_row_digest``, a hash of every column that
gives the same value for a row built by the pipeline and for the same row read
back from Parquet.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, MutableMapping
from typing import Any, TypeVar

import numpy as np

from ragbeam.schemas.changes import OP_DELETE, OP_UPSERT, ChangeRow, build_change_row

V = TypeVar("V")


def _normalised(value: Any) -> Any:
    """A column value in one form whether it came from a stage or from Parquet:
    maps as sorted pairs (pyarrow gives lists of tuples), vectors as float32 bytes."""
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        return float(np.float32(value))
    if isinstance(value, Mapping):
        return sorted((str(k), _normalised(v)) for k, v in value.items())
    if isinstance(value, np.ndarray) or (
        isinstance(value, list | tuple) and value and isinstance(value[0], float | np.floating)
    ):
        return np.asarray(value, dtype=np.float32).tobytes().hex()
    if isinstance(value, list | tuple):
        if value and isinstance(value[0], tuple) and len(value[0]) == 2:  # a map from Parquet
            return sorted((str(k), _normalised(v)) for k, v in value)
        return [_normalised(v) for v in value]
    return str(value)


def chunk_row_digest(row: Mapping[str, Any]) -> str:
    """Hash of every column of a chunk row (column order does not matter). A null
    column and an absent one are the same: a row built by a stage has no key for a
    column its run leaves empty (``sparse`` without ``--sparse``), the same row read
    back from Parquet has it as null."""
    canonical = json.dumps({k: _normalised(v) for k, v in sorted(row.items()) if v is not None},
                           ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8", errors="surrogatepass")).hexdigest()[:32]


def document_changes(
    doc_id: str,
    source_uri: str,
    previous: Mapping[str, str],
    current: Mapping[str, str],
) -> list[ChangeRow]:
    """``previous``/``current`` map chunk id → row digest. Deletes for vanished ids,
    then upserts for new ids and for kept ids whose row changed, each sorted by id."""
    return [
        *(build_change_row(OP_DELETE, cid, doc_id, source_uri)
          for cid in sorted(set(previous) - set(current))),
        *(build_change_row(OP_UPSERT, cid, doc_id, source_uri)
          for cid in sorted(cid for cid, digest in current.items()
                            if previous.get(cid) != digest)),
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
