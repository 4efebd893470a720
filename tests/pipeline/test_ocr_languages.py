"""``--ocr-languages`` with a pack that is not installed refuses the run (exit 2) and
names the pack, instead of running with OCR silently off."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from ragbeam.pipeline.cli import main


def test_a_missing_language_pack_refuses_the_run(tmp_path, capsys):
    if shutil.which("tesseract") is None or shutil.which("pdftoppm") is None:
        pytest.skip("needs tesseract and pdftoppm (make ocr)")
    listed = subprocess.run(["tesseract", "--list-langs"], capture_output=True, text=True)
    if "tha" in listed.stdout.split():
        pytest.skip("the Thai pack is installed here")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "note.txt").write_text("Boats leave at nine.\n")
    code = main(["run", "--input", str(tmp_path / "in"), "--output", str(tmp_path / "out"),
                 "--ocr-languages", "eng+tha"])
    assert code == 2
    err = capsys.readouterr().err
    assert "--ocr-languages eng+tha: tesseract has no language data for tha" in err
    assert "tesseract-ocr-tha" in err and not (tmp_path / "out" / "run.json").exists()
