"""What an incremental run would do, without running it (``--dry-run --previous``).

The same decisions the pipeline takes (``identity.decide_document``, then
``identity.resolve`` by size, then the delete guard), over the listing and the
previous run's documents heads, in this process: nothing is extracted or
written; a file is read (hashed) only where the run would read it to decide.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ragbeam.transforms.identity.content import (
    Resolved,
    decide_document,
    guard_counts,
    resolve,
    size_key,
    summed,
)
from ragbeam.transforms.incremental.compare import Outcome
from ragbeam.transforms.incremental.guard import DeleteGuard
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


def _kind(resolved: Resolved) -> str | None:
    if resolved.outcome is Outcome.DELETED and resolved.adopter is not None:
        return None  # shown once, as the document that takes it over ("moved")
    return KINDS.get(resolved.outcome)


def preview(sources: Iterable[SourceFile], heads: Iterable[Mapping[str, Any]],
            config_hash: str, route: RouteOptions, guard: DeleteGuard,
            hash_of: Callable[[SourceFile], str | None], retry_errors: bool = False,
            verify_hashes: bool = False, reuse: str | None = None) -> Preview:
    """The run's decisions for the current files ``sources`` against the previous
    documents ``heads`` (``compare.head_of``); ``reuse``: the chunk key whose rows the
    run would chunk again without extracting (``reuse_extraction.reuse_key``)."""
    by_id: dict[str, tuple[SourceFile | None, Mapping[str, Any] | None]] = {}
    for source in sources:
        by_id[source.doc_id] = (source, None)
    for head in heads:
        by_id[head["doc_id"]] = (by_id.get(head["doc_id"], (None, None))[0], head)
    by_size: dict[int, list] = {}
    for doc_id, (source, head) in sorted(by_id.items()):
        decided, _ = decide_document(doc_id, source, head, config_hash, retry_errors,
                                     verify_hashes, hash_of, reuse)
        by_size.setdefault(size_key(decided), []).append(decided)
    out = Preview()
    counts = []
    for group in by_size.values():
        for resolved in resolve(group, config_hash, route, hash_of):
            counts.append(guard_counts(resolved))
            kind = _kind(resolved)
            if kind is None:
                continue
            d = resolved.decided
            uri = d.current.source.uri if d.current is not None else d.previous["source_uri"]
            out.uris[kind].append(uri)
    for uris in out.uris.values():
        uris.sort()
    out.vanished, out.previous_documents, out.current_files = summed(counts)
    out.held = guard.holds(out.vanished, out.previous_documents, out.current_files)
    return out
