"""A night on which nothing changed, decided without a pipeline (pure).

When the listing and the previous run's documents prove that every document is
carried over as it was (``unchanged``, or a kept failure), and every layer's key
is the previous run's, the pipeline would only copy the previous run's tables:
read every row, rewrite each document row's status, write them again. Starting
Beam for that costs more than all the rest of such a run. ``carry_over`` makes the
run's own plan (``plan/planner.py`` ``plan_run``) and says whether that is the case;
``pipeline/unchanged.py`` then writes the run from the previous one: the chunks
table copied, the documents and errors tables rewritten row by row by the carry
rules the pipeline applies (``plan/carry.py``), no changes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ragbeam.schemas.errors import ErrorRow
from ragbeam.transforms.plan.carry import carry_document
from ragbeam.transforms.plan.decide import CARRIED, Outcome, Verdict
from ragbeam.transforms.plan.planner import plan_run
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


def _not_carried(outcome: Outcome) -> bool:
    return outcome not in (*CARRIED, Outcome.GONE)


def carry_over(sources: Iterable[SourceFile], heads: Iterable[Mapping[str, Any]],
               config_hash: str, route: RouteOptions,
               hash_of: Callable[[SourceFile], str | None], retry_errors: bool = False,
               verify_hashes: bool = False) -> CarryOver | None:
    """A ``CarryOver`` when no current file needs work and no previous document is
    deleted, moved or a duplicate (so the delete guard has nothing to hold); None
    otherwise (the pipeline runs), as soon as one document says so. A previous
    tombstone is dropped, as the run does. A carried document's file under another
    URI (a moved corpus) also takes the pipeline: its chunk rows change."""
    plan = plan_run(sources, heads, config_hash, route, hash_of, retry_errors=retry_errors,
                    verify_hashes=verify_hashes, stop=_not_carried)
    if plan is None or any(v.uri is not None for v in plan.verdicts.values()):
        return None
    return CarryOver(plan.verdicts, plan.files_unchanged_by_listing, plan.files_hashed,
                     plan.bytes_hashed)


def carried_rows(row: Mapping[str, Any], verdict: Verdict | None, config_hash: str
                 ) -> tuple[dict[str, Any] | None, ErrorRow | None]:
    """A previous documents row → its row in this run and its errors row, by the carry
    rules the pipeline applies (``(None, None)``: a tombstone, dropped)."""
    carried = carry_document(row, verdict, config_hash)
    if carried.outcome not in CARRIED:
        return None, None
    return carried.row, carried.error
