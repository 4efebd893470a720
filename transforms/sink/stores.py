"""The registry of vector stores: every kind ``--sink`` accepts, and the class that
implements it. Filled here, in one place, as ``chunk/strategies.py`` fills
``STRATEGIES``; a new store is its module plus one line in ``STORES``.

The URI parser (``uri.py``: schemes, options, credential variables) and the help
text of ``--sink`` (``pipeline/settings.py``) read the stores' declarations from
here. Importing a store's module imports no client library (each imports its
client, and Beam's writer for it, only when it connects or writes).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from ragbeam.transforms.sink.base import VectorStore
from ragbeam.transforms.sink.chroma import ChromaStore
from ragbeam.transforms.sink.lancedb import LanceDBStore
from ragbeam.transforms.sink.milvus import MilvusStore
from ragbeam.transforms.sink.qdrant import QdrantStore
from ragbeam.transforms.sink.spec import SinkSpec

STORES: Mapping[str, type[VectorStore]] = MappingProxyType({
    "milvus": MilvusStore,
    "qdrant": QdrantStore,
    "lancedb": LanceDBStore,
    "chroma": ChromaStore,
})


def store_type(kind: str) -> type[VectorStore]:
    try:
        return STORES[kind]
    except KeyError:
        raise ValueError(f"unknown store kind {kind!r} (known: {', '.join(STORES)})") from None


def open_store(spec: SinkSpec) -> VectorStore:
    """The store ``spec`` names, not yet connected (``with open_store(spec) as store``)."""
    return store_type(spec.kind)(spec)


def uri_forms(store: type[VectorStore]) -> list[str]:
    """The ``--sink`` forms of one store, as help and errors show them."""
    forms = [f"{store.kind}:{store.local_form}"] if store.local_form else []
    if store.server_form:
        forms.append(f"{store.kind}://{store.server_form}")
    return forms


def sink_help() -> str:
    """``--sink``'s help: every store's forms and credential variables."""
    forms = ", ".join(form for store in STORES.values() for form in uri_forms(store))
    variables = " / ".join(s.credential_env for s in STORES.values() if s.credential_env)
    return (f"{forms}; ?collection=NAME. Credentials from {variables}, "
            "?credential_env=VAR or ?credential_file=PATH")
