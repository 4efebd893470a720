"""Files ragbeam cannot index by design are ``unsupported``, not failed (issue 30).

Real runs over real files: a WAV made with ``wave``, a copy of ``/bin/true`` (an ELF
program) named ``.txt``, and a PNG with no text read with ``--ocr off``.
"""

from __future__ import annotations

import shutil
import struct
import wave

import pytest
from reliability.hostile import blank_png

from ragbeam.pipeline.peek import peek
from ragbeam.schemas.documents import STATUS_UNSUPPORTED

from helpers import read_table, run_cli, settle

UNSUPPORTED = {"tone.wav", "prog.txt", "blank.png"}




@pytest.fixture
def corpus(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    with wave.open(str(folder / "tone.wav"), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(b"".join(struct.pack("<h", (i * 37) % 2000) for i in range(8000)))
    shutil.copy(shutil.which("true") or "/bin/true", folder / "prog.txt")
    (folder / "blank.png").write_bytes(blank_png())
    (folder / "note.txt").write_text("Boats leave the harbour at nine every morning.\n")
    (folder / "empty.txt").write_bytes(b"")  # a real failure, beside them
    settle(folder)
    return folder


def _documents(out) -> dict[str, dict]:
    return {r["source_uri"].rsplit("/", 1)[-1]: r
            for r in read_table(out, "documents").to_pylist()}


def test_unsupported_files_are_not_errors_and_do_not_trip_the_error_rate(corpus, tmp_path,
                                                                        capsys):
    out = tmp_path / "out"
    # One real failure in two indexable files: 50 %, under 0.6; the three unsupported
    # files would make it 80 % if they counted.
    summary = run_cli(["--input", str(corpus), "--output", str(out), "--ocr", "off",
                       "--max-error-rate", "0.6"])
    docs = _documents(out)
    assert {n for n, d in docs.items() if d["status"] == STATUS_UNSUPPORTED} == UNSUPPORTED
    assert docs["note.txt"]["status"] == "ok" and docs["empty.txt"]["status"] == "error"
    assert "audio file" in docs["tone.wav"]["error"]
    assert "program or library binary" in docs["prog.txt"]["error"]
    assert "an image (image/png) without text" in docs["blank.png"]["error"]
    assert all(docs[n]["chunk_count"] == 0 for n in UNSUPPORTED)
    # No chunks, so no store ever gets a row for them; and no errors rows.
    unsupported_ids = {docs[n]["doc_id"] for n in UNSUPPORTED}
    assert not unsupported_ids & {r["doc_id"] for r in read_table(out, "chunks").to_pylist()}
    assert {r["source_uri"].rsplit("/", 1)[-1]
            for r in read_table(out, "errors").to_pylist()} == {"empty.txt"}
    assert summary["documents_unsupported"] == 3 and summary["documents_error"] == 1
    assert summary["documents_indexed"] == 2 and summary["documents_failing"] == 1
    assert summary["files_matched"] == 5 and summary["outcome"] == "ok"
    printed = capsys.readouterr().out
    assert "1 ok, 1 error, 0 stale, 3 unsupported" in printed.splitlines()[0]
    assert "3 unsupported: audio, video" in printed
    assert "UnsupportedDocumentError" not in printed  # not among the failures by type
    peek(str(out))
    peeked = capsys.readouterr().out
    assert "- tone.wav: unsupported: extract: UnsupportedDocumentError: " in peeked
    assert "✗ empty.txt: error" in peeked and "3 unsupported" in peeked


def test_unsupported_as_errors_counts_them_toward_the_error_rate(corpus, tmp_path):
    summary = run_cli(["--input", str(corpus), "--output", str(tmp_path / "out"), "--ocr",
                       "off", "--max-error-rate", "0.6", "--unsupported-as-errors"],
                      expected_exit=3)
    assert summary["documents_failing"] == 4 and summary["documents_indexed"] == 5
    assert summary["outcome"] == "error_rate_exceeded"


@pytest.mark.parametrize("with_pipeline", [False, True], ids=["no-pipeline", "pipeline"])
def test_unchanged_unsupported_files_stay_unsupported_and_are_not_redone(
        corpus, tmp_path, with_pipeline):
    first, second = tmp_path / "first", tmp_path / "second"
    args = ["--input", str(corpus), "--ocr", "off", "--max-error-rate", "0.6"]
    run_cli([*args, "--output", str(first)])
    if with_pipeline:  # a changed file makes the run start its pipeline
        (corpus / "note.txt").write_text("Boats leave the harbour at ten on Sundays.\n")
        settle(corpus / "note.txt", 1800)
    summary = run_cli([*args, "--output", str(second), "--previous", str(first)])
    before, after = _documents(first), _documents(second)
    for name in UNSUPPORTED:
        assert after[name]["status"] == STATUS_UNSUPPORTED
        assert after[name]["error"] == before[name]["error"]
        assert after[name]["content_hash"] == before[name]["content_hash"]
        assert "error_carried_over" not in dict(after[name]["metadata"])
    assert summary["documents_unsupported"] == 3
    # Only the edited note is processed; the empty file's failure is kept, as it was.
    assert summary["documents_processed"] == (1 if with_pipeline else 0)
    assert summary["documents_failed"] == 0 and summary["documents_kept_failed"] == 1
    assert {r["source_uri"].rsplit("/", 1)[-1]
            for r in read_table(second, "errors").to_pylist()} == {"empty.txt"}
