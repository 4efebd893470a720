"""Assemble the Beam graph: one named stage per step of the design.

    Match → Read → Extract → Clean → Route → Chunk → Write(chunks, documents, errors)

Every stage sends documents it cannot process to a ``failures`` output; they
are flattened into ``error`` rows of the documents table and dead letters in
the errors table, so every matched file ends up in the documents table once.

With ``--previous DIR`` the matched files are first joined with that run's
tables (``transforms/incremental``): unchanged documents skip every stage and
their rows are carried over, vanished ones become ``deleted`` rows, and
``changes`` lists the chunk ids to delete and upsert in a vector store.
"""

from __future__ import annotations

import apache_beam as beam

from ragbeam.pipeline.config import RunConfig
from ragbeam.pipeline.runner import default_extract_processes, with_embedding_threads
from ragbeam.schemas import OUTPUT_SCHEMAS
from ragbeam.transforms.chunk.dofn import DOCUMENTS, ChunkDocument
from ragbeam.transforms.clean.dofn import CleanDocument
from ragbeam.transforms.extract.dofn import ExtractWithTika
from ragbeam.transforms.incremental.dofn import (
    CARRIED_CHUNKS,
    CARRIED_DOCUMENTS,
    CARRIED_ERRORS,
    PREVIOUS_CHUNK_IDS,
    PREVIOUS_EMBEDDINGS,
    TO_PROCESS,
    CompareWithPrevious,
    ComputeChanges,
    ReuseEmbeddings,
)
from ragbeam.transforms.match.dofn import FAILURES, MatchInputs, ReadFile
from ragbeam.transforms.route.dofn import RouteDocument
from ragbeam.transforms.write.parquet import WriteTables
from ragbeam.transforms.write.rows import error_document_row, error_row


def extract_dofn(pipeline: beam.Pipeline, config: RunConfig) -> ExtractWithTika:
    return ExtractWithTika(config.extract.backend_spec, config.extract.timeout_s,
                           memory_limit_bytes=config.extract.memory_limit_bytes,
                           max_text_chars=config.extract.max_text_chars,
                           processes=config.extract.processes
                           or default_extract_processes(pipeline.options),
                           clean=config.clean)


def build_pipeline(pipeline: beam.Pipeline, config: RunConfig) -> None:
    config_hash = config.config_hash
    m = config.match

    # Matching ends in a shuffle by path, which also spreads files over workers.
    sources = pipeline | "Match" >> MatchInputs(m.inputs, m.include, m.exclude)
    previous = None
    if config.previous:
        previous = sources | "Compare with previous" >> CompareWithPrevious(
            config.previous, config_hash, m.max_file_bytes, config.retry_errors)
        sources = previous[TO_PROCESS]
    fetched = sources | "Read" >> beam.ParDo(ReadFile(m.max_file_bytes)).with_outputs(
        FAILURES, main="ok")
    extracted = fetched.ok | "Extract" >> beam.ParDo(extract_dofn(pipeline, config)).with_outputs(
        FAILURES, main="ok")
    cleaned = extracted.ok | "Clean" >> beam.ParDo(CleanDocument(config.clean)).with_outputs(
        FAILURES, main="ok")
    routed = cleaned.ok | "Route" >> beam.ParDo(RouteDocument(config.route)).with_outputs(
        FAILURES, main="ok")
    to_chunk = routed.ok
    embedding = with_embedding_threads(config.embedding, pipeline.options)
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
            config.chunk, config.semantic, embedding, config_hash)
    chunked = to_chunk | "Chunk" >> beam.ParDo(
        ChunkDocument(config.chunk, config_hash)
    ).with_outputs(FAILURES, DOCUMENTS, main="chunks")
    chunk_failures = [chunked[FAILURES]]
    chunk_documents = [chunked[DOCUMENTS]]
    chunk_rows = chunked.chunks
    if semantic is not None:
        chunk_failures.append(semantic["failures"])
        chunk_documents.append(semantic["documents"])
        chunk_rows = (chunk_rows, semantic["chunks"]) | "All chunk rows" >> beam.Flatten()
    if config.embed_chunks:
        from ragbeam.transforms.embed.transforms import EmbedChunkRows

        if previous is not None:  # unchanged chunks of re-processed documents keep their vectors
            chunk_rows = ({"current": chunk_rows, "previous": previous[PREVIOUS_EMBEDDINGS]}
                          | "Reuse embeddings" >> ReuseEmbeddings())
        chunk_rows = chunk_rows | "Embed chunks" >> EmbedChunkRows(embedding)

    failures = (
        fetched[FAILURES], extracted[FAILURES], cleaned[FAILURES], routed[FAILURES],
        *chunk_failures,
    ) | "All failures" >> beam.Flatten()
    error_documents = failures | "Error documents" >> beam.Map(error_document_row, config_hash)
    documents = (*chunk_documents, error_documents) | "All documents" >> beam.Flatten()
    dead_letters = failures | "Dead letters" >> beam.Map(error_row)
    chunks = chunk_rows
    changes = (
        {"current": chunk_rows} if previous is None
        else {"current": chunk_rows, "previous": previous[PREVIOUS_CHUNK_IDS]}
    ) | "Changes" >> ComputeChanges()
    if previous is not None:  # the output stays a full snapshot: add what was carried over
        chunks = (chunks, previous[CARRIED_CHUNKS]) | "With carried chunks" >> beam.Flatten()
        documents = ((documents, previous[CARRIED_DOCUMENTS])
                     | "With carried documents" >> beam.Flatten())
        dead_letters = ((dead_letters, previous[CARRIED_ERRORS])
                        | "With carried errors" >> beam.Flatten())

    _ = {"chunks": chunks, "documents": documents, "errors": dead_letters, "changes": changes} | (
        "Write tables" >> WriteTables(config.output, OUTPUT_SCHEMAS))
