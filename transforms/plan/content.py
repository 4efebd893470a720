"""Content identity: duplicates indexed once, moves without re-processing (pure).

The second step of a run's plan (``planner.py``), after the comparison by doc id
(``decide.py``): the documents of one size meet here.

Two files with the same bytes, under the same config, give the same chunks (up to
the ids, which name the document). So:

* **Duplicates.** Among the current files with identical bytes (and the same
  *path profile*, below), the one with the smallest ``doc_id`` is *canonical*:
  it alone is read, extracted, chunked and embedded. Every other one gets a
  ``duplicate`` documents row naming it (``duplicate_of``) and no chunks. The
  choice depends only on ids, never on runner order, so it is the same on every
  runner and in a first or an incremental run.
* **Moves and take-overs.** When the canonical file of some bytes needs
  processing (new, or a former duplicate) and has no chunks of its own, while a
  previous document with the same bytes and config had good chunks and is gone
  now (vanished, or a duplicate of it), it *adopts* them: the previous rows are
  rewritten under its doc id and URI (``reconcile.adopted_rows``), vectors and
  all, without extraction or embedding. A renamed file and a copy that takes over
  when its canonical copy is deleted are the same case.

Chunk ids of an adopted document change: they hash the doc id (``ids.py``), and
a run must give the ids a fresh run over the same files gives (determinism), so
``changes`` deletes the old ids and upserts the new ones, with the same vectors.

**Path profile.** A file's path can change its output: Tika is given its name,
the extension decides Markdown handling, and routing rules match extensions and
path globs. Copies whose extension or route preview differ are therefore not
taken as the same content (each is processed).

Near-duplicates (the same text from other bytes) are found after extraction:
``transforms/identity/``.

Only files whose *size* equals another's are compared, so only those are hashed
beyond what the incremental comparison already hashed: the work is grouped by
size (``size_key``), and a size held by one document costs nothing.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from ragbeam.schemas.documents import (
    STATUS_DUPLICATE,
    DocumentRow,
    build_document_row,
)
from ragbeam.transforms.plan.decide import (
    CHUNK_BEARING,
    SERVED_STATUSES,
    CurrentFile,
    Decided,
    Outcome,
    Verdict,
    verdict_for,
)
from ragbeam.transforms.route.router import RouteOptions, preview_route
from ragbeam.transforms.types import SourceFile
from ragbeam.transforms.write.rows import settled_modified, source_metadata

# documents.metadata of a duplicate row: the canonical document's doc id and URI.
DUPLICATE_OF_KEY = "duplicate_of"
DUPLICATE_OF_URI_KEY = "duplicate_of_uri"


def size_key(decided: Decided) -> int:
    """What the identity step groups by: the size of the bytes the document has now
    (a vanished one: the size it had)."""
    if decided.current is not None:
        return decided.current.source.size_bytes
    size = decided.previous["bytes"] if decided.previous is not None else None
    return -1 if size is None else int(size)


def path_profile(uri: str, route: RouteOptions) -> tuple[str, str, str]:
    """What of a path can change a document's output: its extension and route."""
    return (posixpath.splitext(uri)[1].lower(), *preview_route(uri, route))


@dataclass(frozen=True)
class Resolved:
    """A document's final outcome: ``duplicate_of`` names the canonical doc id of a
    duplicate; ``adopter`` is the document that takes over this one's chunks."""

    decided: Decided
    outcome: Outcome
    duplicate_of: str | None = None
    canonical_uri: str | None = None
    adopter: Decided | None = None

    @property
    def counts_as_deleted(self) -> bool:
        """A deletion for the delete guard: its content is gone from the corpus."""
        previous = self.decided.previous
        return (self.outcome is Outcome.DELETED and self.adopter is None
                and previous is not None and previous["status"] != STATUS_DUPLICATE)

    def verdict(self, config_hash: str) -> Verdict | None:
        d = self.decided
        verdict = verdict_for(d.current, d.previous, self.outcome, config_hash)
        if self.adopter is None:
            return verdict
        source = self.adopter.current.source
        return Verdict(str(self.outcome), None, None, source.doc_id, source.uri,
                       settled_modified(source))


def resolve(group: Iterable[Decided], config_hash: str, route: RouteOptions,
            hash_of: Callable[[SourceFile], str | None]) -> list[Resolved]:
    """The documents of one size, resolved (see the module docstring). ``hash_of``
    hashes a current file whose hash the comparison did not need (None: cannot)."""
    members = sorted(group, key=lambda d: d.doc_id)
    if len(members) < 2 or size_key(members[0]) <= 0:
        # One document of its size; or empty files and broken links, which are not
        # copies of each other but each its own error.
        return [Resolved(d, d.outcome) for d in members]
    members = [replace(d, current=CurrentFile(d.current.source, hash_of(d.current.source)))
               if d.current is not None and d.current.content_hash is None else d
               for d in members]
    outcome = {d.doc_id: d.outcome for d in members}
    by_content: dict[tuple[str, tuple[str, str, str]], list[Decided]] = {}
    for d in members:
        if d.current is not None and d.current.content_hash:
            key = (d.current.content_hash, path_profile(d.current.source.uri, route))
            by_content.setdefault(key, []).append(d)
    duplicate_of: dict[str, Decided] = {}
    for copies in by_content.values():
        canonical = copies[0]  # smallest doc id: members are sorted
        for copy in copies[1:]:
            outcome[copy.doc_id] = Outcome.DUPLICATE
            duplicate_of[copy.doc_id] = canonical
    adopter_of: dict[str, Decided] = {}
    for (content_hash, profile), copies in by_content.items():
        canonical = copies[0]
        if not outcome[canonical.doc_id].needs_processing or _has_own_chunks(canonical):
            continue
        donors = [d for d in members
                  if d.doc_id != canonical.doc_id and d.doc_id not in adopter_of
                  and outcome[d.doc_id] in (Outcome.DELETED, Outcome.DUPLICATE)
                  and _can_donate(d.previous, content_hash, profile, config_hash, route)]
        if donors:
            adopter_of[donors[0].doc_id] = canonical
            outcome[canonical.doc_id] = Outcome.ADOPTED
    return [Resolved(d, outcome[d.doc_id],
                     duplicate_of[d.doc_id].doc_id if d.doc_id in duplicate_of else None,
                     duplicate_of[d.doc_id].current.source.uri if d.doc_id in duplicate_of
                     else None,
                     adopter_of.get(d.doc_id))
            for d in members]


def _has_own_chunks(decided: Decided) -> bool:
    """Its previous row has chunks: they are diffed against its new ones as usual
    (adopting other chunk rows on top could give one chunk id a delete and an upsert)."""
    return decided.previous_live and decided.previous["status"] in CHUNK_BEARING


def _can_donate(previous: Mapping[str, Any] | None, content_hash: str,
                profile: tuple[str, str, str], config_hash: str, route: RouteOptions) -> bool:
    """A previous row whose chunks were made from these bytes, under this config, at
    a path that gives the same output."""
    return (previous is not None and previous["status"] in SERVED_STATUSES
            and previous["content_hash"] == content_hash
            and previous["config_hash"] == config_hash
            and path_profile(previous["source_uri"], route) == profile)


def duplicate_document_row(resolved: Resolved, config_hash: str) -> DocumentRow:
    """The documents row of a duplicate: what the listing knows, and its canonical copy."""
    current = resolved.decided.current
    source = current.source
    return build_document_row(
        doc_id=source.doc_id,
        source_uri=source.uri,
        content_hash=current.content_hash,
        status=STATUS_DUPLICATE,
        bytes=source.size_bytes,
        chunk_count=0,
        config_hash=config_hash,
        metadata={DUPLICATE_OF_KEY: resolved.duplicate_of or "",
                  DUPLICATE_OF_URI_KEY: resolved.canonical_uri or "",
                  **source_metadata(source)},
    )


def guard_counts(resolved: Resolved) -> tuple[int, int, int]:
    """``(vanished, previous documents, current files)`` this document adds to what the
    delete guard weighs (``guard.py``; summed over the run: ``summed``)."""
    d = resolved.decided
    counted_before = d.previous_live and d.previous["status"] != STATUS_DUPLICATE
    return (int(resolved.counts_as_deleted), int(counted_before), int(d.current is not None))


def summed(counts: Iterable[tuple[int, int, int]]) -> tuple[int, int, int]:
    total = (0, 0, 0)
    for c in counts:
        total = (total[0] + c[0], total[1] + c[1], total[2] + c[2])
    return total
