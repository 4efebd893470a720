"""Error classes: is a document's failure worth retrying on the next run?

Every failure is recorded by its exception's class name (``errors.error_type``).
That name decides its class, in one table:

* ``transient``: the same bytes may well succeed next time (a time limit, the
  memory cap, a crashed extraction process, a Tika server that is down or
  answers 5xx, a model that did not load, a file that vanished while being
  read). An incremental run retries these automatically.
* ``permanent``: the same bytes through the same code fail the same way
  (corrupt or encrypted files, empty files, unsupported types, files over a
  size limit). An incremental run carries them over without re-processing
  until the file or the config changes, or ``--retry-errors`` asks for it.

A type this table does not name is ``permanent``: an unknown failure is most
likely a deterministic bug, and a new ragbeam version changes the config
fingerprint, which re-processes everything anyway.
"""

from __future__ import annotations

from enum import StrEnum


class ErrorClass(StrEnum):
    TRANSIENT = "transient"
    PERMANENT = "permanent"


TRANSIENT_ERROR_TYPES = frozenset({
    # Extraction child process (transforms/extract/isolation.py).
    "ExtractionTimeout",
    "ExtractionMemoryExceeded",
    "ExtractorCrashed",
    # Tika server (transforms/extract/backends.py) and networks in general.
    "TikaServerUnavailable",
    "TikaServerError",
    "ConnectionError",
    "ConnectionResetError",
    "ConnectionRefusedError",
    "TimeoutError",
    "BrokenPipeError",
    # Embedding model (transforms/embed): could not load or run.
    "EmbeddingFailed",
    # A file that vanished between matching and reading.
    "FileNotFoundError",
    # Memory exhaustion inside a worker.
    "MemoryError",
})


def error_class(error_type: str) -> ErrorClass:
    """The class of a failure, from its ``error_type`` (exception class name)."""
    return ErrorClass.TRANSIENT if error_type in TRANSIENT_ERROR_TYPES else ErrorClass.PERMANENT


def is_transient(error_type: str | None) -> bool:
    return error_type is not None and error_class(error_type) is ErrorClass.TRANSIENT
