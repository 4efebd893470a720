"""A night on which nothing changed, decided without a pipeline (pure).

When the listing and the previous run's documents prove that every document is
carried over as it was (``unchanged``, or a kept failure), and every layer's key
is the previous run's, the pipeline would only copy the previous run's tables:
read every row, rewrite each document row's status, write them again. Starting
Beam for that costs more than all the rest of such a run. ``carry_over``
makes the same decisions as the pipeline (``identity.decide_document``, then
``identity.resolve``, in the order ``preview.py`` takes them) and says whether
that is the case; ``pipeline/unchanged.py`` then writes the run from the previous
one: the chunks table copied, the documents and errors tables rewritten row by
row as ``CarryPreviousRows`` would, no changes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ragbeam.transforms.identity.content import decide_document, resolve, size_key
from ragbeam.transforms.incremental.compare import (
    CARRIED,
    Outcome,
    Verdict,
    carried_document_row,
    document_outcome,
    error_row_from_document,
)
from ragbeam.transforms.route.router import RouteOptions
from ragbeam.transforms.types import SourceFile


@dataclass
class CarryOver:
    """Every document carried: the verdicts of those whose rows change (a kept failure,
    a new modification time recorded), and what deciding cost (as the run's ``reads``)."""

    verdicts: dict[str, Verdict] = field(default_factory=dict)
    files_unchanged_by_listing: int = 0
    files_hashed: int = 0
    bytes_hashed: int = 0


def carry_over(sources: Iterable[SourceFile], heads: Iterable[Mapping[str, Any]],
               config_hash: str, route: RouteOptions,
               hash_of: Callable[[SourceFile], str | None], retry_errors: bool = False,
               verify_hashes: bool = False) -> CarryOver | None:
    """A ``CarryOver`` when no current file needs work and no previous document is
    deleted, moved or a duplicate (so the delete guard has nothing to hold); None
    otherwise (the pipeline runs). A previous tombstone is dropped, as the run does.
    A carried document's file under another URI (a moved corpus) also takes the
    pipeline: its chunk rows change."""
    out = CarryOver()

    def hashed(source: SourceFile) -> str | None:
        out.files_hashed += 1
        content_hash = hash_of(source)
        if content_hash is not None:
            out.bytes_hashed += source.size_bytes
        return content_hash

    by_id: dict[str, list[Any]] = {}
    for source in sources:
        by_id[source.doc_id] = [source, None]
    for head in heads:
        by_id.setdefault(head["doc_id"], [None, None])[1] = head
    by_size: dict[int, list] = {}
    for doc_id, (source, head) in sorted(by_id.items()):
        decided, by_listing = decide_document(doc_id, source, head, config_hash,
                                              retry_errors, verify_hashes, hashed)
        if decided.outcome not in (*CARRIED, Outcome.GONE):
            return None
        out.files_unchanged_by_listing += by_listing
        by_size.setdefault(size_key(decided), []).append(decided)
    for group in by_size.values():
        for resolved in resolve(group, config_hash, route, hashed):
            if resolved.outcome not in (*CARRIED, Outcome.GONE):
                return None
            verdict = resolved.verdict(config_hash)
            if verdict is None:
                continue
            if verdict.uri is not None:
                return None
            out.verdicts[resolved.decided.doc_id] = verdict
    return out


def carried_rows(row: Mapping[str, Any], verdict: Verdict | None, config_hash: str
                 ) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """A previous documents row → its row in this run and its errors row, as
    ``CarryPreviousRows`` writes them (``(None, None)``: a tombstone, dropped)."""
    outcome = document_outcome(row, verdict, config_hash)
    if outcome not in CARRIED:
        return None, None
    carried = carried_document_row(row, outcome, verdict)
    error = error_row_from_document(carried) if outcome is Outcome.KEPT_ERROR else None
    return carried, error
