"""Qdrant (a server, or qdrant-client's local mode in one folder) as a ragbeam sink.

The collection ragbeam creates has one named vector, ``embedding`` (the model's
dimension, cosine distance), and with ``--sparse`` a named sparse vector,
``sparse``, without a modifier: ragbeam's document values are BM25 term weights and
a query's (``encode_sparse_query``) the terms' IDF from the run's ``terms`` table, so
the inner product scores BM25; Qdrant's ``Modifier.IDF`` would count every indexed
term, the title's too, and apply an IDF twice; each point's payload is the chunk's stored columns
(``columns.stored_columns``) plus ``chunk_id``. Qdrant ids must be integers or UUIDs: a
chunk id is 128 bits of hex, so its point id is the same 128 bits as a UUID
(``item_id``/``chunk_id_of`` are exact inverses). Upserts go through Beam's
``QdrantWriteConfig``; the marker lives in the collection's ``metadata``.

With ``--text-vector`` the named vector ``embedding`` is a multivector
(``MultiVectorConfig(comparator=MAX_SIM)``) holding each chunk's two vectors, its
dense text's then its text's: a query given as one vector in a list
(``query=[vector], using="embedding"``) scores each chunk by the closer of the two
cosines (tests/transforms/sink/test_text_vector_stores.py).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from typing import Any

from ragbeam.transforms.sink.base import (
    DENSE_VECTOR,
    MARKER_KEY,
    SPARSE_VECTOR,
    CollectionShape,
    VectorStore,
)
from ragbeam.transforms.sink.spec import SinkSpec

VECTOR_NAME = DENSE_VECTOR
_PAGE = 1000


class QdrantStore(VectorStore):
    kind = "qdrant"
    title = "Qdrant"
    local_form = "DIR"
    local_title = "qdrant-client's local mode: the same client as for a server, in one folder"
    server_form = "HOST:6333"
    options = frozenset({"grpc"})  # grpc=true: the server's gRPC port (6334), not REST
    grpc_port = 6334  # qdrant-client's default, whatever port the URL names

    @classmethod
    def server_address(cls, spec: SinkSpec) -> tuple[str, int] | None:
        address = super().server_address(spec)
        if address and (spec.option("grpc") or "").lower() == "true":
            return address[0], cls.grpc_port
        return address
    credential_env = "QDRANT_API_KEY"
    keeps_aliases = True
    keeps_multivector = True

    @classmethod
    def check_options(cls, options: Mapping[str, str], collection: str) -> str | None:
        if options.get("grpc", "false").lower() not in ("true", "false"):
            return "grpc must be true or false"
        return None

    @staticmethod
    def item_id(chunk_id: str) -> str:
        return str(uuid.UUID(hex=chunk_id))

    @staticmethod
    def chunk_id_of(item_id: Any) -> str:
        return uuid.UUID(str(item_id)).hex

    def _connection(self) -> Any:  # Beam's QdrantConnectionParameters
        from apache_beam.ml.rag.ingestion.qdrant import QdrantConnectionParameters

        if self.spec.local:
            return QdrantConnectionParameters(path=self.spec.target)
        api_key = self.spec.credential.reveal() if self.spec.credential else None
        grpc = (self.spec.option("grpc") or "").lower() == "true"
        return QdrantConnectionParameters(url=self.spec.target, api_key=api_key,
                                          prefer_grpc=grpc)

    def connect(self) -> None:
        from qdrant_client import QdrantClient

        params = self._connection()
        if params.path:
            self._client = QdrantClient(path=params.path)
        else:
            self._client = QdrantClient(url=params.url, api_key=params.api_key,
                                        prefer_grpc=params.prefer_grpc,
                                        check_compatibility=False)

    def close(self) -> None:
        client = getattr(self, "_client", None)
        if client is not None:
            client.close()
            self._client = None

    def aliased(self) -> str | None:
        name = self.spec.collection
        return next((a.collection_name for a in self._client.get_aliases().aliases
                     if a.alias_name == name), None)

    def switch_alias(self, target: str, old: str | None) -> float:
        from qdrant_client import models

        name, window = self.spec.collection, 0.0
        current = self.aliased()
        if current != target:
            operations: list[Any] = []
            started = None
            if current is not None:  # one call: the name never points at nothing
                operations.append(models.DeleteAliasOperation(
                    delete_alias=models.DeleteAlias(alias_name=name)))
            elif self._client.collection_exists(name):
                # A collection of its own: an alias cannot share its name, so it goes
                # first, and clients find no ``name`` until the alias exists.
                started = time.perf_counter()
                self._client.delete_collection(name)
            operations.append(models.CreateAliasOperation(create_alias=models.CreateAlias(
                collection_name=target, alias_name=name)))
            self._client.update_collection_aliases(change_aliases_operations=operations)
            if started is not None:
                window = time.perf_counter() - started
        if old and old not in (target, name) and self._client.collection_exists(old):
            self._client.delete_collection(old)
        return window

    def describe(self) -> CollectionShape | None:
        from qdrant_client import models

        name = self.spec.collection
        if not self._client.collection_exists(name):
            return None
        config = self._client.get_collection(name).config.params
        vectors = config.vectors
        params = vectors.get(VECTOR_NAME) if isinstance(vectors, dict) else None
        sparse = (config.sparse_vectors or {}).get(SPARSE_VECTOR)
        return CollectionShape(made_by_ragbeam=params is not None,
                               dimension=params.size if params is not None else 0,
                               sparse=sparse is not None,
                               multivector=getattr(params, "multivector_config", None)
                               is not None,
                               store_idf=sparse is not None and sparse.modifier is not None
                               and sparse.modifier != models.Modifier.NONE)

    def create_collection(self, dimension: int, sparse: bool, multivector: bool = False
                          ) -> None:
        from qdrant_client import models

        name = self.spec.collection
        max_sim = (models.MultiVectorConfig(comparator=models.MultiVectorComparator.MAX_SIM)
                   if multivector else None)
        self._client.create_collection(
            name, vectors_config={VECTOR_NAME: models.VectorParams(
                size=dimension, distance=models.Distance.COSINE,
                multivector_config=max_sim)},
            # no modifier: the query carries the IDF (transforms/embed/sparse.py)
            sparse_vectors_config={SPARSE_VECTOR: models.SparseVectorParams()}
            if sparse else None)

    def read_marker(self) -> str | None:
        metadata = self._client.get_collection(self.spec.collection).config.metadata or {}
        value = metadata.get(MARKER_KEY)
        return str(value) if value is not None else None

    def write_marker(self, value: str) -> None:
        self._client.update_collection(self.spec.collection, metadata={MARKER_KEY: value})

    def stored_ids(self) -> list[str]:
        ids: list[str] = []
        offset = None
        while True:
            points, offset = self._client.scroll(self.spec.collection, limit=_PAGE, offset=offset,
                                                 with_payload=False, with_vectors=False)
            ids.extend(self.chunk_id_of(p.id) for p in points)
            if offset is None:
                return ids

    def delete(self, chunk_ids: list[str]) -> None:
        from qdrant_client import models

        if chunk_ids:
            selector = models.PointIdsList(points=[self.item_id(c) for c in chunk_ids])
            self._client.delete(self.spec.collection, points_selector=selector, wait=True)

    def count(self) -> int:
        return int(self._client.count(self.spec.collection, exact=True).count)

    def write_config(self, dimension: int, sparse: bool = False) -> Any:
        from apache_beam.ml.rag.ingestion.qdrant import QdrantWriteConfig

        return QdrantWriteConfig(connection_params=self._connection(),
                                 collection_name=self.spec.collection,
                                 batch_size=self.spec.batch_size,
                                 dense_embedding_key=VECTOR_NAME,
                                 sparse_embedding_key=SPARSE_VECTOR)
