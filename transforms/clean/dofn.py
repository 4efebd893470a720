"""Clean stage: ``CleanedExtraction`` → ``Document``, then corpus boilerplate.

The Extract stage hands on documents cleaned already (``clean_or_refuse``, in its
extraction children or its own thread: ``transforms/extract/settings.py``); this
stage does what is left: a document cleaning refused becomes a clean failure,
each document's language is identified here (``language.py``, with the model
loaded once per worker in ``setup``), the cleaning counters become Beam metrics,
and ``RemoveCorpusBoilerplate`` removes blocks repeated across the run.
"""

from __future__ import annotations

import apache_beam as beam
from apache_beam.metrics import Metrics

from ragbeam.transforms.clean.boilerplate import (
    MIN_DOCUMENTS,
    block_fingerprints,
    remove_boilerplate,
)
from ragbeam.transforms.clean.document import CleanOptions
from ragbeam.transforms.clean.language import load_model, with_language
from ragbeam.transforms.types import (
    FAILURES,
    CleanedExtraction,
    Failure,
    Stage,
)

# Per-document counters of clean_document that are also summed as Beam metrics.
COUNTED = ("clean_residue_lines_removed", "clean_residue_chars_removed",
           "extract_embedded_left_out", "clean_furniture_lines_removed", "clean_leaders_removed",
           "clean_hyphenations_joined", "clean_lines_joined", "clean_headings_detected")


class CleanDocument(beam.DoFn):
    """The Extract stage's cleaned documents → ``Document``s with their language; a
    document cleaning refused → its ``Failure`` (stage ``clean``).

    ``load_at_setup``: start loading the language model when the worker starts (a
    first run); False loads it with the first document, so an incremental run that
    cleans nothing never pays for it."""

    def __init__(self, options: CleanOptions, load_at_setup: bool = True) -> None:
        self._options = options
        self._load_at_setup = load_at_setup
        self._ok = Metrics.counter("ragbeam", "clean_ok")
        self._failed = Metrics.counter("ragbeam", "clean_failed")
        self._millis = Metrics.distribution("ragbeam", "clean_ms")
        self._counts = {key: Metrics.counter("ragbeam", key) for key in COUNTED}

    def setup(self) -> None:
        # Loaded beside the extraction the worker starts with, not in its way.
        self._language_model = (load_model() if self._options.identify_language
                                and self._load_at_setup else None)

    def process(self, extracted: CleanedExtraction):
        doc = extracted.document
        if doc is None:
            error_type, message = extracted.error or ("ValueError", "")
            self._failed.inc()
            yield beam.pvalue.TaggedOutput(
                FAILURES,
                Failure(extracted.source, Stage.CLEAN, error_type, message,
                        content_hash=extracted.content_hash, media_type=extracted.media_type),
            )
            return
        if self._options.identify_language:
            if getattr(self, "_language_model", None) is not None:
                self._language_model.join()
                self._language_model = None
            doc = with_language(doc)
        self._millis.update(extracted.clean_ms)
        self._ok.inc()
        for key, counter in self._counts.items():
            counter.inc(int(doc.metadata.get(key, "0")))
        yield doc


class RemoveCorpusBoilerplate(beam.PTransform):
    """Cleaned documents → the same, without blocks repeated across the run (boilerplate.py).

    Fingerprints of long paragraphs are counted over documents; those in at
    least ``min_documents`` of them reach every document as a side input.
    """

    def __init__(self, min_documents: int = MIN_DOCUMENTS) -> None:
        super().__init__()
        self._min_documents = min_documents

    def expand(self, documents):
        minimum = self._min_documents
        repeated = (
            documents
            | "Fingerprints" >> beam.FlatMap(
                lambda doc: [(fp, doc.doc_id) for fp in block_fingerprints(doc)])
            | "One per document" >> beam.Distinct()
            | "Fingerprint" >> beam.Keys()
            | "Documents per fingerprint" >> beam.combiners.Count.PerElement()
            | "Repeated" >> beam.Filter(lambda kv: kv[1] >= minimum)
            | "Boilerplate" >> beam.Keys()
        )
        return documents | "Remove" >> beam.ParDo(
            _RemoveBoilerplate(), boilerplate=beam.pvalue.AsList(repeated))


class _RemoveBoilerplate(beam.DoFn):
    def __init__(self) -> None:
        self._removed = Metrics.counter("ragbeam", "clean_boilerplate_blocks_removed")

    def process(self, doc, boilerplate):
        if not boilerplate:  # nothing repeats across the run (the usual small run)
            yield doc
            return
        cleaned = remove_boilerplate(doc, frozenset(boilerplate))
        self._removed.inc(int(cleaned.metadata["clean_boilerplate_blocks_removed"]))
        yield cleaned
