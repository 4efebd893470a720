"""A run's plan in one loop (``plan/planner.py`` ``plan_run``): every document's final
outcome and verdict, what deciding read, and giving up early; the same steps run in
Beam (``incremental/compare_with_previous.py``) and are compared with a fresh run in
tests/pipeline/test_dry_runs.py and test_unchanged.py."""

from __future__ import annotations

from ragbeam.transforms.plan.decide import Outcome, Verdict
from ragbeam.transforms.plan.guard import DeleteGuard
from ragbeam.transforms.plan.planner import plan_run
from ragbeam.transforms.route.router import RouteOptions
from ragbeam.transforms.types import SourceFile
from ragbeam.transforms.write.rows import SOURCE_MODIFIED_KEY, settled_modified

CONFIG = "c" * 32
ROUTE = RouteOptions()
MODIFIED = 1_600_000_000.0


def _source(doc_id: str, size: int, name: str = "", modified: float = MODIFIED) -> SourceFile:
    return SourceFile(f"/corpus/{name or doc_id}.txt", doc_id, size, modified, MODIFIED + 3600)


def _head(doc_id: str, size: int, status: str = "ok", **metadata: str) -> dict:
    return {"doc_id": doc_id, "source_uri": f"/corpus/{doc_id}.txt",
            "content_hash": f"{size:064x}", "status": status, "bytes": size,
            "config_hash": CONFIG, "error": metadata.pop("error", None),
            "metadata": {SOURCE_MODIFIED_KEY: repr(MODIFIED), **metadata}}


def _hash(source: SourceFile) -> str:
    """Bytes by size: files of one size have the same bytes here; "x" names an edit."""
    return ("e" * 64) if "edited" in source.uri else f"{source.size_bytes:064x}"


HEADS = [
    _head("a", 10),                              # listed as recorded: unchanged
    _head("b", 20),                              # touched: hashed, same bytes
    _head("c", 30),                              # edited
    _head("d", 40, "error", error="extract: EncryptedDocumentError: locked",
          error_type="EncryptedDocumentError"),  # a permanent failure, kept
    _head("e", 50),                              # vanished
    _head("f", 60),                              # renamed to f2
    {**_head("g", 70), "status": "deleted"},     # a tombstone
]
SOURCES = [
    _source("a", 10), _source("b", 20, modified=MODIFIED + 60),
    _source("c", 31, name="c-edited", modified=MODIFIED + 60), _source("d", 40),
    _source("f2", 60, name="moved/f"), _source("h", 10, name="copy-of-a"),
]


def test_every_document_s_outcome_and_verdict():
    plan = plan_run(SOURCES, HEADS, CONFIG, ROUTE, _hash, guard=DeleteGuard(1.0))
    assert plan is not None
    assert {d.doc_id: d.outcome for d in plan.documents} == {
        "a": Outcome.UNCHANGED, "b": Outcome.UNCHANGED, "c": Outcome.CHANGED,
        "d": Outcome.KEPT_ERROR, "e": Outcome.DELETED, "f": Outcome.DELETED,
        "f2": Outcome.ADOPTED, "g": Outcome.GONE, "h": Outcome.DUPLICATE}
    assert [d.doc_id for d in plan.documents] == sorted(d.doc_id for d in plan.documents)
    verdicts = plan.verdicts
    # a's and d's rows say what happens to them: no verdict. b gets its new time.
    assert set(verdicts) == {"b", "c", "e", "f"}
    assert verdicts["b"] == Verdict("unchanged", None, settled_modified(SOURCES[1]))
    assert verdicts["c"].outcome == "changed" and verdicts["e"].outcome == "deleted"
    assert (verdicts["f"].moved_to, verdicts["f"].moved_uri) == ("f2", "/corpus/moved/f.txt")
    by_id = {d.doc_id: d for d in plan.documents}
    assert by_id["h"].resolved.duplicate_of == "a" and by_id["e"].uri == "/corpus/e.txt"
    # vanished: e (f moved; g was a tombstone); previous: a-f; current files: 6
    assert plan.counts == (1, 6, 6) and not plan.deletes_held


def test_the_plan_hashes_only_what_the_listing_cannot_settle_and_says_so():
    hashed = []

    def hash_of(source: SourceFile) -> str:
        hashed.append(source.doc_id)
        return _hash(source)

    plan = plan_run(SOURCES, HEADS, CONFIG, ROUTE, hash_of)
    assert plan is not None
    # b and c: touched (another time); h and f2: new, sharing a size with another
    # document (a's copy, f's bytes). a and d are settled by the listing.
    assert sorted(hashed) == ["b", "c", "f2", "h"]
    assert (plan.files_hashed, plan.bytes_hashed) == (4, 20 + 31 + 60 + 10)
    assert plan.files_unchanged_by_listing == 2
    verified = plan_run(SOURCES, HEADS, CONFIG, ROUTE, _hash, verify_hashes=True)
    assert verified is not None and verified.files_unchanged_by_listing == 0


def test_a_plan_stops_at_the_first_outcome_its_caller_cannot_use():
    hashed = []

    def hash_of(source: SourceFile) -> str:
        hashed.append(source.doc_id)
        return _hash(source)

    assert plan_run(SOURCES, HEADS, CONFIG, ROUTE, hash_of,
                    stop=lambda outcome: outcome is Outcome.CHANGED) is None
    assert hashed == ["b", "c"]  # in doc id order: nothing after c
    assert plan_run(SOURCES[:2], HEADS[:2], CONFIG, ROUTE, _hash,
                    stop=lambda outcome: outcome is Outcome.CHANGED) is not None
