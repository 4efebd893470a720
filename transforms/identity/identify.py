"""Beam side of content identity (``plan/content.py``), in every run:
``IdentifyContent`` groups the matched files by size and resolves duplicates and
moves; ``new_file`` feeds it in a run without ``--previous`` (with one,
``CompareWithPrevious``'s ``Decide`` does)."""

from __future__ import annotations

from collections.abc import Iterable

import apache_beam as beam
from apache_beam.metrics import Metrics

from ragbeam.schemas.documents import DocumentRow
from ragbeam.transforms import progress
from ragbeam.transforms.identity.hashing import NAMESPACE, hash_file
from ragbeam.transforms.plan.content import duplicate_document_row, guard_counts, resolve
from ragbeam.transforms.plan.decide import CurrentFile, Decided, Outcome
from ragbeam.transforms.route.router import RouteOptions
from ragbeam.transforms.types import SourceFile

TO_PROCESS = "to_process"
VERDICTS = "verdicts"
DUPLICATES = "duplicates"
GUARD_COUNTS = "guard_counts"


def counted_hash(source: SourceFile, max_bytes: int) -> str | None:
    """``hash_file``, counted in ``reads.files_hashed`` and ``reads.bytes_hashed``."""
    content_hash = hash_file(source.uri, source.size_bytes, max_bytes)
    Metrics.counter(NAMESPACE, "files_hashed").inc()
    if content_hash is not None:
        Metrics.counter(NAMESPACE, "bytes_hashed").inc(source.size_bytes)
    return content_hash


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
    (documents rows) and ``GUARD_COUNTS`` for the delete guard: ``content.resolve``.
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
            elif resolved.outcome is Outcome.RECHUNK:
                pass  # chunked again from its previous row (``CarryPreviousRows``), not read
            elif resolved.outcome.needs_processing:
                assert d.current is not None
                yield d.current.source


class IdentifyContent(beam.PTransform):
    """``(size, Decided)`` → ``{"to_process", "verdicts", "duplicates",
    "guard_counts"}``: duplicates indexed once, moves without re-processing
    (``plan/content.py``). Only documents of one size meet, after one shuffle of the
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
