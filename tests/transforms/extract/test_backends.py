"""Both Tika backends, for real: embedded iscc-tika, and a server over HTTP."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest

from ragbeam.transforms.errors import ErrorClass, error_class
from ragbeam.transforms.extract.backends import (
    EmbeddedTika,
    ExtractionError,
    TikaServer,
    TikaServerError,
    TikaServerUnavailable,
    path_without,
)
from ragbeam.transforms.extract.isolation import ExtractionTimeout, IsolatedExtractor

from conftest import SAMPLES, TEST_EXTRACT_TIMEOUT
from helpers import cold_start_seconds, read_table, run_cli
from tika_server import TIKA_LIKE_VERSION, tika_like_server


def test_embedded_tika_returns_xhtml_pages_and_metadata():
    xhtml, meta = EmbeddedTika().extract((SAMPLES / "boating-safety.pdf").read_bytes(), "x.pdf")
    assert xhtml.count('<div class="page">') == 3
    assert meta["Content-Type"] == ["application/pdf"]


def test_embedded_tika_raises_extraction_error_on_corrupt_input():
    with pytest.raises(ExtractionError):
        EmbeddedTika().extract((SAMPLES / "corrupt.pdf").read_bytes(), "corrupt.pdf")


def _logging_tesseract(folder, log):
    """A ``tesseract`` in ``folder`` that notes each start in ``log``."""
    folder.mkdir()
    program = folder / "tesseract"
    program.write_text(f"#!/bin/sh\necho started >> {log}\nexit 1\n")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)


def _starts(log):
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_path_without_leaves_out_only_the_folders_holding_the_program(tmp_path):
    _logging_tesseract(tmp_path / "a", tmp_path / "log")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "tesseract").write_text("not executable")
    path = os.pathsep.join([str(tmp_path / "a"), str(tmp_path / "b"), "", "/nowhere"])
    assert path_without("tesseract", path) == os.pathsep.join([str(tmp_path / "b"), "/nowhere"])


def test_embedded_tika_checks_for_tesseract_without_finding_it_when_hidden(tmp_path,
                                                                             monkeypatch):
    # Tika (iscc-tika) starts `tesseract` to see whether it is installed, OCR off or
    # not; hidden from its PATH, the check finds none and the text is the same.
    log = tmp_path / "starts.log"
    _logging_tesseract(tmp_path / "bin", log)
    monkeypatch.setenv("PATH", os.pathsep.join([str(tmp_path / "bin"), os.environ["PATH"]]))
    data = (SAMPLES / "lab-rules.docx").read_bytes()
    shown = EmbeddedTika().extract(data, "l.docx")
    assert _starts(log) > 0
    before = _starts(log)
    hidden = EmbeddedTika(hide_tesseract=True).extract(data, "l.docx")
    assert _starts(log) == before
    assert hidden[0] == shown[0]
    assert os.environ["PATH"].startswith(str(tmp_path / "bin"))  # given back


def test_extraction_children_hide_tesseract_from_tika(tmp_path, monkeypatch):
    log = tmp_path / "starts.log"
    _logging_tesseract(tmp_path / "bin", log)
    monkeypatch.setenv("PATH", os.pathsep.join([str(tmp_path / "bin"), os.environ["PATH"]]))
    extractor = IsolatedExtractor(("embedded", {}), timeout_s=120)
    try:
        xhtml, _ = extractor.extract((SAMPLES / "lab-rules.docx").read_bytes(), "l.docx")
    finally:
        extractor.close()
    assert "Laboratory rules" in xhtml
    assert _starts(log) == 0


def test_server_backend_speaks_tika_http():
    with tika_like_server() as (url, seen):
        xhtml, meta = TikaServer(url).extract((SAMPLES / "lab-rules.docx").read_bytes(), "l.docx")
        assert "<h1>Laboratory rules</h1>" in xhtml
        assert meta["Content-Type"][0].startswith("application/vnd.openxmlformats")
        assert seen == ["text/html"]
        with pytest.raises(ExtractionError, match="HTTP 422"):
            TikaServer(url).extract((SAMPLES / "corrupt.pdf").read_bytes(), "corrupt.pdf")


def test_extraction_child_leaves_the_stores_registry_unimported():
    # Tika forks the child to look for tesseract on every parse, and a fork costs by the
    # size of the process: pyarrow and numpy made a young child's about a fifth dearer.
    imported = subprocess.run(
        [sys.executable, "-c", "import sys, ragbeam.transforms.extract.isolation; "
         "print(sorted({'pyarrow', 'numpy', 'ragbeam.transforms.sink.uri'} & set(sys.modules)))"],
        capture_output=True, text=True, check=True).stdout.strip()
    assert imported == "[]"


def test_server_backend_redacts_the_password_in_its_errors():
    server = TikaServer("http://user:secret@127.0.0.1:9", timeout_s=2,
                        retry_delays_s=(0.01,))
    with pytest.raises(TikaServerUnavailable) as failure:
        server.extract(b"hello", "a.txt")
    assert "secret" not in str(failure.value)


def test_server_backend_unreachable_is_transient_after_retries():
    server = TikaServer("http://127.0.0.1:9", timeout_s=2, retry_delays_s=(0.01, 0.01))
    with pytest.raises(TikaServerUnavailable, match=r"unreachable.*after 3 attempts"):
        server.extract(b"hello", "a.txt")
    assert error_class("TikaServerUnavailable") is ErrorClass.TRANSIENT


def test_server_5xx_is_retried_then_transient_and_4xx_is_permanent():
    with tika_like_server(fail_first=2) as (url, seen):
        # Two 503s, then the answer: the retries absorb a server that was restarting.
        xhtml, _ = TikaServer(url, retry_delays_s=(0.01, 0.01)).extract(
            (SAMPLES / "faq.txt").read_bytes(), "faq.txt")
        assert "Frequently asked questions" in xhtml and len(seen) == 3
    with (tika_like_server(fail_first=10) as (url, _),
          pytest.raises(TikaServerError, match="HTTP 503")):
        TikaServer(url, retry_delays_s=(0.01,)).extract(b"hello", "a.txt")
    assert error_class("TikaServerError") is ErrorClass.TRANSIENT
    assert error_class("ExtractionError") is ErrorClass.PERMANENT


def test_pipeline_with_tika_server_matches_embedded(samples_run, tmp_path):
    with tika_like_server() as (url, seen):
        out = tmp_path / "server"
        summary = run_cli(["--input", str(SAMPLES), "--exclude", "*.py", "--output", str(out),
                           "--tika-server", url, "--extract-timeout", TEST_EXTRACT_TIMEOUT])
    assert len(seen) == summary["files_matched"]
    assert summary["config"]["extractor"] == {"extractor": "tika-server",
                                              "version": TIKA_LIKE_VERSION}
    texts = lambda o: sorted(r["text"] for r in read_table(o, "chunks").to_pylist())  # noqa: E731
    assert texts(out) == texts(samples_run.path)
    assert summary["documents_error"] == samples_run.summary["documents_error"] == 1


def test_isolated_extractor_kills_a_hang_and_recovers(corpus_dir):
    # The hang never finishes, whatever the limit; the document after it must, in a
    # fresh child whose start counts against the same limit: sized from what a
    # child's start takes on this machine now.
    limit = max(3, round(10 * cold_start_seconds()))
    extractor = IsolatedExtractor(("embedded", {}), timeout_s=limit)
    try:
        with pytest.raises(ExtractionTimeout, match=f"did not finish within {limit} s"):
            extractor.extract((corpus_dir / "bad/fuzzed-hang.one").read_bytes(), "f.one")
        # Tika's temp copy of the document, which the killed child could not delete.
        removed = extractor.stats.temp_files_removed
        assert len(removed) == 1
        assert os.path.basename(removed[0]).startswith("apache-tika-")
        assert not os.path.exists(removed[0])
        xhtml, _ = extractor.extract((SAMPLES / "faq.txt").read_bytes(), "faq.txt")
        assert "Frequently asked questions" in xhtml
        assert extractor.restarts == 1
    finally:
        extractor.close()


def test_only_six_replacement_characters_in_a_row_mean_a_lost_character(monkeypatch):
    """A lone U+FFFD is the document's own (an unmapped glyph): no second extraction.
    Six in a row are how the string call loses one non-BMP character: re-extracted."""
    tika = EmbeddedTika()
    calls: list[int] = []
    real = tika._extract_utf8_stream
    monkeypatch.setattr(tika, "_extract_utf8_stream",
                        lambda *args: calls.append(1) or real(*args))
    xhtml, _ = tika.extract("a glyph \ufffd without a character\n".encode(), "a.txt")
    assert "\ufffd" in xhtml and calls == []
    xhtml, _ = tika.extract("an emoji \U0001F600 and \U00020000\n".encode(), "b.txt")
    assert "\U0001F600" in xhtml and "\U00020000" in xhtml and calls == [1]
