"""CLI errors are reported before Beam starts, with a non-zero exit."""

from __future__ import annotations

from ragbeam.pipeline.cli import main

from conftest import SAMPLES


def test_nothing_matched_is_a_usage_error(tmp_path, capsys):
    code = main(["run", "--input", str(tmp_path / "nope" / "*.pdf"),
                 "--output", str(tmp_path / "o")])
    assert code == 2
    assert "matched no files" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_filters_that_exclude_everything_are_a_usage_error(tmp_path, capsys):
    code = main(["run", "--input", str(SAMPLES), "--include", "*.nothing",
                 "--output", str(tmp_path / "o")])
    assert code == 2
    assert "after --include/--exclude" in capsys.readouterr().err


def test_unwritable_output_is_a_usage_error(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    code = main(["run", "--input", str(SAMPLES / "faq.txt"), "--output", str(blocker / "out")])
    assert code == 2
    assert "not writable" in capsys.readouterr().err


def test_existing_output_needs_overwrite(samples_run, capsys):
    code = main(["run", "--input", str(SAMPLES / "faq.txt"), "--output", str(samples_run.path)])
    assert code == 2
    assert "--overwrite" in capsys.readouterr().err


def test_bad_chunk_options_are_usage_errors(tmp_path, capsys):
    code = main(["run", "--input", str(SAMPLES / "faq.txt"), "--output", str(tmp_path / "o"),
                 "--chunk-size", "100", "--chunk-overlap", "100"])
    assert code == 2
    assert "overlap" in capsys.readouterr().err
