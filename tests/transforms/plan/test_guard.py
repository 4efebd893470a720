"""The delete guard: its rule (``plan/guard.py``) and where it is applied, in a run's
plan (``plan/planner.py``: what counts as vanished, summed over the run) and in the
rows the run writes (``plan/carry.py``); the real runs are
tests/pipeline/test_unattended_guards.py and test_sync.py."""

from __future__ import annotations

import pytest

from ragbeam.transforms.plan.carry import carry_chunk, carry_document
from ragbeam.transforms.plan.guard import DeleteGuard
from ragbeam.transforms.plan.planner import plan_run
from ragbeam.transforms.route.router import RouteOptions
from ragbeam.transforms.types import SourceFile
from ragbeam.transforms.write.rows import SOURCE_MODIFIED_KEY

CONFIG = "c" * 32
ROUTE = RouteOptions()
MODIFIED = 1_600_000_000.0


@pytest.mark.parametrize(("guard", "vanished", "previous", "current", "holds"), [
    (DeleteGuard(), 1, 5, 4, False),   # 20 %: not over the default
    (DeleteGuard(), 2, 5, 3, True),
    (DeleteGuard(1.0), 5, 5, 1, False),  # accepted
    (DeleteGuard(1.0), 5, 5, 0, True),   # an empty listing is never "everything deleted"
    (DeleteGuard(1.0, 0), 1, 100, 99, True),  # the absolute form
    (DeleteGuard(0.0), 0, 5, 5, False),  # nothing vanished
])
def test_the_delete_guard(guard, vanished, previous, current, holds):
    assert guard.holds(vanished, previous, current) is holds


def _source(doc_id: str, size: int, name: str = "") -> SourceFile:
    return SourceFile(f"/corpus/{name or doc_id}.txt", doc_id, size, MODIFIED, MODIFIED + 3600)


def _row(doc_id: str, size: int, status: str = "ok") -> dict:
    """A previous documents row (whole: its head is what the plan reads)."""
    return {"doc_id": doc_id, "source_uri": f"/corpus/{doc_id}.txt",
            "content_hash": f"{size:064x}", "status": status, "error": None,
            "media_type": "text/plain", "title": None, "language": "en", "page_count": None,
            "bytes": size, "chunk_count": 1, "config_hash": CONFIG, "text": "t" * size,
            "metadata": {SOURCE_MODIFIED_KEY: repr(MODIFIED)}}


def _chunk(doc_id: str) -> dict:
    return {"chunk_id": f"k-{doc_id}", "doc_id": doc_id, "source_uri": f"/corpus/{doc_id}.txt",
            "text": "t", "config_hash": CONFIG, "metadata": {}}


# Five documents of five sizes; the corpus now keeps two of them.
PREVIOUS = [_row(doc_id, size) for doc_id, size in zip("abcde", (10, 20, 30, 40, 50),
                                                            strict=True)]
KEPT = [_source("a", 10), _source("b", 20)]


def _hash(source: SourceFile) -> str:
    return f"{source.size_bytes:064x}"


def _written(guard: DeleteGuard, sources: list[SourceFile]) -> tuple[dict, dict, set, bool]:
    """The plan, then what the run writes of every previous row: each document's row
    status, each chunk carried or not, the doc ids that go to ``Reconcile``."""
    plan = plan_run(sources, PREVIOUS, CONFIG, ROUTE, _hash, guard=guard)
    assert plan is not None
    statuses, chunks, reconciled = {}, {}, set()
    for row in PREVIOUS:
        verdict = plan.verdicts.get(row["doc_id"])
        carried = carry_document(row, verdict, CONFIG, plan.deletes_held)
        statuses[row["doc_id"]] = carried.row["status"] if carried.row else None
        chunk = carry_chunk(_chunk(row["doc_id"]), verdict, CONFIG, plan.deletes_held)
        chunks[row["doc_id"]] = chunk.row is not None
        if carried.reconcile is not None or chunk.reconcile is not None:
            reconciled.add(row["doc_id"])
    return statuses, chunks, reconciled, plan.deletes_held


def test_a_held_plan_writes_no_tombstone_and_loses_no_chunk():
    """3 of 5 vanished: over the default 20 %. Every previous row is served on."""
    statuses, chunks, reconciled, held = _written(DeleteGuard(), KEPT)
    assert held
    assert statuses == {"a": "unchanged", "b": "unchanged", "c": "vanished", "d": "vanished",
                        "e": "vanished"}
    assert all(chunks.values()) and reconciled == set()


def test_a_plan_within_the_limit_deletes():
    statuses, chunks, reconciled, held = _written(DeleteGuard(max_rate=1.0), KEPT)
    assert not held
    assert statuses == {"a": "unchanged", "b": "unchanged", "c": "deleted", "d": "deleted",
                        "e": "deleted"}
    assert chunks == {"a": True, "b": True, "c": False, "d": False, "e": False}
    assert reconciled == {"c", "d", "e"}  # their chunk ids are deleted there


def test_the_plan_counts_only_content_that_is_gone():
    # c moved to another path (same bytes): not a deletion; e was a duplicate row.
    previous = [*PREVIOUS[:4], _row("e", 50, status="duplicate")]
    sources = [*KEPT, _source("c2", 30, name="moved/c")]
    for guard, held in ((DeleteGuard(0.25), False), (DeleteGuard(0.2), True)):
        plan = plan_run(sources, previous, CONFIG, ROUTE, _hash, guard=guard)
        assert plan is not None
        # vanished: d only; previous documents: a-d, not the duplicate; current files: 3
        assert plan.counts == (1, 4, 3)
        assert plan.deletes_held is held  # 1 of 4: 25 %


def test_an_empty_listing_holds_every_deletion_whatever_the_limits():
    plan = plan_run([], PREVIOUS, CONFIG, ROUTE, _hash, guard=DeleteGuard(1.0))
    assert plan is not None and plan.counts == (5, 5, 0) and plan.deletes_held
