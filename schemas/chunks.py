"""``chunks`` table: one row per chunk (and per parent in parent-child).

In a run that embeds chunks, ``embedding`` is ``fixed_size_list<float32>[dimension]``
(the model's dimension), not null: readers get a typed vector (DuckDB ``FLOAT[384]``
over Arrow), and the schema metadata key ``ragbeam.embedding`` holds a JSON record
of what made the vectors (model, revision, dimension, normalisation, precision:
``EmbeddingModelInfo.metadata``). Not null because a null fixed-size list cannot be
read back from Parquet by pyarrow before 26 (apache/arrow#35692), and Beam 2.77
needs pyarrow < 26. Without chunk embeddings the column is an all-null
``list<float32>``.

``text_embedding`` (``--text-vector``): the vector of the chunk text alone, beside
``embedding`` (of the dense text: label > nearest heading + text), the same type, not
null; a chunk scores the closer of the two to a query (max-sim). The column exists
only in runs with the option (the ``ragbeam.embedding`` record then has
``text_vector``): other runs' schema is unchanged.

``sparse`` (``--sparse``): the chunk's lexical terms as a sparse vector,
``struct<indices: list<int32>, values: list<float32>>`` (indices sorted and unique);
null without ``--sparse``. How terms become indices and values
(``transforms/embed/sparse.py``) is in the schema metadata key ``ragbeam.sparse``.
"""

# Not ``from __future__ import annotations``: on Python 3.11 a TypedDict with string
# annotations loses ``NotRequired`` (``sparse`` below; ``schemas/typed_rows.py``).
import json
from collections.abc import Mapping
from typing import Annotated, Any, NotRequired, TypedDict

import pyarrow as pa

from ragbeam.schemas.typed_rows import arrow_fields

STRING_MAP = pa.map_(pa.string(), pa.string())
EMBEDDING_METADATA_KEY = "ragbeam.embedding"
SPARSE_METADATA_KEY = "ragbeam.sparse"


class SparseVectorRow(TypedDict):
    """``chunks.sparse``: indices sorted and unique, one value each; ``title_only``:
    those the chunk has only from its document's title, left out of the ``terms``
    table's counts."""

    indices: Annotated[list[int], pa.list_(pa.int32())]
    values: Annotated[list[float], pa.list_(pa.float32())]
    title_only: Annotated[list[int], pa.list_(pa.int32())]


SPARSE_TYPE = pa.struct(arrow_fields(SparseVectorRow))


class ChunkRow(TypedDict):
    """One row of the ``chunks`` table (``README.md`` beside this file says what each
    column holds). ``embedding``'s Arrow type is the one of a run without chunk
    embeddings; ``chunk_schema`` gives it the model's dimension. ``sparse`` is set
    only by ``--sparse`` (a row read back from Parquet has it, null)."""

    chunk_id: Annotated[str, pa.string()]
    doc_id: Annotated[str, pa.string()]
    parent_id: Annotated[str | None, pa.string()]
    chunk_index: Annotated[int, pa.int32()]
    level: Annotated[str, pa.string()]
    strategy: Annotated[str, pa.string()]
    text: Annotated[str, pa.string()]
    context: Annotated[str, pa.string()]
    embed_text: Annotated[str | None, pa.string()]  # dense text, with --embed-text
    char_start: Annotated[int, pa.int64()]
    char_end: Annotated[int, pa.int64()]
    page_start: Annotated[int | None, pa.int32()]
    page_end: Annotated[int | None, pa.int32()]
    heading_path: Annotated[list[str], pa.list_(pa.string())]
    token_count: Annotated[int, pa.int32()]
    char_count: Annotated[int, pa.int32()]
    source_uri: Annotated[str, pa.string()]
    media_type: Annotated[str, pa.string()]
    config_hash: Annotated[str, pa.string()]
    metadata: Annotated[dict[str, str], STRING_MAP]
    embedding: Annotated[list[float] | None, pa.list_(pa.float32())]
    # --text-vector only (a column of the schema only then: ``chunk_schema``).
    text_embedding: NotRequired[Annotated[list[float] | None, pa.list_(pa.float32())]]
    sparse: NotRequired[Annotated[SparseVectorRow | None, SPARSE_TYPE]]


TEXT_EMBEDDING = "text_embedding"
_FIELDS = tuple(f for f in arrow_fields(ChunkRow) if f.name != TEXT_EMBEDDING)


def build_chunk_row(
    *,
    chunk_id: str,
    doc_id: str,
    parent_id: str | None,
    chunk_index: int,
    level: str,
    strategy: str,
    text: str,
    context: str,
    embed_text: str | None,
    char_start: int,
    char_end: int,
    page_start: int | None,
    page_end: int | None,
    heading_path: list[str],
    token_count: int,
    char_count: int,
    source_uri: str,
    media_type: str,
    config_hash: str,
    metadata: dict[str, str],
) -> ChunkRow:
    """The one way to make a ``chunks`` row; its vectors come later (Embed stage,
    ``--sparse``), so ``embedding`` starts null and ``sparse`` absent."""
    return {
        "chunk_id": chunk_id,
        "doc_id": doc_id,
        "parent_id": parent_id,
        "chunk_index": chunk_index,
        "level": level,
        "strategy": strategy,
        "text": text,
        "context": context,
        "embed_text": embed_text,
        "char_start": char_start,
        "char_end": char_end,
        "page_start": page_start,
        "page_end": page_end,
        "heading_path": heading_path,
        "token_count": token_count,
        "char_count": char_count,
        "source_uri": source_uri,
        "media_type": media_type,
        "config_hash": config_hash,
        "metadata": metadata,
        "embedding": None,
    }


def embedding_type(dimension: int) -> pa.DataType:
    return pa.list_(pa.float32(), dimension)


def chunk_schema(embedding_dimension: int | None = None,
                 embedding_metadata: Mapping[str, Any] | None = None,
                 sparse_metadata: Mapping[str, Any] | None = None) -> pa.Schema:
    """The chunks schema: with ``embedding_dimension`` (a run that embeds chunks), every
    row has a vector of that many values, and ``embedding_metadata`` says what made
    them; without, no row has one. A record with ``text_vector`` (``--text-vector``)
    adds ``text_embedding`` after ``embedding``, of the same type. ``sparse_metadata``:
    the sparse vectors' scheme, in a run with ``--sparse``."""
    fields = list(_FIELDS)
    if embedding_dimension is not None:
        if embedding_dimension <= 0:
            raise ValueError("embedding dimension must be positive")
        at = [f.name for f in fields].index("embedding")
        fields[at] = pa.field("embedding", embedding_type(embedding_dimension), nullable=False)
        if embedding_metadata is not None and embedding_metadata.get("text_vector"):
            fields.insert(at + 1, pa.field(TEXT_EMBEDDING, embedding_type(embedding_dimension),
                                           nullable=False))
    schema = pa.schema(fields)
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


def has_text_vectors(schema: pa.Schema) -> bool:
    """Whether a chunks schema read back (all its columns, or some) is of a run with
    two vectors a chunk (``--text-vector``): its ``ragbeam.embedding`` record says so."""
    record = embedding_metadata_of(schema) or {}
    return bool(record.get("text_vector"))


def sparse_metadata_of(schema: pa.Schema) -> dict[str, Any] | None:
    """The ``ragbeam.sparse`` record of a chunks schema read back, if any."""
    raw = (schema.metadata or {}).get(SPARSE_METADATA_KEY.encode())
    return json.loads(raw) if raw else None
