"""Real DirectRunner runs over real documents, checked by reading the Parquet back."""

from __future__ import annotations

import collections
import os
import pathlib

import pyarrow.parquet as pq

from ragbeam.schemas import DOCUMENT_SCHEMA, ERROR_SCHEMA, chunk_schema
from ragbeam.transforms.ids import doc_id_for

from conftest import SAMPLES
from helpers import copy_samples, read_table, run_cli


def _check_contract(run) -> None:
    chunks, docs, errors = run.table("chunks"), run.table("documents"), run.table("errors")
    assert chunks.schema.equals(chunk_schema(), check_metadata=False)  # no vectors here
    assert chunks.schema.metadata is None or b"ragbeam.embedding" not in chunks.schema.metadata
    assert docs.schema.equals(DOCUMENT_SCHEMA, check_metadata=False)
    assert errors.schema.equals(ERROR_SCHEMA, check_metadata=False)

    doc_rows = docs.to_pylist()
    uris = [d["source_uri"] for d in doc_rows]
    assert len(uris) == len(set(uris)), "a file appears twice in documents"
    text_of = {d["doc_id"]: d["text"] for d in doc_rows}
    (root,) = run.summary["effective_config"]["input"]
    for d in doc_rows:
        # Ids come from the path below the input root, not from where the corpus is mounted.
        key = os.path.relpath(d["source_uri"], os.path.abspath(root))
        assert d["doc_id"] == doc_id_for(key)
        assert d["status"] in ("ok", "error")
        assert (d["error"] is None) == (d["status"] == "ok")
        assert d["config_hash"] == run.summary["config_hash"]

    per_doc = collections.Counter()
    for c in chunks.to_pylist():
        assert text_of[c["doc_id"]][c["char_start"]:c["char_end"]] == c["text"]
        assert c["char_count"] == len(c["text"]) and c["token_count"] > 0
        per_doc[c["doc_id"]] += 1
    for d in doc_rows:
        assert d["chunk_count"] == per_doc.get(d["doc_id"], 0)
        if d["status"] == "ok":
            assert d["chunk_count"] > 0 and d["content_hash"] and len(d["content_hash"]) == 64

    error_docs = {d["doc_id"] for d in doc_rows if d["status"] == "error"}
    assert {e["doc_id"] for e in errors.to_pylist()} == error_docs
    for e in errors.to_pylist():
        assert e["stage"] and e["error_type"] and e["message"]

    s = run.summary
    assert s["files_matched"] == len(doc_rows)
    assert s["documents_ok"] + s["documents_error"] == len(doc_rows)
    assert s["chunks"] == chunks.num_rows
    assert s["versions"]["apache-beam"] and s["versions"]["iscc-tika"]


def test_samples_run_meets_the_output_contract(samples_run):
    _check_contract(samples_run)
    docs = {pathlib.Path(d["source_uri"]).name: d
            for d in samples_run.table("documents").to_pylist()}
    expected = {p.name for p in SAMPLES.iterdir() if p.is_file() and p.suffix != ".py"}
    assert set(docs) == expected
    assert docs["corrupt.pdf"]["status"] == "error"
    assert docs["corrupt.pdf"]["error"].startswith("extract: ")
    assert all(d["status"] == "ok" for n, d in docs.items() if n != "corrupt.pdf")
    assert docs["boating-safety.pdf"]["page_count"] == 3
    assert docs["boating-safety.pdf"]["media_type"] == "application/pdf"


def test_pdf_chunks_know_their_pages(samples_run):
    docs = {pathlib.Path(d["source_uri"]).name: d
            for d in samples_run.table("documents").to_pylist()}
    pdf = docs["boating-safety.pdf"]["doc_id"]
    rows = [c for c in samples_run.table("chunks").to_pylist() if c["doc_id"] == pdf]
    assert rows and all(1 <= c["page_start"] <= c["page_end"] <= 3 for c in rows)
    assert rows[0]["page_start"] == 1 and rows[-1]["page_end"] == 3


def test_every_corpus_file_is_recorded_once_with_the_right_status(
    corpus_run, corpus_dir, corpus_manifest_uris
):
    _check_contract(corpus_run)
    docs = {d["source_uri"]: d for d in corpus_run.table("documents").to_pylist()}
    # Every file of the folder, the MANIFEST's documents and the corpus's own files.
    expected = {str(p) for p in corpus_dir.rglob("*") if p.is_file()}
    assert corpus_manifest_uris < expected
    assert set(docs) == expected
    must_fail = {
        "bad/empty.pdf": ("read", "empty"),
        "bad/truncated-llncsdoc.pdf": ("extract", ""),
        "bad/password-protected.pdf": ("extract", "encrypted"),
        "bad/truncated.docx": ("extract", ""),
        # The spinning parser also grows ~100 MiB/s: the time limit or the memory
        # cap, whichever comes first, kills it.
        "bad/fuzzed-hang.one": ("extract", "the extraction process was killed"),
    }
    for rel, (stage, phrase) in must_fail.items():
        doc = docs[str(corpus_dir / rel)]
        assert doc["status"] == "error", rel
        assert doc["error"].startswith(stage + ": "), doc["error"]
        assert phrase in doc["error"], doc["error"]
    # Wrong extensions are detected by content, not refused.
    assert docs[str(corpus_dir / "bad/docx-with-pdf-extension.pdf")]["status"] == "ok"
    assert docs[str(corpus_dir / "bad/not-a-zip.odt")]["status"] == "ok"
    # The scan has no text layer: OCR (on by default; make test installs Tesseract) reads it.
    scanned = docs[str(corpus_dir / "pdf/scanned-no-text-layer.pdf")]
    assert scanned["status"] == "ok", scanned["error"]
    assert dict(scanned["metadata"])["ocr_pages"] == "1"
    ok = [d for d in docs.values() if d["status"] == "ok"]
    assert len(ok) == len(expected) - len(must_fail)


def test_long_documents_are_not_truncated(corpus_run, corpus_dir):
    """iscc-tika's default 500,000-char limit must be lifted (the e-book is ~341k chars;
    its cleaned text must keep the end of the book)."""
    docs = {d["source_uri"]: d for d in corpus_run.table("documents").to_pylist()}
    epub = docs[str(corpus_dir / "epub/winter-sports.epub")]
    assert epub["char_count"] > 300_000
    assert "Project Gutenberg" in epub["text"][-20_000:]


def test_parquet_files_are_complete_and_written_last_run_json(samples_run):
    for table in ("chunks", "documents", "errors"):
        for f in (samples_run.path / table).glob("*.parquet"):
            assert pq.ParquetFile(f).metadata.num_columns  # a torn file would fail here
    assert (samples_run.path / "run.json").is_file()
    leftovers = [p for p in samples_run.path.rglob("*") if "temp" in p.name.lower()]
    assert not leftovers


def test_a_file_matched_by_several_inputs_is_one_document(tmp_path):
    """Matching ends in one shuffle by path: it must still drop duplicate matches."""
    folder = copy_samples(tmp_path / "in", ("faq.txt", "handbook.md"))
    out = tmp_path / "out"
    summary = run_cli(["--input", str(folder), "--input", str(folder / "*.txt"),
                       "--input", str(folder / "faq.txt"), "--output", str(out)])
    uris = sorted(read_table(out, "documents").column("source_uri").to_pylist())
    assert [pathlib.Path(u).name for u in uris] == ["faq.txt", "handbook.md"]
    assert summary["files_matched"] == 2
    chunk_docs = set(read_table(out, "chunks").column("doc_id").to_pylist())
    assert len(chunk_docs) == 2
