"""Beam writers for the stores Beam has none for (LanceDB, Chroma), in Beam's own
idiom (``apache_beam.ml.rag.ingestion``): a ``VectorDatabaseWriteConfig`` whose
``create_write_transform()`` upserts ``EmbeddableItem``s (``records.embeddable_item``)
in batches of ``batch_size``; and how each store's client is opened, shared with the
store's own steps (``lancedb.py``, ``chroma.py``, which import this module only when
they connect or write: it imports Beam).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import apache_beam as beam
import pyarrow as pa
from apache_beam.ml.rag.ingestion.base import VectorDatabaseWriteConfig
from apache_beam.ml.rag.types import EmbeddableItem

from ragbeam.transforms.sink.base import DENSE_VECTOR
from ragbeam.transforms.sink.columns import stored_columns

LANCEDB_ID = "chunk_id"


def connect_lancedb(path: str) -> Any:
    import lancedb

    # Every read sees every committed write, also those of another connection (Beam's
    # writer's): LanceDB's default is to keep the version a table was opened at.
    return lancedb.connect(path, read_consistency_interval=timedelta(0))


def lancedb_row(item: EmbeddableItem) -> dict[str, Any]:
    """One ``EmbeddableItem`` as a row of ragbeam's LanceDB table."""
    row = dict(item.metadata)
    row["metadata"] = list(dict(row["metadata"]).items())  # Arrow builds maps from pairs
    return {**row, LANCEDB_ID: item.id, DENSE_VECTOR: list(item.dense_embedding or ())}


def chroma_client(path: str) -> Any:
    import chromadb
    from chromadb.config import Settings

    # No telemetry: ragbeam never calls out, and a batch job has no one to report to.
    return chromadb.PersistentClient(path=path, settings=Settings(anonymized_telemetry=False))


def chroma_metadata(item: EmbeddableItem) -> dict[str, Any]:
    """An ``EmbeddableItem``'s stored fields as Chroma metadata (its text is the
    document): nulls left out, lists and maps as JSON strings."""
    as_json = {f.name for f in stored_columns()
               if pa.types.is_list(f.type) or pa.types.is_map(f.type)}
    return {name: json.dumps(value, ensure_ascii=False, sort_keys=True)
            if name in as_json else value
            for name, value in item.metadata.items()
            if value is not None and name != "text"}


class _BatchedWriteFn(beam.DoFn):
    """Items → ``write(batch)`` every ``batch_size`` items and at each bundle's end;
    yields the items (as Beam's writers do)."""

    def __init__(self, batch_size: int) -> None:
        self._batch_size = batch_size

    def start_bundle(self) -> None:
        self._batch: list[EmbeddableItem] = []

    def process(self, item: EmbeddableItem) -> Iterator[EmbeddableItem]:
        self._batch.append(item)
        if len(self._batch) >= self._batch_size:
            self._flush()
        yield item

    def finish_bundle(self) -> None:
        self._flush()

    def _flush(self) -> None:
        if self._batch:
            self.write(self._batch)
            self._batch = []

    def write(self, batch: list[EmbeddableItem]) -> None:
        raise NotImplementedError


class _LanceDBWriteFn(_BatchedWriteFn):
    def __init__(self, config: LanceDBWriteConfig) -> None:
        super().__init__(config.batch_size)
        self._config = config

    def setup(self) -> None:
        self._table = connect_lancedb(self._config.path).open_table(self._config.table)

    def write(self, batch: list[EmbeddableItem]) -> None:
        rows = pa.Table.from_pylist([lancedb_row(item) for item in batch],
                                    schema=self._table.schema)
        (self._table.merge_insert(LANCEDB_ID).when_matched_update_all()
         .when_not_matched_insert_all().execute(rows))


@dataclass
class LanceDBWriteConfig(VectorDatabaseWriteConfig):
    """Upserts into one LanceDB table (``merge_insert`` on ``chunk_id``)."""

    path: str
    table: str
    batch_size: int = 500

    def create_write_transform(self) -> beam.PTransform:
        return beam.ParDo(_LanceDBWriteFn(self))


class _ChromaWriteFn(_BatchedWriteFn):
    def __init__(self, config: ChromaWriteConfig) -> None:
        super().__init__(config.batch_size)
        self._config = config

    def setup(self) -> None:
        self._collection = chroma_client(self._config.path).get_collection(
            self._config.collection, embedding_function=None)

    def write(self, batch: list[EmbeddableItem]) -> None:
        self._collection.upsert(
            ids=[item.id for item in batch],
            embeddings=[list(item.dense_embedding or ()) for item in batch],
            documents=[item.content.text or "" for item in batch],
            metadatas=[chroma_metadata(item) for item in batch])


@dataclass
class ChromaWriteConfig(VectorDatabaseWriteConfig):
    """Upserts into one Chroma collection."""

    path: str
    collection: str
    batch_size: int = 500

    def create_write_transform(self) -> beam.PTransform:
        return beam.ParDo(_ChromaWriteFn(self))
