"""One real run over a generated hostile corpus: every file is contained.

Each file must end in the documents table once with its expected status (and,
for errors, the stage and a clear message), the run must exit 0, finish within
a bounded amount of work (CPU seconds, which the machine's load does not change),
and the whole process tree (Beam, the extraction child) must stay under
``PEAK_RSS_BOUND`` of resident memory, sampled every 50 ms.
"""

from __future__ import annotations

import functools
import json
import os
import pathlib
import re
import sys

import pytest
from reliability.hostile import (
    HostileFile,
    deeply_nested_html,
    invalid_utf8_text,
    mixed_scripts_text,
    nested_zips,
    nul_bytes_text,
    pdf_with_pages,
    random_bytes,
    single_line_text,
    truncated,
    varied_page_texts,
    with_broken_xref,
    write_hostile_corpus,
    zip_of_zeros,
)
from reliability.processes import run_watched

from conftest import TEST_EXTRACT_TIMEOUT, require_corpus
from helpers import read_table

PEAK_RSS_BOUND = 2 * 1024**3  # whole process tree: the CLI, Beam, one extraction child
# The whole run's CPU seconds, children included (an idle machine: ~25 s).
CPU_BOUND_S = 150
# The 10,000-page PDF takes ~6 s of extraction idle (Tika 2.5 s; the PDF layout pass
# reads every page again, ~0.4 ms a page; the XHTML parse 1.2 s), many more on the
# clock of a loaded machine: it gets the limit no test document reaches.
EXTRACT_TIMEOUT_S = TEST_EXTRACT_TIMEOUT
# Per extraction child. The 10,000-page PDF needs ~300 MiB; the hang file grows
# without end (1.65 GiB after 15 s when uncapped).
MEMORY_CAP_MB = 768
SINGLE_LINE_BYTES = 5_000_000
SPARSE_FILE_BYTES = 200 * 1024 * 1024  # over the default --max-file-bytes; holes on disk

_three_pages = functools.partial(pdf_with_pages, ["First page text.", "Second page text.",
                                                  "Third page text."])


def _gzip_of_zeros() -> bytes:
    import gzip

    return gzip.compress(bytes(64 << 20), compresslevel=1)


def _corpus_file(rel: str) -> bytes:
    return (require_corpus() / rel).read_bytes()


HOSTILE: list[HostileFile] = [
    HostileFile("empty.txt", lambda: b"", "error", "read", "empty"),
    HostileFile("zero-length.pdf", lambda: b"", "error", "read", "empty"),
    # PDFBox rebuilds what it can: half a PDF still gives its first page…
    HostileFile("truncated-half.pdf", lambda: truncated(_three_pages(), 0.5), "ok"),
    # …a PDF cut before any page content gives no text.
    HostileFile("truncated-early.pdf", lambda: truncated(_three_pages(), 0.3), "error",
                "extract", "no text"),
    HostileFile("broken-xref.pdf", lambda: with_broken_xref(_three_pages()), "ok"),
    HostileFile("encrypted.pdf", lambda: _corpus_file("bad/password-protected.pdf"), "error",
                "extract", "encrypted"),
    # Spinning, it also grows (in bursts of up to ~1.5 GB/s): whichever limit it meets
    # first ends it.
    HostileFile("hang.one", lambda: _corpus_file("bad/fuzzed-hang.one"), "error", "extract",
                rf"did not finish within {EXTRACT_TIMEOUT_S} s|over the {MEMORY_CAP_MB} MiB cap"),
    HostileFile("renamed-text.docx", lambda: b"Plain text saved with a .docx name.\n" * 5, "ok"),
    HostileFile("random.pdf", lambda: random_bytes(8192, 1), "error", "extract",
                "does not recognise the format"),
    HostileFile("random.docx", lambda: random_bytes(8192, 2), "error", "extract",
                "does not recognise the format"),
    HostileFile("random.txt", lambda: random_bytes(8192, 3), "error", "extract",
                "does not recognise the format"),
    HostileFile("zip-bomb.zip", lambda: zip_of_zeros(16, 64 << 20), "error", "extract",
                "archive bomb"),
    HostileFile("zip-bomb.docx", lambda: zip_of_zeros(16, 64 << 20, "word/document{}.xml"),
                "error", "extract", "archive bomb"),
    HostileFile("nested-zips.zip", lambda: nested_zips(6), "error", "extract",
                "nested more than"),
    HostileFile("gzip-bomb.txt.gz", _gzip_of_zeros, "error", "extract", "archive bomb"),
    HostileFile("ten-thousand-pages.pdf",
                lambda: pdf_with_pages(varied_page_texts(10_000)), "ok"),
    HostileFile("deeply-nested.html", lambda: deeply_nested_html(10_000), "ok"),
    HostileFile("huge-single-line.txt", lambda: single_line_text(SINGLE_LINE_BYTES), "ok"),
    HostileFile("invalid-utf8.txt", invalid_utf8_text, "ok"),
    HostileFile("nul-bytes.txt", nul_bytes_text, "error", "extract",
                "does not recognise the format"),
    HostileFile("mixed-scripts.txt", mixed_scripts_text, "ok"),
]


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory):
    base = tmp_path_factory.mktemp("hostile")
    expected = write_hostile_corpus(str(base / "in"), HOSTILE)
    sparse = base / "in" / "sparse-huge.bin"
    with open(sparse, "wb") as f:
        f.truncate(SPARSE_FILE_BYTES)
    expected[str(sparse)] = HostileFile(sparse.name, bytes, "error", "read",
                                        "over the --max-file-bytes limit")
    fifo = base / "in" / "named-pipe.txt"  # opening it would block until a writer comes
    os.mkfifo(fifo)
    expected[str(fifo)] = HostileFile(fifo.name, bytes, "error", "read", r"named pipe \(FIFO\)")
    out = base / "out"
    run = run_watched([sys.executable, "-m", "ragbeam.pipeline.cli", "run",
                       "--input", str(base / "in"), "--output", str(out),
                       "--extract-timeout", str(EXTRACT_TIMEOUT_S),
                       "--extract-memory-mb", str(MEMORY_CAP_MB),
                       # Most of this corpus is broken on purpose: no error-rate exit.
                       "--max-error-rate", "1"], timeout_s=1800)
    return run, out, expected


def test_every_hostile_file_gets_its_expected_status(hostile_run):
    run, out, expected = hostile_run
    assert run.returncode == 0, run.output
    docs = read_table(out, "documents").to_pylist()
    by_uri = {d["source_uri"]: d for d in docs}
    assert len(by_uri) == len(docs), "a file appears twice in documents"
    assert set(by_uri) == set(expected)
    errors = {e["source_uri"]: e for e in read_table(out, "errors").to_pylist()}
    for uri, want in expected.items():
        doc = by_uri[uri]
        assert doc["status"] == want.status, (want.name, doc["error"])
        if want.status == "error":
            error = errors[uri]
            assert error["stage"] == want.stage, (want.name, error)
            assert re.search(want.phrase, error["message"]), (want.name, error["message"])
        else:
            assert doc["chunk_count"] > 0, want.name
    assert set(errors) == {u for u, w in expected.items() if w.status == "error"}


def test_hostile_run_stays_within_time_and_memory_bounds(hostile_run):
    run, _, _ = hostile_run
    print(f"hostile corpus: {len(HOSTILE) + 2} files, {run.wall_seconds:.1f} s "
          f"({run.cpu_seconds:.1f} CPU s), peak process-tree RSS "
          f"{run.peak_tree_rss_bytes / 2**20:,.0f} MiB\n{run.output}")
    assert 0 < run.cpu_seconds < CPU_BOUND_S
    assert 0 < run.peak_tree_rss_bytes < PEAK_RSS_BOUND


def test_hostile_run_summary_groups_failures_by_type(hostile_run):
    run, out, expected = hostile_run
    n_errors = sum(w.status == "error" for w in expected.values())
    assert f"{len(expected) - n_errors} ok, {n_errors} error" in run.output
    for kind in ("read: EmptyFileError", "read: FileTooLargeError", "read: NotARegularFileError",
                 "extract: ArchiveBombError",
                 "extract: EmptyDocumentError"):
        assert kind in run.output, run.output
    extraction = json.loads((out / "run.json").read_text())["extraction"]
    bombs = sum("archive bomb" in w.phrase or "nested" in w.phrase for w in expected.values())
    assert extraction["archive_bombs"] == bombs
    assert extraction["timeouts"] + extraction["memory_kills"] == 1  # the hang file
    assert extraction["crashes"] == 0
    # The cap holds, give or take what the child allocates in one of the memory
    # guard's 10 ms polls (the hang file grows ~1.5 GB/s).
    assert 0 < extraction["child_peak_rss_mib"] < MEMORY_CAP_MB + 128


def test_ten_thousand_page_pdf_keeps_its_pages(hostile_run):
    _, out, expected = hostile_run
    uri = next(u for u, w in expected.items() if w.name == "ten-thousand-pages.pdf")
    doc = next(d for d in read_table(out, "documents").to_pylist() if d["source_uri"] == uri)
    assert doc["page_count"] == 10_000
    chunks = [c for c in read_table(out, "chunks").to_pylist() if c["doc_id"] == doc["doc_id"]]
    assert max(c["page_end"] for c in chunks) == 10_000


def test_scripts_and_emoji_survive_into_chunks(hostile_run):
    _, out, expected = hostile_run
    uri = next(u for u, w in expected.items() if w.name == "mixed-scripts.txt")
    doc = next(d for d in read_table(out, "documents").to_pylist() if d["source_uri"] == uri)
    text = "".join(c["text"] for c in read_table(out, "chunks").to_pylist()
                   if c["doc_id"] == doc["doc_id"])
    for fragment in ("العربية", "עברית", "中文句子", "👩‍👩‍👧‍👦", "हिन्दी", "한국어"):
        assert fragment in text, fragment
    assert os.path.basename(uri) == "mixed-scripts.txt"


def test_hostile_files_are_generated_not_committed():
    here = pathlib.Path(__file__).parent
    assert not [p for p in here.iterdir() if p.suffix in (".pdf", ".zip", ".docx", ".gz")]
