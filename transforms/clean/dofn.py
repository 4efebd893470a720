"""Clean stage: ``ExtractedDocument`` → ``Document``."""

from __future__ import annotations

import apache_beam as beam

from ragbeam.transforms.clean.document import CleanOptions, clean_document
from ragbeam.transforms.types import ExtractedDocument, Failure, Stage

FAILURES = "failures"


class CleanDocument(beam.DoFn):
    def __init__(self, options: CleanOptions) -> None:
        self._options = options

    def process(self, extracted: ExtractedDocument):
        try:
            doc = clean_document(extracted, self._options)
            if not doc.text.strip():
                raise ValueError("no text left after cleaning")
        except Exception as exc:
            yield beam.pvalue.TaggedOutput(
                FAILURES,
                Failure(extracted.source, Stage.CLEAN, type(exc).__name__, str(exc),
                        content_hash=extracted.content_hash, media_type=extracted.media_type),
            )
            return
        yield doc
