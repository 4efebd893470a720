"""Arrow schemas of ragbeam's output tables; see ``README.md`` beside this file."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pyarrow as pa

from ragbeam.schemas.changes import CHANGE_SCHEMA
from ragbeam.schemas.chunks import chunk_schema, embedding_metadata_of, sparse_metadata_of
from ragbeam.schemas.documents import DOCUMENT_SCHEMA
from ragbeam.schemas.errors import ERROR_SCHEMA

# Every table a run writes, by its folder name under --output.
OUTPUT_TABLES = ("chunks", "documents", "errors", "changes")


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
    }


__all__ = ["CHANGE_SCHEMA", "DOCUMENT_SCHEMA", "ERROR_SCHEMA", "OUTPUT_TABLES", "chunk_schema",
           "embedding_metadata_of", "output_schemas", "sparse_metadata_of"]
