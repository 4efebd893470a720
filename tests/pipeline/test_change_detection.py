"""Cheap change detection: an incremental run reads only files whose listing changed.

Real runs of the CLI over a few text files; what each run read comes from its
Beam counters (run.json ``reads``), what it decided from the documents table.
"""

from __future__ import annotations

import os
import pathlib
import shutil

import pytest

from ragbeam.transforms.write.rows import SOURCE_MODIFIED_KEY

from conftest import SAMPLES, TEST_EXTRACT_TIMEOUT
from helpers import copy_samples, read_table, run_cli, settle

FILES = ("faq.txt", "handbook.md", "站点简介.txt")


def _run(corpus: pathlib.Path, out: pathlib.Path, *extra: str) -> dict:
    return run_cli(["--input", str(corpus), "--output", str(out),
                    "--extract-timeout", TEST_EXTRACT_TIMEOUT, *extra])


def _docs(out: pathlib.Path) -> dict[str, dict]:
    return {pathlib.Path(d["source_uri"]).name: {**d, "metadata": dict(d["metadata"])}
            for d in read_table(out, "documents").to_pylist()}


def _same_size_rewrite(path: pathlib.Path) -> None:
    """New bytes, same size, same modification time: what only hashing can see."""
    stat = path.stat()
    data = path.read_bytes()
    path.write_bytes(data.replace(b"a", b"o", 1))
    assert path.read_bytes() != data and path.stat().st_size == stat.st_size
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> pathlib.Path:
    root = tmp_path_factory.mktemp("change_detection")
    corpus = copy_samples(root / "corpus", FILES)
    settle(corpus)
    return corpus


@pytest.fixture(scope="module")
def first(corpus) -> pathlib.Path:
    out = corpus.parent / "first"
    _run(corpus, out)
    return out


def test_a_run_records_each_files_settled_modification_time(corpus, first):
    for name, doc in _docs(first).items():
        assert doc["metadata"][SOURCE_MODIFIED_KEY] == repr((corpus / name).stat().st_mtime)
        assert doc["bytes"] == (corpus / name).stat().st_size


def test_an_unchanged_rerun_reads_no_bytes(corpus, first, tmp_path):
    summary = _run(corpus, tmp_path / "rerun", "--previous", str(first))
    assert summary["documents_unchanged"] == len(FILES)
    assert summary["reads"] == {"bytes_read": 0, "bytes_hashed": 0, "files_hashed": 0,
                                "files_unchanged_by_listing": len(FILES)}
    # With --verify-hashes every file is read, and still found unchanged.
    verified = _run(corpus, tmp_path / "verified", "--previous", str(first), "--verify-hashes")
    assert verified["documents_unchanged"] == len(FILES)
    assert verified["reads"]["bytes_hashed"] == sum(
        (corpus / name).stat().st_size for name in FILES)
    assert verified["reads"]["files_unchanged_by_listing"] == 0
    assert verified["reads"]["bytes_read"] == 0  # hashed, not processed


def test_a_rewrite_keeping_size_and_time_needs_verify_hashes(corpus, first, tmp_path):
    faq = corpus / "faq.txt"
    original = faq.read_bytes()
    stat = faq.stat()
    try:
        _same_size_rewrite(faq)
        # The listing cannot tell: the old row is carried over, the change missed.
        missed = _run(corpus, tmp_path / "missed", "--previous", str(first))
        assert _docs(tmp_path / "missed")["faq.txt"]["status"] == "unchanged"
        assert missed["changes_upsert"] == missed["changes_delete"] == 0
        # Hashing finds it: faq.txt alone is processed again, with its new bytes.
        found = _run(corpus, tmp_path / "found", "--previous", str(first), "--verify-hashes")
        docs = _docs(tmp_path / "found")
        assert docs["faq.txt"]["status"] == "ok"
        assert docs["faq.txt"]["content_hash"] != _docs(first)["faq.txt"]["content_hash"]
        assert {d["status"] for n, d in docs.items() if n != "faq.txt"} == {"unchanged"}
        assert found["changes_upsert"] > 0
        assert found["reads"]["bytes_read"] == len(original)
    finally:
        faq.write_bytes(original)
        os.utime(faq, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def test_a_touched_file_is_hashed_once_then_its_new_time_is_trusted(corpus, first, tmp_path):
    handbook = corpus / "handbook.md"
    stat = handbook.stat()
    try:
        settle(handbook, age_s=1800)  # same bytes, another (settled) time
        touched = _run(corpus, tmp_path / "touched", "--previous", str(first))
        docs = _docs(tmp_path / "touched")
        assert touched["documents_unchanged"] == len(FILES)
        assert touched["reads"]["files_hashed"] == 1
        assert touched["reads"]["bytes_hashed"] == stat.st_size
        assert docs["handbook.md"]["metadata"][SOURCE_MODIFIED_KEY] == repr(
            handbook.stat().st_mtime)
        # Carried with its new time: the next run needs no bytes at all.
        again = _run(corpus, tmp_path / "again", "--previous", str(tmp_path / "touched"))
        assert again["reads"]["files_hashed"] == 0
        assert again["documents_unchanged"] == len(FILES)
    finally:
        os.utime(handbook, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def test_a_file_modified_just_before_the_listing_is_hashed_next_time(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copy(SAMPLES / "faq.txt", corpus / "faq.txt")  # modified now: not settled
    _run(corpus, tmp_path / "first")
    assert SOURCE_MODIFIED_KEY not in _docs(tmp_path / "first")["faq.txt"]["metadata"]
    rerun = _run(corpus, tmp_path / "rerun", "--previous", str(tmp_path / "first"))
    assert rerun["reads"]["files_hashed"] == 1
    assert rerun["documents_unchanged"] == 1
