"""Each vector store ragbeam syncs, read back with its own client (for the sink tests,
``tests/transforms/sink/test_stores.py``): what it holds per chunk id, its sync
marker, and how a killed run would leave it.

One ``StoreReader`` per kind of ``transforms/sink/stores.py STORES``; adding a store
adds its reader here, and the sink suite (parametrized over ``READERS``) runs on it.
"""

from __future__ import annotations

import contextlib
import json
import pathlib
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from ragbeam.transforms.sink.base import MARKER_KEY

from helpers import read_table

COLLECTION = "docs"


@contextlib.contextmanager
def milvus_lite_server(data: pathlib.Path, port: int = 0
                       ) -> Iterator[tuple[subprocess.Popen, int]]:
    """Milvus Lite's gRPC server in a child process on ``port`` (a free local one by
    default), up: a Milvus reached over the network. Yields the process (a test may stop
    it) and the port."""
    if not port:
        with contextlib.closing(socket.socket()) as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "milvus_lite", "server", "--data-dir", str(data),
         "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while True:
        with contextlib.closing(socket.socket()) as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                break
        if time.monotonic() > deadline:
            server.kill()
            raise RuntimeError("milvus-lite server did not start")
        time.sleep(0.2)
    try:
        yield server, port
    finally:
        server.terminate()
        server.wait(timeout=30)


def two_vectors(row: Mapping[str, Any]) -> Any:
    """A chunk row's vectors as a store that keeps both holds them (``--text-vector``,
    the default): its dense vector alone for a row without a second."""
    if row.get("text_embedding") is None:
        return row["embedding"]
    return [row["embedding"], row["text_embedding"]]


def qdrant_dense_query(client: Any, vector: list[float]) -> Any:
    """A dense query vector as Qdrant's ``embedding`` takes it: in a list when the
    collection holds two vectors a chunk (a multivector, max-sim)."""
    params = client.get_collection(COLLECTION).config.params.vectors["embedding"]
    return [vector] if params.multivector_config is not None else vector


class StoreReader:
    kind: str
    keeps_sparse = True

    def __init__(self, root: pathlib.Path) -> None:
        self.path = root / self.location

    location = ""

    @property
    def uri(self) -> str:
        return f"{self.kind}:{self.path}?collection={COLLECTION}"

    def rows(self) -> dict[str, dict[str, Any]]:
        """chunk id → text, doc_id, chunk_index, char_start, heading_path, embedding,
        sparse ({index: value} or None)."""
        raise NotImplementedError

    def marker(self) -> str | None:
        raise NotImplementedError

    def leave_as_a_killed_run(self, victim: Mapping[str, Any], stray_id: str) -> None:
        """Marker ``writing:deadrun``, ``victim``'s chunk deleted, a chunk no table has."""
        raise NotImplementedError


def _milvus_sparse(value) -> dict[int, float] | None:
    if value is None:
        return None
    # pymilvus returns a sparse row as {index: value}, or as a one-row sparse matrix.
    if hasattr(value, "tocoo"):
        coo = value.tocoo()
        return {int(i): float(v) for i, v in zip(coo.col, coo.data, strict=True)}
    return {int(i): float(v) for i, v in dict(value).items()}


class MilvusReader(StoreReader):
    kind, location = "milvus", "index.db"

    def _client(self):
        from pymilvus import MilvusClient

        return MilvusClient(uri=str(self.path))

    def rows(self) -> dict[str, dict[str, Any]]:
        return milvus_rows(str(self.path))

    def marker(self) -> str | None:
        client = self._client()
        try:
            return client.describe_collection(COLLECTION)["properties"].get(MARKER_KEY)
        finally:
            client.close()

    def leave_as_a_killed_run(self, victim, stray_id) -> None:
        client = self._client()
        try:
            client.alter_collection_properties(COLLECTION,
                                               properties={MARKER_KEY: "writing:deadrun"})
            client.delete(COLLECTION, ids=[victim["chunk_id"]])
            fields = {f["name"] for f in client.describe_collection(COLLECTION)["fields"]}
            stray = {name: victim[name] for name in fields if name in victim}
            stray.update(chunk_id=stray_id, text="a chunk no table has",
                         metadata=dict(victim["metadata"]))
            if "sparse" in fields:
                stray["sparse"] = dict(zip(victim["sparse"]["indices"],
                                           victim["sparse"]["values"], strict=True))
            client.insert(COLLECTION, [stray])
        finally:
            client.close()


def milvus_rows(uri: str, token: str = "") -> dict[str, dict[str, Any]]:
    from pymilvus import MilvusClient

    client = MilvusClient(uri=uri, token=token)
    try:
        client.load_collection(COLLECTION)  # Milvus Lite: released in every new process
        fields = {f["name"] for f in client.describe_collection(COLLECTION)["fields"]}
        rows = client.query(COLLECTION, filter="", limit=16384,
                            output_fields=["chunk_id", "text", "embedding", "doc_id",
                                           "chunk_index", "char_start", "heading_path",
                                           *(["sparse"] if "sparse" in fields else [])])
    finally:
        client.close()
    return {r["chunk_id"]: {**r, "embedding": list(r["embedding"]),
                            "sparse": _milvus_sparse(r.get("sparse"))} for r in rows}


class QdrantReader(StoreReader):
    kind, location = "qdrant", "qdrant"

    def _client(self):
        from qdrant_client import QdrantClient

        return QdrantClient(path=str(self.path))

    def rows(self) -> dict[str, dict[str, Any]]:
        client = self._client()
        try:
            points, _ = client.scroll(COLLECTION, limit=100_000, with_payload=True,
                                      with_vectors=True)
        finally:
            client.close()
        return {p.payload["chunk_id"]: {
            **p.payload, "point_id": str(p.id), "embedding": p.vector["embedding"],
            "sparse": (dict(zip(p.vector["sparse"].indices, p.vector["sparse"].values,
                                strict=True)) if "sparse" in p.vector else None)}
            for p in points}

    def marker(self) -> str | None:
        client = self._client()
        try:
            return (client.get_collection(COLLECTION).config.metadata or {}).get(MARKER_KEY)
        finally:
            client.close()

    def leave_as_a_killed_run(self, victim, stray_id) -> None:
        import uuid

        from qdrant_client import models

        client = self._client()
        try:
            client.update_collection(COLLECTION, metadata={MARKER_KEY: "writing:deadrun"})
            client.delete(COLLECTION, points_selector=models.PointIdsList(
                points=[str(uuid.UUID(hex=victim["chunk_id"]))]))
            client.upsert(COLLECTION, points=[models.PointStruct(
                id=str(uuid.UUID(hex=stray_id)), vector={"embedding": two_vectors(victim)},
                payload={"chunk_id": stray_id, "text": "a chunk no table has"})])
        finally:
            client.close()


class LanceDBReader(StoreReader):
    kind, location, keeps_sparse = "lancedb", "lance", False

    def _table(self):
        import lancedb

        return lancedb.connect(str(self.path)).open_table(COLLECTION)

    def rows(self) -> dict[str, dict[str, Any]]:
        return {r["chunk_id"]: {**r, "sparse": None}
                for r in self._table().to_arrow().to_pylist()}

    def marker(self) -> str | None:
        value = (self._table().schema.field("chunk_id").metadata or {}).get(MARKER_KEY.encode())
        return value.decode() if value is not None else None

    def leave_as_a_killed_run(self, victim, stray_id) -> None:
        import pyarrow as pa

        table = self._table()
        table.update_field_metadata({"path": "chunk_id",
                                     "metadata": {MARKER_KEY: "writing:deadrun"}})
        table.delete(f"chunk_id = '{victim['chunk_id']}'")
        row = {name: victim.get(name) for name in table.schema.names}
        if pa.types.is_list(table.schema.field("embedding").type):
            row["embedding"] = two_vectors(victim)
        row.update(chunk_id=stray_id, text="a chunk no table has",
                   metadata=list(dict(victim["metadata"]).items()))
        table.add(pa.Table.from_pylist([row], schema=table.schema))


class ChromaReader(StoreReader):
    kind, location, keeps_sparse = "chroma", "chroma", False

    def _collection(self):
        import chromadb
        from chromadb.config import Settings

        client = chromadb.PersistentClient(path=str(self.path),
                                           settings=Settings(anonymized_telemetry=False))
        return client.get_collection(COLLECTION, embedding_function=None)

    def rows(self) -> dict[str, dict[str, Any]]:
        got = self._collection().get(include=["embeddings", "documents", "metadatas"])
        rows = {}
        for chunk_id, vector, text, metadata in zip(got["ids"], got["embeddings"],
                                                    got["documents"], got["metadatas"],
                                                    strict=True):
            fields = {k: json.loads(v) if k in ("heading_path", "metadata") else v
                      for k, v in metadata.items()}
            rows[chunk_id] = {**fields, "chunk_id": chunk_id, "text": text,
                              "embedding": list(vector), "sparse": None}
        return rows

    def marker(self) -> str | None:
        return (self._collection().metadata or {}).get(MARKER_KEY)

    def leave_as_a_killed_run(self, victim, stray_id) -> None:
        collection = self._collection()
        collection.modify(metadata={**collection.metadata, MARKER_KEY: "writing:deadrun"})
        collection.delete(ids=[victim["chunk_id"]])
        collection.add(ids=[stray_id], embeddings=[victim["embedding"]],
                       documents=["a chunk no table has"], metadatas=[{"doc_id": "x"}])


def assert_store_equals_chunks(stored: dict[str, dict], out: pathlib.Path,
                               keeps_sparse: bool = True) -> None:
    chunks = {r["chunk_id"]: r for r in read_table(out, "chunks").to_pylist()}
    assert set(stored) == set(chunks), (
        f"store has {len(set(stored) - set(chunks))} extra and lacks "
        f"{len(set(chunks) - set(stored))} chunks")
    for chunk_id, row in chunks.items():
        got = stored[chunk_id]
        assert got["text"] == row["text"]
        assert got["doc_id"] == row["doc_id"] and got["chunk_index"] == row["chunk_index"]
        assert got["char_start"] == row["char_start"]
        assert list(got["heading_path"]) == row["heading_path"]
        if np.asarray(got["embedding"]).ndim == 2:  # both vectors (--text-vector, default)
            np.testing.assert_allclose(got["embedding"], [row["embedding"],
                                                          row["text_embedding"]], atol=1e-6)
        else:
            np.testing.assert_allclose(got["embedding"], row["embedding"], atol=1e-6)
        if row.get("sparse") is None or not keeps_sparse:
            assert got.get("sparse") is None
        else:  # --sparse: the same terms and weights
            stored_sparse = got["sparse"]
            assert sorted(stored_sparse) == row["sparse"]["indices"], chunk_id
            np.testing.assert_allclose([stored_sparse[i] for i in row["sparse"]["indices"]],
                                       row["sparse"]["values"], rtol=1e-6)


READERS: dict[str, type[StoreReader]] = {
    r.kind: r for r in (MilvusReader, QdrantReader, LanceDBReader, ChromaReader)}
