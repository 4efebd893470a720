"""One file outside Beam, guarded as ``ragbeam run`` guards it.

The Python API (``ragbeam.chunk_file``), evaluation and benchmarks read files one
at a time. They take this path, so a hostile file is handled as in a run: the
archive guard, an isolated Tika child with the time limit and the memory cap
(``isolation.py``), the extracted-text limit, then cleaning (``clean_or_refuse``,
the Clean stage's rule). Errors are the stages' own (``ExtractionTimeout``,
``ArchiveBombError``, ``EmptyDocumentError``…), raised as they are.

    extract = ExtractOptions()  # ragbeam.pipeline.config: the run's defaults
    with SingleFileExtractor(extract.backend_spec, extract.timeout_s,
                             extract.memory_limit_bytes, extract.max_text_chars) as files:
        doc = files.extract_and_clean(read_local_file("report.pdf"), CleanOptions())

    # or this process's shared one, with the run's options (``shared_extractor``):
    doc = ExtractOptions().file_extractor().extract_and_clean(fetched, CleanOptions())
"""

from __future__ import annotations

import atexit
import os
import threading
from typing import Any

from ragbeam.transforms.clean.document import CleanOptions, clean_or_refuse
from ragbeam.transforms.extract.document import extract_fetched
from ragbeam.transforms.extract.guards import DEFAULT_MAX_TEXT_CHARS, ArchiveLimits
from ragbeam.transforms.extract.isolation import IsolatedExtractor
from ragbeam.transforms.ids import canonical_uri, doc_id_for, sha256_hex
from ragbeam.transforms.types import Document, ExtractedDocument, FetchedFile, SourceFile


def read_local_file(path: str | os.PathLike[str]) -> FetchedFile:
    """A local file's bytes, hashed; its id is that of its absolute path."""
    uri = canonical_uri(os.fspath(path))
    with open(uri, "rb") as f:
        data = f.read()
    return FetchedFile(SourceFile(uri, doc_id_for(uri), len(data)), data, sha256_hex(data))


class SingleFileExtractor:
    """Files one at a time through one isolated Tika child (started on first use)."""

    def __init__(self, backend_spec: tuple[str, dict[str, Any]], timeout_s: float,
                 memory_limit_bytes: int | None = None,
                 max_text_chars: int = DEFAULT_MAX_TEXT_CHARS,
                 archive_limits: ArchiveLimits | None = None) -> None:
        self._extractor = IsolatedExtractor(backend_spec, timeout_s=timeout_s,
                                            memory_limit_bytes=memory_limit_bytes)
        self._max_text_chars = max_text_chars
        self._archive_limits = archive_limits or ArchiveLimits()
        self._lock = threading.Lock()  # one child: one file at a time

    def extract(self, fetched: FetchedFile) -> ExtractedDocument:
        """The Extract stage's work: guards, Tika in the child, XHTML parsing here."""
        with self._lock:
            extracted = extract_fetched(fetched, self._extractor, in_child=False,
                                        max_text_chars=self._max_text_chars, clean=None,
                                        archive_limits=self._archive_limits)
        assert isinstance(extracted, ExtractedDocument)  # in_child=False: never pre-cleaned
        return extracted

    def extract_and_clean(self, fetched: FetchedFile, clean: CleanOptions) -> Document:
        """Extract, then the Clean stage's work (a document left empty is refused)."""
        return clean_or_refuse(self.extract(fetched), clean)

    def close(self) -> None:
        self._extractor.close()

    def __enter__(self) -> SingleFileExtractor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_SHARED: dict[str, SingleFileExtractor] = {}
_SHARED_LOCK = threading.Lock()


def shared_extractor(backend_spec: tuple[str, dict[str, Any]], timeout_s: float,
                     memory_limit_bytes: int | None = None,
                     max_text_chars: int = DEFAULT_MAX_TEXT_CHARS,
                     archive_limits: ArchiveLimits | None = None) -> SingleFileExtractor:
    """One ``SingleFileExtractor`` per process and settings, closed at exit: callers
    that read a file now and then (the Python API, evaluation) start Tika once."""
    # The key is the constructor's arguments themselves, so no setting can be left out.
    arguments = (backend_spec, timeout_s, memory_limit_bytes, max_text_chars,
                 archive_limits or ArchiveLimits())
    key = repr(arguments)
    with _SHARED_LOCK:
        if key not in _SHARED:
            _SHARED[key] = SingleFileExtractor(*arguments)
            atexit.register(_SHARED[key].close)
        return _SHARED[key]
