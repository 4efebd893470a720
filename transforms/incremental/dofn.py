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

from ragbeam.schemas.documents import STATUS_DELETED, STATUS_STALE
from ragbeam.transforms import progress
from ragbeam.transforms.incremental.changes import chunk_row_digest
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
from ragbeam.transforms.incremental.reconcile import (
    PreviousState,
    moved_chunk_rows,
    reconcile_document,
)
from ragbeam.transforms.types import SourceFile

TO_PROCESS = "to_process"
CARRIED_DOCUMENTS = "carried_documents"
CARRIED_CHUNKS = "carried_chunks"
CARRIED_ERRORS = "carried_errors"
CARRIED_CHANGES = "carried_changes"
CARRIED = (CARRIED_DOCUMENTS, CARRIED_CHUNKS, CARRIED_ERRORS, CARRIED_CHANGES)
PREVIOUS_STATE = "previous_state"
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
        previous_chunks = [as_python_row(chunk) for chunk in grouped["chunks"]]
        outcome = decide(current, previous, len(previous_chunks), self._config_hash,
                         self._retry_errors)
        Metrics.counter("ragbeam.incremental", str(outcome)).inc()
        if outcome in (Outcome.UNCHANGED, Outcome.KEPT_ERROR):
            progress.tick(progress.CARRIED)
            assert previous is not None and current is not None
            uri = current.source.uri  # the corpus may have moved: same id, new URI
            if outcome is Outcome.UNCHANGED:
                row = unchanged_document_row(previous, uri)
            else:
                row = kept_error_document_row(previous, uri)
                yield beam.pvalue.TaggedOutput(CARRIED_ERRORS,
                                               error_row_from_document(row))
            yield beam.pvalue.TaggedOutput(CARRIED_DOCUMENTS, row)
            chunks, changes = moved_chunk_rows(previous_chunks, uri)
            for chunk in chunks:
                yield beam.pvalue.TaggedOutput(CARRIED_CHUNKS, chunk)
            for change in changes:
                yield beam.pvalue.TaggedOutput(CARRIED_CHANGES, change)
            return
        if outcome is Outcome.GONE:
            return
        assert previous is not None or outcome.needs_processing
        if outcome is Outcome.DELETED:
            assert previous is not None
            yield beam.pvalue.TaggedOutput(
                CARRIED_DOCUMENTS, deleted_document_row(previous, self._config_hash))
        if previous is not None and previous["status"] != STATUS_DELETED:
            # Re-processed or deleted: ``Reconcile`` diffs its chunks against the new
            # ones, or serves them on if re-processing fails (last good version wins).
            yield beam.pvalue.TaggedOutput(PREVIOUS_STATE, (doc_id, PreviousState(
                as_python_row(previous), tuple(previous_chunks),
                deleted=outcome is Outcome.DELETED)))
        if outcome.needs_processing:
            for chunk in previous_chunks:  # vectors that re-processed chunks may reuse
                if chunk.get("embedding") is not None:
                    yield beam.pvalue.TaggedOutput(
                        PREVIOUS_EMBEDDINGS, (chunk["chunk_id"], embedding_source(chunk)))
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
            ).with_outputs(*CARRIED, PREVIOUS_STATE, PREVIOUS_EMBEDDINGS, main=TO_PROCESS)
        )
        return {tag: decided[tag]
                for tag in (TO_PROCESS, *CARRIED, PREVIOUS_STATE, PREVIOUS_EMBEDDINGS)}


class ReconcileDocuments(beam.DoFn):
    """``(doc_id, {failures, previous, current})`` → the rows ``reconcile.py`` decides,
    each under its table's tag (``documents``, ``chunks``, ``errors``; changes are the
    main output)."""

    def __init__(self, config_hash: str) -> None:
        self._config_hash = config_hash
        self._stale = Metrics.counter("ragbeam.incremental", "stale")

    def process(self, element: tuple[str, Mapping[str, Iterable[Any]]]):
        doc_id, grouped = element
        current = list(grouped["current"])
        result = reconcile_document(
            doc_id,
            list(grouped["failures"]),
            next(iter(grouped["previous"]), None),
            {chunk_id: digest for _, chunk_id, digest in current},
            current[0][0] if current else None,
            self._config_hash,
        )
        self._stale.inc(sum(d["status"] == STATUS_STALE for d in result.documents))
        for table, rows in (("documents", result.documents), ("chunks", result.chunks),
                            ("errors", result.errors)):
            for row in rows:
                yield beam.pvalue.TaggedOutput(table, row)
        yield from result.changes


def _chunk_digest(row: Mapping[str, Any]) -> tuple[str, tuple[str, str, str]]:
    return row["doc_id"], (row["source_uri"], row["chunk_id"], chunk_row_digest(row))


class Reconcile(beam.PTransform):
    """This run's failures and chunk rows + the previous state of re-processed and
    deleted documents → ``{"documents", "chunks", "errors", "changes"}``: error or
    stale rows, carried chunks of stale documents, error rows, and every change row
    of re-processed, new and deleted documents (``reconcile.py``)."""

    def __init__(self, config_hash: str) -> None:
        super().__init__()
        self._config_hash = config_hash

    def expand(self, inputs: Mapping[str, beam.PCollection]) -> dict[str, beam.PCollection]:
        failures = inputs["failures"] | "Failures by doc id" >> beam.Map(
            lambda failure: (failure.source.doc_id, failure))
        current = inputs["chunks"] | "Chunk digests by doc id" >> beam.Map(_chunk_digest)
        reconciled = (
            {"failures": failures, "previous": inputs["previous"], "current": current}
            | "Join by doc id" >> beam.CoGroupByKey()
            | "Last good version wins" >> beam.ParDo(
                ReconcileDocuments(self._config_hash)
            ).with_outputs("documents", "chunks", "errors", main="changes")
        )
        return {tag: reconciled[tag] for tag in ("documents", "chunks", "errors", "changes")}


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
