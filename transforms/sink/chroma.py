"""Chroma (its persistent local client, one folder) as a ragbeam sink.

The collection ragbeam creates: cosine HNSW space, no embedding function (ragbeam
gives the vectors), ``metadata`` ``ragbeam_dimension`` (Chroma learns a dimension
only from the first vector; ragbeam records it to check later runs) and the sync
marker. Per chunk: id = the chunk id, the embedding, the document = the chunk's
``text``, and its other stored columns (``records.stored_columns``) as metadata:
strings and integers as they are, a null left out (Chroma keeps no nulls), lists
and maps (``heading_path``, ``metadata``) as JSON strings (Chroma refuses an empty
list and any map). Chroma's local client keeps no sparse vectors: with
``--sparse`` the dense vectors are synced and the run says so once. Beam has no
Chroma writer (apache/beam#40047): ``ChromaWriteConfig`` is one in Beam's
``VectorDatabaseWriteConfig`` idiom.

Chroma keeps one client system per folder and process; ``close`` leaves it to
Chroma (closing and reopening the same folder in one process can time out on
Chroma's SQLite pool under load: seen on a loaded machine).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import apache_beam as beam
import pyarrow as pa
from apache_beam.ml.rag.ingestion.base import VectorDatabaseWriteConfig
from apache_beam.ml.rag.types import EmbeddableItem

from ragbeam.transforms.sink.base import MARKER_KEY, CollectionShape, VectorStore
from ragbeam.transforms.sink.records import stored_columns

DIMENSION_KEY = "ragbeam_dimension"
_PAGE = 1000
_NAME_RULE = "Chroma collection names are 3 to 512 characters, starting and ending with a " \
    "letter or digit"


def _client(path: str) -> Any:
    import chromadb
    from chromadb.config import Settings

    # No telemetry: ragbeam never calls out, and a batch job has no one to report to.
    return chromadb.PersistentClient(path=path, settings=Settings(anonymized_telemetry=False))


def _json_columns() -> frozenset[str]:
    return frozenset(f.name for f in stored_columns()
                     if pa.types.is_list(f.type) or pa.types.is_map(f.type))


def item_metadata(item: EmbeddableItem) -> dict[str, Any]:
    """An ``EmbeddableItem``'s stored fields as Chroma metadata (its text is the
    document)."""
    as_json = _json_columns()
    return {name: json.dumps(value, ensure_ascii=False, sort_keys=True)
            if name in as_json else value
            for name, value in item.metadata.items()
            if value is not None and name != "text"}


def stored_row(chunk_id: str, document: str, metadata: Mapping[str, Any]) -> dict[str, Any]:
    """What Chroma holds for one chunk, back as the chunk's stored fields (the inverse
    of ``item_metadata``; a field Chroma left out was null)."""
    as_json = _json_columns()
    row: dict[str, Any] = {f.name: None for f in stored_columns()}
    row.update({name: json.loads(value) if name in as_json else value
                for name, value in metadata.items()})
    return {**row, "chunk_id": chunk_id, "text": document}


class _ChromaWriteFn(beam.DoFn):
    def __init__(self, config: ChromaWriteConfig) -> None:
        self._config = config

    def setup(self) -> None:
        self._collection = _client(self._config.path).get_collection(
            self._config.collection, embedding_function=None)

    def start_bundle(self) -> None:
        self._batch: list[EmbeddableItem] = []

    def process(self, item: EmbeddableItem) -> Iterator[EmbeddableItem]:
        self._batch.append(item)
        if len(self._batch) >= self._config.batch_size:
            self._flush()
        yield item

    def finish_bundle(self) -> None:
        self._flush()

    def _flush(self) -> None:
        if self._batch:
            self._collection.upsert(
                ids=[item.id for item in self._batch],
                embeddings=[list(item.dense_embedding or ()) for item in self._batch],
                documents=[item.content.text or "" for item in self._batch],
                metadatas=[item_metadata(item) for item in self._batch])
            self._batch = []


@dataclass
class ChromaWriteConfig(VectorDatabaseWriteConfig):
    """Beam's idiom for a vector-store writer: upserts ``EmbeddableItem``s into one
    Chroma collection, ``batch_size`` per call."""

    path: str
    collection: str
    batch_size: int = 500

    def create_write_transform(self) -> beam.PTransform:
        return beam.ParDo(_ChromaWriteFn(self))


class ChromaStore(VectorStore):
    kind = "chroma"
    title = "Chroma"
    local_form = "DIR"
    local_title = "Chroma's persistent local client, one folder"
    keeps_sparse = False

    @classmethod
    def check_options(cls, options: Mapping[str, str], collection: str) -> str | None:
        if not 3 <= len(collection) <= 512 or not (collection[0].isalnum()
                                                   and collection[-1].isalnum()):
            return f"collection {collection!r}: {_NAME_RULE}"
        return None

    def connect(self) -> None:
        self._client = _client(self.spec.target)

    def close(self) -> None:
        self._client = None  # see the module's docstring

    def _collection(self) -> Any:
        return self._client.get_collection(self.spec.collection, embedding_function=None)

    def describe(self) -> CollectionShape | None:
        from chromadb.errors import NotFoundError

        try:
            metadata = self._collection().metadata or {}
        except NotFoundError:
            return None
        dimension = metadata.get(DIMENSION_KEY)
        return CollectionShape(made_by_ragbeam=isinstance(dimension, int),
                               dimension=dimension if isinstance(dimension, int) else 0,
                               sparse=False)

    def create_collection(self, dimension: int, sparse: bool) -> None:
        self._client.create_collection(self.spec.collection, embedding_function=None,
                                       configuration={"hnsw": {"space": "cosine"}},
                                       metadata={DIMENSION_KEY: dimension})

    def read_marker(self) -> str | None:
        value = (self._collection().metadata or {}).get(MARKER_KEY)
        return str(value) if value is not None else None

    def write_marker(self, value: str) -> None:
        collection = self._collection()
        collection.modify(metadata={**(collection.metadata or {}), MARKER_KEY: value})

    def stored_ids(self) -> list[str]:
        collection, ids, offset = self._collection(), [], 0
        while page := collection.get(include=[], limit=_PAGE, offset=offset)["ids"]:
            ids.extend(page)
            offset += len(page)
        return ids

    def delete(self, chunk_ids: list[str]) -> None:
        if chunk_ids:
            self._collection().delete(ids=list(chunk_ids))

    def count(self) -> int:
        return int(self._collection().count())

    def write_config(self, dimension: int, sparse: bool = False) -> ChromaWriteConfig:
        return ChromaWriteConfig(path=self.spec.target, collection=self.spec.collection,
                                 batch_size=self.spec.batch_size)
