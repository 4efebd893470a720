"""``open_store``: each kind of ``--sink`` URI opens its own store (not connected)."""

from __future__ import annotations

import dataclasses

import pytest

from ragbeam.transforms.sink.base import VectorStore
from ragbeam.transforms.sink.chroma import ChromaStore
from ragbeam.transforms.sink.lancedb import LanceDBStore
from ragbeam.transforms.sink.milvus import MilvusStore
from ragbeam.transforms.sink.qdrant import QdrantStore
from ragbeam.transforms.sink.stores import STORES, open_store, sink_help
from ragbeam.transforms.sink.uri import parse_sink_uri


@pytest.mark.parametrize(("uri", "store_type"), [
    ("milvus:./index.db?collection=docs", MilvusStore),
    ("qdrant:./qdrant-dir?collection=docs", QdrantStore),
    ("lancedb:./lance?collection=docs", LanceDBStore),
    ("chroma:./chroma?collection=docs", ChromaStore),
])
def test_each_kind_opens_its_store(uri: str, store_type: type[VectorStore]):
    spec = parse_sink_uri(uri, environ={})
    store = open_store(spec)
    assert type(store) is store_type and store.spec == spec


def test_an_unknown_kind_is_refused():
    spec = dataclasses.replace(parse_sink_uri("milvus:./index.db", environ={}), kind="pinecone")
    with pytest.raises(ValueError, match="pinecone"):
        open_store(spec)


@pytest.mark.parametrize("kind", sorted(STORES))
def test_every_registered_store_declares_what_the_parser_and_help_need(kind):
    store = STORES[kind]
    assert store.kind == kind and store.title
    assert store.local_form or store.server_form
    assert f"{kind}:" in sink_help()
    if store.local_form:
        spec = parse_sink_uri(f"{kind}:./x{store.local_suffix}", environ={})
        assert spec.local and type(open_store(spec)) is store
    if store.credential_env:
        assert store.credential_env in sink_help()


def test_the_store_modules_import_no_client_library():
    """A run that syncs Qdrant never imports pymilvus, and one without --sink no client
    and not Beam (the CLI's option checks answer before Beam loads): the registry
    imports every store module, so each defers its client's and its writer's imports."""
    import subprocess
    import sys

    code = ("import sys, ragbeam.transforms.sink.stores, ragbeam.pipeline.settings; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('pymilvus', 'qdrant_client', 'lancedb', 'chromadb', 'milvus_lite', 'apache_beam')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=120)
    assert done.stdout.strip() == "[]"
