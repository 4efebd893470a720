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

A document can also succeed *incompletely*: OCR stopped on some of its pages by a
time limit, or could not run because Tesseract is missing
(``transforms/extract/ocr.py``). Its row is ``ok`` with the text that was read,
and ``metadata.incomplete`` names the transient error type of what is missing
(``OcrTimeLimit``, ``OcrUnavailable``), so a user can filter on it and an incremental run
processes the document again instead of carrying it over (``incomplete_reason``).
A file cut short (``TruncatedFile``) is incomplete too, but permanently so: carried
over like any ok document while its bytes stay.

A type this table does not name is ``permanent``: an unknown failure is most
likely a deterministic bug, and a new ragbeam version changes the config
fingerprint, which re-processes everything anyway.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

# documents.metadata key of an ok document some of whose text is missing because a
# time limit stopped work on it; its value is a transient error type.
INCOMPLETE_KEY = "incomplete"
OCR_TIME_LIMIT = "OcrTimeLimit"
# Pages needed OCR and Tesseract or pdftoppm was missing: the next run retries them
# (transforms/extract/ocr.py), so installing Tesseract later reads them.
OCR_UNAVAILABLE = "OcrUnavailable"


# The error type of a file ragbeam cannot index by design (an audio file, a program):
# permanent, and its documents row is ``unsupported``, not ``error``.
UNSUPPORTED_ERROR_TYPE = "UnsupportedDocumentError"


# An ok document whose file is cut short (a ZIP-based document without its end,
# ``transforms/extract/truncation.py``): what was read is kept. Permanent, unlike the
# two above: the same bytes read again give the same part, so it is not retried.
TRUNCATED_FILE = "TruncatedFile"


class ErrorClass(StrEnum):
    TRANSIENT = "transient"
    PERMANENT = "permanent"


TRANSIENT_ERROR_TYPES = frozenset({
    # Extraction child process (transforms/extract/isolation.py).
    "ExtractionTimeout",
    "ExtractionMemoryExceeded",
    "ExtractorCrashed",
    # OCR of some pages stopped by a time limit (transforms/extract/ocr.py): an ok
    # document marked INCOMPLETE_KEY, whose next run reads them again.
    OCR_TIME_LIMIT,
    OCR_UNAVAILABLE,
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


def incomplete_reason(metadata: Mapping[str, str] | None) -> str | None:
    """The transient error type an ``ok`` document's text is incomplete by, or None."""
    reason = (metadata or {}).get(INCOMPLETE_KEY)
    return reason if is_transient(reason) else None
