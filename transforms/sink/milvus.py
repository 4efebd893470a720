"""Milvus (a server, or Milvus Lite in one local file) as a ragbeam sink.

The collection ragbeam creates: primary key ``chunk_id`` (VARCHAR), ``embedding``
(FLOAT_VECTOR of the model's dimension, COSINE index), with ``--sparse`` ``sparse``
(SPARSE_FLOAT_VECTOR, inverted index, inner product: ragbeam's BM25 term weights
against a query's 1 per term), ``text`` and the other
``STORED_FIELDS`` as scalar columns (``heading_path`` and ``metadata`` as JSON),
strong consistency so every step reads what the one before wrote. Upserts go
through Beam's ``MilvusVectorWriterConfig`` with one ``ColumnSpec`` per column.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Iterator
from typing import Any

from apache_beam.ml.rag.ingestion.jdbc_common import WriteConfig
from apache_beam.ml.rag.ingestion.milvus_search import MilvusVectorWriterConfig, MilvusWriteConfig
from apache_beam.ml.rag.ingestion.postgres_common import ColumnSpec
from apache_beam.ml.rag.types import EmbeddableItem
from apache_beam.ml.rag.utils import MilvusConnectionParameters, MilvusHelpers

from ragbeam.transforms.sink.base import (
    DENSE_VECTOR,
    MARKER_KEY,
    SPARSE_VECTOR,
    SinkMismatch,
    VectorStore,
)

# (column, Milvus type name, Python type, VARCHAR max length, nullable)
_ID_LENGTH = 64
_TEXT_LENGTH = 65535  # Milvus's VARCHAR limit
_SCALARS: tuple[tuple[str, str, type, int, bool], ...] = (
    ("text", "VARCHAR", str, _TEXT_LENGTH, False),
    ("context", "VARCHAR", str, _TEXT_LENGTH, False),
    ("doc_id", "VARCHAR", str, _ID_LENGTH, False),
    ("parent_id", "VARCHAR", str, _ID_LENGTH, True),
    ("chunk_index", "INT64", int, 0, False),
    ("level", "VARCHAR", str, 32, False),
    ("strategy", "VARCHAR", str, 64, False),
    ("char_start", "INT64", int, 0, False),
    ("char_end", "INT64", int, 0, False),
    ("page_start", "INT64", int, 0, True),
    ("page_end", "INT64", int, 0, True),
    ("heading_path", "JSON", list, 0, False),
    ("source_uri", "VARCHAR", str, _TEXT_LENGTH, False),
    ("media_type", "VARCHAR", str, 255, False),
    ("config_hash", "VARCHAR", str, _ID_LENGTH, False),
    ("metadata", "JSON", dict, 0, False),
)


@contextlib.contextmanager
def _expected_errors(*loggers: str) -> Iterator[None]:
    """Milvus Lite's in-process server lacks calls pymilvus tries first (it then falls
    back): the server thread logs an ERROR with a traceback, pymilvus a warning, on a
    run that succeeds. Hidden, unless ragbeam logs everything (``-vv``)."""
    saved = [(logging.getLogger(name), logging.getLogger(name).level) for name in loggers]
    for logger, _ in saved:
        if logger.getEffectiveLevel() > logging.DEBUG:
            logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for logger, level in saved:
            logger.setLevel(level)


# What logs those expected errors: gRPC's server (Milvus Lite's, in this process),
# pymilvus's iterator.
_EXPECTED_ERROR_LOGGERS = ("grpc._server", "pymilvus.orm.iterator")


def _stored(name: str, item: EmbeddableItem) -> Any:
    return item.metadata[name]


def _item_id(item: EmbeddableItem) -> str:
    return item.id


def _vector(item: EmbeddableItem) -> list[float]:
    return list(item.dense_embedding or ())


def _sparse(item: EmbeddableItem) -> dict[int, float]:
    return MilvusHelpers.sparse_embedding(item.sparse_embedding) or {}


def column_specs(sparse: bool = False) -> list[ColumnSpec]:
    """How Beam's Milvus writer turns an ``EmbeddableItem`` into a row of the collection."""
    return [
        ColumnSpec("chunk_id", str, _item_id),
        ColumnSpec(DENSE_VECTOR, list, _vector),
        *([ColumnSpec(SPARSE_VECTOR, dict, _sparse)] if sparse else []),
        *(ColumnSpec(name, py_type, functools.partial(_stored, name))
          for name, _, py_type, _, _ in _SCALARS),
    ]


class MilvusStore(VectorStore):
    def connect(self) -> None:
        from pymilvus import MilvusClient

        self._client = MilvusClient(**self._client_args())
        # A collection must be loaded to be queried; Milvus Lite forgets that it was
        # when its process ends, so every new process finds it released.
        if self._client.has_collection(self.spec.collection):
            self._client.load_collection(self.spec.collection)

    def close(self) -> None:
        client = getattr(self, "_client", None)
        if client is not None:
            client.close()
            self._client = None

    def _client_args(self) -> dict[str, Any]:
        args: dict[str, Any] = {"uri": self.spec.target}
        if self.spec.credential:
            args["token"] = self.spec.credential.reveal()
        if self.spec.db:
            args["db_name"] = self.spec.db
        return args

    def ensure_collection(self, dimension: int, sparse: bool = False) -> bool:
        from pymilvus import DataType, MilvusClient

        name = self.spec.collection
        if self._client.has_collection(name):
            fields = {f["name"]: f for f in self._client.describe_collection(name)["fields"]}
            vector = fields.get("embedding")
            if "chunk_id" not in fields or vector is None:
                raise SinkMismatch(f"sink {self.spec.display}: collection {name!r} was not "
                                   "made by ragbeam (no chunk_id/embedding fields)")
            have = int(vector.get("params", {}).get("dim", 0))
            if have != dimension:
                raise SinkMismatch(f"sink {self.spec.display}: collection {name!r} holds "
                                   f"{have}-dimensional vectors, this run writes {dimension}: "
                                   "use another collection")
            has_sparse = SPARSE_VECTOR in fields
            if has_sparse != sparse:
                raise SinkMismatch(f"sink {self.spec.display}: collection {name!r} "
                                   f"{'has' if has_sparse else 'has no'} sparse vectors, this "
                                   f"run writes {'some' if sparse else 'none'} (--sparse): "
                                   "use another collection")
            return False
        schema = MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
        schema.add_field("chunk_id", DataType.VARCHAR, is_primary=True, max_length=_ID_LENGTH)
        schema.add_field(DENSE_VECTOR, DataType.FLOAT_VECTOR, dim=dimension)
        if sparse:
            schema.add_field(SPARSE_VECTOR, DataType.SPARSE_FLOAT_VECTOR)
        for column, type_name, _, length, nullable in _SCALARS:
            extra: dict[str, Any] = {"max_length": length} if type_name == "VARCHAR" else {}
            schema.add_field(column, getattr(DataType, type_name), nullable=nullable, **extra)
        index = self._client.prepare_index_params()
        index.add_index(field_name=DENSE_VECTOR, index_type="AUTOINDEX", metric_type="COSINE")
        if sparse:
            index.add_index(field_name=SPARSE_VECTOR, index_type="SPARSE_INVERTED_INDEX",
                            metric_type="IP")
        # Waiting for the indexes starts with the timestamp call Milvus Lite lacks.
        with _expected_errors(*_EXPECTED_ERROR_LOGGERS):
            self._client.create_collection(name, schema=schema, index_params=index,
                                           consistency_level="Strong")
        return True

    def read_marker(self) -> str | None:
        properties = self._client.describe_collection(self.spec.collection).get("properties", {})
        return properties.get(MARKER_KEY)

    def write_marker(self, value: str) -> None:
        self._client.alter_collection_properties(self.spec.collection,
                                                 properties={MARKER_KEY: value})

    def stored_ids(self) -> list[str]:
        ids: list[str] = []
        # Milvus Lite lacks the timestamp call the iterator starts with.
        with _expected_errors(*_EXPECTED_ERROR_LOGGERS):
            iterator = self._client.query_iterator(self.spec.collection, batch_size=1000,
                                                   filter="", output_fields=["chunk_id"])
            try:
                while page := iterator.next():
                    ids.extend(row["chunk_id"] for row in page)
            finally:
                iterator.close()
        return ids

    def delete(self, chunk_ids: list[str]) -> None:
        if chunk_ids:
            self._client.delete(self.spec.collection, ids=list(chunk_ids))

    def count(self) -> int:
        rows = self._client.query(self.spec.collection, filter="", output_fields=["count(*)"])
        return int(rows[0]["count(*)"])

    def write_config(self, dimension: int, sparse: bool = False) -> MilvusVectorWriterConfig:
        args = self._client_args()
        connection = MilvusConnectionParameters(
            uri=args["uri"], token=args.get("token", ""), db_name=args.get("db_name", "default"))
        return MilvusVectorWriterConfig(
            connection_params=connection,
            write_config=MilvusWriteConfig(
                collection_name=self.spec.collection,
                write_config=WriteConfig(write_batch_size=self.spec.batch_size)),
            column_specs=column_specs(sparse))
