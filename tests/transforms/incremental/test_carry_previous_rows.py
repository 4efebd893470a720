"""``CarryPreviousRows`` over real Parquet files, called as a worker calls it (no
pipeline: its ``process`` with the side inputs a run gives it): the delete guard's
counts decide, through the carry rules (``plan/carry.py``), whether vanished
documents are deleted or served on. The whole runs: tests/pipeline/."""

from __future__ import annotations

import pathlib

import apache_beam as beam
import pyarrow as pa
import pyarrow.parquet as pq

from ragbeam.schemas import output_schemas
from ragbeam.schemas.chunks import build_chunk_row
from ragbeam.schemas.documents import build_document_row
from ragbeam.transforms.incremental.carry_previous_rows import (
    CARRIED_DOCUMENTS,
    PREVIOUS_STATE,
    CarryPreviousRows,
)
from ragbeam.transforms.incremental.join import CHUNKS, DOCUMENTS
from ragbeam.transforms.plan.decide import Outcome, Verdict
from ragbeam.transforms.plan.guard import DeleteGuard

CONFIG = "c" * 32
SCHEMAS = output_schemas()


def _write(path: pathlib.Path, table: str, rows: list[dict]) -> str:
    pq.write_table(pa.Table.from_pylist(rows, schema=SCHEMAS[table]), path)
    return str(path)


def _previous(tmp_path: pathlib.Path) -> tuple[str, str]:
    documents = [build_document_row(doc_id=d, source_uri=f"/corpus/{d}.txt", status="ok",
                                    config_hash=CONFIG, metadata={}, chunk_count=1,
                                    content_hash=d * 64, bytes=1, text="t")
                 for d in "abc"]
    chunks = [build_chunk_row(chunk_id=f"k{d}", doc_id=d, parent_id=None, chunk_index=0,
                              level="chunk", strategy="recursive", text="t", context="",
                              embed_text=None, char_start=0, char_end=1, page_start=None,
                              page_end=None, heading_path=[], token_count=1, char_count=1,
                              source_uri=f"/corpus/{d}.txt", media_type="text/plain",
                              config_hash=CONFIG, metadata={})
              for d in "abc"]
    return (_write(tmp_path / "documents.parquet", "documents", documents),
            _write(tmp_path / "chunks.parquet", "chunks", chunks))


def _by_tag(outputs) -> dict[str, list]:
    tagged: dict[str, list] = {}
    for output in outputs:
        if isinstance(output, beam.pvalue.TaggedOutput):
            tagged.setdefault(output.tag, []).append(output.value)
        else:
            tagged.setdefault("chunks", []).append(output)
    return tagged


# b and c vanished (the run's Verdicts say so); a is matched as it was.
VERDICTS = {d: Verdict(str(Outcome.DELETED)) for d in "bc"}


def _carry(tmp_path: pathlib.Path, counts: tuple[int, int, int]) -> dict[str, list]:
    documents, chunks = _previous(tmp_path)
    carry = CarryPreviousRows(CONFIG, DeleteGuard())
    carry.setup()
    side = ("guard_counts", counts)
    return _by_tag([*carry.process((documents, DOCUMENTS), VERDICTS, side),
                    *carry.process((chunks, CHUNKS), VERDICTS, side)])


def test_counts_over_the_guard_s_limit_serve_the_vanished_documents_on(tmp_path):
    out = _carry(tmp_path, (2, 3, 1))  # 2 of 3 vanished: over 20 %
    assert sorted((r["doc_id"], r["status"]) for r in out[CARRIED_DOCUMENTS]) == [
        ("a", "unchanged"), ("b", "vanished"), ("c", "vanished")]
    assert sorted(r["chunk_id"] for r in out["chunks"]) == ["ka", "kb", "kc"]
    assert PREVIOUS_STATE not in out  # nothing for Reconcile: no delete


def test_counts_within_the_limit_delete_them(tmp_path):
    out = _carry(tmp_path, (0, 3, 3))  # what the guard weighs, not the verdicts, decides
    assert sorted((r["doc_id"], r["status"]) for r in out[CARRIED_DOCUMENTS]) == [
        ("a", "unchanged"), ("b", "deleted"), ("c", "deleted")]
    assert [r["chunk_id"] for r in out["chunks"]] == ["ka"]
    assert sorted((doc_id, tag) for doc_id, (tag, _) in out[PREVIOUS_STATE]) == [
        ("b", CHUNKS), ("b", DOCUMENTS), ("c", CHUNKS), ("c", DOCUMENTS)]
