"""ragbeam's output tables: one row type per table (``ChunkRow``, ``DocumentRow``,
``ErrorRow``, ``ChangeRow``, ``TermRow``), the one builder of its rows, and the Arrow schema
derived from it (``typed_rows.py``); see ``README.md`` beside this file."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pyarrow as pa

from ragbeam.schemas.changes import CHANGE_SCHEMA, ChangeRow, build_change_row
from ragbeam.schemas.chunks import (
    TEXT_EMBEDDING,
    ChunkRow,
    build_chunk_row,
    chunk_schema,
    embedding_metadata_of,
    has_text_vectors,
    sparse_metadata_of,
)
from ragbeam.schemas.documents import DOCUMENT_SCHEMA, DocumentRow, build_document_row
from ragbeam.schemas.errors import ERROR_SCHEMA, ErrorRow, build_error_row
from ragbeam.schemas.terms import TERM_SCHEMA, TermRow

# Every table a run writes, by its folder name under --output, and its row type.
ROW_TYPES: dict[str, type] = {"chunks": ChunkRow, "documents": DocumentRow,
                              "errors": ErrorRow, "changes": ChangeRow, "terms": TermRow}
OUTPUT_TABLES = tuple(ROW_TYPES)


def output_schemas(embedding_dimension: int | None = None,
                   embedding_metadata: Mapping[str, Any] | None = None,
                   sparse_metadata: Mapping[str, Any] | None = None) -> dict[str, pa.Schema]:
    """Every table's schema; the chunks schema depends on the embedding model, if the
    run embeds chunks, and on the sparse scheme, with ``--sparse`` (``chunk_schema``)."""
    return {
        "chunks": chunk_schema(embedding_dimension, embedding_metadata, sparse_metadata),
        "documents": DOCUMENT_SCHEMA,
        "errors": ERROR_SCHEMA,
        "changes": CHANGE_SCHEMA,
        "terms": TERM_SCHEMA,
    }


__all__ = [
    "CHANGE_SCHEMA",
    "DOCUMENT_SCHEMA",
    "ERROR_SCHEMA",
    "OUTPUT_TABLES",
    "ROW_TYPES",
    "TERM_SCHEMA",
    "TEXT_EMBEDDING",
    "ChangeRow",
    "ChunkRow",
    "DocumentRow",
    "ErrorRow",
    "TermRow",
    "build_change_row",
    "build_chunk_row",
    "build_document_row",
    "build_error_row",
    "chunk_schema",
    "embedding_metadata_of",
    "has_text_vectors",
    "output_schemas",
    "sparse_metadata_of",
]
