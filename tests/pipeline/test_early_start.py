"""``ragbeam run`` starts extracting before Beam is imported (``early_start.py``), only
for runs that will take the results, and the output is the same as without."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ragbeam.pipeline import cli
from ragbeam.pipeline.cli import build_parser
from ragbeam.pipeline.early_start import start_early_extraction
from ragbeam.pipeline.run import request_from_argv, run_pipeline, settings_from_args

from conftest import SAMPLES, TEST_EXTRACT_TIMEOUT
from helpers import read_table


def _rows(out, table: str, columns: tuple[str, ...]) -> list[tuple]:
    return sorted(tuple(r[c] for c in columns) for r in read_table(out, table).to_pylist())


def test_a_run_started_early_writes_what_a_run_without_it_writes(tmp_path):
    def argv(out):
        return ["--input", str(SAMPLES), "--exclude", "*.py", "--output", str(out),
                "--extract-timeout", TEST_EXTRACT_TIMEOUT]

    late = tmp_path / "late"
    summary = run_pipeline(request_from_argv(argv(late))).summary  # no early start
    assert summary["extraction"]["started_early"] == 0

    # Every file handed to the children before the pipeline exists (as when Beam's
    # import takes long), so the stage takes each one from the early start.
    out = tmp_path / "early"
    started = start_early_extraction(*_parsed(*argv(out)))
    assert started is not None
    try:
        started.extraction.join()
        assert started.extraction.submitted >= 5
        summary = run_pipeline(request_from_argv(argv(out))).summary
    finally:
        started.close()
    assert summary["extraction"]["started_early"] == started.extraction.submitted

    chunk_columns = ("chunk_id", "doc_id", "parent_id", "text", "char_start", "char_end",
                     "page_start", "context")
    assert _rows(out, "chunks", chunk_columns) == _rows(late, "chunks", chunk_columns)
    doc_columns = ("doc_id", "source_uri", "status", "content_hash", "text")
    assert _rows(out, "documents", doc_columns) == _rows(late, "documents", doc_columns)
    assert (_rows(out, "errors", ("doc_id", "error_type"))
            == _rows(late, "errors", ("doc_id", "error_type")))


def test_ragbeam_run_starts_early_on_its_own(samples_run):
    """samples_run went through `ragbeam run` (cli.main). How many documents start
    early depends on how long the rest takes to start (Beam is already imported in
    this test process), but the stage found the early start and took from it."""
    assert samples_run.summary["extraction"]["started_early"] >= 1


def _parsed(*argv: str):
    """``ragbeam run ARGV`` parsed as the CLI parses it: (settings, Beam arguments)."""
    args, beam_args = build_parser(evaluation=False).parse_known_args(["run", *argv])
    return settings_from_args(args), beam_args


@pytest.mark.parametrize("argv", [
    ["--input", str(SAMPLES), "--output", "o", "--direct_num_workers", "2"],
    ["--input", str(SAMPLES), "--output", "o", "--runner", "PortableRunner"],
    ["--input", str(SAMPLES), "--output", "o", "--previous", "p"],
    ["--input", "gs://bucket/docs", "--output", "o"],
    ["--input", str(SAMPLES), "--output", "o", "--tika-server", "http://localhost:1"],
    ["--input", str(SAMPLES / "missing"), "--output", "o"],
])
def test_no_early_start_where_the_stage_would_not_take_it(argv, capsys):
    assert start_early_extraction(*_parsed(*argv)) is None
    assert capsys.readouterr() == ("", "")  # the run itself reports what is wrong


@pytest.mark.parametrize("argv, message", [
    (["--input", str(SAMPLES), "--output", "o", "--chunk-size", "-3"], "chunk_size"),
    (["--input", str(SAMPLES), "--output", "o", "--strategy", "no-such-strategy"],
     "invalid choice"),
    (["--output", "o"], "--input"),
])
def test_arguments_the_cli_refuses_are_refused_before_any_early_start(argv, message, capsys,
                                                                       monkeypatch):
    started = []
    monkeypatch.setattr(cli, "start_early_extraction", lambda *a: started.append(a))
    try:
        code = cli.main(["run", *argv])
    except SystemExit as exc:  # argparse refuses a bad choice itself
        code = exc.code
    assert code == 2 and not started
    assert message in capsys.readouterr().err


def test_the_cli_imports_no_beam_before_the_early_start_nor_for_its_parser():
    """What makes the early start worth it: it begins before Beam's ~1 s import. The
    parser (every subcommand's) needs no Beam either, so --version and --help are quick."""
    code = ("import sys\n"
            "from ragbeam.pipeline.cli import main\n"
            "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
            "print(any(m.startswith('apache_beam') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip().splitlines()[-1] == "False"


def test_the_early_listing_names_files_as_the_match_stage_does(samples_run):
    """Lazily listed, filtered, and with the Match stage's URIs and doc ids: what the
    Extract stage takes results by."""
    from ragbeam.pipeline.early_start import _local_sources
    from ragbeam.transforms.ids import DOC_IDS_RELATIVE

    listed = _local_sources([str(SAMPLES)], (), ("*.py",), "", DOC_IDS_RELATIVE)
    assert iter(listed) is listed  # a generator: nothing is walked before the feeder asks
    matched = {(d["source_uri"], d["doc_id"])
               for d in read_table(samples_run.path, "documents").to_pylist()}
    assert {(s.uri, s.doc_id) for s in listed} == matched
