"""Qdrant (a server, or qdrant-client's local mode in one folder) as a ragbeam sink.

The collection ragbeam creates has one named vector, ``embedding`` (the model's
dimension, cosine distance), and with ``--sparse`` a named sparse vector,
``sparse``, with Qdrant's IDF modifier (the store keeps the corpus statistics:
ragbeam's document values are BM25 term weights, a query's are 1 per term, so a
sparse query scores BM25); each point's payload is the chunk's
``STORED_FIELDS`` plus ``chunk_id``. Qdrant ids must be integers or UUIDs: a
chunk id is 128 bits of hex, so its point id is the same 128 bits as a UUID
(``item_id``/``chunk_id_of`` are exact inverses). Upserts go through Beam's
``QdrantWriteConfig``; the marker lives in the collection's ``metadata``.
"""

from __future__ import annotations

import uuid
from typing import Any

from apache_beam.ml.rag.ingestion.qdrant import QdrantConnectionParameters, QdrantWriteConfig

from ragbeam.transforms.sink.base import (
    DENSE_VECTOR,
    MARKER_KEY,
    SPARSE_VECTOR,
    SinkMismatch,
    VectorStore,
)

VECTOR_NAME = DENSE_VECTOR
_PAGE = 1000


class QdrantStore(VectorStore):
    @staticmethod
    def item_id(chunk_id: str) -> str:
        return str(uuid.UUID(hex=chunk_id))

    @staticmethod
    def chunk_id_of(item_id: Any) -> str:
        return uuid.UUID(str(item_id)).hex

    def _connection(self) -> QdrantConnectionParameters:
        if self.spec.local:
            return QdrantConnectionParameters(path=self.spec.target)
        api_key = self.spec.credential.reveal() if self.spec.credential else None
        return QdrantConnectionParameters(url=self.spec.target, api_key=api_key,
                                          prefer_grpc=self.spec.grpc)

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

    def ensure_collection(self, dimension: int, sparse: bool = False) -> bool:
        from qdrant_client import models

        name = self.spec.collection
        if self._client.collection_exists(name):
            config = self._client.get_collection(name).config.params
            vectors = config.vectors
            params = vectors.get(VECTOR_NAME) if isinstance(vectors, dict) else None
            if params is None:
                raise SinkMismatch(f"sink {self.spec.display}: collection {name!r} has no "
                                   f"vector named {VECTOR_NAME!r}: not made by ragbeam")
            if params.size != dimension:
                raise SinkMismatch(f"sink {self.spec.display}: collection {name!r} holds "
                                   f"{params.size}-dimensional vectors, this run writes "
                                   f"{dimension}: use another collection")
            has_sparse = SPARSE_VECTOR in (config.sparse_vectors or {})
            if has_sparse != sparse:
                raise SinkMismatch(f"sink {self.spec.display}: collection {name!r} "
                                   f"{'has' if has_sparse else 'has no'} sparse vectors, this "
                                   f"run writes {'some' if sparse else 'none'} (--sparse): "
                                   "use another collection")
            return False
        self._client.create_collection(
            name, vectors_config={VECTOR_NAME: models.VectorParams(
                size=dimension, distance=models.Distance.COSINE)},
            sparse_vectors_config={SPARSE_VECTOR: models.SparseVectorParams(
                modifier=models.Modifier.IDF)} if sparse else None)
        return True

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

    def write_config(self, dimension: int, sparse: bool = False) -> QdrantWriteConfig:
        return QdrantWriteConfig(connection_params=self._connection(),
                                 collection_name=self.spec.collection,
                                 batch_size=self.spec.batch_size,
                                 dense_embedding_key=VECTOR_NAME,
                                 sparse_embedding_key=SPARSE_VECTOR)
