"""LanceDB (an embedded, columnar vector store in one local folder) as a ragbeam sink.

The collection is a LanceDB table: ``chunk_id`` (string, the merge key),
``embedding`` (``fixed_size_list<float32>`` of the model's dimension) and the
stored chunk columns (``columns.stored_columns``) with the chunks table's own Arrow
types (``heading_path`` a list, ``metadata`` a map), so a LanceDB table reads like
the Parquet ``chunks`` table without the Parquet-only columns. LanceDB keeps no
sparse vectors: with ``--sparse`` the dense vectors are synced and the run says so
once. With ``--text-vector``, ``embedding`` is a list of the chunk's two vectors
(``list<fixed_size_list<float32>>``: its dense text's, then its text's), which LanceDB
searches as a multivector: a query vector's ``_distance`` to a chunk is 1 − the
closer of the two cosines (max-sim; ``distance_type("cosine")``). The marker lives
in the table's schema, as metadata of the ``chunk_id`` field (LanceDB has no
table-level properties; the field's metadata survives appends, merges and deletes).
Beam has no LanceDB writer: ``writers.py`` ``LanceDBWriteConfig`` is one in Beam's
``VectorDatabaseWriteConfig`` idiom (``merge_insert`` on ``chunk_id``: an upsert).

LanceDB has no aliases, and its open-source engine cannot rename a table. A run whose
vectors the table cannot take (another dimension; one vector a chunk or two:
``--text-vector``) fills a new table ``NAME__KEY`` beside it in full from the run's
chunks table (``sync.py``); once that one holds every chunk, ``switch_alias`` puts it
in ``NAME``'s place by renaming the two table folders (``NAME.lance`` aside, then
``NAME__KEY.lance`` to ``NAME.lance``; a table is one folder, its files named relative
to it), then deletes the old one. Until then ``NAME`` is the old table, whole: a
rebuild that fails leaves it as it was, and the next run fills ``NAME__KEY`` again.
Between the two renames (microseconds; ``window_s`` in the state) there is no
``NAME``.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from typing import Any

import pyarrow as pa

from ragbeam.schemas.chunks import embedding_type
from ragbeam.transforms.sink.base import (
    DENSE_VECTOR,
    MARKER_KEY,
    SPARSE_VECTOR,
    CollectionShape,
    VectorStore,
)
from ragbeam.transforms.sink.columns import stored_columns

_ID = "chunk_id"
_HEX = re.compile(r"^[0-9a-f]+$")


def table_schema(dimension: int, multivector: bool = False) -> pa.Schema:
    vector = embedding_type(dimension)
    return pa.schema([pa.field(_ID, pa.string(), nullable=False),
                      pa.field(DENSE_VECTOR, pa.list_(vector) if multivector else vector,
                               nullable=False),
                      *stored_columns()])


class LanceDBStore(VectorStore):
    kind = "lancedb"
    title = "LanceDB"
    local_form = "DIR"
    local_title = "LanceDB: an embedded columnar vector store in one local folder"
    keeps_sparse = False
    keeps_multivector = True
    replaces_tables = True

    def _folder(self, name: str) -> str:
        return os.path.join(self.spec.target, f"{name}.lance")

    def switch_alias(self, target: str, old: str | None) -> float:
        """Put table ``target`` (complete) in the place of the collection's name: the
        name's table folder is renamed aside, ``target``'s to the name's, then the old
        one is deleted; should the second rename fail, the first is undone. Returns the
        seconds between the two renames. Safe to repeat: a ``target`` already renamed
        (its folder gone, the name's there) is left as it is."""
        name = self.spec.collection
        current, new = self._folder(name), self._folder(target)
        aside = self._folder(f"{name}__replaced")
        if target == name or not os.path.isdir(new):
            return 0.0
        if os.path.isdir(aside):  # left by a run that died after its first rename
            shutil.rmtree(aside)
        started = time.perf_counter()
        had_current = os.path.isdir(current)
        if had_current:
            os.rename(current, aside)
        try:
            os.rename(new, current)
        except BaseException:
            if had_current:
                os.rename(aside, current)
            raise
        window = time.perf_counter() - started
        if had_current:
            shutil.rmtree(aside, ignore_errors=True)
        return window

    def connect(self) -> None:
        from ragbeam.transforms.sink.writers import connect_lancedb

        self._db = connect_lancedb(self.spec.target)

    def close(self) -> None:
        self._db = None  # LanceDB holds no connection: nothing to close

    def _table(self) -> Any:
        return self._db.open_table(self.spec.collection)

    def describe(self) -> CollectionShape | None:
        if self.spec.collection not in self._db.list_tables().tables:
            return None
        schema = self._table().schema
        vector = schema.field(DENSE_VECTOR).type if DENSE_VECTOR in schema.names else None
        multivector = vector is not None and pa.types.is_list(vector)
        if multivector:
            vector = vector.value_type
        fixed = vector is not None and pa.types.is_fixed_size_list(vector)
        return CollectionShape(made_by_ragbeam=_ID in schema.names and fixed,
                               dimension=vector.list_size if fixed else 0,
                               sparse=SPARSE_VECTOR in schema.names, multivector=multivector)

    def create_collection(self, dimension: int, sparse: bool, multivector: bool = False
                          ) -> None:
        self._db.create_table(self.spec.collection,
                              schema=table_schema(dimension, multivector))

    def read_marker(self) -> str | None:
        metadata = self._table().schema.field(_ID).metadata or {}
        value = metadata.get(MARKER_KEY.encode())
        return value.decode("utf-8") if value is not None else None

    def write_marker(self, value: str) -> None:
        self._table().update_field_metadata({"path": _ID, "metadata": {MARKER_KEY: value}})

    def stored_ids(self) -> list[str]:
        rows = self._table().search().select([_ID]).limit(None).to_arrow()
        return rows.column(_ID).to_pylist()

    def delete(self, chunk_ids: list[str]) -> None:
        if not chunk_ids:
            return
        if not all(_HEX.match(c) for c in chunk_ids):  # ids go into a SQL predicate
            raise ValueError("a chunk id that is not hex: refusing to delete by it")
        self._table().delete(f"{_ID} IN ({', '.join(repr(c) for c in chunk_ids)})")

    def count(self) -> int:
        return int(self._table().count_rows())

    def write_config(self, dimension: int, sparse: bool = False) -> Any:
        from ragbeam.transforms.sink.writers import LanceDBWriteConfig

        return LanceDBWriteConfig(path=self.spec.target, table=self.spec.collection,
                                  batch_size=self.spec.batch_size)
