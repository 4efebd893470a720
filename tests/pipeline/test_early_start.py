"""``ragbeam run`` starts extracting before Beam is imported (``early_start.py``), only
for runs that will take the results, and the output is the same as without."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

from ragbeam.pipeline import cli
from ragbeam.pipeline.cli import build_parser
from ragbeam.pipeline.early_start import beam_imported, start_early_extraction
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
        beam_imported()  # as run_pipeline says once it has Beam: feeding begins
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
    args, beam_args = build_parser().parse_known_args(["run", *argv])
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
    from ragbeam.pipeline.early_start import _listed_sources
    from ragbeam.transforms.ids import DOC_IDS_RELATIVE

    listed = _listed_sources([str(SAMPLES)], (), ("*.py",), "", DOC_IDS_RELATIVE)
    assert iter(listed) is listed  # a generator: nothing is listed before the feeder asks
    matched = {(d["source_uri"], d["doc_id"])
               for d in read_table(samples_run.path, "documents").to_pylist()}
    assert {(s.uri, s.doc_id) for s in listed} == matched


def _awkward_tree(root: pathlib.Path) -> pathlib.Path:
    """Nested folders, hidden files and folders, symbolic links to a file, to a folder
    and to nothing, an excluded and an oversized file."""
    files = {"a.txt": "alpha", ".hidden.txt": "hidden", "sub/b.md": "# Bee",
             "sub/deeper/c.txt": "sea", ".cache/d.txt": "dee", "skip.log": "log line",
             "big.txt": "x" * 5000}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    (root / "link-to-a.txt").symlink_to(root / "a.txt")
    (root / "link-to-sub").symlink_to(root / "sub", target_is_directory=True)
    (root / "broken.txt").symlink_to(root / "nowhere.txt")
    return root


@pytest.mark.parametrize("inputs, include, exclude", [
    (["{root}"], (), ()),
    (["{root}"], (), ("*.log", ".*")),
    (["{root}/sub", "{root}/a.txt", "{root}/sub/b.md"], (), ()),
    (["{root}/**/*.txt"], (), ("big.txt",)),
    (["{root}"], ("*.txt", "*.md"), ("*/deeper/*",)),
])
def test_the_early_start_lists_exactly_the_files_the_match_stage_extracts(
        tmp_path, inputs, include, exclude):
    """Same files, same URIs, same doc ids as ``MatchInputs`` on a real runner, for
    include/exclude, nested and hidden files, overlapping inputs and links (a broken
    link is an error row of Match's, nothing to extract early)."""
    import apache_beam as beam
    from apache_beam.testing.util import assert_that, equal_to

    from ragbeam.pipeline.early_start import _listed_sources
    from ragbeam.transforms.ids import DOC_IDS_RELATIVE
    from ragbeam.transforms.match.dofn import MatchInputs

    root = _awkward_tree(tmp_path / "corpus")
    inputs = tuple(i.format(root=root) for i in inputs)
    early = sorted((s.uri, s.doc_id, s.size_bytes)
                   for s in _listed_sources(inputs, include, exclude, "ns", DOC_IDS_RELATIVE))
    assert early and len({uri for uri, _, _ in early}) == len(early)
    with beam.Pipeline() as pipeline:
        matched = (pipeline
                   | MatchInputs(inputs, include, exclude, "ns", DOC_IDS_RELATIVE)
                   | beam.Filter(lambda s: s.size_bytes >= 0)  # not a broken link
                   | beam.Map(lambda s: (s.uri, s.doc_id, s.size_bytes)))
        assert_that(matched, equal_to(early))


@pytest.mark.parametrize("include, exclude", [((), ()), ((), ("*.log", ".*")),
                                              (("*.txt", "*.md"), ("*/deeper/*",))])
def test_a_local_folder_is_listed_without_beam_as_beam_lists_it(tmp_path, include, exclude):
    """What the early start feeds while the run imports Beam: every file the Match
    stage lists except those below directory links, which follow once Beam is there."""
    from ragbeam.pipeline.early_start import _listed_sources
    from ragbeam.transforms.ids import DOC_IDS_RELATIVE

    root = _awkward_tree(tmp_path / "corpus")
    before_beam = [(s.uri, s.doc_id, s.size_bytes, s.modified) for s in _listed_sources(
        [str(root)], include, exclude, "ns", DOC_IDS_RELATIVE, beam_ready=lambda: False)]
    whole = [(s.uri, s.doc_id, s.size_bytes, s.modified) for s in _listed_sources(
        [str(root)], include, exclude, "ns", DOC_IDS_RELATIVE)]
    link = str(root / "link-to-sub")
    assert before_beam == [entry for entry in whole if not entry[0].startswith(link + "/")]
    assert len(whole) > len(before_beam)  # link-to-sub/b.md, once Beam is imported


def test_an_early_start_extracts_what_its_listing_names_within_the_size_limit(tmp_path):
    """The oversized file is listed (Read refuses it with an error row) but never
    extracted early; every other listed file is, and the stage could take it."""
    from ragbeam.transforms.ids import sha256_hex
    from ragbeam.transforms.types import FetchedFile

    root = _awkward_tree(tmp_path / "corpus")
    started = start_early_extraction(*_parsed(
        "--input", str(root), "--output", str(tmp_path / "out"), "--exclude", "*.log",
        "--max-file-bytes", "1000", "--extract-timeout", TEST_EXTRACT_TIMEOUT))
    assert started is not None
    try:
        beam_imported()
        started.extraction.join()
        from ragbeam.pipeline.early_start import _listed_sources
        from ragbeam.transforms.ids import DOC_IDS_RELATIVE

        listed = list(_listed_sources([str(root)], (), ("*.log",), "", DOC_IDS_RELATIVE))
        taken = set()
        for source in listed:
            data = pathlib.Path(source.uri).read_bytes()
            if started.extraction.take(FetchedFile(source, data, sha256_hex(data))):
                taken.add(source.uri)
    finally:
        started.close()
    # URIs, not names: files below the folder link (link-to-sub/b.md) share sub/'s names.
    uris = {s.uri for s in listed}
    big = str(root / "big.txt")
    assert big in uris and big not in taken and str(root / "link-to-sub" / "b.md") in uris
    assert taken == uris - {big} and started.extraction.submitted == len(taken)


# A changed value of every setting that reaches the Extract stage: its option object's
# (settings.EXTRACT_FIELDS, checked below) and the cleaning the pool's children apply.
CHANGED_EXTRACT_SETTINGS = {
    "tika_server": "http://localhost:9998", "extract_timeout": 7, "extract_memory_mb": 512,
    "max_text_chars": 5000, "extract_processes": 2, "ocr": "off", "ocr_languages": "deu",
    "ocr_page_timeout": 5, "ocr_timeout": 30, "no_clean": ["dehyphenate"],
    "clean_corpus_boilerplate": True,
}


def test_a_changed_extract_parameter_is_never_served_from_an_early_start(tmp_path):
    """The early start, the Extract stage and the pool compare one value,
    ``RunConfig.extraction_settings``: a stage whose run differs in any Extract
    setting takes nothing from the early start and gets a pool of its own."""
    from ragbeam.pipeline.settings import EXTRACT_FIELDS, load_settings, run_config
    from ragbeam.transforms.cores import available_cores
    from ragbeam.transforms.extract import early
    from ragbeam.transforms.extract.isolation import release_pool

    assert set(EXTRACT_FIELDS) <= set(CHANGED_EXTRACT_SETTINGS)
    given = {"input": [str(SAMPLES / "faq.txt")], "output": str(tmp_path / "out"),
             "extract_timeout": float(TEST_EXTRACT_TIMEOUT), "extract_processes": 1}

    def stage_settings(**change):
        config = run_config(load_settings({**given, **change}, None))
        return config.extraction_settings(config.extract.processes or available_cores())

    started = start_early_extraction(load_settings(given, None), [])
    assert started is not None
    try:
        for name, value in CHANGED_EXTRACT_SETTINGS.items():
            changed = stage_settings(**{name: value})
            assert changed != started.extraction.settings, name
            assert early.stage_started(changed) is None, name
            _, pool = changed.acquire_pool()
            release_pool(pool)
            assert pool is not started.pool, name
        assert early.stage_started(stage_settings()) is started.extraction
        _, pool = stage_settings().acquire_pool()
        release_pool(pool)
        assert pool is started.pool
    finally:
        started.close()
