"""``ExtractionSettings``: everything besides a file's bytes that decides how it is
extracted and what comes out, as one frozen, hashable value.

The Extract stage (``dofn.py``) extracts with ``settings.extract`` (in a pool
thread) and ``settings.cleaned`` (in its own thread), and gets its pool with
``settings.acquire_pool`` (the pool's key is the value itself); ``ragbeam run``'s
early start (``early.py``, ``pipeline/early_start.py``) does the same with its own
value, and the stage takes an early result only when the two values are equal. A
parameter added here is therefore part of the pool's key and of that equality
without anyone listing it again, and a parameter not added here cannot reach the
extraction.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ragbeam.transforms.clean.document import CleanOptions
from ragbeam.transforms.extract.document import clean_extracted, extract_fetched
from ragbeam.transforms.extract.guards import DEFAULT_MAX_TEXT_CHARS, ArchiveLimits
from ragbeam.transforms.extract.isolation import (
    ExtractionPool,
    IsolatedExtractor,
    acquire_pool,
)
from ragbeam.transforms.types import CleanedExtraction, ExtractedDocument, FetchedFile

BackendSpec = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class ExtractionSettings:
    """How the Extract stage extracts (see the module's doc).

    ``backend``: ``("embedded", {...})`` or ``("server", {...})``, kept as canonical
    JSON so that the value stays hashable (``backend_spec`` gives it back).
    ``processes``: children in the pool; with two or more they also parse the XHTML
    and clean (``document.extract_fetched``), with one this process does.
    ``clean``: how documents are cleaned, wherever that runs.
    """

    backend: str
    timeout_s: float
    processes: int
    memory_limit_bytes: int | None = None
    max_text_chars: int = DEFAULT_MAX_TEXT_CHARS
    clean: CleanOptions = field(default_factory=CleanOptions)
    archive_limits: ArchiveLimits = field(default_factory=ArchiveLimits)

    def __post_init__(self) -> None:
        if self.processes < 1:
            raise ValueError("an extraction pool needs at least one process")

    @classmethod
    def of(cls, backend_spec: BackendSpec, *, timeout_s: float, processes: int,
           memory_limit_bytes: int | None = None, max_text_chars: int = DEFAULT_MAX_TEXT_CHARS,
           clean: CleanOptions | None = None,
           archive_limits: ArchiveLimits | None = None) -> ExtractionSettings:
        return cls(json.dumps(backend_spec, sort_keys=True), timeout_s, processes,
                   memory_limit_bytes, max_text_chars, clean or CleanOptions(),
                   archive_limits or ArchiveLimits())

    @property
    def backend_spec(self) -> BackendSpec:
        kind, options = json.loads(self.backend)
        return kind, options

    @property
    def children_clean(self) -> bool:
        """Two or more children parse and clean themselves: this process's one Python
        thread would otherwise be the bottleneck. One child is the bottleneck itself:
        this process, idle while it extracts, parses and cleans (``dofn.py``)."""
        return self.processes >= 2

    def acquire_pool(self) -> tuple[ExtractionSettings, ExtractionPool]:
        """This process's pool for these settings and its key, this value itself
        (``isolation.release_pool`` when done): users with equal settings share one
        pool, users with any setting different never do."""
        return self, acquire_pool(self, lambda: ExtractionPool(
            self.backend_spec, self.processes, timeout_s=self.timeout_s,
            memory_limit_bytes=self.memory_limit_bytes))

    def extract(self, fetched: FetchedFile, extractor: IsolatedExtractor,
                ocr_workers: int | None = None) -> ExtractedDocument | CleanedExtraction:
        """One file through one child of the pool (in a pool thread, or the early
        start's), as the Extract stage does it: cleaned already when the children
        clean, else for ``cleaned`` to finish. Pages left to OCR are read
        ``ocr_workers`` at a time (``extract_fetched``)."""
        return extract_fetched(fetched, extractor, in_child=self.children_clean,
                               max_text_chars=self.max_text_chars, clean=self.clean,
                               archive_limits=self.archive_limits, ocr_workers=ocr_workers)

    def cleaned(self, extracted: ExtractedDocument | CleanedExtraction) -> CleanedExtraction:
        """What ``extract`` gave, cleaned: the Extract stage's one output type.

        A child's cleaned answer as it is; anything else (one child, or pages read by
        OCR here) is cleaned now, in the calling thread: the Extract stage calls this
        as it hands a document on, while the pool's children work on the next ones.
        """
        if isinstance(extracted, CleanedExtraction):
            return extracted
        return clean_extracted(extracted, self.clean)
