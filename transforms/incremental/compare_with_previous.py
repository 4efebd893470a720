"""``CompareWithPrevious``: the matched files meet the previous run's tables.

``CompareWithPrevious`` turns the matched ``SourceFile``s into the files that
still need processing, plus everything carried over from the previous run: the
steps of a run's plan (``transforms/plan/planner.py``), each in its own Beam step:
the comparison by doc id (``Decide``: ``plan/decide.py``), content identity
(``IdentifyContent``, in first runs too: ``plan/content.py``), the delete guard
(``plan/guard.py``) and the carry rules (``CarryPreviousRows``: ``plan/carry.py``).
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

from collections.abc import Iterable
from typing import Any

import apache_beam as beam
from apache_beam.metrics import Metrics

from ragbeam.transforms.identity.identify import (
    DUPLICATES,
    GUARD_COUNTS,
    TO_PROCESS,
    VERDICTS,
    IdentifyContent,
    counted_hash,
)
from ragbeam.transforms.incremental.carry_previous_rows import (
    CARRIED_CHANGES,
    CARRIED_CHUNKS,
    CARRIED_DOCUMENTS,
    CARRIED_ERRORS,
    PREVIOUS_EMBEDDINGS,
    PREVIOUS_STATE,
    REUSED_DOCUMENTS,
    CarryPreviousRows,
)
from ragbeam.transforms.incremental.join import CURRENT, NAMESPACE, PREVIOUS, grouped_by_tag
from ragbeam.transforms.incremental.previous_tables import previous_files, read_heads
from ragbeam.transforms.plan.content import size_key, summed
from ragbeam.transforms.plan.decide import decide_document
from ragbeam.transforms.plan.guard import DeleteGuard
from ragbeam.transforms.plan.layers import LayerPlan
from ragbeam.transforms.route.router import RouteOptions
from ragbeam.transforms.types import SourceFile


class Decide(beam.DoFn):
    """``(doc_id, [(CURRENT, SourceFile) | (PREVIOUS, head)])`` → ``(size, Decided)``
    for ``IdentifyContent``: the comparison by doc id (``decide.decide_document``).
    Hashes the file only if ``needs_hash``."""

    def __init__(self, config_hash: str, max_bytes: int, retry_errors: bool,
                 verify_hashes: bool, reuse: str | None = None) -> None:
        self._config_hash = config_hash
        self._reuse = reuse
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
                                              self._hash, self._reuse)
        if by_listing:
            self._by_listing.inc()
        Metrics.counter(NAMESPACE, str(decided.outcome)).inc()
        yield size_key(decided), decided


class CompareWithPrevious(beam.PTransform):
    """Matched files + the previous run's tables → a dict of PCollections:

    ``to_process`` (``SourceFile``s for Read); ``duplicates`` (documents rows of
    files whose bytes another file has: ``transforms/identity/``); ``carried_documents``,
    ``carried_chunks``, ``carried_errors`` and ``carried_changes`` (rows to write
    as they are); ``previous_state`` (``(doc_id, (DOCUMENTS, (row, deleted, move)))``
    and ``(doc_id, (CHUNKS, row))`` of every document processed again or deleted,
    for ``Reconcile``); and ``previous_embeddings`` (``(chunk_id, inputs and
    vector)`` of re-processed documents' chunks that had one, for
    ``ReuseEmbeddings``); and ``reused_documents``: the cleaned ``Document`` of
    every document chunked again without extracting it (``reuse``: the previous
    run's chunk key when its extraction is this run's, ``plan/reuse_extraction.py``).
    """

    def __init__(self, previous: str, config_hash: str, max_file_bytes: int,
                 retry_errors: bool = False, verify_hashes: bool = False,
                 route: RouteOptions | None = None, guard: DeleteGuard | None = None,
                 layers: LayerPlan | None = None, reuse: str | None = None) -> None:
        super().__init__()
        self._reuse = reuse
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
                       self._verify_hashes, self._reuse))
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
                       PREVIOUS_EMBEDDINGS, REUSED_DOCUMENTS, main=CARRIED_CHUNKS)
        return {TO_PROCESS: decided[TO_PROCESS], DUPLICATES: decided[DUPLICATES],
                **{tag: carried[tag] for tag in (CARRIED_DOCUMENTS, CARRIED_ERRORS,
                                                  CARRIED_CHANGES, CARRIED_CHUNKS,
                                                  PREVIOUS_STATE, PREVIOUS_EMBEDDINGS,
                                                  REUSED_DOCUMENTS)}}
