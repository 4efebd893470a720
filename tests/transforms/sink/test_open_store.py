"""``open_store``: each kind of ``--sink`` URI opens its own store (not connected)."""

from __future__ import annotations

import dataclasses

import pytest

from ragbeam.transforms.sink.base import VectorStore
from ragbeam.transforms.sink.milvus import MilvusStore
from ragbeam.transforms.sink.qdrant import QdrantStore
from ragbeam.transforms.sink.stores import open_store
from ragbeam.transforms.sink.uri import parse_sink_uri


@pytest.mark.parametrize(("uri", "store_type"), [
    ("milvus:./index.db?collection=docs", MilvusStore),
    ("qdrant:./qdrant-dir?collection=docs", QdrantStore),
])
def test_each_kind_opens_its_store(uri: str, store_type: type[VectorStore]):
    spec = parse_sink_uri(uri, environ={})
    store = open_store(spec)
    assert type(store) is store_type and store.spec == spec


def test_an_unknown_kind_is_refused():
    spec = dataclasses.replace(parse_sink_uri("milvus:./index.db", environ={}), kind="chroma")
    with pytest.raises(ValueError, match="chroma"):
        open_store(spec)
