"""``documents`` table: exactly one row per matched input file."""

from __future__ import annotations

import pyarrow as pa

from ragbeam.schemas.chunks import STRING_MAP

STATUS_OK = "ok"
STATUS_ERROR = "error"
STATUS_UNCHANGED = "unchanged"
STATUS_DELETED = "deleted"
# Failed in this run (or failed before and kept: same bytes, permanent error),
# while its last good chunks, text and row are served on: see docs/incremental.md.
STATUS_STALE = "stale"
# Not matched any more, but held by the delete guard (too many vanished at once):
# its last good row and chunks are served on, nothing is deleted from a store.
STATUS_VANISHED = "vanished"
# Same bytes as another document of the run (``metadata.duplicate_of`` names it):
# chunked and embedded once, under that one; no chunks of its own.
STATUS_DUPLICATE = "duplicate"
# Statuses whose chunks are the document's good chunks.
GOOD_STATUSES = (STATUS_OK, STATUS_UNCHANGED, STATUS_STALE, STATUS_VANISHED)

DOCUMENT_SCHEMA = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("source_uri", pa.string(), nullable=False),
        pa.field("content_hash", pa.string()),
        pa.field("status", pa.string(), nullable=False),
        pa.field("error", pa.string()),
        pa.field("media_type", pa.string()),
        pa.field("title", pa.string()),
        pa.field("language", pa.string()),
        pa.field("page_count", pa.int32()),
        pa.field("bytes", pa.int64()),
        pa.field("char_count", pa.int64()),
        pa.field("chunk_count", pa.int32()),
        pa.field("strategy", pa.string()),
        pa.field("config_hash", pa.string(), nullable=False),
        pa.field("text", pa.string()),
        pa.field("metadata", STRING_MAP, nullable=False),
    ]
)
