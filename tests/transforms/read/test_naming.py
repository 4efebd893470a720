"""Files ragbeam cannot index are named for what they are, on real files and a real run."""

from __future__ import annotations

import os
import shutil
import wave

from ragbeam.transforms.read.naming import broken_link_reason, no_text_reason

from helpers import read_table, run_cli


def test_a_link_loop_is_named_a_loop_and_a_dangling_link_names_its_target(tmp_path):
    os.symlink("loop2", tmp_path / "loop1")
    os.symlink("loop1", tmp_path / "loop2")
    os.symlink("missing.txt", tmp_path / "dangling")
    (tmp_path / "real").mkdir()
    os.symlink("real", tmp_path / "dirlink")
    assert broken_link_reason(str(tmp_path / "loop1")).startswith("symbolic link loop")
    assert broken_link_reason(str(tmp_path / "dangling")) == (
        "symbolic link to a file that does not exist (missing.txt); not read")
    assert "to a directory" in broken_link_reason(str(tmp_path / "dirlink"))


def test_ocr_is_suggested_for_images_and_pdfs_only():
    for media in ("audio/vnd.wave", "video/mp4", "application/x-sharedlib",
                  "application/x-executable", "application/zip"):
        assert "OCR" not in no_text_reason(media), media
    assert "audio file" in no_text_reason("audio/x-wav; charset=binary")
    assert "program or library binary" in no_text_reason("application/x-executable")
    assert "OCR" in no_text_reason("image/png") and "OCR" in no_text_reason("application/pdf")


def test_a_run_names_audio_binaries_and_link_loops(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    with wave.open(str(folder / "tone.wav"), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(b"\x00\x01" * 8000)
    shutil.copy(shutil.which("true") or "/bin/true", folder / "prog.txt")  # an ELF binary
    os.symlink("loop2", folder / "loop1")
    os.symlink("loop1", folder / "loop2")
    (folder / "note.txt").write_text("Boats leave at nine.\n")
    out = tmp_path / "out"
    run_cli(["--input", str(folder), "--output", str(out), "--ocr", "off",
             "--max-error-rate", "1"])
    # Every file's reason is in documents.error (``stage: ErrorType: message``); the
    # errors table logs failures only, not the unsupported audio and program.
    messages = {r["source_uri"].rsplit("/", 1)[-1]: r["error"].split(": ", 2)[2]
                for r in read_table(out, "documents").to_pylist() if r["error"]}
    assert messages["tone.wav"].startswith("no text could be extracted: an audio file")
    assert "program or library binary" in messages["prog.txt"]
    assert messages["loop1"].startswith("symbolic link loop")
    assert not any("OCR" in m for m in messages.values())
