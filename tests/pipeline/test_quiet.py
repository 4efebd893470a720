"""``-q``: a scheduler's mail reads one line."""

from __future__ import annotations


def test_quiet_prints_the_summary_s_first_line_only(tmp_path, capsys):
    from ragbeam.pipeline.cli import main

    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "note.txt").write_text("Boats leave at nine.\n")
    assert main(["run", "--input", str(tmp_path / "in"), "--output", str(tmp_path / "out"),
                 "--ocr", "off", "-q"]) == 0
    printed = capsys.readouterr()
    assert printed.out.splitlines()[-1].startswith("ragbeam: 1 files → 1 ok")
    assert len(printed.out.splitlines()) <= 2 and not printed.err.strip()
