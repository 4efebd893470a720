"""Milvus (a server, or Milvus Lite in one local file) as a ragbeam sink.

The collection ragbeam creates: primary key ``chunk_id`` (VARCHAR), ``embedding``
(FLOAT_VECTOR of the model's dimension, COSINE index), with ``--sparse`` ``sparse``
(SPARSE_FLOAT_VECTOR, inverted index, inner product: ragbeam's BM25 term weights
against a query's IDF weights from the run's ``terms`` table, which is BM25), ``text``
and the other stored chunk columns (``columns.stored_columns``) as scalar columns:
strings VARCHAR, integers INT64, lists and maps (``heading_path``, ``metadata``) JSON,
strong consistency so every step reads what the one before wrote. Upserts go
through Beam's ``MilvusVectorWriterConfig`` with one ``ColumnSpec`` per column.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from ragbeam.transforms.sink.base import (
    DENSE_VECTOR,
    MARKER_KEY,
    SPARSE_VECTOR,
    CollectionShape,
    VectorStore,
)
from ragbeam.transforms.sink.columns import stored_columns

if TYPE_CHECKING:  # Beam's types, imported only when a run writes (stores.py)
    from apache_beam.ml.rag.ingestion.postgres_common import ColumnSpec
    from apache_beam.ml.rag.types import EmbeddableItem

_ID_LENGTH = 64
_TEXT_LENGTH = 65535  # Milvus's VARCHAR limit


def _milvus_type(arrow_type: pa.DataType) -> str:
    """A chunk column's Milvus type: strings VARCHAR, integers INT64, lists and maps
    JSON (``heading_path``, ``metadata``)."""
    if pa.types.is_string(arrow_type):
        return "VARCHAR"
    if pa.types.is_integer(arrow_type):
        return "INT64"
    if pa.types.is_floating(arrow_type):
        return "DOUBLE"
    if pa.types.is_boolean(arrow_type):
        return "BOOL"
    return "JSON"


_PY_TYPES = {"VARCHAR": str, "INT64": int, "DOUBLE": float, "BOOL": bool, "JSON": object}


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
    from apache_beam.ml.rag.utils import MilvusHelpers

    return MilvusHelpers.sparse_embedding(item.sparse_embedding) or {}


def column_specs(sparse: bool = False) -> list[ColumnSpec]:
    """How Beam's Milvus writer turns an ``EmbeddableItem`` into a row of the collection."""
    from apache_beam.ml.rag.ingestion.postgres_common import ColumnSpec

    return [
        ColumnSpec("chunk_id", str, _item_id),
        ColumnSpec(DENSE_VECTOR, list, _vector),
        *([ColumnSpec(SPARSE_VECTOR, dict, _sparse)] if sparse else []),
        *(ColumnSpec(f.name, _PY_TYPES[_milvus_type(f.type)], functools.partial(_stored, f.name))
          for f in stored_columns()),
    ]


class MilvusStore(VectorStore):
    kind = "milvus"
    title = "Milvus"
    local_form = "PATH.db"
    local_suffix = ".db"
    local_title = "Milvus Lite: an embedded Milvus in one local file"
    server_form = "HOST:19530"
    options = frozenset({"db"})
    credential_env = "MILVUS_TOKEN"
    user_in_token = True
    keeps_aliases = True

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
        # dedicated: a connection of this client's own, closed by ``close``. pymilvus
        # otherwise shares one connection per address and keeps it open after the last
        # client closes; left idle (the preflight's, while the pipeline embeds), its
        # 10 s keepalive pings make Milvus Lite's server send GOAWAY (too_many_pings),
        # and the next client's recovery logs two chained tracebacks (issue 32).
        args: dict[str, Any] = {"uri": self.spec.target, "dedicated": True}
        if self.spec.credential:
            args["token"] = self.spec.credential.reveal()
        if self.spec.option("db"):
            args["db_name"] = self.spec.option("db")
        return args

    def on(self, collection: str) -> VectorStore:
        other = super().on(collection)
        if self._client.has_collection(collection):  # loaded to be queried (connect)
            self._client.load_collection(collection)
        return other

    def aliased(self) -> str | None:
        name = self.spec.collection
        if not self._client.has_collection(name):
            return None
        # Described through an alias, a collection gives its own name.
        physical = self._client.describe_collection(name)["collection_name"]
        return physical if physical != name else None

    def switch_alias(self, target: str, old: str | None) -> float:
        name, window = self.spec.collection, 0.0
        current = self.aliased()
        if current is not None and current != target:
            self._client.alter_alias(target, name)  # atomic: the name never points at nothing
        elif current is None:
            started = None
            if self._client.has_collection(name):
                # A collection of its own: an alias cannot share its name, so it goes
                # first, and clients find no ``name`` until the alias exists.
                started = time.perf_counter()
                self._client.drop_collection(name)
            self._client.create_alias(target, name)
            if started is not None:
                window = time.perf_counter() - started
        if old and old not in (target, name) and self._client.has_collection(old):
            self._client.drop_collection(old)
        return window

    def describe(self) -> CollectionShape | None:
        name = self.spec.collection
        if not self._client.has_collection(name):
            return None
        fields = {f["name"]: f for f in self._client.describe_collection(name)["fields"]}
        vector = fields.get(DENSE_VECTOR)
        return CollectionShape(
            made_by_ragbeam="chunk_id" in fields and vector is not None,
            dimension=int((vector or {}).get("params", {}).get("dim", 0)),
            sparse=SPARSE_VECTOR in fields)

    def create_collection(self, dimension: int, sparse: bool, multivector: bool = False
                          ) -> None:
        from pymilvus import DataType, MilvusClient

        name = self.spec.collection
        schema = MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
        schema.add_field("chunk_id", DataType.VARCHAR, is_primary=True, max_length=_ID_LENGTH)
        schema.add_field(DENSE_VECTOR, DataType.FLOAT_VECTOR, dim=dimension)
        if sparse:
            schema.add_field(SPARSE_VECTOR, DataType.SPARSE_FLOAT_VECTOR)
        for column in stored_columns():
            type_name = _milvus_type(column.type)
            extra: dict[str, Any] = {"max_length": _TEXT_LENGTH} if type_name == "VARCHAR" else {}
            schema.add_field(column.name, getattr(DataType, type_name), nullable=column.nullable,
                             **extra)
        index = self._client.prepare_index_params()
        index.add_index(field_name=DENSE_VECTOR, index_type="AUTOINDEX", metric_type="COSINE")
        if sparse:
            index.add_index(field_name=SPARSE_VECTOR, index_type="SPARSE_INVERTED_INDEX",
                            metric_type="IP")
        # Waiting for the indexes starts with the timestamp call Milvus Lite lacks.
        with _expected_errors(*_EXPECTED_ERROR_LOGGERS):
            self._client.create_collection(name, schema=schema, index_params=index,
                                           consistency_level="Strong")

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

    def write_config(self, dimension: int, sparse: bool = False) -> Any:
        from apache_beam.ml.rag.ingestion.jdbc_common import WriteConfig
        from apache_beam.ml.rag.ingestion.milvus_search import (
            MilvusVectorWriterConfig,
            MilvusWriteConfig,
        )
        from apache_beam.ml.rag.utils import MilvusConnectionParameters

        args = self._client_args()
        connection = MilvusConnectionParameters(
            uri=args["uri"], token=args.get("token", ""), db_name=args.get("db_name", "default"),
            kwargs={"dedicated": True})  # Beam's writer closes its client after each batch
        return MilvusVectorWriterConfig(
            connection_params=connection,
            write_config=MilvusWriteConfig(
                collection_name=self.spec.collection,
                write_config=WriteConfig(write_batch_size=self.spec.batch_size)),
            column_specs=column_specs(sparse))
