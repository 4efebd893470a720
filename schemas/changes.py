"""``changes`` table: one row per chunk-level change since ``--previous``, for
vector-store sync. Applying a run's changes to the previous run's chunk set
gives exactly this run's chunk set."""

from __future__ import annotations

import pyarrow as pa

OP_UPSERT = "upsert"
OP_DELETE = "delete"

CHANGE_SCHEMA = pa.schema(
    [
        pa.field("op", pa.string(), nullable=False),
        pa.field("chunk_id", pa.string(), nullable=False),
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("source_uri", pa.string(), nullable=False),
    ]
)
