"""Beam side of incremental runs: hash, join with the previous run, carry over, diff.

``CompareWithPrevious`` turns the matched ``SourceFile``s into the files that
still need processing, plus everything carried over from the previous run; see
``compare.py`` for the rule. Only hashes travel through the join, never file
bytes: a file that needs processing is read again by the normal Read stage.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics import Metrics

from ragbeam.transforms.incremental.changes import document_changes, upsert_row_for_chunk
from ragbeam.transforms.incremental.compare import (
    CurrentFile,
    Outcome,
    as_python_row,
    decide,
    deleted_document_row,
    error_row_from_document,
    kept_error_document_row,
    unchanged_document_row,
)
from ragbeam.transforms.incremental.embeddings import embedding_source, with_reused_embedding
from ragbeam.transforms.types import SourceFile

TO_PROCESS = "to_process"
CARRIED_DOCUMENTS = "carried_documents"
CARRIED_CHUNKS = "carried_chunks"
CARRIED_ERRORS = "carried_errors"
PREVIOUS_CHUNK_IDS = "previous_chunk_ids"
PREVIOUS_EMBEDDINGS = "previous_embeddings"

HASH_BLOCK_BYTES = 1 << 20


def hash_file(uri: str, size_bytes: int, max_bytes: int) -> str | None:
    """sha256 of a file's bytes, streamed; None when Read would refuse or fail on it
    (too large, unreadable), so the document is simply processed and Read records why."""
    if size_bytes > max_bytes:
        return None
    digest = hashlib.sha256()
    try:
        # UNCOMPRESSED, as in Read: the hash is of the bytes on disk.
        with FileSystems.open(uri, compression_type=CompressionTypes.UNCOMPRESSED) as f:
            while block := f.read(HASH_BLOCK_BYTES):
                digest.update(block)
    except Exception:
        return None
    return digest.hexdigest()


class HashFile(beam.DoFn):
    """``SourceFile`` → ``(doc_id, CurrentFile)``."""

    def __init__(self, max_bytes: int) -> None:
        self._max_bytes = max_bytes
        self._bytes_hashed = Metrics.counter("ragbeam.incremental", "bytes_hashed")

    def process(self, source: SourceFile):
        content_hash = hash_file(source.uri, source.size_bytes, self._max_bytes)
        if content_hash is not None:
            self._bytes_hashed.inc(source.size_bytes)
        yield source.doc_id, CurrentFile(source, content_hash)


class DecideAndCarry(beam.DoFn):
    """One document's current file and previous rows → what to process or carry over."""

    def __init__(self, config_hash: str, retry_errors: bool) -> None:
        self._config_hash = config_hash
        self._retry_errors = retry_errors

    def process(self, element: tuple[str, Mapping[str, Iterable[Any]]]):
        doc_id, grouped = element
        current = next(iter(grouped["current"]), None)
        previous = next(iter(grouped["documents"]), None)
        previous_chunks = list(grouped["chunks"])
        outcome = decide(current, previous, len(previous_chunks), self._config_hash,
                         self._retry_errors)
        Metrics.counter("ragbeam.incremental", str(outcome)).inc()
        if outcome is Outcome.UNCHANGED:
            assert previous is not None
            yield beam.pvalue.TaggedOutput(CARRIED_DOCUMENTS, unchanged_document_row(previous))
            for chunk in previous_chunks:
                yield beam.pvalue.TaggedOutput(CARRIED_CHUNKS, as_python_row(chunk))
            return
        if outcome is Outcome.KEPT_ERROR:
            assert previous is not None
            yield beam.pvalue.TaggedOutput(CARRIED_DOCUMENTS, kept_error_document_row(previous))
            yield beam.pvalue.TaggedOutput(CARRIED_ERRORS, error_row_from_document(previous))
            return
        if outcome is Outcome.DELETED:
            assert previous is not None
            yield beam.pvalue.TaggedOutput(
                CARRIED_DOCUMENTS, deleted_document_row(previous, self._config_hash))
        # Processed or deleted: its previous chunk ids are diffed against the new ones,
        # and the vectors of re-processed chunks may be reused (``ReuseEmbeddings``).
        for chunk in previous_chunks:
            yield beam.pvalue.TaggedOutput(
                PREVIOUS_CHUNK_IDS, (doc_id, (chunk["source_uri"], chunk["chunk_id"])))
            if outcome.needs_processing and chunk.get("embedding") is not None:
                yield beam.pvalue.TaggedOutput(
                    PREVIOUS_EMBEDDINGS, (chunk["chunk_id"], embedding_source(chunk)))
        if outcome.needs_processing:
            assert current is not None
            yield current.source


class ReadPreviousTable(beam.PTransform):
    """``PREVIOUS/TABLE/*.parquet`` (any Beam filesystem) → ``(doc_id, row)``."""

    def __init__(self, previous: str, table: str) -> None:
        super().__init__()
        self._pattern = FileSystems.join(previous, table, "*.parquet")

    def expand(self, pbegin: beam.pvalue.PBegin) -> beam.PCollection[tuple[str, dict]]:
        return (
            pbegin
            | "Read Parquet" >> beam.io.ReadFromParquet(self._pattern)
            | "By doc id" >> beam.Map(lambda row: (row["doc_id"], row))
        )


class CompareWithPrevious(beam.PTransform):
    """Matched files + the previous run's tables → a dict of PCollections:

    ``to_process`` (``SourceFile``s for Read), ``carried_documents``,
    ``carried_chunks`` and ``carried_errors`` (rows to write as they are), and
    ``previous_chunk_ids`` (``(doc_id, (source_uri, chunk_id))`` of every
    re-processed or deleted document, for ``ComputeChanges``) and
    ``previous_embeddings`` (``(chunk_id, inputs and vector)`` of re-processed
    documents' chunks that had one, for ``ReuseEmbeddings``).
    """

    def __init__(self, previous: str, config_hash: str, max_file_bytes: int,
                 retry_errors: bool = False) -> None:
        super().__init__()
        self._previous = previous
        self._config_hash = config_hash
        self._max_file_bytes = max_file_bytes
        self._retry_errors = retry_errors

    def expand(self, sources: beam.PCollection[SourceFile]) -> dict[str, beam.PCollection]:
        pipeline = sources.pipeline
        current = sources | "Hash" >> beam.ParDo(HashFile(self._max_file_bytes))
        documents = pipeline | "Previous documents" >> ReadPreviousTable(self._previous,
                                                                         "documents")
        chunks = pipeline | "Previous chunks" >> ReadPreviousTable(self._previous, "chunks")
        decided = (
            {"current": current, "documents": documents, "chunks": chunks}
            | "Join by doc id" >> beam.CoGroupByKey()
            | "Decide and carry" >> beam.ParDo(
                DecideAndCarry(self._config_hash, self._retry_errors)
            ).with_outputs(CARRIED_DOCUMENTS, CARRIED_CHUNKS, CARRIED_ERRORS,
                           PREVIOUS_CHUNK_IDS, PREVIOUS_EMBEDDINGS, main=TO_PROCESS)
        )
        return {tag: decided[tag] for tag in (TO_PROCESS, CARRIED_DOCUMENTS, CARRIED_CHUNKS,
                                              CARRIED_ERRORS, PREVIOUS_CHUNK_IDS,
                                              PREVIOUS_EMBEDDINGS)}


def _changes_of_document(element: tuple[str, Mapping[str, Iterable[tuple[str, str]]]]
                         ) -> list[dict[str, str]]:
    doc_id, grouped = element
    previous = list(grouped["previous"])
    current = list(grouped["current"])
    source_uri = (current or previous)[0][0]
    return document_changes(doc_id, source_uri, (cid for _, cid in previous),
                            (cid for _, cid in current))


class ComputeChanges(beam.PTransform):
    """New chunk rows (+ previous chunk ids of re-processed/deleted docs) → change rows.

    Input: ``{"current": chunk rows}`` and, in an incremental run,
    ``"previous": (doc_id, (source_uri, chunk_id))``. Without a previous run every
    chunk is an upsert. Carried-over chunks are not an input: they never change.
    """

    def expand(self, inputs: Mapping[str, beam.PCollection]) -> beam.PCollection[dict]:
        current = inputs["current"]
        if "previous" not in inputs:
            return current | "Every chunk is new" >> beam.Map(upsert_row_for_chunk)
        current_ids = current | "Chunk ids by doc" >> beam.Map(
            lambda row: (row["doc_id"], (row["source_uri"], row["chunk_id"])))
        return (
            {"previous": inputs["previous"], "current": current_ids}
            | "Join chunk ids by doc id" >> beam.CoGroupByKey()
            | "Diff chunk ids" >> beam.FlatMap(_changes_of_document)
        )


class ReuseEmbeddings(beam.PTransform):
    """New chunk rows + ``previous_embeddings`` → the same rows, with the previous
    vector filled in where ``embeddings.py`` allows it. Goes before the embed
    stage, which then embeds only rows whose ``embedding`` is still None.

    Input: ``{"current": chunk rows, "previous": (chunk_id, inputs and vector)}``.
    """

    def expand(self, inputs: Mapping[str, beam.PCollection]) -> beam.PCollection[dict]:
        reused = Metrics.counter("ragbeam.incremental", "embeddings_reused")

        def fill(element: tuple[str, Mapping[str, Iterable[Any]]]) -> Iterable[dict]:
            _, grouped = element
            previous = list(grouped["previous"])
            for row in grouped["current"]:
                out = with_reused_embedding(row, previous)
                if out["embedding"] is not None and row.get("embedding") is None:
                    reused.inc()
                yield out

        keyed = inputs["current"] | "By chunk id" >> beam.Map(lambda r: (r["chunk_id"], r))
        return (
            {"current": keyed, "previous": inputs["previous"]}
            | "Join by chunk id" >> beam.CoGroupByKey()
            | "Fill reusable vectors" >> beam.FlatMap(fill)
        )
