"""The stores ragbeam syncs, by ``SinkSpec.kind``, and the one way to open one.

Apart from ``base.py`` so the interface does not import its implementations (which
import it): each store's module is imported only when a run opens that store, so a
run that syncs Qdrant never imports pymilvus's writer.
"""

from __future__ import annotations

from ragbeam.transforms.sink.base import VectorStore
from ragbeam.transforms.sink.uri import SinkSpec


def open_store(spec: SinkSpec) -> VectorStore:
    """The store ``spec`` names, not yet connected (``with open_store(spec) as store``)."""
    if spec.kind == "milvus":
        from ragbeam.transforms.sink.milvus import MilvusStore

        return MilvusStore(spec)
    if spec.kind == "qdrant":
        from ragbeam.transforms.sink.qdrant import QdrantStore

        return QdrantStore(spec)
    raise ValueError(f"unknown store kind {spec.kind!r}")
