"""One row type per table: the Arrow schema is derived from it column for column,
each column's python type agrees with its Arrow type, and the one builder of each
table makes rows with exactly the row type's keys, written to Parquet and read back."""

from __future__ import annotations

import pathlib
import types
import typing
from typing import Any, get_args, get_origin, is_typeddict

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ragbeam.schemas import (
    OUTPUT_TABLES,
    ROW_TYPES,
    build_change_row,
    build_chunk_row,
    build_document_row,
    build_error_row,
    embedding_metadata_of,
    has_text_vectors,
    output_schemas,
)
from ragbeam.schemas.chunks import TEXT_EMBEDDING, ChunkRow, SparseVectorRow, embedding_type
from ragbeam.schemas.typed_rows import arrow_fields, column_hints
from ragbeam.transforms.embed.term_table import term_rows

_PYTHON_OF_ARROW = {pa.string(): str, pa.int32(): int, pa.int64(): int, pa.float32(): float}


def _without_none(python_type: Any) -> tuple[Any, bool]:
    if get_origin(python_type) in (types.UnionType, typing.Union):
        members = [m for m in get_args(python_type) if m is not type(None)]
        assert len(members) == 1, python_type
        return members[0], len(members) < len(get_args(python_type))
    return python_type, False


def _agrees(python_type: Any, arrow_type: pa.DataType) -> bool:
    """Does a value of ``python_type`` make a value of ``arrow_type`` (and back)?"""
    if arrow_type in _PYTHON_OF_ARROW:
        return python_type is _PYTHON_OF_ARROW[arrow_type]
    if pa.types.is_map(arrow_type):
        key, item = get_args(python_type)
        return (get_origin(python_type) is dict and _agrees(key, arrow_type.key_type)
                and _agrees(item, arrow_type.item_type))
    if pa.types.is_list(arrow_type) or pa.types.is_fixed_size_list(arrow_type):
        return get_origin(python_type) is list and _agrees(get_args(python_type)[0],
                                                          arrow_type.value_type)
    if pa.types.is_struct(arrow_type):
        return is_typeddict(python_type) and pa.struct(arrow_fields(python_type)) == arrow_type
    raise AssertionError(f"no python type known for {arrow_type}")


def test_every_table_has_one_row_type():
    assert tuple(ROW_TYPES) == OUTPUT_TABLES


@pytest.mark.parametrize("table", OUTPUT_TABLES)
@pytest.mark.parametrize(("dimension", "text_vector"), [(None, False), (384, False), (384, True)])
def test_schema_is_the_row_type_column_for_column(table: str, dimension: int | None,
                                                  text_vector: bool):
    schema = output_schemas(dimension, {"text_vector": "yes"} if text_vector else None)[table]
    hints = column_hints(ROW_TYPES[table])
    if not text_vector:  # --text-vector's column is in the schema only with it
        hints.pop(TEXT_EMBEDDING, None)
    assert schema.names == list(hints)
    for field in schema:
        python_type, nullable = _without_none(hints[field.name][0])
        if table == "chunks" and field.name in ("embedding", TEXT_EMBEDDING) and dimension:
            # a run that embeds: every row has a vector of the model's dimension
            assert field.type == embedding_type(dimension) and not field.nullable
        else:
            assert field.type == hints[field.name][1] and field.nullable == nullable, field
        assert _agrees(python_type, field.type), (table, field)


def test_a_column_without_a_type_for_arrow_is_refused():
    class Loose(typing.TypedDict):
        name: str

    with pytest.raises(TypeError, match=r"Loose\.name"):
        arrow_fields(Loose)


def _rows() -> dict[str, dict[str, Any]]:
    return {
        "chunks": build_chunk_row(
            chunk_id="c1", doc_id="d1", parent_id=None, chunk_index=0, level="chunk",
            strategy="recursive", text="Hello.", context="Guide", embed_text=None,
            char_start=0, char_end=6, page_start=1, page_end=1, heading_path=["Guide"],
            token_count=2, char_count=6, source_uri="/a.txt", media_type="text/plain",
            config_hash="h", metadata={"raw_char_start": "0"}),
        "documents": build_document_row(
            doc_id="d1", source_uri="/a.txt", status="ok", config_hash="h",
            metadata={"k": "v"}, chunk_count=1, content_hash="sha", bytes=6, text="Hello."),
        "errors": build_error_row(
            source_uri="/b.pdf", doc_id="d2", stage="extract", error_type="Timeout",
            message="too slow", error_class="transient"),
        "changes": build_change_row("upsert", "c1", "d1", "/a.txt"),
        "terms": term_rows({5: 2})[0],
    }


@pytest.mark.parametrize("table", OUTPUT_TABLES)
def test_builders_make_rows_of_the_row_type_read_back_from_parquet(
        table: str, tmp_path: pathlib.Path):
    row = _rows()[table]
    row_type = ROW_TYPES[table]
    assert set(row) == row_type.__required_keys__  # chunks: no ``sparse`` until --sparse
    path = tmp_path / f"{table}.parquet"
    pq.write_table(pa.Table.from_pylist([row], schema=output_schemas()[table]), path)
    [back] = pq.read_table(path).to_pylist()
    if "metadata" in back:
        back["metadata"] = dict(back["metadata"])
    assert {k: v for k, v in back.items() if k in row} == row


def test_a_builder_refuses_a_missing_column():
    with pytest.raises(TypeError, match="config_hash"):
        build_document_row(doc_id="d", source_uri="/a", status="ok",  # type: ignore[call-arg]
                           metadata={}, chunk_count=0)


def test_sparse_and_the_text_vector_are_the_only_optional_chunk_columns():
    assert ChunkRow.__optional_keys__ == {"sparse", TEXT_EMBEDDING}
    assert set(SparseVectorRow.__required_keys__) == {"indices", "values", "title_only"}


def test_a_text_vector_run_round_trips_both_vectors_through_parquet(tmp_path):
    record = {"model": "m", "dimension": 3, "text_vector": "chunk text alone"}
    schema = output_schemas(3, record)["chunks"]
    names = schema.names
    assert names[names.index("embedding") + 1] == TEXT_EMBEDDING
    row = {**build_chunk_row(
        chunk_id="c", doc_id="d", parent_id=None, chunk_index=0, level="leaf",
        strategy="recursive", text="t", context="", embed_text=None, char_start=0,
        char_end=1, page_start=None, page_end=None, heading_path=[], token_count=1,
        char_count=1, source_uri="/a", media_type="text/plain", config_hash="h",
        metadata={}), "embedding": [1.0, 0.0, 0.0], TEXT_EMBEDDING: [0.0, 1.0, 0.0]}
    path = tmp_path / "chunks.parquet"
    pq.write_table(pa.Table.from_pylist([row], schema=schema), path)
    back = pq.read_table(path)
    assert has_text_vectors(back.schema)
    assert embedding_metadata_of(back.schema)["text_vector"] == "chunk text alone"
    assert back[TEXT_EMBEDDING].to_pylist() == [[0.0, 1.0, 0.0]]
    assert back.schema.field(TEXT_EMBEDDING).type == embedding_type(3)
    # Without the option the column is absent and the schema says one vector.
    assert TEXT_EMBEDDING not in output_schemas(3, {"model": "m"})["chunks"].names
    assert not has_text_vectors(output_schemas(3, {"model": "m"})["chunks"])
