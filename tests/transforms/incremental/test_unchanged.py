"""Whether a night needs a pipeline at all (``incremental/unchanged.py``), pure; the
real runs, compared table by table with a pipeline run, are in
tests/pipeline/test_unchanged.py."""

from __future__ import annotations

from ragbeam.transforms.incremental.unchanged import carried_rows, carry_over
from ragbeam.transforms.route.router import RouteOptions
from ragbeam.transforms.types import SourceFile
from ragbeam.transforms.write.rows import ERROR_CARRIED_KEY, SOURCE_MODIFIED_KEY

CONFIG = "c" * 32
HASH = "a" * 64
ROUTE = RouteOptions()
MODIFIED = 1_600_000_000.0


def _source(doc_id: str, size: int = 10, modified: float = MODIFIED, name: str = "") -> SourceFile:
    return SourceFile(f"/corpus/{name or doc_id}.txt", doc_id, size, modified, MODIFIED + 3600)


def _head(doc_id: str, status: str = "ok", size: int = 10, error: str | None = None,
          **metadata: str) -> dict:
    return {"doc_id": doc_id, "source_uri": f"/corpus/{doc_id}.txt", "content_hash": HASH + doc_id,
            "status": status, "bytes": size, "config_hash": CONFIG, "error": error,
            "metadata": {SOURCE_MODIFIED_KEY: repr(MODIFIED), **metadata}}


def _never_hash(_: SourceFile) -> str | None:
    raise AssertionError("hashed a file the listing settled")


def test_a_listing_that_matches_every_row_needs_no_pipeline_and_reads_nothing():
    heads = [_head("a"), _head("b", size=20)]
    plan = carry_over([_source("a"), _source("b", 20)], heads, CONFIG, ROUTE, _never_hash)
    assert plan is not None and plan.verdicts == {}
    assert (plan.files_unchanged_by_listing, plan.files_hashed) == (2, 0)


def test_any_work_or_any_other_row_takes_the_pipeline():
    heads = [_head("a"), _head("b", size=20)]
    same = lambda s: HASH + s.doc_id  # noqa: E731
    cases = {
        "new file": ([_source("a"), _source("b", 20), _source("c", 30)], heads),
        "deleted": ([_source("a")], heads),
        "edited": ([_source("a", modified=MODIFIED + 1), _source("b", 20)], heads),
        "other config": ([_source("a"), _source("b", 20)],
                         [{**heads[0], "config_hash": "d" * 32}, heads[1]]),
        "moved corpus": ([_source("a", name="x/a"), _source("b", 20)], heads),
        "transient failure": ([_source("a"), _source("b", 20)],
                              [_head("a", "error", error="extract: ExtractionTimeout: slow",
                                     error_type="ExtractionTimeout"), heads[1]]),
    }
    for name, (sources, previous) in cases.items():
        hash_of = (lambda s: "e" * 64) if name == "edited" else same
        assert carry_over(sources, previous, CONFIG, ROUTE, hash_of) is None, name


def test_a_touched_file_and_a_kept_failure_are_carried_with_their_verdicts():
    failed = _head("b", "error", error="extract: ExtractionError: broken",
                   error_type="ExtractionError", error_stage="extract")
    heads = [_head("a"), failed, {**_head("gone"), "status": "deleted"}]
    sources = [_source("a", modified=MODIFIED + 60), _source("b")]
    plan = carry_over(sources, heads, CONFIG, ROUTE, lambda s: HASH + s.doc_id)
    assert plan is not None and plan.files_hashed == 1 and plan.bytes_hashed == 10
    row, error = carried_rows(heads[0], plan.verdicts.get("a"), CONFIG)
    assert row["status"] == "unchanged" and error is None
    assert row["metadata"][SOURCE_MODIFIED_KEY] == repr(MODIFIED + 60)
    row, error = carried_rows(failed, plan.verdicts.get("b"), CONFIG)
    assert row["status"] == "error" and row["metadata"][ERROR_CARRIED_KEY] == "true"
    assert error["error_type"] == "ExtractionError" and error["stage"] == "extract"
    assert carried_rows(heads[2], plan.verdicts.get("gone"), CONFIG) == (None, None)
