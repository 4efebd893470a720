"""``changes`` table: one row per chunk-level change since ``--previous``, for
vector-store sync. Applying a run's changes to the previous run's chunk set
gives exactly this run's chunk set."""

# Not ``from __future__ import annotations``: see ``schemas/errors.py``.
from collections.abc import Mapping
from typing import Annotated, Any, TypedDict

import pyarrow as pa

from ragbeam.schemas.typed_rows import arrow_fields

OP_UPSERT = "upsert"
OP_DELETE = "delete"


class ChangeRow(TypedDict):
    """One row of the ``changes`` table."""

    op: Annotated[str, pa.string()]  # OP_UPSERT or OP_DELETE
    chunk_id: Annotated[str, pa.string()]
    doc_id: Annotated[str, pa.string()]
    source_uri: Annotated[str, pa.string()]


CHANGE_SCHEMA = pa.schema(arrow_fields(ChangeRow))


def build_change_row(op: str, chunk_id: str, doc_id: str, source_uri: str) -> ChangeRow:
    """The one way to make a ``changes`` row."""
    return {"op": op, "chunk_id": chunk_id, "doc_id": doc_id, "source_uri": source_uri}


def upsert_row_for_chunk(chunk: Mapping[str, Any]) -> ChangeRow:
    """The upsert of a chunk row (its id, document and URI): what a store must take."""
    return build_change_row(OP_UPSERT, chunk["chunk_id"], chunk["doc_id"], chunk["source_uri"])
