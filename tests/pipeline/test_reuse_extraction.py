"""A new chunking re-chunks without re-extracting: real runs over several formats.

Night 1 runs with options A; night 2 with options B and ``--previous`` night 1
chunks every document again from night 1's ``documents.text`` and ``spans``
(``transforms/plan/reuse_extraction.py``), without Tika; a fresh run with
options B must give the same tables, every column of every row."""

from __future__ import annotations

import pathlib
import shutil

import pytest

from ragbeam.pipeline.config import DEFAULT_TEXT_VECTOR

from conftest import CORPUS, TEST_EXTRACT_TIMEOUT
from helpers import copy_samples, read_table, run_cli

# Texts a chunk's embedding costs: two with its text's own vector (the default).
TEXTS_PER_CHUNK = 2 if DEFAULT_TEXT_VECTOR else 1

SAMPLES = ("boating-safety.pdf", "lab-rules.docx", "station-news.html", "handbook.md",
           "faq.txt", "corrupt.pdf")
# More of three kinds from the shared corpus where it is there (numbered headings, a
# PDF outline, a long markdown FAQ).
SHARED_FILES = ("pdf/mistitled_outlines_example.pdf", "docx/unit_test_headers_numbered.docx",
                "md/docling-faq.md")
CODE = '''"""A module."""


def first(values):
    """The first value."""
    return values[0]


class Box:
    def __init__(self, value):
        self.value = value

    def get(self):
        return self.value
'''
A = ("--chunk-size", "200", "--size-unit", "chars")
# Other size, overlap and unit, and --embed-text: every chunk column changes.
B = ("--chunk-size", "64", "--chunk-overlap", "8", "--size-unit", "tokens", "--embed-text")
COMMON = ("--extract-timeout", TEST_EXTRACT_TIMEOUT)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> pathlib.Path:
    folder = copy_samples(tmp_path_factory.mktemp("reuse") / "corpus", SAMPLES)
    for name in SHARED_FILES:
        if (CORPUS / name).exists():
            shutil.copy(CORPUS / name, folder / pathlib.Path(name).name)
    (folder / "box.py").write_text(CODE, encoding="utf-8")
    return folder


def _run(corpus: pathlib.Path, out: pathlib.Path, *options: str,
         previous: pathlib.Path | None = None) -> dict:
    prev = ("--previous", str(previous)) if previous else ()
    return run_cli(["--input", str(corpus), "--output", str(out), *COMMON, *options, *prev])


def _rows(out: pathlib.Path, table: str, key: str) -> dict[str, dict]:
    return {r[key]: r for r in read_table(out, table).to_pylist()}


@pytest.fixture(scope="module")
def nights(corpus, tmp_path_factory) -> dict[str, tuple[pathlib.Path, dict]]:
    root = tmp_path_factory.mktemp("nights")
    first = _run(corpus, root / "a", *A)
    second = _run(corpus, root / "b", *B, previous=root / "a")
    fresh = _run(corpus, root / "fresh", *B)
    return {"a": (root / "a", first), "b": (root / "b", second),
            "fresh": (root / "fresh", fresh)}


def _extracted(summary: dict) -> int:
    return summary["extracted"]["ok"] + summary["extracted"]["failed"]


def test_a_new_chunking_extracts_nothing(nights):
    out, summary = nights["b"]
    statuses = {pathlib.Path(r["source_uri"]).name: r["status"]
                for r in read_table(out, "documents").to_pylist()}
    # Only the broken PDF is extracted again: an error row has no text to chunk.
    assert _extracted(summary) == 1
    assert summary["extracted"]["reused"] == len(statuses) - 1
    assert statuses["corrupt.pdf"] == "error"
    assert {s for n, s in statuses.items() if n != "corrupt.pdf"} == {"ok"}
    assert _extracted(nights["fresh"][1]) == len(statuses)  # the fresh run: every one
    assert nights["fresh"][1]["extracted"]["reused"] == 0


def test_chunks_equal_a_fresh_extraction(nights):
    incremental = _rows(nights["b"][0], "chunks", "chunk_id")
    fresh = _rows(nights["fresh"][0], "chunks", "chunk_id")
    assert incremental.keys() == fresh.keys()
    assert incremental == fresh
    before = _rows(nights["a"][0], "chunks", "chunk_id")
    assert not before.keys() & fresh.keys()  # the options changed every chunk
    media = {r["media_type"] for r in fresh.values()}
    assert len(media) >= 5, media  # PDF, DOCX, HTML, markdown, text, code


def test_documents_equal_a_fresh_extraction(nights):
    incremental = _rows(nights["b"][0], "documents", "doc_id")
    fresh = _rows(nights["fresh"][0], "documents", "doc_id")
    assert incremental.keys() == fresh.keys()
    for doc_id, row in fresh.items():
        assert incremental[doc_id] == row, row["source_uri"]
    assert all(r["spans"] for r in fresh.values() if r["status"] == "ok")


def test_changes_replace_every_chunk(nights):
    changes = read_table(nights["b"][0], "changes").to_pylist()
    upserts = {c["chunk_id"] for c in changes if c["op"] == "upsert"}
    deletes = {c["chunk_id"] for c in changes if c["op"] == "delete"}
    assert upserts == set(_rows(nights["fresh"][0], "chunks", "chunk_id"))
    assert deletes == set(_rows(nights["a"][0], "chunks", "chunk_id"))


def test_a_previous_run_without_spans_extracts_again(corpus, nights, tmp_path):
    """A run written before the ``spans`` column (dropped here) is re-extracted."""
    import pyarrow.parquet as pq

    old = tmp_path / "old"
    shutil.copytree(nights["a"][0], old)
    for f in (old / "documents").glob("*.parquet"):
        pq.write_table(pq.read_table(f).drop_columns(["spans"]), f)
    summary = _run(corpus, tmp_path / "b", *B, previous=old)
    assert _extracted(summary) == _extracted(nights["fresh"][1])
    assert (_rows(tmp_path / "b", "chunks", "chunk_id")
            == _rows(nights["fresh"][0], "chunks", "chunk_id"))


def test_another_extraction_key_extracts_again(corpus, nights, tmp_path):
    summary = _run(corpus, tmp_path / "b", *B, "--no-clean", "dehyphenate",
                   previous=nights["a"][0])
    assert _extracted(summary) == _extracted(nights["fresh"][1])
    assert summary["extracted"]["reused"] == 0
    assert summary["layers"]["extraction"] != nights["a"][1]["layers"]["extraction"]


def test_unchanged_chunks_keep_their_vectors_after_a_new_chunking(corpus, tmp_path):
    """With ``--embed-chunks``, a chunk the new chunking leaves as it was (same text,
    context and embed text: a short document's one chunk) keeps its vector though its
    id is new; the others are embedded; the vectors are a fresh run's."""
    import numpy as np

    embed = ("--embed-chunks", "--embedding-backend", "torch", "--embedding-precision", "fp32",
             "--size-unit", "chars")  # explicit: no timed probe of the backends
    _run(corpus, tmp_path / "a", *embed, "--chunk-size", "400")
    night = _run(corpus, tmp_path / "b", *embed, "--chunk-size", "300", previous=tmp_path / "a")
    _run(corpus, tmp_path / "fresh", *embed, "--chunk-size", "300")
    before = _rows(tmp_path / "a", "chunks", "chunk_id")
    after = _rows(tmp_path / "b", "chunks", "chunk_id")
    fresh = _rows(tmp_path / "fresh", "chunks", "chunk_id")

    def inputs(row: dict) -> tuple:
        return row["doc_id"], row["text"], row["context"], row["embed_text"]

    old = {inputs(r): r["embedding"] for r in before.values()}
    same = [i for i, r in after.items() if inputs(r) in old]
    assert same and len(same) < len(after)  # some chunks stay, most do not
    assert not set(after) & set(before)  # every id is new
    assert night["embeddings"]["reused"] == len(same)
    # Two texts a chunk with the text's own vector (--text-vector, the default).
    assert night["embedding"]["texts_encoded"] == TEXTS_PER_CHUNK * (len(after) - len(same))
    for i in same:
        assert after[i]["embedding"] == old[inputs(after[i])]
    assert set(after) == set(fresh)
    assert all(np.allclose(after[i]["embedding"], fresh[i]["embedding"], atol=1e-5)
               for i in fresh)
    vectors = ("embedding", "text_embedding")  # the second: --text-vector, the default
    assert all(np.allclose(after[i]["text_embedding"], fresh[i]["text_embedding"], atol=1e-5)
               for i in fresh if fresh[i].get("text_embedding") is not None)
    assert ({i: {k: v for k, v in r.items() if k not in vectors} for i, r in after.items()}
            == {i: {k: v for k, v in r.items() if k not in vectors} for i, r in fresh.items()})
