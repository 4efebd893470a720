"""``chunks`` table: one row per chunk (and per parent in parent-child)."""

from __future__ import annotations

import pyarrow as pa

STRING_MAP = pa.map_(pa.string(), pa.string())

CHUNK_SCHEMA = pa.schema(
    [
        pa.field("chunk_id", pa.string(), nullable=False),
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("parent_id", pa.string()),
        pa.field("chunk_index", pa.int32(), nullable=False),
        pa.field("level", pa.string(), nullable=False),
        pa.field("strategy", pa.string(), nullable=False),
        pa.field("text", pa.string(), nullable=False),
        pa.field("context", pa.string(), nullable=False),
        pa.field("embed_text", pa.string()),  # context + text, with --embed-text; else null
        pa.field("char_start", pa.int64(), nullable=False),
        pa.field("char_end", pa.int64(), nullable=False),
        pa.field("page_start", pa.int32()),
        pa.field("page_end", pa.int32()),
        pa.field("heading_path", pa.list_(pa.string()), nullable=False),
        pa.field("token_count", pa.int32(), nullable=False),
        pa.field("char_count", pa.int32(), nullable=False),
        pa.field("source_uri", pa.string(), nullable=False),
        pa.field("media_type", pa.string(), nullable=False),
        pa.field("config_hash", pa.string(), nullable=False),
        pa.field("metadata", STRING_MAP, nullable=False),
        pa.field("embedding", pa.list_(pa.float32())),
    ]
)
