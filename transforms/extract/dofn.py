"""Extract stage: ``FetchedFile`` → ``ExtractedDocument`` through Tika.

Per document: archive-bomb guard → isolated extraction (time limit, memory
cap, crash containment) → XHTML parsing → extracted-text limit. Any failure
becomes that document's ``Failure``; the run goes on.
"""

from __future__ import annotations

import posixpath
import time
from typing import Any

import apache_beam as beam
from apache_beam.metrics import Metrics

from ragbeam.transforms import progress
from ragbeam.transforms.extract.backends import EXTRACTOR_KEY, OCR_PAGES_KEY, PDF_FALLBACK
from ragbeam.transforms.extract.document import build_extracted_document
from ragbeam.transforms.extract.guards import (
    DEFAULT_MAX_TEXT_CHARS,
    ArchiveBombError,
    ArchiveLimits,
    TextTooLargeError,
    check_archive,
    check_extracted_text,
)
from ragbeam.transforms.extract.isolation import (
    MIB,
    ExtractionMemoryExceeded,
    ExtractionTimeout,
    ExtractorCrashed,
    IsolatedExtractor,
)
from ragbeam.transforms.types import FAILURES, ExtractedDocument, Failure, FetchedFile, Stage

# Failures worth their own counter (all failures are also in ``extract_failed``).
_COUNTED_FAILURES: dict[type[Exception], str] = {
    ExtractionTimeout: "extract_timeouts",
    ExtractorCrashed: "extract_crashes",
    ExtractionMemoryExceeded: "extract_memory_kills",
    ArchiveBombError: "archive_bombs",
    TextTooLargeError: "text_too_large",
}


class ExtractWithTika(beam.DoFn):
    """One isolated Tika process per DoFn instance, started in ``setup``.

    The DoFn is idempotent: the same bytes give the same document, whichever
    worker or retry attempt extracts them.
    """

    def __init__(
        self,
        backend_spec: tuple[str, dict[str, Any]],
        timeout_s: float,
        memory_limit_bytes: int | None = None,
        max_text_chars: int = DEFAULT_MAX_TEXT_CHARS,
        archive_limits: ArchiveLimits | None = None,
    ) -> None:
        self._backend_spec = backend_spec
        self._timeout_s = timeout_s
        self._memory_limit_bytes = memory_limit_bytes
        self._max_text_chars = max_text_chars
        self._archive_limits = archive_limits or ArchiveLimits()
        self._extractor: IsolatedExtractor | None = None
        self._ok = Metrics.counter("ragbeam", "extract_ok")
        self._failed = Metrics.counter("ragbeam", "extract_failed")
        self._by_failure = {cls: Metrics.counter("ragbeam", name)
                            for cls, name in _COUNTED_FAILURES.items()}
        self._seconds = Metrics.distribution("ragbeam", "extract_ms")
        self._peak_rss = Metrics.gauge("ragbeam", "extract_child_peak_rss_mib")
        # Extraction coverage (run.json "extraction_coverage", pipeline/summary.py).
        self._ocr_documents = Metrics.counter("ragbeam", "ocr_documents")
        self._ocr_pages = Metrics.counter("ragbeam", "ocr_pages")
        self._pdf_fallbacks = Metrics.counter("ragbeam", "extract_pdf_fallbacks")

    def setup(self) -> None:
        self._extractor = IsolatedExtractor(self._backend_spec, timeout_s=self._timeout_s,
                                            memory_limit_bytes=self._memory_limit_bytes)

    def _extract(self, fetched: FetchedFile) -> ExtractedDocument:
        assert self._extractor is not None
        check_archive(fetched.data, self._archive_limits)
        name = posixpath.basename(fetched.source.uri)
        xhtml, metadata = self._extractor.extract(fetched.data, name)
        document = build_extracted_document(fetched, xhtml, metadata)
        check_extracted_text(len(document.raw_text), metadata, self._max_text_chars)
        return document

    def process(self, fetched: FetchedFile):
        started = time.perf_counter()
        try:
            document = self._extract(fetched)
        except Exception as exc:
            self._failed.inc()
            counter = self._by_failure.get(type(exc))
            if counter is not None:
                counter.inc()
            yield beam.pvalue.TaggedOutput(
                FAILURES,
                Failure(fetched.source, Stage.EXTRACT, type(exc).__name__, str(exc),
                        content_hash=fetched.content_hash),
            )
            return
        finally:
            self._report_memory()
        self._seconds.update(int((time.perf_counter() - started) * 1000))
        self._ok.inc()
        progress.tick(progress.EXTRACTED)
        self._count_coverage(document)
        yield document

    def _count_coverage(self, document: ExtractedDocument) -> None:
        ocr_pages = int(document.metadata.get(OCR_PAGES_KEY) or 0)
        if ocr_pages:
            self._ocr_documents.inc()
            self._ocr_pages.inc(ocr_pages)
        if document.metadata.get(EXTRACTOR_KEY) == PDF_FALLBACK:
            self._pdf_fallbacks.inc()

    def _report_memory(self) -> None:
        if self._extractor is not None and self._extractor.stats.peak_rss_bytes:
            self._peak_rss.set(self._extractor.stats.peak_rss_bytes // MIB)

    def teardown(self) -> None:
        if self._extractor is not None:
            self._extractor.close()
            self._extractor = None


def extraction_summary(result: Any) -> dict[str, int]:
    """Extraction counters of a finished run (for run.json), from Beam's metrics.

    Empty when the runner does not report metrics. Counters are summed over
    steps and workers; the peak child RSS is the largest any worker reported.
    """
    from apache_beam.metrics.metric import MetricsFilter

    try:
        metrics = result.metrics().query(MetricsFilter().with_namespace("ragbeam"))
    except Exception:  # a runner without metrics support
        return {}
    names = {name: name.removeprefix("extract_") for name in _COUNTED_FAILURES.values()}
    summary = dict.fromkeys(names.values(), 0)
    for counter in metrics.get("counters", ()):
        name = counter.key.metric.name
        if name in names:
            value = counter.committed if counter.committed is not None else counter.attempted
            summary[names[name]] += int(value or 0)
    peaks = [g.committed or g.attempted for g in metrics.get("gauges", ())
             if g.key.metric.name == "extract_child_peak_rss_mib"]
    summary["child_peak_rss_mib"] = max((int(p.value) for p in peaks if p is not None),
                                        default=0)
    return summary
