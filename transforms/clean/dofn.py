"""Clean stage: ``ExtractedDocument`` → ``Document``.

The pipeline's extraction children clean documents themselves, in parallel
(``CleanedInChild``); this stage then hands their result on, or their error
as a clean failure, with the same metrics as when it cleans here.
"""

from __future__ import annotations

import time

import apache_beam as beam
from apache_beam.metrics import Metrics

from ragbeam.transforms.clean.document import CleanOptions, clean_or_refuse
from ragbeam.transforms.types import CleanedInChild, Document, ExtractedDocument, Failure, Stage

FAILURES = "failures"
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

    def process(self, extracted: ExtractedDocument | CleanedInChild):
        if isinstance(extracted, CleanedInChild):
            doc, error, millis = extracted.document, extracted.error, extracted.clean_ms
        else:
            started = time.perf_counter()
            doc, error = self._clean(extracted)
            millis = int((time.perf_counter() - started) * 1000)
        if doc is None:
            error_type, message = error or ("ValueError", "")
            self._failed.inc()
            yield beam.pvalue.TaggedOutput(
                FAILURES,
                Failure(extracted.source, Stage.CLEAN, error_type, message,
                        content_hash=extracted.content_hash, media_type=extracted.media_type),
            )
            return
        self._millis.update(millis)
        self._ok.inc()
        for key, counter in self._counts.items():
            counter.inc(int(doc.metadata.get(key, "0")))
        yield doc

    def _clean(self, extracted: ExtractedDocument
               ) -> tuple[Document | None, tuple[str, str] | None]:
        try:
            return clean_or_refuse(extracted, self._options), None
        except Exception as exc:
            return None, (type(exc).__name__, str(exc))
