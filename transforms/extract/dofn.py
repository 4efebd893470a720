"""Extract stage: ``FetchedFile`` → ``ExtractedDocument`` through Tika."""

from __future__ import annotations

import posixpath
from typing import Any

import apache_beam as beam
from apache_beam.metrics import Metrics

from ragbeam.transforms.extract.document import build_extracted_document
from ragbeam.transforms.extract.isolation import IsolatedExtractor
from ragbeam.transforms.types import Failure, FetchedFile, Stage

FAILURES = "failures"


class ExtractWithTika(beam.DoFn):
    """One isolated Tika process per DoFn instance, started in ``setup``."""

    def __init__(self, backend_spec: tuple[str, dict[str, Any]], timeout_s: float) -> None:
        self._backend_spec = backend_spec
        self._timeout_s = timeout_s
        self._extractor: IsolatedExtractor | None = None
        self._ok = Metrics.counter("ragbeam", "extract_ok")
        self._failed = Metrics.counter("ragbeam", "extract_failed")
        self._seconds = Metrics.distribution("ragbeam", "extract_ms")

    def setup(self) -> None:
        self._extractor = IsolatedExtractor(self._backend_spec, timeout_s=self._timeout_s)

    def process(self, fetched: FetchedFile):
        import time

        assert self._extractor is not None
        started = time.perf_counter()
        try:
            name = posixpath.basename(fetched.source.uri)
            xhtml, metadata = self._extractor.extract(fetched.data, name)
            document = build_extracted_document(fetched, xhtml, metadata)
        except Exception as exc:
            self._failed.inc()
            yield beam.pvalue.TaggedOutput(
                FAILURES,
                Failure(fetched.source, Stage.EXTRACT, type(exc).__name__, str(exc),
                        content_hash=fetched.content_hash),
            )
            return
        self._seconds.update(int((time.perf_counter() - started) * 1000))
        self._ok.inc()
        yield document

    def teardown(self) -> None:
        if self._extractor is not None:
            self._extractor.close()
            self._extractor = None
