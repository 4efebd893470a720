"""What an incremental run would do, without running it (``--dry-run --previous``).

The run's own plan (``plan/planner.py`` ``plan_run``: the comparison by doc id,
content identity, the delete guard) over the listing and the previous run's
documents heads, in this process: nothing is extracted or written; a file is read
(hashed) only where the run would read it to decide.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ragbeam.transforms.plan.decide import Outcome
from ragbeam.transforms.plan.guard import DeleteGuard
from ragbeam.transforms.plan.planner import PlannedDocument, plan_run
from ragbeam.transforms.route.router import RouteOptions
from ragbeam.transforms.types import SourceFile

# How each final outcome is shown, in the order shown.
KINDS = {
    Outcome.NEW: "new", Outcome.CHANGED: "changed", Outcome.RETRY: "retried",
    Outcome.RECHUNK: "re-chunked",
    Outcome.UNCHANGED: "unchanged", Outcome.KEPT_ERROR: "kept failure",
    Outcome.DELETED: "deleted", Outcome.ADOPTED: "moved", Outcome.DUPLICATE: "duplicate",
}


@dataclass
class Preview:
    """Documents by what the run would do with them (``KINDS``; a moved document
    under its new URI), and the delete guard's weights and verdict."""

    uris: dict[str, list[str]] = field(default_factory=lambda: {k: [] for k in KINDS.values()})
    vanished: int = 0
    previous_documents: int = 0
    current_files: int = 0
    held: bool = False

    def count(self, kind: str) -> int:
        return len(self.uris[kind])


def _kind(planned: PlannedDocument) -> str | None:
    if planned.outcome is Outcome.DELETED and planned.resolved.adopter is not None:
        return None  # shown once, as the document that takes it over ("moved")
    return KINDS.get(planned.outcome)


def preview(sources: Iterable[SourceFile], heads: Iterable[Mapping[str, Any]],
            config_hash: str, route: RouteOptions, guard: DeleteGuard,
            hash_of: Callable[[SourceFile], str | None], retry_errors: bool = False,
            verify_hashes: bool = False, reuse: str | None = None) -> Preview:
    """The run's decisions for the current files ``sources`` against the previous
    documents ``heads`` (``decide.head_of``); ``reuse``: the chunk key whose rows the
    run would chunk again without extracting (``reuse_extraction.reuse_key``)."""
    plan = plan_run(sources, heads, config_hash, route, hash_of, guard=guard,
                    retry_errors=retry_errors, verify_hashes=verify_hashes, reuse=reuse)
    assert plan is not None  # it stops only when asked to
    out = Preview()
    for planned in plan.documents:
        kind = _kind(planned)
        if kind is not None:
            out.uris[kind].append(planned.uri)
    for uris in out.uris.values():
        uris.sort()
    out.vanished, out.previous_documents, out.current_files = plan.counts
    out.held = plan.deletes_held
    return out
