"""Which previous rows a new chunking may re-chunk without extracting, and the cleaned
document they give back (``reuse_extraction.py``); the real runs are
``tests/pipeline/test_reuse_extraction.py``."""

from __future__ import annotations

from ragbeam.transforms.chunk.base import ChunkingResult
from ragbeam.transforms.chunk.dofn import chunked_document_row
from ragbeam.transforms.plan.decide import (
    CurrentFile,
    Outcome,
    decide,
    head_of,
    needs_hash,
    verdict_for,
)
from ragbeam.transforms.plan.reuse_extraction import (
    document_from_row,
    reusable,
    reuse_key,
)
from ragbeam.transforms.types import BlockKind, Document, RouteDecision, SourceFile, TextSpan

OLD, NEW = "o" * 32, "n" * 32
SOURCE = SourceFile("/corpus/a.md", "d1", 40, modified=1000.0, listed=2000.0)
DOC = Document(
    source=SOURCE, content_hash="h" * 64, media_type="text/markdown",
    text="Title\n\nBody text here.",
    spans=(TextSpan(0, 5, BlockKind.HEADING, page=1, level=1, raw_start=2, raw_end=7, block=0),
           TextSpan(7, 22, BlockKind.PARAGRAPH, page=None, level=0, raw_start=9, raw_end=24,
                    block=1)),
    metadata={"clean_lines_joined": "1", "Content-Type": "text/markdown"},
    title="Title", language="en", page_count=None)


def _row(**changes) -> dict:
    result = ChunkingResult(chunks=(), stats={"hard_cuts": 0})
    row = dict(chunked_document_row(DOC, RouteDecision("structure", "markdown"), result, 2,
                                    OLD))
    row["metadata"] = {**row["metadata"], "moved_from": "d0"}  # an incremental mark
    return {**row, **changes}


def test_the_row_gives_back_the_cleaned_document():
    assert document_from_row(_row(), SOURCE) == DOC
    # As read back from Parquet: metadata as key/value pairs.
    read_back = {**_row(), "metadata": list(_row()["metadata"].items())}
    assert document_from_row(read_back, SOURCE) == DOC


def test_reuse_only_with_the_previous_extraction_key_and_another_chunk_key():
    before = {"extraction": "e", "chunks": OLD}
    assert reuse_key(before, {"extraction": "e", "chunks": NEW}, False) == OLD
    assert reuse_key(before, {"extraction": "x", "chunks": NEW}, False) is None
    assert reuse_key(before, {"extraction": "e", "chunks": OLD}, False) is None  # carried
    assert reuse_key(before, {"extraction": "e", "chunks": NEW}, True) is None  # boilerplate
    assert reuse_key({"extraction": None, "chunks": OLD}, {"extraction": "e"}, False) is None


def test_which_rows_are_reusable():
    assert reusable(_row(), OLD) and reusable(_row(status="unchanged"), OLD)
    assert not reusable(_row(), None)
    assert not reusable(_row(config_hash="x" * 32), OLD)  # an older extraction
    assert not reusable(_row(status="stale"), OLD)
    assert not reusable(_row(spans=None), OLD)  # written before the column
    assert not reusable(_row(metadata={"incomplete": "OcrTimeLimit"}), OLD)
    head = head_of(_row())
    assert "spans" not in head and reusable(head, OLD)
    assert not reusable(head_of(_row(spans=None)), OLD)


def test_same_bytes_under_a_new_chunking_are_rechunked():
    row = _row()
    same = CurrentFile(SOURCE, row["content_hash"])
    assert decide(same, head_of(row), NEW, reuse=OLD) is Outcome.RECHUNK
    assert decide(same, head_of(row), NEW) is Outcome.CHANGED  # nothing to reuse
    assert decide(CurrentFile(SOURCE, "z" * 64), head_of(row), NEW, reuse=OLD) is Outcome.CHANGED
    # The bytes are compared (by the listing, or hashed) only because reuse is possible.
    other_time = SourceFile(SOURCE.uri, SOURCE.doc_id, 40, modified=1500.0, listed=2000.0)
    assert needs_hash(other_time, head_of(row), NEW, reuse=OLD)
    assert not needs_hash(other_time, head_of(row), NEW)
    verdict = verdict_for(same, head_of(row), Outcome.RECHUNK, NEW)
    assert verdict is not None and verdict.source == SOURCE
