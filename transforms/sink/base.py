"""One interface for every vector store ragbeam syncs.

A store is one module (``milvus.py``, ``qdrant.py``, ``lancedb.py``, ``chroma.py``)
with one ``VectorStore`` subclass that declares what the rest of ragbeam needs to
know without importing its client library: its URI forms (``kind``,
``local_form``, ``server_form``), its own options, where its credential comes
from (``credential_env``), whether it keeps sparse vectors; and implements the
steps on one collection: ``describe`` (what an existing collection holds, checked
once for every store by ``check_compatible``), ``create_collection``, listing and
deleting ids, counting, and a marker in the collection's own metadata that names
the run whose chunks the store holds (``sync.py``). Upserts go through a Beam
writer (``write_config``: a Beam ``VectorDatabaseWriteConfig``, Beam's own where
Beam has one). The columns a store keeps are ``columns.stored_columns()``, from
the chunks row type. ``stores.py`` maps kinds to stores, as
``chunk/strategies.py`` maps names to chunkers.

Adding a store: its module here, its line in ``stores.py STORES``, its extra in
``pyproject.toml``, its section in ``docs/sinks.md`` and its reader in
``tests/transforms/sink/store_readers.py`` (the sink suite then runs on it).

A store is opened for one step and closed after it (``with open_store(spec) as
store``): local modes (Milvus Lite, Qdrant's, LanceDB, Chroma) lock their files
per client or process.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from ragbeam.transforms.endpoints import endpoint_of, not_transient
from ragbeam.transforms.sink.spec import SinkSpec, redact_text

# Collection-level metadata key holding the sync marker.
MARKER_KEY = "ragbeam_synced_run"
# The dense and the sparse (--sparse) vector's names in every store.
DENSE_VECTOR = "embedding"
SPARSE_VECTOR = "sparse"
# Own steps (prepare, list, delete, finish) retry this often, backing off from RETRY_DELAY_S.
RETRIES = 3
RETRY_DELAY_S = 1.0

T = TypeVar("T")
_LOG = logging.getLogger(__name__)


class SinkError(RuntimeError):
    """A sink step failed for good (after retries); the message is redacted."""


class SinkMismatch(SinkError):
    """A store that cannot take this run's vectors (another dimension, another schema):
    not retried."""


def retrying(spec: SinkSpec, what: str, operation: Callable[[], T],
             retries: int = RETRIES, delay_s: float = RETRY_DELAY_S) -> T:
    """``operation()``, retried with exponential backoff; then a ``SinkError``.

    Not Beam's ``retry_with_backoff``: that retries every exception of the given
    types, and a ``SinkMismatch`` must fail at once.
    """
    for attempt in range(retries + 1):
        try:
            return operation()
        except SinkMismatch:
            raise
        except Exception as exc:
            message = redact_text(f"{type(exc).__name__}: {exc}", spec.secrets())
            if not_transient(exc):  # a refused connection, an unknown host: no blip
                raise SinkError(f"sink {spec.display}: {what} failed: {message}") from None
            if attempt == retries:
                raise SinkError(f"sink {spec.display}: {what} failed after {retries + 1} "
                                f"attempts: {message}") from None
            wait = delay_s * 2 ** attempt
            _LOG.warning("sink %s: %s failed (attempt %d of %d, retrying in %.0f s): %s",
                         spec.display, what, attempt + 1, retries + 1, wait, message)
            time.sleep(wait)
    raise AssertionError("unreachable")


@dataclass(frozen=True)
class CollectionShape:
    """What an existing collection holds, as far as a run cares (``describe``)."""

    made_by_ragbeam: bool  # it has ragbeam's chunk id and dense vector
    dimension: int
    sparse: bool
    # Its dense vector holds several vectors a chunk, scored by the closest (max-sim):
    # both of ``--text-vector``'s.
    multivector: bool = False
    # Its sparse vector has an IDF of the store's own (Qdrant's ``Modifier.IDF``, what
    # ragbeam made before the query carried the IDF: sparse scheme /4): the IDF would
    # count twice.
    store_idf: bool = False


def check_compatible(spec: SinkSpec, shape: CollectionShape, dimension: int,
                     sparse: bool, advice: str = "use another collection",
                     multivector: bool = False) -> None:
    """The one check of an existing collection against this run's vectors, for every
    store: ``SinkMismatch`` (exit 2, not retried) unless it takes them. ``advice``
    ends the message (a store without aliases says why it cannot switch one)."""
    name = spec.collection
    if not shape.made_by_ragbeam:
        raise SinkMismatch(f"sink {spec.display}: collection {name!r} was not made by ragbeam "
                           f"(no chunk id or no {DENSE_VECTOR!r} vector)")
    if shape.dimension != dimension:
        raise SinkMismatch(f"sink {spec.display}: collection {name!r} holds "
                           f"{shape.dimension}-dimensional vectors, this run writes "
                           f"{dimension}: {advice}")
    if shape.sparse != sparse:
        raise SinkMismatch(f"sink {spec.display}: collection {name!r} "
                           f"{'has' if shape.sparse else 'has no'} sparse vectors, this "
                           f"run writes {'some' if sparse else 'none'} (--sparse): {advice}")
    if sparse and shape.store_idf:
        raise SinkMismatch(f"sink {spec.display}: collection {name!r} weighs sparse scores "
                           "by an IDF of its own; ragbeam's query carries BM25's IDF (the "
                           f"run's terms table): {advice}")
    if shape.multivector != multivector:
        raise SinkMismatch(f"sink {spec.display}: collection {name!r} holds "
                           f"{'two vectors' if shape.multivector else 'one vector'} a chunk, "
                           f"this run writes {'two' if multivector else 'one'} "
                           f"(--text-vector): {advice}")


class VectorStore(ABC):
    """One collection of one store. Subclasses declare the class attributes below
    (read by ``uri.py`` and ``stores.py`` without connecting) and implement the
    abstract steps."""

    # --sink KIND:... / KIND://HOST:PORT (and KIND+https://)
    kind: ClassVar[str]
    title: ClassVar[str]  # "Milvus"
    # The local form's path, as help shows it ("PATH.db", "DIR"), its required ending
    # and what it is; None: no local form.
    local_form: ClassVar[str | None] = None
    local_suffix: ClassVar[str] = ""
    local_title: ClassVar[str] = ""
    # The server form's address as help shows it ("HOST:19530"); None: no server form.
    server_form: ClassVar[str | None] = None
    # The store's own ?options, beyond collection and batch_size (and credential_env,
    # credential_file for a store that takes a credential).
    options: ClassVar[frozenset[str]] = frozenset()
    # The environment variable its credential is read from by default; None: the
    # store takes no credential.
    credential_env: ClassVar[str | None] = None
    # A user and password in the URI make one token "user:password" (Milvus); else
    # the password alone is the credential (an API key).
    user_in_token: ClassVar[bool] = False
    # Keeps the chunks' sparse vectors (--sparse); a store that cannot syncs the
    # dense vectors and the run says so once (sync.py).
    keeps_sparse: ClassVar[bool] = True
    # Keeps both vectors of ``--text-vector`` as one multivector scored by the closer
    # one (max-sim); a store that cannot keeps ``embedding`` alone and the run says so
    # once (sync.py).
    keeps_multivector: ClassVar[bool] = False
    @classmethod
    def server_address(cls, spec: SinkSpec) -> tuple[str, int] | None:
        """The host and port the server form talks to (the port of ``server_form``
        where the URI names none); None for the local form."""
        if spec.local or cls.server_form is None:
            return None
        return endpoint_of(spec.target, int(cls.server_form.rsplit(":", 1)[1]))

    # Has aliases (Qdrant, Milvus): the collection a run names is an alias of a physical
    # collection, and new vectors are built beside it and switched to (``sync.py``).
    # Without (LanceDB, Chroma): a run whose vectors the collection cannot take is
    # refused (exit 2), unless the store ``replaces_tables`` (LanceDB).
    keeps_aliases: ClassVar[bool] = False
    # No aliases, but a complete collection can take another's name (LanceDB: its
    # table folders are renamed, ``switch_alias``): a run whose vectors the collection
    # cannot take fills a new one beside it and then puts it in its place.
    replaces_tables: ClassVar[bool] = False

    def __init__(self, spec: SinkSpec) -> None:
        self.spec = spec

    @classmethod
    def check_options(cls, options: Mapping[str, str], collection: str) -> str | None:
        """Why these option values (or this collection name) cannot work, if they
        cannot (``uri.py`` refuses the URI with it)."""
        return None

    def ensure_collection(self, dimension: int, sparse: bool = False,
                          multivector: bool = False) -> bool:
        """Create the collection if missing (True), or check that it takes vectors of
        ``dimension``, has a sparse vector field exactly when ``sparse`` and a
        multivector exactly when ``multivector`` (else ``SinkMismatch``)."""
        shape = self.describe()
        if shape is None:
            self.create_collection(dimension, sparse, multivector)
            return True
        check_compatible(self.spec, shape, dimension, sparse, advice=self.mismatch_advice(),
                         multivector=multivector)
        return False

    def mismatch_advice(self) -> str:
        """What a refused run's message advises (``check_compatible``)."""
        if self.keeps_aliases or self.replaces_tables:
            return "use another collection"
        return (f"{self.title} has no aliases, so ragbeam cannot build the new vectors "
                "beside this collection and switch to them: sync into another collection "
                "(?collection=NEW), or remove this one and the next run creates it")

    def on(self, collection: str) -> VectorStore:
        """This store's client, on another collection of the same store (a local mode
        locks its files to one client: a second client could not open them)."""
        other = copy.copy(self)
        other.spec = dataclasses.replace(self.spec, collection=collection)
        return other

    def aliased(self) -> str | None:
        """The physical collection the collection's name is an alias of; None when the
        name is no alias (a collection of its own, or nothing)."""
        return None

    def switch_alias(self, target: str, old: str | None) -> float:
        """Point the collection's name at ``target`` (a complete collection), then drop
        ``old``. Atomic when the name is an alias already; when it is a collection of
        its own (made before ragbeam made aliases), that collection is dropped first
        and the name is missing until the alias exists: returns that window in
        seconds (0.0 when atomic). Safe to repeat after a failure part way."""
        raise NotImplementedError(f"{self.title} has no aliases")

    @abstractmethod
    def describe(self) -> CollectionShape | None:
        """The collection's shape; None when there is no such collection."""

    @abstractmethod
    def create_collection(self, dimension: int, sparse: bool, multivector: bool = False
                          ) -> None: ...

    def __enter__(self) -> VectorStore:
        self.connect()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @abstractmethod
    def connect(self) -> None: ...

    @abstractmethod
    def close(self) -> None: ...

    @abstractmethod
    def read_marker(self) -> str | None: ...

    @abstractmethod
    def write_marker(self, value: str) -> None: ...

    @abstractmethod
    def stored_ids(self) -> list[str]:
        """Every chunk id the collection holds."""

    @abstractmethod
    def delete(self, chunk_ids: list[str]) -> None:
        """Delete these chunk ids (ids it does not hold are ignored)."""

    @abstractmethod
    def count(self) -> int: ...

    @staticmethod
    def item_id(chunk_id: str) -> str:
        """The id the store keeps a chunk under."""
        return chunk_id

    @staticmethod
    def chunk_id_of(item_id: Any) -> str:
        return str(item_id)

    @abstractmethod
    def write_config(self, dimension: int, sparse: bool = False
                     ) -> Any:  # a Beam VectorDatabaseWriteConfig
        """Beam's writer configuration for upserting ``EmbeddableItem``s (with their
        sparse vectors when ``sparse``)."""
