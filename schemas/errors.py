"""``errors`` table: dead letters, one row per failed document and stage."""

from __future__ import annotations

import pyarrow as pa

ERROR_SCHEMA = pa.schema(
    [
        pa.field("source_uri", pa.string(), nullable=False),
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("stage", pa.string(), nullable=False),
        pa.field("error_type", pa.string(), nullable=False),
        pa.field("message", pa.string(), nullable=False),
        # transient (retried by the next incremental run) or permanent: transforms/errors.py
        pa.field("error_class", pa.string(), nullable=False),
    ]
)
