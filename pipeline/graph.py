"""The Beam graph: one named stage per step of the design.

    Match → Read → Extract and clean → Language and refusals → Route → Chunk [→ Embed]
    → {chunks, documents, errors, changes} → Write tables → Write run.json

``IngestDocuments(config)`` is the whole ingestion as one composite transform,
for the CLI and for anyone's own pipeline; ``build_pipeline`` adds the Parquet
sink and ``run.json``.

Every stage sends documents it cannot process to its ``FAILURES`` output; they
become ``error`` rows of the documents table and rows of the errors table, so
every matched file ends up in the documents table once.

With ``--previous DIR`` the matched files are first joined with that run's
tables (``transforms/incremental``): unchanged documents skip every stage and
their rows are carried over, vanished ones become ``deleted`` rows. After
processing, ``Reconcile`` meets each re-processed document's failure (if any)
with its previous rows: a document that fails now keeps its last good chunks
(``stale``), and ``changes`` lists what a vector store must upsert and delete.

In every run, files with the same bytes are processed once (``Identify content``,
``transforms/identity/``): the others become ``duplicate`` rows, and
in an incremental run a file whose bytes moved from a vanished document takes its
rows over without being processed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypedDict

import apache_beam as beam

from ragbeam.pipeline.claim import release_claim
from ragbeam.pipeline.config import RunConfig
from ragbeam.pipeline.runner import extract_processes_for, with_embedding_threads
from ragbeam.pipeline.settings import RunSettings, config_from_options, run_config
from ragbeam.pipeline.summary import deletes_held, summarize, write_run_json
from ragbeam.schemas import (
    OUTPUT_TABLES,
    ChangeRow,
    ChunkRow,
    DocumentRow,
    ErrorRow,
    TermRow,
)
from ragbeam.schemas.changes import upsert_row_for_chunk
from ragbeam.transforms import progress
from ragbeam.transforms.chunk.dofn import DOCUMENTS, ChunkDocument
from ragbeam.transforms.clean.dofn import CleanDocument, RemoveCorpusBoilerplate
from ragbeam.transforms.embed.sparse import with_sparse_vector
from ragbeam.transforms.embed.terms import TermRows
from ragbeam.transforms.embed.vectors import FailDocumentsWithoutVectors, VectorsForKeptChunks
from ragbeam.transforms.extract.dofn import ExtractWithTika
from ragbeam.transforms.identity.identify import DUPLICATES, TO_PROCESS, IdentifyContent, new_file
from ragbeam.transforms.identity.near_duplicates import ReportNearDuplicates
from ragbeam.transforms.incremental.carry_previous_rows import (
    CARRIED_CHANGES,
    CARRIED_CHUNKS,
    CARRIED_DOCUMENTS,
    CARRIED_ERRORS,
    PREVIOUS_EMBEDDINGS,
    PREVIOUS_STATE,
    REUSED_DOCUMENTS,
)
from ragbeam.transforms.incremental.compare_with_previous import CompareWithPrevious
from ragbeam.transforms.incremental.reconcile_documents import Reconcile
from ragbeam.transforms.incremental.reuse_embeddings import ReuseEmbeddings
from ragbeam.transforms.match.dofn import MatchInputs
from ragbeam.transforms.match.patterns import count_input_files
from ragbeam.transforms.plan.layers import Work, with_layers
from ragbeam.transforms.read.dofn import FetchBytes, ReadFile
from ragbeam.transforms.route.dofn import RouteDocument
from ragbeam.transforms.types import FAILURES, Failure
from ragbeam.transforms.write.parquet import WriteTables
from ragbeam.transforms.write.rows import error_document_row, error_rows
from ragbeam.transforms.write.shards import WrittenTables
from ragbeam.transforms.write.stats import TABLE_COUNTERS

if TYPE_CHECKING:
    from ragbeam.transforms.sink.sync import SyncPlan

TABLES = OUTPUT_TABLES  # chunks, documents, errors, changes, terms


class Tables(TypedDict):
    """``IngestDocuments``' output: each table's rows, of its row type
    (``ragbeam.schemas``). Row types are TypedDicts, which Beam types as
    ``Dict[str, Any]``; every step that makes rows declares its row type
    (``with_output_types``), so the tables are typed without a step of their own."""

    chunks: beam.PCollection[ChunkRow]
    documents: beam.PCollection[DocumentRow]
    errors: beam.PCollection[ErrorRow]
    changes: beam.PCollection[ChangeRow]
    terms: beam.PCollection[TermRow]


def extract_dofn(pipeline: beam.Pipeline, config: RunConfig) -> ExtractWithTika:
    """The Extract stage's DoFn; its pool size depends on the runner (``runner.py``)."""
    settings = config.extraction_settings(extract_processes_for(config, pipeline.options))
    return ExtractWithTika(settings, start_at_setup=not config.previous)


def previous_model_differs(config: RunConfig) -> bool:
    """Did the ``--previous`` run embed chunks with another model (or none)?"""
    return config.layer_plan.dense is not Work.KEEP


def _counted_failure(failure: Failure) -> Failure:
    progress.tick(progress.FAILED)
    return failure


def _as_chunk_row(row: ChunkRow) -> ChunkRow:
    return row


def _kept_chunk_layers(row: ChunkRow, plan: Any) -> ChunkRow:
    return with_layers(row, plan, with_sparse_vector)


class WriteRunJson(beam.DoFn):
    """The sink's ``WrittenTables`` → ``run.json`` (``summary.py``), then the output
    claim is released (``claim.py``). Idempotent: a retry writes the same file again."""

    def __init__(self, config: RunConfig, started: float, claim: str | None = None) -> None:
        self._config = config
        self._started = started
        self._claim = claim

    def process(self, written: WrittenTables):
        summary = summarize(self._config, written, time.time() - self._started)
        yield write_run_json(self._config.output, summary)
        if self._claim:
            release_claim(self._claim)


class IngestDocuments(beam.PTransform[beam.pvalue.PBegin | beam.PCollection[tuple[str, bytes]],
                                       Tables]):
    """Documents → ``{"chunks", "documents", "errors", "changes", "terms"}``:
    PCollections of rows of the five output tables, each of its table's row type
    (``ragbeam.schemas``: ``ChunkRow``, ``DocumentRow``, ``ErrorRow``, ``ChangeRow``,
    ``TermRow``; to Beam, ``Dict[str, Any]``). ``terms`` (the chunks' document
    frequencies, for a sparse query) is empty without ``config.sparse``.

    Applied to a pipeline, it matches the files of ``config.match.inputs`` (and,
    with ``config.previous``, re-indexes incrementally); applied to a PCollection
    of ``(uri, bytes)`` pairs, it ingests those. Write the rows wherever you like;
    ``build_pipeline`` writes them to Parquet. Options are a ``RunConfig`` or the
    keyword names of ``ragbeam run``'s flags, or ``ragbeam.RunSettings`` (then, as
    ``ragbeam run`` does, an input that matches no file raises ``InputsError``, a
    ``ValueError``). What the graph needs from files or servers (the fingerprint, a
    Tika server's version, the model's files, the previous run's model) is read when
    it is made (``RunConfig.resolve``); ``expand`` reads nothing::

        with beam.Pipeline() as p:
            tables = p | ragbeam.IngestDocuments(input=["docs/"], chunk_size=500)
            tables["chunks"] | beam.Map(print)
    """

    def __init__(self, config: RunConfig | RunSettings | None = None, **options: Any) -> None:
        super().__init__()
        if config is not None and options:
            raise TypeError("give a RunConfig, RunSettings or keyword options, not both")
        if not isinstance(config, RunConfig):
            config = (run_config(config) if isinstance(config, RunSettings)
                      else config_from_options(**options))
            if config.match.inputs:  # as `ragbeam run` does (its exit 2), before any step
                m = config.match
                count_input_files(m.inputs, m.include, m.exclude, m.own)
        # What the graph needs from files or servers is read here, never in expand.
        self._config = config.resolve()
        # The carried chunks' vectors are not this run's: made again, all of them, or
        # (the dense layers differ by --text-vector alone) only the second one.
        self._fill_kept_vectors = bool(config.previous and config.embed_chunks
                                       and previous_model_differs(config))
        self._first_kept = config.layer_plan.first_vector_kept
        self._redo_kept_vectors = self._fill_kept_vectors and not self._first_kept

    def expand(self, source: beam.pvalue.PBegin | beam.PCollection) -> Tables:
        tables = self._ingest(source)
        # Counted over the whole output, carried chunks too: the frequencies of exactly
        # the chunks a store synced from it holds (none without sparse vectors).
        tables["terms"] = tables["chunks"] | "Term frequencies" >> TermRows()
        return tables

    def _ingest(self, source: beam.pvalue.PBegin | beam.PCollection) -> Tables:
        """Every table but ``terms``."""
        config = self._config
        config_hash = config.config_hash
        m = config.match

        previous = None
        duplicates = None
        if isinstance(source, beam.pvalue.PBegin):
            # Matching ends in a shuffle by path, which also spreads files over workers.
            sources = source | "Match" >> MatchInputs(m.inputs, m.include, m.exclude,
                                                      config.ids.namespace, config.ids.mode,
                                                      own=m.own)
            if config.previous:
                previous = sources | "Compare with previous" >> CompareWithPrevious(
                    config.previous, config_hash, m.max_file_bytes, config.retry_errors,
                    config.verify_hashes, config.route, config.delete_guard,
                    config.layer_plan, config.extraction_reuse_key)
                sources, duplicates = previous[TO_PROCESS], previous[DUPLICATES]
            else:  # files with the same bytes are processed once (transforms/identity/)
                identified = (sources | "By size" >> beam.Map(new_file)
                              | "Identify content" >> IdentifyContent(
                                  config_hash, config.route, m.max_file_bytes))
                sources, duplicates = identified[TO_PROCESS], identified[DUPLICATES]
            fetched = sources | "Read" >> beam.ParDo(ReadFile(m.max_file_bytes)).with_outputs(
                FAILURES, main="ok")
        else:
            if config.previous:
                raise ValueError("an incremental run (previous) needs file patterns, not "
                                 "(uri, bytes) pairs")
            fetched = source | "From bytes" >> beam.ParDo(
                FetchBytes(m.max_file_bytes, config.ids.namespace)).with_outputs(
                    FAILURES, main="ok")
        # The cleaning itself runs in this step (in its extraction children with 2+,
        # else in its thread): transforms/clean/document.py clean_or_refuse, one module
        # per cleaning step (transforms/extract/settings.py decides where).
        extracted = fetched.ok | "Extract and clean" >> beam.ParDo(
            extract_dofn(source.pipeline, config)).with_outputs(FAILURES, main="ok")
        # What is left of the Clean stage: refusals → failures, language, counters.
        cleaned = extracted.ok | "Language and refusals" >> beam.ParDo(
            CleanDocument(config.clean, load_at_setup=not config.previous)).with_outputs(
                FAILURES, main="ok")
        documents_cleaned = cleaned.ok
        if previous is not None and config.extraction_reuse_key is not None:
            # Only the chunking changed: documents of the same bytes are chunked again
            # from the previous run's text and spans, not read or extracted
            # (transforms/plan/reuse_extraction.py).
            documents_cleaned = ((cleaned.ok, previous[REUSED_DOCUMENTS])
                                 | "With reused extractions" >> beam.Flatten())
        if config.clean.remove_boilerplate:  # opt-in: blocks repeated across the run's documents
            documents_cleaned = cleaned.ok | "Corpus boilerplate" >> RemoveCorpusBoilerplate()
        routed = documents_cleaned | "Route" >> beam.ParDo(
            RouteDocument(config.route)).with_outputs(FAILURES, main="ok")
        failures = [fetched[FAILURES], extracted[FAILURES], cleaned[FAILURES], routed[FAILURES]]

        to_chunk = routed.ok
        embedding = with_embedding_threads(config.embedding, source.pipeline.options)
        semantic = None
        if config.uses_embedding_strategies:
            # Documents routed to a strategy that cuts by embeddings (semantic,
            # similar_paragraphs) take their own branch: texts from every document are
            # embedded together, then each strategy cuts its documents
            # (transforms/chunk/semantic_dofn.py). Imported here: the embedding modules
            # pull in Beam's RunInference (apache_beam.ml, ~1.7 s per process beyond
            # Beam), which runs that never embed should not pay.
            from ragbeam.transforms.chunk.semantic_dofn import (
                ChunkSemantically,
                semantic_partition,
            )

            by_strategy = routed.ok | "Semantic or not" >> beam.Partition(semantic_partition, 2)
            to_chunk = by_strategy[0]
            semantic = by_strategy[1] | "Chunk semantically" >> ChunkSemantically(
                config.chunk, config.semantic, embedding, config_hash)
        chunked = to_chunk | "Chunk" >> beam.ParDo(
            ChunkDocument(config.chunk, config_hash, load_at_setup=not config.previous)
        ).with_outputs(FAILURES, DOCUMENTS, main="chunks")
        failures.append(chunked[FAILURES])
        documents = chunked[DOCUMENTS]
        chunks = chunked.chunks
        if semantic is not None:
            failures.append(semantic[FAILURES])
            documents = ((documents, semantic["documents"])
                         | "With semantic documents" >> beam.Flatten())
            chunks = (chunks, semantic["chunks"]) | "With semantic chunks" >> beam.Flatten()
        if config.embed_chunks:
            from ragbeam.transforms.embed.transforms import EMBED_FAILED, EmbedChunkRows

            if previous is not None:  # unchanged chunks of re-processed documents keep vectors
                chunks = ({"current": chunks, "previous": previous[PREVIOUS_EMBEDDINGS]}
                          | "Reuse embeddings" >> ReuseEmbeddings())
            embedded = chunks | "Embed chunks" >> EmbedChunkRows(embedding, config.text_vector)
            # A document with a chunk that could not be embedded fails as a whole:
            # no ok document ever has a null vector.
            failed = beam.pvalue.AsDict(embedded[EMBED_FAILED])
            chunks = embedded["chunks"] | "Drop chunks of failed documents" >> beam.Filter(
                lambda row, failed: row["doc_id"] not in failed, failed)
            checked = documents | "Fail documents without vectors" >> beam.ParDo(
                FailDocumentsWithoutVectors(), failed).with_outputs(FAILURES, main="ok")
            documents = checked.ok
            failures.append(checked[FAILURES])
        if config.sparse:
            chunks = chunks | "Sparse vectors" >> beam.Map(with_sparse_vector
                                                           ).with_output_types(ChunkRow)
        # Counted where each stage fails a document, not after the Flatten: a local
        # runner materialises a Flatten of several stages' outputs and runs what reads
        # it once all of them are done, so the progress line said "0 errors" until
        # the end of the run.
        failures = tuple(
            stage_failures | f"Count failures {i}" >> beam.Map(_counted_failure)
            for i, stage_failures in enumerate(failures)) | "All failures" >> beam.Flatten()

        # The documents table's parts are flattened once, at the end: a local runner
        # encodes the rows that go into a Flatten of several stages' outputs (a
        # documents row holds the whole text and its spans), so a Flatten of a Flatten
        # encoded and decoded every ok document twice (0.4 CPU s on 291 documents).
        document_parts = (documents,) if duplicates is None else (documents, duplicates)
        if previous is None:
            return {
                "chunks": chunks,
                "documents": ((*document_parts, failures | "Error documents" >> beam.Map(
                    error_document_row, config_hash).with_output_types(DocumentRow))
                    | "With error documents" >> beam.Flatten()),
                "errors": failures | "Error rows" >> beam.FlatMap(error_rows).with_output_types(
                    ErrorRow),
                "changes": chunks | "Every chunk is new" >> beam.Map(
                    upsert_row_for_chunk).with_output_types(ChangeRow),
            }
        reconciled = dict({FAILURES: failures, "chunks": chunks,
                           PREVIOUS_STATE: previous[PREVIOUS_STATE]}
                          | "Reconcile" >> Reconcile(config_hash))
        if config.layer_plan.changes_carried_chunks:
            # Kept and moved chunks come from the previous run: its vectors are dropped or
            # redone as the carried chunks' are (dense ones filled in just below).
            reconciled["chunks"] = reconciled["chunks"] | "Layers of kept chunks" >> \
                beam.Map(_kept_chunk_layers, config.layer_plan).with_output_types(ChunkRow)
        if config.embed_chunks:
            reconciled["chunks"] = reconciled["chunks"] | "Vectors for kept chunks" >> \
                VectorsForKeptChunks(embedding, config.embedding_model_info.dimension,
                                     self._redo_kept_vectors, config.text_vector,
                                     self._first_kept)
        if config.sparse:  # kept chunks of an earlier run may have none (carried ones have)
            reconciled["chunks"] = reconciled["chunks"] | "Sparse vectors for kept chunks" >> \
                beam.Map(with_sparse_vector).with_output_types(ChunkRow)
        carried_chunks = previous[CARRIED_CHUNKS]
        if self._fill_kept_vectors:
            # Another model (or none) made the carried chunks' vectors: the dense layer
            # is made again, nothing below it (``plan/layers.py``); only its second
            # vector when --text-vector alone changed.
            carried_chunks = (carried_chunks
                              | "Vectors for carried chunks" >> VectorsForKeptChunks(
                                  embedding, config.embedding_model_info.dimension,
                                  self._redo_kept_vectors, config.text_vector,
                                  self._first_kept)
                              # The embed step's retry output is untyped: the table is not.
                              | "Carried chunk rows" >> beam.Map(_as_chunk_row
                                                                 ).with_output_types(ChunkRow))
        # The output stays a full snapshot: add what was carried over.
        carried = {"chunks": carried_chunks, "documents": previous[CARRIED_DOCUMENTS],
                   "errors": previous[CARRIED_ERRORS], "changes": previous[CARRIED_CHANGES]}
        new = {"chunks": (chunks,), "documents": document_parts}
        return {table: ((*new.get(table, ()), reconciled[table], carried[table])
                | f"All {table}" >> beam.Flatten())
                for table in TABLES if table != "terms"}


def build_pipeline(pipeline: beam.Pipeline, config: RunConfig, claim: str | None = None,
                   sink_plans: Sequence[SyncPlan] = ()) -> None:
    """The whole run: ``IngestDocuments``, the Parquet sink, then ``run.json``
    (written by the pipeline itself once every table is in place, so a launcher
    that does not wait still leaves a completed run), then the output claim is
    released. With ``sink_plans`` (``--sink``), each vector store is made equal to
    the chunks table once every table is committed (``transforms/sink``)."""
    tables = pipeline | "Ingest documents" >> IngestDocuments(config)
    _ = tables["documents"] | "Near duplicates" >> ReportNearDuplicates()
    written = tables | "Write tables" >> WriteTables(config.output, config.table_schemas(),
                                                     TABLE_COUNTERS)
    _ = written | "Write run.json" >> beam.ParDo(WriteRunJson(config, time.time(), claim))
    if sink_plans:
        from ragbeam.transforms.sink.transforms import SyncToVectorStore

        # A night the delete guard holds (exit 4) writes nothing to any store, so the
        # store still holds the --previous run's chunks and the next night syncs
        # incrementally against it (pipeline/run.py restores its marker).
        held = written | "Deletes held" >> beam.Map(deletes_held)
        for plan in sink_plans:
            _ = ({"chunks": tables["chunks"], "changes": tables["changes"],
                  "committed": written, "held": held}
                 | f"Sync to {plan.spec.key}" >> SyncToVectorStore(plan))
