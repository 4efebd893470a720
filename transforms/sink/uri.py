"""``--sink URI``: which vector store, where, which collection, and its credential (pure).

The forms, each store's from its module's declarations (``stores.py STORES``;
``?collection=NAME`` everywhere, default ``ragbeam``)::

    milvus:PATH.db                      Milvus Lite, embedded, one file (tests, notebooks)
    milvus://HOST:19530                 a Milvus server over HTTP; milvus+https:// for TLS
    qdrant:DIR                          Qdrant local mode, one folder (tests, notebooks)
    qdrant://HOST:6333                  a Qdrant server (REST); qdrant+https:// for TLS,
                                        &grpc=true to use its gRPC port (6334)
    lancedb:DIR                         LanceDB, embedded, one folder
    chroma:DIR                          Chroma's persistent local client, one folder

Credentials (a Milvus token ``user:password`` or API key, a Qdrant API key) never
need to be on the command line: they are read from the environment (the store's
``credential_env``: ``MILVUS_TOKEN``, ``QDRANT_API_KEY``; or the variable named by
``credential_env=NAME``) or from a file (``credential_file=PATH``, any Beam
filesystem). A password in the URI itself (``milvus://user:pw@host``) is accepted
but discouraged. Wherever a sink is shown (run.json, logs, errors, step names) it
is ``SinkSpec.display``: the URI with its password replaced by ``***``
(``spec.py``); the credential's ``repr`` names only where it came from.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from urllib.parse import parse_qsl, unquote, urlsplit

from ragbeam.transforms import storage
from ragbeam.transforms.sink.base import VectorStore
from ragbeam.transforms.sink.spec import (
    DEFAULT_COLLECTION,
    REDACTED,
    Secret,
    SinkSpec,
    redact_text,
    redact_uri,
    redacted_logs,
)
from ragbeam.transforms.sink.stores import STORES, uri_forms

# Re-exported: what the rest of ragbeam imports from here since before spec.py.
__all__ = ["DEFAULT_COLLECTION", "REDACTED", "Secret", "SinkSpec", "kinds", "parse_sink_uri",
           "redact_text", "redact_uri", "redacted_logs"]

# Every store takes these; one that takes a credential, the two credential options too.
_COMMON_OPTIONS = frozenset({"collection", "batch_size"})
_CREDENTIAL_OPTIONS = frozenset({"credential_env", "credential_file"})
_COLLECTION_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,254}$")


def kinds() -> tuple[str, ...]:
    return tuple(STORES)


def known_options(store: type[VectorStore]) -> frozenset[str]:
    return (_COMMON_OPTIONS | store.options
            | (_CREDENTIAL_OPTIONS if store.credential_env else frozenset()))


def _read_credential_file(path: str) -> str:
    try:
        return storage.read_bytes(path).decode("utf-8").strip()
    except Exception as exc:
        raise ValueError(f"credential_file {path!r} cannot be read: {type(exc).__name__}"
                         ) from None


def _credential(store: type[VectorStore], password: str | None, options: Mapping[str, str],
                environ: Mapping[str, str]) -> Secret | None:
    if password:
        return Secret(password, "uri")
    if "credential_file" in options:
        return Secret(_read_credential_file(options["credential_file"]),
                      f"file:{options['credential_file']}")
    name = options.get("credential_env")
    if name is not None:
        if not environ.get(name):
            raise ValueError(f"credential_env={name}: that environment variable is not set")
        return Secret(environ[name], f"env:{name}")
    default = store.credential_env
    return Secret(environ[default], f"env:{default}") if default and environ.get(default) \
        else None


def parse_sink_uri(uri: str, environ: Mapping[str, str] | None = None) -> SinkSpec:
    """``--sink URI`` → ``SinkSpec``; ``ValueError`` with a reason for anything unknown."""
    environ = os.environ if environ is None else environ
    shown = redact_uri(uri)
    parts = urlsplit(uri)
    scheme = parts.scheme.lower()
    kind, _, transport = scheme.partition("+")
    store = STORES.get(kind)
    if store is None or transport not in ("", "http", "https"):
        forms = [form for s in STORES.values() for form in uri_forms(s)]
        raise ValueError(f"--sink {shown!r}: unknown store; use {', '.join(forms[:-1])} "
                         f"or {forms[-1]}")
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    options = dict(pairs)
    if len(options) != len(pairs):
        raise ValueError(f"--sink {shown!r}: an option is given twice")
    known = known_options(store)
    unknown = sorted(set(options) - known)
    if unknown:
        hint = (" (credentials go in an environment variable or a file: credential_env=NAME, "
                "credential_file=PATH)"
                if store.credential_env
                and any(k in ("token", "api_key", "password", "key") for k in unknown) else "")
        raise ValueError(f"--sink {shown!r}: unknown option(s) {', '.join(unknown)}; known: "
                         f"{', '.join(sorted(known))}{hint}")
    collection = options.get("collection", DEFAULT_COLLECTION)
    if not _COLLECTION_NAME.match(collection):
        raise ValueError(f"--sink {shown!r}: collection {collection!r} must be letters, digits "
                         "and underscores, not starting with a digit")
    try:
        batch_size = int(options.get("batch_size", SinkSpec.batch_size))
    except ValueError:
        batch_size = 0
    if batch_size <= 0:
        raise ValueError(f"--sink {shown!r}: batch_size must be a positive integer")
    if (why := store.check_options(options, collection)) is not None:
        raise ValueError(f"--sink {shown!r}: {why}")
    local = not parts.netloc
    if local:
        if store.local_form is None:
            raise ValueError(f"--sink {shown!r}: {store.title} needs a host: "
                             f"{', '.join(uri_forms(store))}")
        if transport:
            raise ValueError(f"--sink {shown!r}: {scheme} needs a host (HOST:PORT)")
        target = unquote(parts.path)
        if not target:
            raise ValueError(f"--sink {shown!r}: no path for the local store")
        if store.local_suffix and not target.endswith(store.local_suffix):
            raise ValueError(f"--sink {shown!r}: a {store.local_title.split(':')[0]} file must "
                             f"end in {store.local_suffix}")
        password = None
    else:
        if store.server_form is None:
            raise ValueError(f"--sink {shown!r}: ragbeam syncs {store.title} as an embedded "
                             f"store only: {', '.join(uri_forms(store))}")
        if parts.path not in ("", "/"):
            raise ValueError(f"--sink {shown!r}: the collection goes in ?collection=NAME, "
                             "not in the path")
        host = parts.netloc.rpartition("@")[2]
        target = f"{transport or 'http'}://{host}"
        password = unquote(parts.password) if parts.password else None
        if store.user_in_token and password is not None and parts.username:
            password = f"{unquote(parts.username)}:{password}"  # Milvus token: user:password
    own = tuple(sorted((name, value) for name, value in options.items()
                       if name in store.options))
    return SinkSpec(
        kind=kind, target=target, local=local, collection=collection, options=own,
        batch_size=batch_size, display=shown,
        credential=_credential(store, password, options, environ),
    )
