"""A run's plan: what an incremental run does with each document, in one loop (pure).

The steps, in order; the pipeline runs the same functions, each in its own Beam step
(``incremental/compare_with_previous.py``, ``identity/identify.py``,
``incremental/carry_previous_rows.py``):

1. the current files meet the previous run's documents (their heads,
   ``decide.head_of``) by doc id;
2. each document is compared with its previous row (``decide.decide_document``),
   hashing its file only where the listing cannot settle it;
3. documents of one size meet (``content.size_key``) and are resolved
   (``content.resolve``): duplicates indexed once, moves without re-processing;
4. the delete guard weighs the documents whose content is gone
   (``content.guard_counts``, summed; ``guard.DeleteGuard.holds``);
5. each document gets the ``Verdict`` its previous rows need (``Resolved.verdict``;
   None: the rows say it themselves), from which ``carry.py`` makes the rows the run
   writes of them.

``plan_run`` is the loop, for a run decided in this process: the dry run
(``incremental/preview.py``) and a night with nothing to do, written without a
pipeline (``incremental/unchanged.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ragbeam.transforms.plan.content import Resolved, guard_counts, resolve, size_key, summed
from ragbeam.transforms.plan.decide import Decided, Outcome, Verdict, decide_document
from ragbeam.transforms.plan.guard import DeleteGuard
from ragbeam.transforms.route.router import RouteOptions
from ragbeam.transforms.types import SourceFile


@dataclass(frozen=True)
class PlannedDocument:
    """One document's place in the plan: its comparison and final outcome
    (``resolved``), and the verdict its previous rows are carried by."""

    resolved: Resolved
    verdict: Verdict | None

    @property
    def doc_id(self) -> str:
        return self.resolved.decided.doc_id

    @property
    def outcome(self) -> Outcome:
        return self.resolved.outcome

    @property
    def uri(self) -> str:
        """Its file's URI now, or the previous run's for a document not matched now."""
        d = self.resolved.decided
        if d.current is not None:
            return d.current.source.uri
        assert d.previous is not None
        return d.previous["source_uri"]


@dataclass
class RunPlan:
    """Every document of the run (current or previous), by doc id; what the delete
    guard weighed, ``(vanished, previous documents, current files)``, and whether it
    holds the run's deletions; what deciding read (as the run's ``reads``)."""

    documents: list[PlannedDocument] = field(default_factory=list)
    counts: tuple[int, int, int] = (0, 0, 0)
    deletes_held: bool = False
    files_unchanged_by_listing: int = 0
    files_hashed: int = 0
    bytes_hashed: int = 0

    @property
    def verdicts(self) -> dict[str, Verdict]:
        """The verdicts of the documents whose rows need one, by doc id."""
        return {d.doc_id: d.verdict for d in self.documents if d.verdict is not None}


def by_doc_id(sources: Iterable[SourceFile], heads: Iterable[Mapping[str, Any]]
              ) -> dict[str, tuple[SourceFile | None, Mapping[str, Any] | None]]:
    """Step 1: each doc id's current file and previous head (None where it has none)."""
    joined: dict[str, tuple[SourceFile | None, Mapping[str, Any] | None]] = {
        source.doc_id: (source, None) for source in sources}
    for head in heads:
        joined[head["doc_id"]] = (joined.get(head["doc_id"], (None, None))[0], head)
    return joined


def plan_run(sources: Iterable[SourceFile], heads: Iterable[Mapping[str, Any]],
             config_hash: str, route: RouteOptions,
             hash_of: Callable[[SourceFile], str | None], *,
             guard: DeleteGuard | None = None, retry_errors: bool = False,
             verify_hashes: bool = False, reuse: str | None = None,
             stop: Callable[[Outcome], bool] | None = None) -> RunPlan | None:
    """The run's decisions for the current files ``sources`` against the previous
    documents ``heads`` (module docstring). ``hash_of`` hashes a file (None: cannot);
    ``reuse``: the chunk key whose rows the run may chunk again without extracting
    (``reuse_extraction.reuse_key``). ``stop``: give up, returning None, as soon as a
    document's outcome (compared, then resolved) is one the caller cannot use, so
    that nothing more is hashed for a plan that will not be followed."""
    plan = RunPlan()

    def hashed(source: SourceFile) -> str | None:
        plan.files_hashed += 1
        content_hash = hash_of(source)
        if content_hash is not None:
            plan.bytes_hashed += source.size_bytes
        return content_hash

    by_size: dict[int, list[Decided]] = {}
    for doc_id, (source, head) in sorted(by_doc_id(sources, heads).items()):
        decided, by_listing = decide_document(doc_id, source, head, config_hash, retry_errors,
                                              verify_hashes, hashed, reuse)
        if stop is not None and stop(decided.outcome):
            return None
        plan.files_unchanged_by_listing += by_listing
        by_size.setdefault(size_key(decided), []).append(decided)
    counts = []
    for group in by_size.values():
        for resolved in resolve(group, config_hash, route, hashed):
            if stop is not None and stop(resolved.outcome):
                return None
            counts.append(guard_counts(resolved))
            plan.documents.append(PlannedDocument(resolved, resolved.verdict(config_hash)))
    plan.documents.sort(key=lambda d: d.doc_id)
    plan.counts = summed(counts)
    plan.deletes_held = (guard or DeleteGuard()).holds(*plan.counts)
    return plan
