"""``ragbeam eval``'s table fits 100 columns, with its columns named in words;
``--wide`` shows every figure."""

from __future__ import annotations

from ragbeam.cli import main

from helpers import copy_samples, run_cli


def test_the_eval_table_fits_100_columns_and_names_its_columns(tmp_path, capsys):
    folder = copy_samples(tmp_path / "in", ("lab-rules.docx", "faq.txt", "handbook.md"))
    out = tmp_path / "out"
    run_cli(["--input", str(folder), "--output", str(out), "--ocr", "off"])
    capsys.readouterr()
    assert main(["eval", "--output", str(out)]) == 0
    printed = capsys.readouterr().out
    assert max(len(line) for line in printed.splitlines()) <= 100, printed
    assert "  application/vnd.openxmlform…" in printed  # the long media type, cut
    for column in ("mean tokens", "p95 tokens", "at cap", "mid-sentence", "overlap"):
        assert column in printed
    assert "mid-sentence: share of chunks ending inside a sentence" in printed
    assert "idx tokens" not in printed and "redund" not in printed
    assert main(["eval", "--output", str(out), "--wide"]) == 0
    wide = capsys.readouterr().out
    assert "idx tokens" in wide and "tok p5" in wide
    assert "application/vnd.openxmlformats-officedocument.wordprocessingml.document" in wide
