"""The chunk columns every vector store keeps beside the id and the vectors: from the
chunks row type (``schemas/chunks.py``), so no store restates them (pure; no Beam,
no client library: the store modules and the registry import it at start-up)."""

from __future__ import annotations

import pyarrow as pa

from ragbeam.schemas.chunks import TEXT_EMBEDDING, ChunkRow
from ragbeam.schemas.typed_rows import arrow_fields

# The chunk columns a store does not keep as fields: the id and the vectors, which
# every store holds in places of their own, and what only Parquet needs (the text as
# embedded, token and character counts: Parquet is the system of record).
NOT_STORED = frozenset({"chunk_id", "embedding", TEXT_EMBEDDING, "sparse", "embed_text",
                        "token_count",
                        "char_count"})


def stored_columns() -> list[pa.Field]:
    """The chunk columns a store keeps beside the id and the vectors, with their Arrow
    types and nullability: from the chunks row type, so a new column reaches every
    store (each maps Arrow types to its own)."""
    return [f for f in arrow_fields(ChunkRow) if f.name not in NOT_STORED]


STORED_FIELDS = tuple(f.name for f in stored_columns())
