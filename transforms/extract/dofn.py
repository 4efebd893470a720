"""Extract stage: ``FetchedFile`` → ``CleanedExtraction`` through Tika.

Per document: archive-bomb guard → isolated extraction (time limit, memory
cap, crash containment) → XHTML parsing → extracted-text limit → cleaning
(``clean_or_refuse``). An extraction failure becomes that document's
``Failure``; a cleaning refusal travels in the ``CleanedExtraction``, for the
Clean stage to report; the run goes on.

The output is one type whatever the pool; where the Python work runs depends on
it (``ExtractionSettings.extract`` and ``.cleaned``). With two or more children,
they also parse the XHTML and clean the document (``DocumentFromTika``): that
work then runs in parallel, and the child answers with the cleaned text instead
of the XHTML; left in this process it would make its one Python thread the
bottleneck. With a single child the child is the bottleneck and this process
has time to spare while it extracts: parsing happens in the pool thread and
cleaning in this stage's thread as it hands the document on, as they would
without a pool (measured on the large-document corpus with one child: 14.4 s of
CPU in the child with parsing and cleaning there, 12.0 s without, against 11.7 s
for Tika alone in a plain loop).

Scanned pages: the child extracts the text layer and names the pages that need
OCR; the pool thread that waits for the document then has them read, as many
at a time as the pool has children (``ocr.py``: one ``pdftoppm`` and one
``tesseract`` per page, each under a CPU-time limit), and parses the document
here; this stage's thread cleans it.

Concurrency: every ``ExtractWithTika`` instance of a process shares one
``ExtractionPool`` of ``processes`` children (``isolation.py``), however many
threads the runner gives the stage. An instance does not wait for one
document before taking the next: it keeps up to ``processes + 1`` of its
documents in flight and hands on one finished document (whichever finished
first) for each new one, the rest at the end of the bundle, so every child has
a document while the runner's thread works on a finished one downstream
(cleaning, chunking, writing, which Beam fuses into the same thread). With one
thread per process (the local default runner) that is what spreads the work
over the machine's cores.
"""

from __future__ import annotations

import time
from collections import deque
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass
from typing import Any

import apache_beam as beam
from apache_beam.metrics import Metrics
from apache_beam.utils.windowed_value import WindowedValue

from ragbeam.transforms import progress
from ragbeam.transforms.errors import INCOMPLETE_KEY, OCR_TIME_LIMIT, OCR_UNAVAILABLE
from ragbeam.transforms.extract.backends import EXTRACTOR_KEY, PDF_FALLBACK
from ragbeam.transforms.extract.counters import COUNTED_FAILURES, EARLY_COUNTER
from ragbeam.transforms.extract.early import EarlyExtraction, stage_started
from ragbeam.transforms.extract.isolation import (
    MIB,
    ExtractionAborted,
    ExtractionPool,
    IsolatedExtractor,
    release_pool,
)
from ragbeam.transforms.extract.ocr import OCR_PAGES_KEY
from ragbeam.transforms.extract.settings import ExtractionSettings
from ragbeam.transforms.types import (
    FAILURES,
    CleanedExtraction,
    ExtractedDocument,
    Failure,
    FetchedFile,
    Stage,
)


@dataclass
class _InFlight:
    fetched: FetchedFile
    future: Future[tuple[ExtractedDocument | CleanedExtraction, float]]
    window: Any
    timestamp: Any


class ExtractWithTika(beam.DoFn):
    """Documents through a per-process pool of isolated Tika children, several at once,
    out cleaned: ``FetchedFile`` → ``CleanedExtraction`` (or a ``Failure``).

    ``settings``: the pool and everything else that decides a document
    (``settings.py``). The DoFn is idempotent: the same bytes give the same
    document, whichever worker, child or retry attempt extracts them.
    """

    def __init__(self, settings: ExtractionSettings, start_at_setup: bool = True) -> None:
        self._settings = settings
        self._start_at_setup = start_at_setup
        self._pool: ExtractionPool | None = None
        self._pool_started = False
        self._early: EarlyExtraction | None = None
        self._in_flight: deque[_InFlight] = deque()
        self._ok = Metrics.counter("ragbeam", "extract_ok")
        self._failed = Metrics.counter("ragbeam", "extract_failed")
        self._by_failure = {cls: Metrics.counter("ragbeam", name)
                            for cls, name in COUNTED_FAILURES.items()}
        self._seconds = Metrics.distribution("ragbeam", "extract_ms")
        self._peak_rss = Metrics.gauge("ragbeam", "extract_child_peak_rss_mib")
        # Extraction coverage (run.json "extraction_coverage", pipeline/summary.py).
        self._ocr_documents = Metrics.counter("ragbeam", "ocr_documents")
        self._ocr_pages = Metrics.counter("ragbeam", "ocr_pages")
        self._pdf_fallbacks = Metrics.counter("ragbeam", "extract_pdf_fallbacks")
        # Documents whose OCR a time limit stopped on some page (ok, marked incomplete).
        self._ocr_incomplete = Metrics.counter("ragbeam", "ocr_incomplete_documents")
        # Documents whose extraction began before the pipeline did (early.py).
        self._started_early = Metrics.counter("ragbeam", EARLY_COUNTER)
        # When this instance handed on its first document (Unix ms; the minimum over
        # instances is the run's first): start-up as a user sees it (run.json).
        self._first_output = Metrics.distribution("ragbeam", "extract_first_output_unix_ms")
        self._has_output = False

    def setup(self) -> None:
        # An incremental run may extract nothing: its children start with the first
        # document, so an unchanged re-run never boots them (re-run 0.64 -> 0.46 s on the
        # shared corpus, 2 cores, benchmarks/incremental.py).
        _, self._pool = self._settings.acquire_pool()
        if self._start_at_setup:
            self._pool.start()
        self._pool_started = self._start_at_setup
        self._in_flight = deque()
        # `ragbeam run` may have started on the files before Beam was imported.
        self._early = stage_started(self._settings)

    def _extract(self, fetched: FetchedFile, extractor: IsolatedExtractor
                 ) -> tuple[ExtractedDocument | CleanedExtraction, float]:
        """In a pool thread: the guard, then the child: Tika and, with two or more
        children, XHTML parsing, the text limit and cleaning too (with one, parsing and
        the text limit run in this thread and cleaning in ``_output``)."""
        started = time.perf_counter()
        assert self._pool is not None
        document = self._settings.extract(fetched, extractor, ocr_workers=self._pool.size)
        return document, time.perf_counter() - started

    def process(self, fetched: FetchedFile, window=beam.DoFn.WindowParam,
                timestamp=beam.DoFn.TimestampParam):
        assert self._pool is not None
        if not self._pool_started:  # setup did not start it (an incremental run)
            self._pool.start()
            self._pool_started = True
        future = self._early.take(fetched) if self._early is not None else None
        if future is not None:
            self._started_early.inc()
        else:
            future = self._pool.submit(lambda extractor: self._extract(fetched, extractor))
        self._in_flight.append(_InFlight(fetched, future, window, timestamp))
        # One more than the pool may be in flight. Hand on one finished document
        # per new one, no more: while this thread works on it downstream, every
        # child has a document (handing on all finished ones at once would leave
        # a child idle while the thread works through them).
        while len(self._in_flight) > self._pool.size:
            yield self._output(self._next_finished())

    def finish_bundle(self):
        while self._in_flight:
            yield self._output(self._next_finished())

    def _next_finished(self) -> _InFlight:
        """The first of this instance's documents to have finished (waits for one)."""
        while True:
            for item in self._in_flight:
                if item.future.done():
                    self._in_flight.remove(item)
                    return item
            wait([item.future for item in self._in_flight], return_when=FIRST_COMPLETED)

    def _output(self, item: _InFlight) -> WindowedValue | beam.pvalue.TaggedOutput:
        """One document's result, in its own window (it may leave with another's call)."""
        def windowed(value: Any) -> WindowedValue:
            return WindowedValue(value, item.timestamp, (item.window,))

        if not self._has_output:
            self._has_output = True
            self._first_output.update(int(time.time() * 1000))

        exc = item.future.exception()
        if exc is None:
            extracted, seconds = item.future.result()
            self._seconds.update(int(seconds * 1000))
            self._ok.inc()
            self._report_memory()
            progress.tick(progress.EXTRACTED)
            self._count_coverage(extracted)
            # Cleaned here unless a child did: while this thread cleans, the children
            # extract the documents in flight.
            return windowed(self._settings.cleaned(extracted))
        if isinstance(exc, ExtractionAborted):
            raise exc  # the run was interrupted: no document's failure, the run's end
        self._failed.inc()
        counter = self._by_failure.get(type(exc))
        if counter is not None:
            counter.inc()
        fetched = item.fetched
        self._report_memory()
        return beam.pvalue.TaggedOutput(FAILURES, windowed(
            Failure(fetched.source, Stage.EXTRACT, type(exc).__name__, str(exc),
                    content_hash=fetched.content_hash)))

    def _count_coverage(self, document: ExtractedDocument | CleanedExtraction) -> None:
        ocr_pages = int(document.metadata.get(OCR_PAGES_KEY) or 0)
        if ocr_pages:
            self._ocr_documents.inc()
            self._ocr_pages.inc(ocr_pages)
        if document.metadata.get(INCOMPLETE_KEY) in (OCR_TIME_LIMIT, OCR_UNAVAILABLE):
            self._ocr_incomplete.inc()
        if document.metadata.get(EXTRACTOR_KEY) == PDF_FALLBACK:
            self._pdf_fallbacks.inc()

    def _report_memory(self) -> None:
        if self._pool is not None and (peak := self._pool.stats().peak_rss_bytes):
            self._peak_rss.set(peak // MIB)

    def teardown(self) -> None:
        self._early = None
        pool, self._pool = self._pool, None
        if pool is not None:
            for item in self._in_flight:  # a bundle that failed midway
                item.future.cancel()
            self._in_flight.clear()
            release_pool(pool)
