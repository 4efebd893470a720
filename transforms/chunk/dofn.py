"""Chunk stage: ``(Document, RouteDecision)`` → chunk rows + one document row."""

from __future__ import annotations

import threading

import apache_beam as beam
from apache_beam.metrics import Metrics

from ragbeam.schemas.chunks import ChunkRow
from ragbeam.schemas.documents import DocumentRow
from ragbeam.transforms import progress
from ragbeam.transforms.chunk.base import ChunkingResult, ChunkOptions, Strategy
from ragbeam.transforms.chunk.records import chunk_rows
from ragbeam.transforms.chunk.searchable import DROPPED_KEY, drop_unsearchable
from ragbeam.transforms.chunk.sizing import Sizer, load_encoding, shared_token_sizer
from ragbeam.transforms.chunk.strategies import build_strategy
from ragbeam.transforms.types import FAILURES, Document, Failure, RouteDecision, Stage
from ragbeam.transforms.write.rows import ok_document_row

DOCUMENTS = "documents"


def chunked_document_row(doc: Document, decision: RouteDecision, result: ChunkingResult,
                         chunk_count: int, config_hash: str) -> DocumentRow:
    """The ``ok`` documents row of a chunked document: its metadata with the route's
    reason and the chunker's stats (``chunk_*``)."""
    metadata = dict(doc.metadata)
    metadata["route_reason"] = decision.reason
    metadata.update({f"chunk_{k}": str(v) for k, v in result.stats.items()})
    return ok_document_row(doc, config_hash, decision.strategy, chunk_count, metadata)


@beam.typehints.with_output_types(ChunkRow, **{DOCUMENTS: DocumentRow, FAILURES: Failure})
class ChunkDocument(beam.DoFn):
    """``(Document, RouteDecision)`` → chunk rows (main output), one documents row
    (``DOCUMENTS``) or a ``Failure``. Strategies and the token counter are built once
    per worker, then cached.

    ``load_at_setup``: start loading the encoding when the worker starts (a first run);
    False loads it with the first document, so an incremental run that chunks nothing
    never pays for it.
    """

    def __init__(self, options: ChunkOptions, config_hash: str,
                 load_at_setup: bool = True) -> None:
        self._options = options
        self._config_hash = config_hash
        self._load_at_setup = load_at_setup
        self._strategies: dict[tuple[str, str], Strategy] = {}
        self._tokens: Sizer | None = None
        self._loading: threading.Thread | None = None
        self._chunks = Metrics.counter("ragbeam", "chunks")
        self._hard_cuts = Metrics.counter("ragbeam", "hard_cuts")
        self._dropped = Metrics.counter("ragbeam", "chunks_dropped_unsearchable")

    def setup(self) -> None:
        if not self._load_at_setup:
            return
        # Loading the encoding takes ~0.4 s: start it in the background, where it
        # overlaps extraction of the first documents instead of following it.
        self._loading = threading.Thread(target=load_encoding, args=(self._options.encoding,),
                                         daemon=True, name="ragbeam-load-encoding")
        self._loading.start()

    def _token_counter(self) -> Sizer:
        # Built with the first document (from the encoding setup() began loading).
        if self._tokens is None:
            if self._loading is not None:
                self._loading.join()  # never load it twice
            self._tokens = shared_token_sizer(self._options.encoding)
        return self._tokens

    def _strategy(self, decision: RouteDecision) -> Strategy:
        key = (decision.strategy, repr(sorted(decision.params.items())))
        if key not in self._strategies:
            self._strategies[key] = build_strategy(decision.strategy, self._options,
                                                   decision.params)
        return self._strategies[key]

    def process(self, element: tuple[Document, RouteDecision]):
        doc, decision = element
        tokens = self._token_counter()  # outside the try: a missing encoding fails the run
        try:
            result = drop_unsearchable(doc, self._strategy(decision).chunk(doc))
            rows = chunk_rows(doc, result.chunks, decision.strategy, self._config_hash,
                              tokens, embed_text=self._options.embed_text)
        except Exception as exc:
            yield beam.pvalue.TaggedOutput(
                FAILURES,
                Failure(doc.source, Stage.CHUNK, type(exc).__name__, str(exc),
                        content_hash=doc.content_hash, media_type=doc.media_type),
            )
            return
        self._chunks.inc(len(rows))
        progress.tick(progress.CHUNKED)
        progress.tick(progress.CHUNKS, len(rows))
        Metrics.counter("ragbeam.chunks", decision.strategy).inc(len(rows))
        self._hard_cuts.inc(int(result.stats.get("hard_cuts", 0)))
        self._dropped.inc(int(result.stats.get(DROPPED_KEY, 0)))
        yield from rows
        yield beam.pvalue.TaggedOutput(
            DOCUMENTS, chunked_document_row(doc, decision, result, len(rows), self._config_hash))
