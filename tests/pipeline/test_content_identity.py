"""Content identity on real runs with the real model (issue 22 "moves are cheap", issue 25
"duplicates indexed once"): a duplicate pair is embedded once, a renamed file is neither
extracted nor embedded again, and a copy takes over when its canonical copy vanishes.
Model calls are counted by RunInference's own counter (``embedding.texts_encoded``)."""

from __future__ import annotations

import json
import pathlib
import shutil

import numpy as np
import pytest

from ragbeam.pipeline.config import DEFAULT_TEXT_VECTOR

from helpers import copy_samples, read_table, run_cli, settle

# Texts a chunk's embedding costs: two with its text's own vector (the default).
TEXTS_PER_CHUNK = 2 if DEFAULT_TEXT_VECTOR else 1

FILES = ("faq.txt", "handbook.md", "station-news.html")
EXTRACT_TIMEOUT = "120"  # a time-out would be retried by the next run: not under test here


def _args(corpus: pathlib.Path, out: pathlib.Path, *extra: str) -> list[str]:
    return ["--input", str(corpus), "--output", str(out), "--chunk-size", "300",
            "--size-unit", "chars", "--extract-timeout", EXTRACT_TIMEOUT, "--embed-chunks",
            *extra]


def _documents(out: pathlib.Path) -> dict[str, dict]:
    return {pathlib.Path(d["source_uri"]).name: {**d, "metadata": dict(d["metadata"])}
            for d in read_table(out, "documents").to_pylist()}


def _chunks_of(out: pathlib.Path, name: str) -> list[dict]:
    rows = [r for r in read_table(out, "chunks").to_pylist()
            if pathlib.Path(r["source_uri"]).name == name]
    return sorted(rows, key=lambda r: r["chunk_index"])


def _extracted(summary: dict) -> int:
    return summary["reads"]["bytes_read"]


@pytest.fixture(scope="module")
def nights(tmp_path_factory) -> dict[str, pathlib.Path | dict]:
    """Night 1: three files and a copy of one of them; night 2: a file renamed;
    night 3: the canonical copy of the pair deleted."""
    root = tmp_path_factory.mktemp("identity")
    corpus = copy_samples(root / "corpus", FILES)
    shutil.copy(corpus / "faq.txt", corpus / "faq-copy.txt")
    settle(corpus)
    out: dict[str, pathlib.Path | dict] = {"root": root, "corpus": corpus}
    out["s1"] = run_cli(_args(corpus, root / "night1"))
    (corpus / "handbook.md").rename(corpus / "guide.md")
    out["s2"] = run_cli(_args(corpus, root / "night2", "--previous", str(root / "night1")))
    docs = _documents(root / "night2")
    canonical = next(n for n in ("faq.txt", "faq-copy.txt") if docs[n]["status"] != "duplicate")
    out["canonical"] = canonical
    (corpus / canonical).unlink()
    out["s3"] = run_cli(_args(corpus, root / "night3", "--previous", str(root / "night2")))
    return out


def test_a_duplicate_pair_is_chunked_and_embedded_once(nights):
    night1, s1 = nights["root"] / "night1", nights["s1"]
    docs = _documents(night1)
    pair = {name: docs[name] for name in ("faq.txt", "faq-copy.txt")}
    statuses = sorted(d["status"] for d in pair.values())
    assert statuses == ["duplicate", "ok"]
    (canonical,) = [d for d in pair.values() if d["status"] == "ok"]
    (duplicate,) = [d for d in pair.values() if d["status"] == "duplicate"]
    # The canonical copy is the one with the smaller doc id (not the first listed).
    assert canonical["doc_id"] < duplicate["doc_id"]
    assert duplicate["metadata"]["duplicate_of"] == canonical["doc_id"]
    assert duplicate["metadata"]["duplicate_of_uri"] == canonical["source_uri"]
    assert duplicate["chunk_count"] == 0 and duplicate["content_hash"] == canonical["content_hash"]
    assert not _chunks_of(night1, pathlib.Path(duplicate["source_uri"]).name)
    # One set of embeddings: the model saw each chunk of the three distinct files once.
    assert s1["documents_duplicate"] == 1
    # Two texts a chunk with the text's own vector (--text-vector, the default).
    assert s1["embedding"]["texts_encoded"] == TEXTS_PER_CHUNK * s1["chunks"]
    assert s1["chunks"] == s1["chunks_embedded"]


def test_a_renamed_file_is_not_extracted_or_embedded_again(nights, tmp_path):
    night1, night2, s2 = (nights["root"] / "night1", nights["root"] / "night2",
                          nights["s2"])
    assert _extracted(s2) == 0 and s2["embedding"]["texts_encoded"] == 0
    docs = _documents(night2)
    assert docs["handbook.md"]["status"] == "deleted"
    assert docs["handbook.md"]["metadata"]["moved_to"] == docs["guide.md"]["doc_id"]
    assert docs["guide.md"]["status"] == "unchanged"
    assert docs["guide.md"]["metadata"]["moved_from"] == docs["handbook.md"]["doc_id"]
    before, after = _chunks_of(night1, "handbook.md"), _chunks_of(night2, "guide.md")
    assert [r["text"] for r in after] == [r["text"] for r in before]
    for old, new in zip(before, after, strict=True):
        np.testing.assert_array_equal(new["embedding"], old["embedding"])
        assert new["doc_id"] == docs["guide.md"]["doc_id"] and new["chunk_id"] != old["chunk_id"]
    # The store is told: the old ids go, the new ones come, with the same vectors.
    changes = read_table(night2, "changes").to_pylist()
    assert {c["chunk_id"] for c in changes if c["op"] == "delete"} == \
        {r["chunk_id"] for r in before}
    assert {c["chunk_id"] for c in changes if c["op"] == "upsert"} == \
        {r["chunk_id"] for r in after}
    # The ids are those a fresh run over the renamed corpus gives (determinism).
    fresh = tmp_path / "fresh"
    corpus = copy_samples(tmp_path / "corpus", ("handbook.md",))
    (corpus / "handbook.md").rename(corpus / "guide.md")
    run_cli(["--input", str(corpus), "--output", str(fresh), "--chunk-size", "300",
             "--size-unit", "chars", "--extract-timeout", EXTRACT_TIMEOUT, "--embed-chunks"])
    assert [r["chunk_id"] for r in _chunks_of(fresh, "guide.md")] == \
        [r["chunk_id"] for r in after]


def test_a_copy_takes_over_when_the_canonical_copy_vanishes(nights):
    night2, night3, s3 = (nights["root"] / "night2", nights["root"] / "night3",
                          nights["s3"])
    gone = nights["canonical"]
    remaining = "faq-copy.txt" if gone == "faq.txt" else "faq.txt"
    assert _extracted(s3) == 0 and s3["embedding"]["texts_encoded"] == 0
    docs = _documents(night3)
    assert docs[gone]["status"] == "deleted"
    assert docs[remaining]["status"] == "unchanged"
    assert [r["text"] for r in _chunks_of(night3, remaining)] == \
        [r["text"] for r in _chunks_of(night2, gone)]
    # A take-over is no deletion for the delete guard (1 of 3 documents would be 33 %).
    assert s3["outcome"] == "ok" and s3["documents_vanished"] == 0


def test_every_night_is_a_complete_snapshot(nights):
    for night in ("night1", "night2", "night3"):
        out = nights["root"] / night
        docs = {d["doc_id"]: d for d in read_table(out, "documents").to_pylist()}
        for chunk in read_table(out, "chunks").to_pylist():
            text = docs[chunk["doc_id"]]["text"]
            assert text[chunk["char_start"]:chunk["char_end"]] == chunk["text"]
        summary = json.loads((out / "run.json").read_text())
        assert summary["chunks"] == summary["chunks_embedded"]
