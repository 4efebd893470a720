"""Clean stage: ``ExtractedDocument`` → ``Document``."""

from __future__ import annotations

import time

import apache_beam as beam
from apache_beam.metrics import Metrics

from ragbeam.transforms.clean.document import CleanOptions, clean_document
from ragbeam.transforms.types import FAILURES, ExtractedDocument, Failure, Stage

# Per-document counters of clean_document that are also summed as Beam metrics.
COUNTED = ("clean_furniture_lines_removed", "clean_leaders_removed",
           "clean_hyphenations_joined", "clean_lines_joined", "clean_headings_detected")


class CleanDocument(beam.DoFn):
    def __init__(self, options: CleanOptions) -> None:
        self._options = options
        self._ok = Metrics.counter("ragbeam", "clean_ok")
        self._failed = Metrics.counter("ragbeam", "clean_failed")
        self._millis = Metrics.distribution("ragbeam", "clean_ms")
        self._counts = {key: Metrics.counter("ragbeam", key) for key in COUNTED}

    def process(self, extracted: ExtractedDocument):
        started = time.perf_counter()
        try:
            doc = clean_document(extracted, self._options)
            if not doc.text.strip():
                raise ValueError("no text left after cleaning")
        except Exception as exc:
            self._failed.inc()
            yield beam.pvalue.TaggedOutput(
                FAILURES,
                Failure(extracted.source, Stage.CLEAN, type(exc).__name__, str(exc),
                        content_hash=extracted.content_hash, media_type=extracted.media_type),
            )
            return
        self._millis.update(int((time.perf_counter() - started) * 1000))
        self._ok.inc()
        for key, counter in self._counts.items():
            counter.inc(int(doc.metadata.get(key, "0")))
        yield doc
