"""One interface for every vector store ragbeam syncs (Milvus, Qdrant).

Upserts go through Beam's own writers (``apache_beam.ml.rag.ingestion``): each
store gives its ``write_config`` (a Beam ``VectorDatabaseWriteConfig``) and the
id it stores a chunk under. What those writers lack, the store implements here:
creating the collection, listing and deleting ids, counting, and a marker in the
collection's own metadata that names the run whose chunks the store holds (see
``sync.py``).

A store is opened for one step and closed after it (``with open_store(spec) as
store``, ``stores.py``): local modes (Milvus Lite, Qdrant's) lock their files per
client.
"""

from __future__ import annotations

import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, TypeVar

from ragbeam.transforms.sink.uri import SinkSpec, redact_text

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
            if attempt == retries:
                raise SinkError(f"sink {spec.display}: {what} failed after {retries + 1} "
                                f"attempts: {message}") from None
            wait = delay_s * 2 ** attempt
            _LOG.warning("sink %s: %s failed (attempt %d of %d, retrying in %.0f s): %s",
                         spec.display, what, attempt + 1, retries + 1, wait, message)
            time.sleep(wait)
    raise AssertionError("unreachable")


class VectorStore(ABC):
    """One collection of one store."""

    def __init__(self, spec: SinkSpec) -> None:
        self.spec = spec

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
    def ensure_collection(self, dimension: int, sparse: bool = False) -> bool:
        """Create the collection if missing (True), or check that it takes vectors of
        ``dimension`` and has a sparse vector field exactly when ``sparse`` (else
        ``SinkMismatch``)."""

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
