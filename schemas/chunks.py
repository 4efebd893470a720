"""``chunks`` table: one row per chunk (and per parent in parent-child).

In a run that embeds chunks, ``embedding`` is ``fixed_size_list<float32>[dimension]``
(the model's dimension), not null: readers get a typed vector (DuckDB ``FLOAT[384]``
over Arrow), and the schema metadata key ``ragbeam.embedding`` holds a JSON record
of what made the vectors (model, revision, dimension, normalisation, precision:
``EmbeddingModelInfo.metadata``). Not null because a null fixed-size list cannot be
read back from Parquet by pyarrow before 26 (apache/arrow#35692), and Beam 2.77
needs pyarrow < 26. Without chunk embeddings the column is an all-null
``list<float32>``.

``sparse`` (``--sparse``): the chunk's lexical terms as a sparse vector,
``struct<indices: list<int32>, values: list<float32>>`` (indices sorted and unique);
null without ``--sparse``. How terms become indices and values
(``transforms/embed/sparse.py``) is in the schema metadata key ``ragbeam.sparse``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pyarrow as pa

STRING_MAP = pa.map_(pa.string(), pa.string())
EMBEDDING_METADATA_KEY = "ragbeam.embedding"
SPARSE_METADATA_KEY = "ragbeam.sparse"
SPARSE_TYPE = pa.struct([pa.field("indices", pa.list_(pa.int32()), nullable=False),
                         pa.field("values", pa.list_(pa.float32()), nullable=False)])

_FIELDS = (
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
)


def embedding_type(dimension: int) -> pa.DataType:
    return pa.list_(pa.float32(), dimension)


def chunk_schema(embedding_dimension: int | None = None,
                 embedding_metadata: Mapping[str, Any] | None = None,
                 sparse_metadata: Mapping[str, Any] | None = None) -> pa.Schema:
    """The chunks schema: with ``embedding_dimension`` (a run that embeds chunks), every
    row has a vector of that many values, and ``embedding_metadata`` says what made
    them; without, no row has one. ``sparse_metadata``: the sparse vectors' scheme, in
    a run with ``--sparse``."""
    if embedding_dimension is None:
        embedding = pa.field("embedding", pa.list_(pa.float32()))
    elif embedding_dimension > 0:
        embedding = pa.field("embedding", embedding_type(embedding_dimension), nullable=False)
    else:
        raise ValueError("embedding dimension must be positive")
    schema = pa.schema([*_FIELDS, embedding, pa.field("sparse", SPARSE_TYPE)])
    metadata = {}
    if embedding_metadata is not None:
        metadata[EMBEDDING_METADATA_KEY] = json.dumps(dict(embedding_metadata), sort_keys=True)
    if sparse_metadata is not None:
        metadata[SPARSE_METADATA_KEY] = json.dumps(dict(sparse_metadata), sort_keys=True)
    return schema.with_metadata(metadata) if metadata else schema


def embedding_metadata_of(schema: pa.Schema) -> dict[str, Any] | None:
    """The ``ragbeam.embedding`` record of a chunks schema read back, if any."""
    raw = (schema.metadata or {}).get(EMBEDDING_METADATA_KEY.encode())
    return json.loads(raw) if raw else None


def sparse_metadata_of(schema: pa.Schema) -> dict[str, Any] | None:
    """The ``ragbeam.sparse`` record of a chunks schema read back, if any."""
    raw = (schema.metadata or {}).get(SPARSE_METADATA_KEY.encode())
    return json.loads(raw) if raw else None
