"""Beam side of incremental runs: compare with the previous run, carry over, diff.

``CompareWithPrevious`` turns the matched ``SourceFile``s into the files that
still need processing, plus everything carried over from the previous run; see
``compare.py`` for the rule. Its cost grows with what changed, not with the
corpus:

* only the listing meets the previous run in a shuffle (``Join by doc id``): a
  ``SourceFile`` and a slim head of each previous documents row (no text);
* a file is read (hashed) only when its size or modification time differ from
  what the previous row recorded, or with ``--verify-hashes``; never its bytes
  through the join: a file that needs processing is read by the normal Read stage;
* the previous tables are read once more, whole, and stream to the output
  (``Carry documents``, ``Carry chunks``), each row told what to do by a side
  input holding the ``Verdict``s of the few documents whose rows are not carried
  as they are (changed, deleted, moved, retried...). Only the rows of documents
  processed again or deleted go on, by doc id, to ``Reconcile``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics import Metrics

from ragbeam.transforms.incremental.changes import chunk_row_digest
from ragbeam.transforms.incremental.compare import (
    CARRIED,
    HEAD_COLUMNS,
    CurrentFile,
    Outcome,
    Verdict,
    as_python_row,
    carried_document_row,
    chunk_outcome,
    comparable,
    decide,
    deleted_document_row,
    document_outcome,
    error_row_from_document,
    head_of,
    needs_hash,
    verdict_for,
)
from ragbeam.transforms.incremental.embeddings import embedding_source, with_reused_embedding
from ragbeam.transforms.incremental.reconcile import (
    PreviousState,
    moved_chunk_row,
    reconcile_document,
)
from ragbeam.transforms.types import SourceFile

TO_PROCESS = "to_process"
CARRIED_DOCUMENTS = "carried_documents"
CARRIED_CHUNKS = "carried_chunks"
CARRIED_ERRORS = "carried_errors"
CARRIED_CHANGES = "carried_changes"
PREVIOUS_DOCUMENTS = "previous_documents"
PREVIOUS_CHUNKS = "previous_chunks"
PREVIOUS_EMBEDDINGS = "previous_embeddings"
VERDICTS = "verdicts"
OUTPUTS = (TO_PROCESS, CARRIED_DOCUMENTS, CARRIED_CHUNKS, CARRIED_ERRORS, CARRIED_CHANGES,
           PREVIOUS_DOCUMENTS, PREVIOUS_CHUNKS, PREVIOUS_EMBEDDINGS)

HASH_BLOCK_BYTES = 1 << 20
NAMESPACE = "ragbeam.incremental"


def hash_file(uri: str, size_bytes: int, max_bytes: int) -> str | None:
    """sha256 of a file's bytes, streamed; None when Read would refuse or fail on it
    (too large, unreadable), so the document is simply processed and Read records why."""
    if size_bytes > max_bytes or size_bytes < 0:
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


class Decide(beam.DoFn):
    """``(doc_id, {"current": [SourceFile], "previous": [head]})`` → the ``SourceFile``
    to process (main output) and the document's ``Verdict`` (``VERDICTS``) if the
    carrying steps need one. Hashes the file only if ``needs_hash``."""

    def __init__(self, config_hash: str, max_bytes: int, retry_errors: bool,
                 verify_hashes: bool) -> None:
        self._config_hash = config_hash
        self._max_bytes = max_bytes
        self._retry_errors = retry_errors
        self._verify_hashes = verify_hashes
        self._bytes_hashed = Metrics.counter(NAMESPACE, "bytes_hashed")
        self._files_hashed = Metrics.counter(NAMESPACE, "files_hashed")
        self._by_listing = Metrics.counter(NAMESPACE, "files_unchanged_by_listing")

    def process(self, element: tuple[str, Mapping[str, Iterable[Any]]]):
        doc_id, grouped = element
        source: SourceFile | None = next(iter(grouped["current"]), None)
        previous = next(iter(grouped["previous"]), None)
        current = None
        if source is not None:
            content_hash = None
            if needs_hash(source, previous, self._config_hash, self._verify_hashes):
                content_hash = hash_file(source.uri, source.size_bytes, self._max_bytes)
                self._files_hashed.inc()
                if content_hash is not None:
                    self._bytes_hashed.inc(source.size_bytes)
            elif comparable(previous, self._config_hash):
                content_hash = previous["content_hash"]  # the listing says: same bytes
                self._by_listing.inc()
            current = CurrentFile(source, content_hash)
        outcome = decide(current, previous, self._config_hash, self._retry_errors)
        Metrics.counter(NAMESPACE, str(outcome)).inc()
        verdict = verdict_for(current, previous, outcome, self._config_hash)
        if verdict is not None:
            yield beam.pvalue.TaggedOutput(VERDICTS, (doc_id, verdict))
        if outcome.needs_processing:
            assert source is not None
            yield source


class CarryDocuments(beam.DoFn):
    """A previous documents row (and the verdicts, a side input) → the row carried
    over (``CARRIED_DOCUMENTS``, plus its ``errors`` row for a kept failure), a
    tombstone for a deleted document, and the row itself, by doc id, for
    ``Reconcile`` when the document is processed again or deleted."""

    def __init__(self, config_hash: str) -> None:
        self._config_hash = config_hash

    def process(self, row: Mapping[str, Any], verdicts: Mapping[str, Verdict]):
        doc_id = row["doc_id"]
        outcome = document_outcome(row, verdicts.get(doc_id), self._config_hash)
        if outcome in CARRIED:
            carried = carried_document_row(row, outcome, verdicts.get(doc_id))
            if outcome is Outcome.KEPT_ERROR:
                yield beam.pvalue.TaggedOutput(CARRIED_ERRORS, error_row_from_document(carried))
            yield beam.pvalue.TaggedOutput(CARRIED_DOCUMENTS, carried)
        elif outcome not in (Outcome.GONE, Outcome.NEW):  # not a tombstone (reported once)
            deleted = outcome is Outcome.DELETED
            if deleted:
                yield beam.pvalue.TaggedOutput(CARRIED_DOCUMENTS,
                                               deleted_document_row(row, self._config_hash))
            # Re-processed or deleted: ``Reconcile`` diffs its chunks against the new
            # ones, or serves them on if re-processing fails (last good version wins).
            yield beam.pvalue.TaggedOutput(PREVIOUS_DOCUMENTS,
                                           (doc_id, (as_python_row(row), deleted)))


class CarryChunks(beam.DoFn):
    """A previous chunk row (and the verdicts) → the row carried over (main output;
    with its document's new URI and an upsert for it if the corpus moved), or, for
    a document processed again or deleted, the row by doc id for ``Reconcile`` and
    its vector for ``ReuseEmbeddings``."""

    def __init__(self, config_hash: str) -> None:
        self._config_hash = config_hash

    def process(self, row: Mapping[str, Any], verdicts: Mapping[str, Verdict]):
        verdict = verdicts.get(row["doc_id"])
        outcome = chunk_outcome(row, verdict, self._config_hash)
        if outcome in CARRIED:
            uri = verdict.uri if verdict is not None and verdict.uri else row["source_uri"]
            chunk, change = moved_chunk_row(row, uri)
            if change is not None:
                yield beam.pvalue.TaggedOutput(CARRIED_CHANGES, change)
            yield chunk
        else:
            chunk = as_python_row(row)
            yield beam.pvalue.TaggedOutput(PREVIOUS_CHUNKS, (chunk["doc_id"], chunk))
            if outcome.needs_processing and chunk.get("embedding") is not None:
                # A vector that the document's re-processed chunks may reuse.
                yield beam.pvalue.TaggedOutput(
                    PREVIOUS_EMBEDDINGS, (chunk["chunk_id"], embedding_source(chunk)))


class ReadPreviousTable(beam.PTransform):
    """``PREVIOUS/TABLE/*.parquet`` (any Beam filesystem) → rows (dicts), only
    ``columns`` if given."""

    def __init__(self, previous: str, table: str, columns: tuple[str, ...] | None = None
                 ) -> None:
        super().__init__()
        self._pattern = FileSystems.join(previous, table, "*.parquet")
        self._columns = list(columns) if columns else None

    def expand(self, pbegin: beam.pvalue.PBegin) -> beam.PCollection[dict]:
        return pbegin | "Read Parquet" >> beam.io.ReadFromParquet(self._pattern,
                                                                  columns=self._columns)


class CompareWithPrevious(beam.PTransform):
    """Matched files + the previous run's tables → a dict of PCollections:

    ``to_process`` (``SourceFile``s for Read); ``carried_documents``,
    ``carried_chunks``, ``carried_errors`` and ``carried_changes`` (rows to write
    as they are); ``previous_documents`` (``(doc_id, (row, deleted))``) and
    ``previous_chunks`` (``(doc_id, row)``) of every document processed again or
    deleted, for ``Reconcile``; and ``previous_embeddings`` (``(chunk_id, inputs
    and vector)`` of re-processed documents' chunks that had one, for
    ``ReuseEmbeddings``).
    """

    def __init__(self, previous: str, config_hash: str, max_file_bytes: int,
                 retry_errors: bool = False, verify_hashes: bool = False) -> None:
        super().__init__()
        self._previous = previous
        self._config_hash = config_hash
        self._max_file_bytes = max_file_bytes
        self._retry_errors = retry_errors
        self._verify_hashes = verify_hashes

    def expand(self, sources: beam.PCollection[SourceFile]) -> dict[str, beam.PCollection]:
        pipeline = sources.pipeline
        config_hash = self._config_hash
        heads = (pipeline
                 | "Previous heads" >> ReadPreviousTable(self._previous, "documents",
                                                         HEAD_COLUMNS)
                 | "Head by doc id" >> beam.Map(lambda row: (row["doc_id"], head_of(row))))
        current = sources | "By doc id" >> beam.Map(lambda source: (source.doc_id, source))
        decided = (
            {"current": current, "previous": heads}
            | "Join by doc id" >> beam.CoGroupByKey()
            | "Decide" >> beam.ParDo(
                Decide(config_hash, self._max_file_bytes, self._retry_errors,
                       self._verify_hashes)).with_outputs(VERDICTS, main=TO_PROCESS)
        )
        verdicts = beam.pvalue.AsDict(decided[VERDICTS])
        documents = (
            pipeline
            | "Previous documents" >> ReadPreviousTable(self._previous, "documents")
            | "Carry documents" >> beam.ParDo(CarryDocuments(config_hash), verdicts)
            .with_outputs(CARRIED_DOCUMENTS, CARRIED_ERRORS, PREVIOUS_DOCUMENTS)
        )
        chunks = (
            pipeline
            | "Previous chunks" >> ReadPreviousTable(self._previous, "chunks")
            | "Carry chunks" >> beam.ParDo(CarryChunks(config_hash), verdicts)
            .with_outputs(CARRIED_CHANGES, PREVIOUS_CHUNKS, PREVIOUS_EMBEDDINGS,
                          main=CARRIED_CHUNKS)
        )
        return {
            TO_PROCESS: decided[TO_PROCESS],
            CARRIED_DOCUMENTS: documents[CARRIED_DOCUMENTS],
            CARRIED_ERRORS: documents[CARRIED_ERRORS],
            PREVIOUS_DOCUMENTS: documents[PREVIOUS_DOCUMENTS],
            CARRIED_CHUNKS: chunks[CARRIED_CHUNKS],
            CARRIED_CHANGES: chunks[CARRIED_CHANGES],
            PREVIOUS_CHUNKS: chunks[PREVIOUS_CHUNKS],
            PREVIOUS_EMBEDDINGS: chunks[PREVIOUS_EMBEDDINGS],
        }


class ReconcileDocuments(beam.DoFn):
    """``(doc_id, {failures, documents, chunks, current})`` → the rows ``reconcile.py``
    decides, each under its table's tag (``documents``, ``chunks``, ``errors``;
    changes are the main output)."""

    def __init__(self, config_hash: str) -> None:
        self._config_hash = config_hash
        self._stale = Metrics.counter(NAMESPACE, "stale")

    def process(self, element: tuple[str, Mapping[str, Iterable[Any]]]):
        doc_id, grouped = element
        current = list(grouped["current"])
        document = next(iter(grouped["documents"]), None)
        previous = None
        if document is not None:
            row, deleted = document
            previous = PreviousState(row, tuple(grouped["chunks"]), deleted=deleted)
        result = reconcile_document(
            doc_id,
            list(grouped["failures"]),
            previous,
            {chunk_id: digest for _, chunk_id, digest in current},
            current[0][0] if current else None,
            self._config_hash,
        )
        if result.chunks:
            self._stale.inc()
        for table, rows in (("documents", result.documents), ("chunks", result.chunks),
                            ("errors", result.errors)):
            for row in rows:
                yield beam.pvalue.TaggedOutput(table, row)
        yield from result.changes


def _chunk_digest(row: Mapping[str, Any]) -> tuple[str, tuple[str, str, str]]:
    return row["doc_id"], (row["source_uri"], row["chunk_id"], chunk_row_digest(row))


class Reconcile(beam.PTransform):
    """This run's failures and chunk rows + the previous rows of re-processed and
    deleted documents → ``{"documents", "chunks", "errors", "changes"}``: error or
    stale rows, carried chunks of stale documents, error rows, and every change row
    of re-processed, new and deleted documents (``reconcile.py``).

    Input: ``{"failures", "chunks"}`` of this run and ``{"previous_documents",
    "previous_chunks"}`` from ``CompareWithPrevious``.
    """

    def __init__(self, config_hash: str) -> None:
        super().__init__()
        self._config_hash = config_hash

    def expand(self, inputs: Mapping[str, beam.PCollection]) -> dict[str, beam.PCollection]:
        failures = inputs["failures"] | "Failures by doc id" >> beam.Map(
            lambda failure: (failure.source.doc_id, failure))
        current = inputs["chunks"] | "Chunk digests by doc id" >> beam.Map(_chunk_digest)
        reconciled = (
            {"failures": failures, "documents": inputs[PREVIOUS_DOCUMENTS],
             "chunks": inputs[PREVIOUS_CHUNKS], "current": current}
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
        reused = Metrics.counter(NAMESPACE, "embeddings_reused")

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
