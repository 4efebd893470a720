"""The Beam graph: one named stage per step of the design.

    Match → Read → Extract → Clean → Route → Chunk [→ Embed] → {chunks, documents,
    errors, changes} → Write tables → Write run.json

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
"""

from __future__ import annotations

import time
from typing import Any

import apache_beam as beam

from ragbeam.pipeline.config import RunConfig
from ragbeam.schemas import OUTPUT_SCHEMAS
from ragbeam.transforms.chunk.dofn import DOCUMENTS, ChunkDocument
from ragbeam.transforms.clean.dofn import CleanDocument
from ragbeam.transforms.extract.dofn import ExtractWithTika
from ragbeam.transforms.incremental.changes import upsert_row_for_chunk
from ragbeam.transforms.incremental.dofn import (
    CARRIED_CHANGES,
    CARRIED_CHUNKS,
    CARRIED_DOCUMENTS,
    CARRIED_ERRORS,
    PREVIOUS_EMBEDDINGS,
    PREVIOUS_STATE,
    TO_PROCESS,
    CompareWithPrevious,
    Reconcile,
    ReuseEmbeddings,
)
from ragbeam.transforms.match.dofn import MatchInputs, ReadFile
from ragbeam.transforms.route.dofn import RouteDocument
from ragbeam.transforms.types import FAILURES, Failure, SourceFile, Stage
from ragbeam.transforms.write.parquet import WriteTables
from ragbeam.transforms.write.rows import error_document_row, error_row
from ragbeam.transforms.write.stats import TABLE_COUNTERS

TABLES = tuple(OUTPUT_SCHEMAS)  # chunks, documents, errors, changes


class FailDocumentsWithoutVectors(beam.DoFn):
    """An ``ok`` document row whose chunks could not all be embedded → an ``embed``
    failure (side input: doc id → message); other rows pass."""

    def process(self, row: dict[str, Any], failed: dict[str, str]):
        message = failed.get(row["doc_id"])
        if message is None:
            yield row
            return
        source = SourceFile(row["source_uri"], row["doc_id"], row["bytes"])
        yield beam.pvalue.TaggedOutput(FAILURES, Failure(
            source, Stage.EMBED, "EmbeddingFailed", message,
            content_hash=row["content_hash"], media_type=row["media_type"]))


class IngestDocuments(beam.PTransform):
    """Files matched by ``config`` → ``{"chunks", "documents", "errors", "changes"}``:
    PCollections of rows of the four output tables (``ragbeam.schemas``).

    Apply it to a pipeline (``pipeline | IngestDocuments(config)``) and write the
    rows wherever you like; ``build_pipeline`` writes them to Parquet.
    """

    def __init__(self, config: RunConfig) -> None:
        super().__init__()
        self._config = config

    def expand(self, pbegin: beam.pvalue.PBegin) -> dict[str, beam.PCollection]:
        config = self._config
        config_hash = config.config_hash
        m = config.match

        # Matching ends in a shuffle by path, which also spreads files over workers.
        sources = pbegin | "Match" >> MatchInputs(m.inputs, m.include, m.exclude,
                                                  config.ids.namespace, config.ids.mode)
        previous = None
        if config.previous:
            previous = sources | "Compare with previous" >> CompareWithPrevious(
                config.previous, config_hash, m.max_file_bytes, config.retry_errors,
                config.verify_hashes)
            sources = previous[TO_PROCESS]
        fetched = sources | "Read" >> beam.ParDo(ReadFile(m.max_file_bytes)).with_outputs(
            FAILURES, main="ok")
        extracted = fetched.ok | "Extract" >> beam.ParDo(
            ExtractWithTika(config.extract.backend_spec, config.extract.timeout_s,
                            memory_limit_bytes=config.extract.memory_limit_bytes,
                            max_text_chars=config.extract.max_text_chars)
        ).with_outputs(FAILURES, main="ok")
        cleaned = extracted.ok | "Clean" >> beam.ParDo(CleanDocument(config.clean)).with_outputs(
            FAILURES, main="ok")
        routed = cleaned.ok | "Route" >> beam.ParDo(RouteDocument(config.route)).with_outputs(
            FAILURES, main="ok")
        failures = [fetched[FAILURES], extracted[FAILURES], cleaned[FAILURES], routed[FAILURES]]

        to_chunk = routed.ok
        semantic = None
        if config.uses_semantic:
            # Semantic documents take their own branch: sentences from every document
            # are embedded together by RunInference, then regrouped (transforms/embed).
            # Imported here: Beam's RunInference pulls in torch and scipy (~2 s per
            # process), which runs that never embed should not pay.
            from ragbeam.transforms.embed.transforms import ChunkSemantically, semantic_partition

            by_strategy = routed.ok | "Semantic or not" >> beam.Partition(semantic_partition, 2)
            to_chunk = by_strategy[0]
            semantic = by_strategy[1] | "Chunk semantically" >> ChunkSemantically(
                config.chunk, config.semantic, config.embedding, config_hash)
        chunked = to_chunk | "Chunk" >> beam.ParDo(
            ChunkDocument(config.chunk, config_hash)
        ).with_outputs(FAILURES, DOCUMENTS, main="chunks")
        failures.append(chunked[FAILURES])
        documents = chunked[DOCUMENTS]
        chunks = chunked.chunks
        if semantic is not None:
            failures.append(semantic["failures"])
            documents = ((documents, semantic["documents"])
                         | "With semantic documents" >> beam.Flatten())
            chunks = (chunks, semantic["chunks"]) | "With semantic chunks" >> beam.Flatten()
        if config.embed_chunks:
            from ragbeam.transforms.embed.transforms import EMBED_FAILED, EmbedChunkRows

            if previous is not None:  # unchanged chunks of re-processed documents keep vectors
                chunks = ({"current": chunks, "previous": previous[PREVIOUS_EMBEDDINGS]}
                          | "Reuse embeddings" >> ReuseEmbeddings())
            embedded = chunks | "Embed chunks" >> EmbedChunkRows(config.embedding)
            # A document with a chunk that could not be embedded fails as a whole:
            # no ok document ever has a null vector.
            failed = beam.pvalue.AsDict(embedded[EMBED_FAILED])
            chunks = embedded["chunks"] | "Drop chunks of failed documents" >> beam.Filter(
                lambda row, failed: row["doc_id"] not in failed, failed)
            checked = documents | "Fail documents without vectors" >> beam.ParDo(
                FailDocumentsWithoutVectors(), failed).with_outputs(FAILURES, main="ok")
            documents = checked.ok
            failures.append(checked[FAILURES])
        failures = tuple(failures) | "All failures" >> beam.Flatten()

        if previous is None:
            return {
                "chunks": chunks,
                "documents": ((documents, failures | "Error documents" >> beam.Map(
                    error_document_row, config_hash)) | "With error documents" >> beam.Flatten()),
                "errors": failures | "Error rows" >> beam.Map(error_row),
                "changes": chunks | "Every chunk is new" >> beam.Map(upsert_row_for_chunk),
            }
        reconciled = ({"failures": failures, "chunks": chunks,
                       PREVIOUS_STATE: previous[PREVIOUS_STATE]}
                      | "Reconcile" >> Reconcile(config_hash))
        # The output stays a full snapshot: add what was carried over.
        carried = {"chunks": previous[CARRIED_CHUNKS], "documents": previous[CARRIED_DOCUMENTS],
                   "errors": previous[CARRIED_ERRORS], "changes": previous[CARRIED_CHANGES]}
        new = {"chunks": chunks, "documents": documents}
        return {table: ((new[table], reconciled[table], carried[table]) if table in new
                        else (reconciled[table], carried[table]))
                | f"All {table}" >> beam.Flatten()
                for table in TABLES}


def build_pipeline(pipeline: beam.Pipeline, config: RunConfig, claim: str | None = None) -> None:
    """The whole run: ``IngestDocuments``, the Parquet sink, then ``run.json``
    (written by the pipeline itself once every table is in place, so a launcher
    that does not wait still leaves a completed run), then the output claim is
    released."""
    from ragbeam.pipeline.summary import WriteRunJson

    tables = pipeline | "Ingest documents" >> IngestDocuments(config)
    written = tables | "Write tables" >> WriteTables(config.output, OUTPUT_SCHEMAS,
                                                     TABLE_COUNTERS)
    _ = written | "Write run.json" >> beam.ParDo(WriteRunJson(config, time.time(), claim))
