"""Beam side of incremental runs: compare with the previous run, carry over, diff.

``CompareWithPrevious`` turns the matched ``SourceFile``s into the files that
still need processing, plus everything carried over from the previous run; see
``compare.py`` for the rule, ``identity.py`` for duplicates and moves
(``IdentifyContent``, in first runs too) and ``guard.py`` for the delete guard.
Its cost grows with what changed, not with the corpus:

* only the listing meets the previous run in a shuffle (``Join by doc id``): a
  ``SourceFile`` and a slim head of each previous documents row (no text);
* a file is read (hashed) only when its size or modification time differ from
  what the previous row recorded, or with ``--verify-hashes``; never its bytes
  through the join: a file that needs processing is read by the normal Read stage;
* the previous tables are read once more, whole, and stream to the output
  (``Carry previous rows``), each row told what to do by a side input holding
  the ``Verdict``s of the few documents whose rows are not carried as they are
  (changed, deleted, moved, retried...). Only the rows of documents processed
  again or deleted go on, by doc id, to ``Reconcile``.

Every transform costs Beam time when the graph is built and run, whatever the
data (about a millisecond to build and several to run a fused stage here), and
an unchanged re-run is little more than that cost. So the previous tables are
read by one plain ``ParDo`` over their files (after a shuffle that spreads the
files over workers, read in bounded row batches) rather than three
``ReadFromParquet``s, and the joins are a ``Flatten`` and a ``GroupByKey`` of
values tagged by their producers rather than ``CoGroupByKey``s: 56 transforms
became 39, and the re-run's CPU time dropped by a quarter.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import apache_beam as beam
import pyarrow.parquet as pq
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics import Metrics

from ragbeam.schemas.changes import ChangeRow
from ragbeam.schemas.chunks import ChunkRow
from ragbeam.schemas.documents import STATUS_DUPLICATE, STATUS_STALE, DocumentRow
from ragbeam.schemas.errors import ErrorRow
from ragbeam.transforms import progress
from ragbeam.transforms.incremental.changes import chunk_row_digest, upsert_row_for_chunk
from ragbeam.transforms.incremental.compare import (
    CARRIED,
    HEAD_COLUMNS,
    CurrentFile,
    Outcome,
    Verdict,
    as_python_row,
    carried_document_row,
    chunk_outcome,
    deleted_document_row,
    document_outcome,
    error_row_from_document,
    head_of,
    vanished_document_row,
)
from ragbeam.transforms.incremental.embeddings import embedding_source, with_reused_embedding
from ragbeam.transforms.incremental.guard import DeleteGuard
from ragbeam.transforms.incremental.identity import (
    CHUNK_BEARING,
    Decided,
    decide_document,
    duplicate_document_row,
    guard_counts,
    near_duplicate_groups,
    resolve,
    size_key,
    summed,
    text_fingerprint,
)
from ragbeam.transforms.incremental.layers import LayerPlan, Work, layers_changed, with_layers
from ragbeam.transforms.incremental.reconcile import (
    Move,
    PreviousState,
    moved_chunk_row,
    reconcile_document,
)
from ragbeam.transforms.route.router import RouteOptions
from ragbeam.transforms.types import SourceFile

TO_PROCESS = "to_process"
CARRIED_DOCUMENTS = "carried_documents"
CARRIED_CHUNKS = "carried_chunks"
CARRIED_ERRORS = "carried_errors"
CARRIED_CHANGES = "carried_changes"
PREVIOUS_STATE = "previous_state"
PREVIOUS_EMBEDDINGS = "previous_embeddings"
VERDICTS = "verdicts"
DUPLICATES = "duplicates"
GUARD_COUNTS = "guard_counts"

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


def counted_hash(source: SourceFile, max_bytes: int) -> str | None:
    """``hash_file``, counted in ``reads.files_hashed`` and ``reads.bytes_hashed``."""
    content_hash = hash_file(source.uri, source.size_bytes, max_bytes)
    Metrics.counter(NAMESPACE, "files_hashed").inc()
    if content_hash is not None:
        Metrics.counter(NAMESPACE, "bytes_hashed").inc(source.size_bytes)
    return content_hash


# Tags of the values meeting in the joins (``Join by doc id``, ``Reconcile``).
CURRENT, PREVIOUS, DOCUMENTS, CHUNKS, FAILURES, DIGESTS = (
    "current", "previous", "documents", "chunks", "failures", "digests")


def grouped_by_tag(values: Iterable[tuple[str, Any]]) -> dict[str, list[Any]]:
    """The values of one key of a tagged join, by tag."""
    grouped: dict[str, list[Any]] = {}
    for tag, value in values:
        grouped.setdefault(tag, []).append(value)
    return grouped


class Decide(beam.DoFn):
    """``(doc_id, [(CURRENT, SourceFile) | (PREVIOUS, head)])`` → ``(size, Decided)``
    for ``IdentifyContent``: the comparison by doc id (``compare.decide``). Hashes
    the file only if ``needs_hash``."""

    def __init__(self, config_hash: str, max_bytes: int, retry_errors: bool,
                 verify_hashes: bool) -> None:
        self._config_hash = config_hash
        self._max_bytes = max_bytes
        self._retry_errors = retry_errors
        self._verify_hashes = verify_hashes
        self._by_listing = Metrics.counter(NAMESPACE, "files_unchanged_by_listing")

    def _hash(self, source: SourceFile) -> str | None:
        return counted_hash(source, self._max_bytes)

    def process(self, element: tuple[str, Iterable[tuple[str, Any]]]):
        doc_id, values = element
        grouped = grouped_by_tag(values)
        source: SourceFile | None = next(iter(grouped.get(CURRENT, ())), None)
        previous = next(iter(grouped.get(PREVIOUS, ())), None)
        decided, by_listing = decide_document(doc_id, source, previous, self._config_hash,
                                              self._retry_errors, self._verify_hashes,
                                              self._hash)
        if by_listing:
            self._by_listing.inc()
        Metrics.counter(NAMESPACE, str(decided.outcome)).inc()
        yield size_key(decided), decided


def new_file(source: SourceFile) -> tuple[int, Decided]:
    """A matched file of a run without ``--previous``, for ``IdentifyContent``."""
    return source.size_bytes, Decided(source.doc_id, CurrentFile(source, None), None,
                                      Outcome.NEW)


# Outputs that are no table's rows stay ``Any``: declaring them would change the
# coders of the keyed joins and combines they feed, which this typing does not need.
_UNTYPED = beam.typehints.Any


@beam.typehints.with_output_types(SourceFile, **{DUPLICATES: DocumentRow, VERDICTS: _UNTYPED,
                                                 GUARD_COUNTS: _UNTYPED})
class ResolveContent(beam.DoFn):
    """``(size, [Decided])`` → the ``SourceFile``s to process (main output), and
    ``VERDICTS`` (doc id → ``Verdict``) for the carrying step, ``DUPLICATES``
    (documents rows) and ``GUARD_COUNTS`` for the delete guard: ``identity.resolve``.
    Hashes current files of a shared size whose hash is not known yet."""

    def __init__(self, config_hash: str, route: RouteOptions, max_bytes: int) -> None:
        self._config_hash = config_hash
        self._route = route
        self._max_bytes = max_bytes
        self._duplicates = Metrics.counter(NAMESPACE, "duplicates")
        self._adopted = Metrics.counter(NAMESPACE, "adopted")

    def _hash(self, source: SourceFile) -> str | None:
        return counted_hash(source, self._max_bytes)

    def process(self, element: tuple[int, Iterable[Decided]]):
        _, group = element
        for resolved in resolve(group, self._config_hash, self._route, self._hash):
            d = resolved.decided
            yield beam.pvalue.TaggedOutput(GUARD_COUNTS, (GUARD_COUNTS, guard_counts(resolved)))
            verdict = resolved.verdict(self._config_hash)
            if verdict is not None:
                yield beam.pvalue.TaggedOutput(VERDICTS, (d.doc_id, verdict))
            if resolved.outcome is Outcome.DUPLICATE:
                self._duplicates.inc()
                progress.tick(progress.CARRIED)  # done: nothing to process
                yield beam.pvalue.TaggedOutput(
                    DUPLICATES, duplicate_document_row(resolved, self._config_hash))
            elif resolved.outcome is Outcome.ADOPTED:
                self._adopted.inc()
                progress.tick(progress.CARRIED)
            elif resolved.outcome.needs_processing:
                assert d.current is not None
                yield d.current.source


class IdentifyContent(beam.PTransform):
    """``(size, Decided)`` → ``{"to_process", "verdicts", "duplicates",
    "guard_counts"}``: duplicates indexed once, moves without re-processing
    (``identity.py``). Only documents of one size meet, after one shuffle of the
    listing."""

    def __init__(self, config_hash: str, route: RouteOptions, max_bytes: int) -> None:
        super().__init__()
        self._args = (config_hash, route, max_bytes)

    def expand(self, decided: beam.PCollection) -> dict[str, beam.PCollection]:
        resolved = (decided
                    | "Group by size" >> beam.GroupByKey()
                    | "Same bytes" >> beam.ParDo(ResolveContent(*self._args)).with_outputs(
                        VERDICTS, DUPLICATES, GUARD_COUNTS, main=TO_PROCESS))
        return {tag: resolved[tag] for tag in (TO_PROCESS, VERDICTS, DUPLICATES, GUARD_COUNTS)}


PREVIOUS_TABLES = (DOCUMENTS, CHUNKS)
# Rows read from a previous table at a time, so memory stays bounded: a documents
# row holds a whole document's text, a chunk row a chunk's.
ROWS_PER_BATCH = {DOCUMENTS: 64, CHUNKS: 1024}


def previous_files(_: bytes, previous: str) -> Iterator[tuple[str, str]]:
    """``(path, table)`` of every file of the previous run's tables."""
    patterns = [FileSystems.join(previous, table, "*.parquet") for table in PREVIOUS_TABLES]
    for table, result in zip(PREVIOUS_TABLES, FileSystems.match(patterns), strict=True):
        for metadata in result.metadata_list:
            yield metadata.path, table


def read_rows(path: str, table: str, columns: Sequence[str] | None = None
              ) -> Iterator[dict[str, Any]]:
    """The rows of one Parquet file of ``table`` (any Beam filesystem), a few at a time."""
    with FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED) as f:
        for batch in pq.ParquetFile(f).iter_batches(batch_size=ROWS_PER_BATCH[table],
                                                    columns=columns):
            yield from batch.to_pylist()


def read_heads(path: str, table: str) -> Iterator[tuple[str, tuple[str, dict[str, Any]]]]:
    """A previous documents file → ``(doc_id, (PREVIOUS, head))`` for the join."""
    if table == DOCUMENTS:
        for row in read_rows(path, table, HEAD_COLUMNS):
            yield row["doc_id"], (PREVIOUS, head_of(row))


@beam.typehints.with_output_types(ChunkRow, **{CARRIED_DOCUMENTS: DocumentRow,
                                                CARRIED_ERRORS: ErrorRow,
                                                CARRIED_CHANGES: ChangeRow,
                                                PREVIOUS_STATE: _UNTYPED,
                                                PREVIOUS_EMBEDDINGS: _UNTYPED})
class CarryPreviousRows(beam.DoFn):
    """A previous table's file (and, as side inputs, the verdicts and the delete
    guard's counts) → its rows, each carried over or sent on as its document's
    outcome says:

    * documents: the row carried (``CARRIED_DOCUMENTS``, plus its ``errors`` row
      for a kept failure), a tombstone for a deleted document, and the row itself,
      by doc id, for ``Reconcile`` when the document is processed again or deleted;
    * chunks: the row carried (main output; with its document's new URI and an
      upsert for it if the corpus moved), or, for a document processed again or
      deleted, the row by doc id for ``Reconcile`` and its vector for
      ``ReuseEmbeddings``;
    * when the delete guard holds (``guard.py``), the rows of a vanished document
      are carried as they are (status ``vanished``), not deleted;
    * a carried chunk's vectors are as this run has them (``layers.py``): kept, or
      cleared for the embed step to make again, or sparse vectors made again or
      dropped, with an upsert when its row is not the previous one any more.
    """

    def __init__(self, config_hash: str, guard: DeleteGuard | None = None,
                 layers: LayerPlan | None = None) -> None:
        self._config_hash = config_hash
        self._guard = guard or DeleteGuard()
        self._layers = layers or LayerPlan()
        self._sparse_vector = None

    def setup(self) -> None:
        if self._layers.sparse is Work.REDO:  # the tokenizers load only when needed
            from ragbeam.transforms.embed.sparse import with_sparse_vector

            self._sparse_vector = with_sparse_vector

    def _with_layers(self, row: dict[str, Any], change: ChangeRow | None = None):
        """A carried chunk with this run's vectors, and its change row (None: none)."""
        if not self._layers.changes_carried_chunks:
            return row, change
        out = with_layers(row, self._layers, self._sparse_vector)
        if change is None and layers_changed(row, out, self._layers):
            change = upsert_row_for_chunk(out)
        return out, change

    def process(self, file: tuple[str, str], verdicts: Mapping[str, Verdict],
                guard_counts: tuple[str, tuple[int, int, int]] = ("", (0, 0, 0))):
        # The delete guard, over (vanished, previous documents, current files).
        deletes_held = self._guard.holds(*guard_counts[1])
        path, table = file
        carry = self._document if table == DOCUMENTS else self._chunk
        for row in read_rows(path, table):
            yield from carry(row, verdicts.get(row["doc_id"]), deletes_held)

    def _document(self, row: dict[str, Any], verdict: Verdict | None, deletes_held: bool):
        doc_id = row["doc_id"]
        outcome = document_outcome(row, verdict, self._config_hash)
        moved = verdict is not None and verdict.moved_to is not None
        if outcome in CARRIED:
            progress.tick(progress.CARRIED)
            carried = carried_document_row(row, outcome, verdict)
            if outcome is Outcome.KEPT_ERROR:
                yield beam.pvalue.TaggedOutput(CARRIED_ERRORS, error_row_from_document(carried))
            yield beam.pvalue.TaggedOutput(CARRIED_DOCUMENTS, carried)
        elif (outcome is Outcome.DELETED and deletes_held and not moved
              and row["status"] != STATUS_DUPLICATE):
            # The delete guard holds this run's deletions: served on as it was.
            yield beam.pvalue.TaggedOutput(CARRIED_DOCUMENTS, vanished_document_row(row))
        elif outcome in (Outcome.DUPLICATE, Outcome.ADOPTED) and not moved and \
                row["status"] not in CHUNK_BEARING:
            return  # no chunks to delete; its row is made again (duplicate) or taken over
        elif outcome not in (Outcome.GONE, Outcome.NEW):  # not a tombstone (reported once)
            deleted = outcome in (Outcome.DELETED, Outcome.DUPLICATE)
            if outcome is Outcome.DELETED:
                yield beam.pvalue.TaggedOutput(CARRIED_DOCUMENTS, deleted_document_row(
                    row, self._config_hash, verdict.moved_to if moved else None))
            move = Move(verdict.moved_to, verdict.moved_uri, verdict.moved_modified or "") \
                if moved else None
            # Re-processed, deleted or moved: ``Reconcile`` diffs its chunks against the
            # new ones, serves them on if re-processing fails (last good version wins),
            # or rewrites them under the document that took them over.
            yield beam.pvalue.TaggedOutput(
                PREVIOUS_STATE, (doc_id, (DOCUMENTS, (as_python_row(row), deleted, move))))

    def _chunk(self, row: dict[str, Any], verdict: Verdict | None, deletes_held: bool):
        outcome = chunk_outcome(row, verdict, self._config_hash)
        held = (outcome is Outcome.DELETED and deletes_held
                and (verdict is None or verdict.moved_to is None))
        if held:
            chunk, change = self._with_layers(as_python_row(row))
            if change is not None:
                yield beam.pvalue.TaggedOutput(CARRIED_CHANGES, change)
            yield chunk
        elif outcome in CARRIED:
            uri = verdict.uri if verdict is not None and verdict.uri else row["source_uri"]
            chunk, change = self._with_layers(*moved_chunk_row(row, uri))
            if change is not None:
                yield beam.pvalue.TaggedOutput(CARRIED_CHANGES, change)
            yield chunk
        else:
            chunk = as_python_row(row)
            yield beam.pvalue.TaggedOutput(PREVIOUS_STATE, (chunk["doc_id"], (CHUNKS, chunk)))
            if (outcome.needs_processing and chunk.get("embedding") is not None
                    and self._layers.dense is Work.KEEP):
                # A vector that the document's re-processed chunks may reuse (of this
                # run's model: the same chunk id is the same chunk under any model).
                yield beam.pvalue.TaggedOutput(
                    PREVIOUS_EMBEDDINGS, (chunk["chunk_id"], embedding_source(chunk)))


class CompareWithPrevious(beam.PTransform):
    """Matched files + the previous run's tables → a dict of PCollections:

    ``to_process`` (``SourceFile``s for Read); ``duplicates`` (documents rows of
    files whose bytes another file has: ``identity.py``); ``carried_documents``,
    ``carried_chunks``, ``carried_errors`` and ``carried_changes`` (rows to write
    as they are); ``previous_state`` (``(doc_id, (DOCUMENTS, (row, deleted, move)))``
    and ``(doc_id, (CHUNKS, row))`` of every document processed again or deleted,
    for ``Reconcile``); and ``previous_embeddings`` (``(chunk_id, inputs and
    vector)`` of re-processed documents' chunks that had one, for
    ``ReuseEmbeddings``).
    """

    def __init__(self, previous: str, config_hash: str, max_file_bytes: int,
                 retry_errors: bool = False, verify_hashes: bool = False,
                 route: RouteOptions | None = None, guard: DeleteGuard | None = None,
                 layers: LayerPlan | None = None) -> None:
        super().__init__()
        self._layers = layers or LayerPlan()
        self._previous = previous
        self._config_hash = config_hash
        self._max_file_bytes = max_file_bytes
        self._retry_errors = retry_errors
        self._verify_hashes = verify_hashes
        self._route = route or RouteOptions()
        self._guard = guard or DeleteGuard()

    def expand(self, sources: beam.PCollection[SourceFile]) -> dict[str, beam.PCollection]:
        pipeline = sources.pipeline
        files = (pipeline
                 | "Previous tables" >> beam.Impulse()
                 | "List previous files" >> beam.FlatMap(previous_files, self._previous)
                 # Keyed by path: spreads the files over workers.
                 | "Spread files" >> beam.GroupByKey()
                 | "File" >> beam.MapTuple(lambda path, tables: (path, next(iter(tables)))))
        heads = files | "Read heads" >> beam.FlatMapTuple(read_heads)
        current = sources | "Current by doc id" >> beam.Map(
            lambda source: (source.doc_id, (CURRENT, source)))
        decided = (
            (current, heads)
            | "With heads" >> beam.Flatten()
            | "Join by doc id" >> beam.GroupByKey()
            | "Decide" >> beam.ParDo(
                Decide(self._config_hash, self._max_file_bytes, self._retry_errors,
                       self._verify_hashes))
            | "Identify content" >> IdentifyContent(self._config_hash, self._route,
                                                    self._max_file_bytes)
        )
        # One key, so that the guard's counts cost one combine (a global combine with
        # its default for an empty input is ten transforms): the carrying step applies
        # the guard to the sums.
        counts = decided[GUARD_COUNTS] | "Count deletions" >> beam.CombinePerKey(summed)
        carried = files | "Carry previous rows" >> beam.ParDo(
            CarryPreviousRows(self._config_hash, self._guard, self._layers),
            beam.pvalue.AsDict(decided[VERDICTS]),
            beam.pvalue.AsSingleton(counts, default_value=(GUARD_COUNTS, (0, 0, 0)))
        ).with_outputs(CARRIED_DOCUMENTS, CARRIED_ERRORS, CARRIED_CHANGES, PREVIOUS_STATE,
                       PREVIOUS_EMBEDDINGS, main=CARRIED_CHUNKS)
        return {TO_PROCESS: decided[TO_PROCESS], DUPLICATES: decided[DUPLICATES],
                **{tag: carried[tag] for tag in (CARRIED_DOCUMENTS, CARRIED_ERRORS,
                                                  CARRIED_CHANGES, CARRIED_CHUNKS,
                                                  PREVIOUS_STATE, PREVIOUS_EMBEDDINGS)}}


@beam.typehints.with_output_types(ChangeRow, documents=DocumentRow, chunks=ChunkRow,
                                  errors=ErrorRow)
class ReconcileDocuments(beam.DoFn):
    """``(doc_id, [(FAILURES, Failure) | (DIGESTS, (uri, chunk_id, digest)) |
    (DOCUMENTS, (row, deleted, move)) | (CHUNKS, row)])`` → the rows ``reconcile.py``
    decides, each under its table's tag (``documents``, ``chunks``, ``errors``;
    changes are the main output)."""

    def __init__(self, config_hash: str) -> None:
        self._config_hash = config_hash
        self._stale = Metrics.counter(NAMESPACE, "stale")

    def process(self, element: tuple[str, Iterable[tuple[str, Any]]]):
        doc_id, values = element
        grouped = grouped_by_tag(values)
        current = grouped.get(DIGESTS, [])
        document = next(iter(grouped.get(DOCUMENTS, ())), None)
        previous = None
        if document is not None:
            row, deleted, move = document
            previous = PreviousState(row, tuple(grouped.get(CHUNKS, ())), deleted=deleted,
                                     move=move)
        result = reconcile_document(
            doc_id,
            grouped.get(FAILURES, []),
            previous,
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


def _chunk_digest(row: Mapping[str, Any]) -> tuple[str, tuple[str, tuple[str, str, str]]]:
    return row["doc_id"], (DIGESTS, (row["source_uri"], row["chunk_id"], chunk_row_digest(row)))


class Reconcile(beam.PTransform):
    """This run's failures and chunk rows + the previous rows of re-processed and
    deleted documents → ``{"documents", "chunks", "errors", "changes"}``: error or
    stale rows, carried chunks of stale documents, error rows, and every change row
    of re-processed, new and deleted documents (``reconcile.py``).

    Input: ``{"failures", "chunks"}`` of this run and ``"previous_state"`` from
    ``CompareWithPrevious``.
    """

    def __init__(self, config_hash: str) -> None:
        super().__init__()
        self._config_hash = config_hash

    def expand(self, inputs: Mapping[str, beam.PCollection]) -> dict[str, beam.PCollection]:
        failures = inputs["failures"] | "Failures by doc id" >> beam.Map(
            lambda failure: (failure.source.doc_id, (FAILURES, failure)))
        current = inputs["chunks"] | "Chunk digests by doc id" >> beam.Map(_chunk_digest)
        reconciled = (
            (failures, current, inputs[PREVIOUS_STATE])
            | "Together" >> beam.Flatten()
            | "Join by doc id" >> beam.GroupByKey()
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

        def fill(element: tuple[str, Mapping[str, Iterable[Any]]]) -> Iterable[ChunkRow]:
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
            | "Fill reusable vectors" >> beam.FlatMap(fill).with_output_types(ChunkRow)
        )


def _text_key(row: Mapping[str, Any]) -> Iterator[tuple[str, tuple[str, str, str | None]]]:
    fingerprint = text_fingerprint(row.get("text"))
    if fingerprint is not None:
        yield fingerprint, (fingerprint, row["source_uri"], row["content_hash"])


class ReportNearDuplicates(beam.PTransform):
    """Documents rows → nothing: documents whose text equals another's while their
    bytes differ are counted (``ragbeam.identity/near_duplicates``: every one after
    the first of its group) and logged, one line per group (``identity.py``)."""

    def expand(self, documents: beam.PCollection[dict]) -> beam.PCollection:
        counter = Metrics.counter("ragbeam.identity", "near_duplicates")

        def report(element: tuple[str, Iterable[tuple[str, str, str | None]]]) -> None:
            import logging

            for group in near_duplicate_groups(element[1]):
                counter.inc(len(group) - 1)
                logging.getLogger("ragbeam").info(
                    "near-duplicates (same text, other bytes): %s",
                    ", ".join(uri for uri, _ in group))

        return (documents
                | "By text" >> beam.FlatMap(_text_key)
                | "Group by text" >> beam.GroupByKey()
                | "Report" >> beam.Map(report))
