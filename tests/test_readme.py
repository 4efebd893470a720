"""The README as a new user meets it: every code block runs on its own, in a fresh
process, in the order a reader meets it, against what the README's own commands wrote;
then the blocks of the pages it sends a reader to for the tables and the other stores
(``WALKED``), in the same folder.

Python (and SQL) blocks each run in a new interpreter, so a block that needs a variable
or an import from an earlier block fails here as it fails for a reader who copies it
alone. ``ragbeam`` command lines run through the CLI in the same working folder, so a
block that reads a store or an output folder reads what the README's commands made.
Blocks that cannot run here (network, a bucket, the Makefile itself) are listed in
``NOT_RUN`` with the reason; a new block that is neither run nor listed fails
``test_every_block_is_run_or_says_why``, so a block added later is covered at once.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass

import pytest

from conftest import REPO, SAMPLES
from helpers import copy_samples

# The files walked, in this order: the README, then the pages whose blocks build on it.
WALKED = ("README.md", "docs/output.md", "docs/sinks.md")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
# What a reader types as a command: fenced blocks in a language, not an output sample.
CODE_LANGUAGES = frozenset({"python", "bash", "sh", "sql"})

# Blocks not run here, by the start of their first line, and why.
NOT_RUN = {
    "make demo": "the Makefile's own targets: they build .venv (CI runs make test)",
    "python3.11 -m venv": "installs from a package index over the network",
    "python benchmarks/retrieval.py --fetch": "fetches the question sets' PDFs, then scores "
                                              "every pipeline on them for hours",
    "make quick": "the Makefile's own targets (CI runs make test)",
    "pip install 'ragbeam[stores]'": "installs from a package index over the network",
}

# What a block must have printed or left in its namespace (by a line of the block):
# expressions evaluated in the block's own namespace after it ran, each must be true.
CHECKS = {
    'for c in ragbeam.chunk_text(text, strategy="structure"': [
        "doc.strategy == 'structure'", "len(chunks) > 1"],
    "ragbeam.IngestDocuments(": [],
    "hits = client.hybrid_search(": [
        "'Calibration solutions' in hits[0]['entity']['text']",
        "hits[0]['entity']['source_uri'].endswith('handbook.md')"],
    "points = client.query_points(": [
        "'Calibration solutions' in points[0].payload['text']",
        "'Calibration solutions' in dense_only[0].payload['text']"],
    'ds.dataset("out/demo/chunks")': ["chunks.num_rows > 0", "len(df) == chunks.num_rows"],
    "rows = (table.search(": ["'Calibration solutions' in rows[0]['text']"],  # LanceDB
    "found = client.get_collection(": [  # Chroma
        "'Calibration solutions' in found['documents'][0][0]"],
}
PRINTED = {  # what the block prints, as a reader sees it
    'for c in ragbeam.chunk_text(text, strategy="structure"': ["('# Guide', '## Safety')"],
    "ragbeam.IngestDocuments(": ["('handbook.md', ", "error: ExtractionError",
                                 "note: Boats leave at nine."],
}


@dataclass(frozen=True)
class Block:
    section: str
    lang: str
    code: str
    line: int
    file: str = "README.md"

    @property
    def first_line(self) -> str:
        return self.code.lstrip().splitlines()[0] if self.code.strip() else ""

    def __str__(self) -> str:
        return f"{self.file}:{self.line} ({self.section}, {self.lang}): {self.first_line[:60]}"


def readme_blocks(files: tuple[str, ...] = WALKED) -> list[Block]:
    blocks = []
    for name in files:
        text = (REPO / name).read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            before = text[:match.start()]
            headings = re.findall(r"^#{2,3} (.+)$", before, re.MULTILINE)
            blocks.append(Block(headings[-1] if headings else "", match.group(1),
                                match.group(2), before.count("\n") + 1, name))
    return [b for b in blocks if b.lang in CODE_LANGUAGES]


def not_run_reason(block: Block) -> str | None:
    return next((why for start, why in NOT_RUN.items() if block.first_line.startswith(start)),
                None)


def command_lines(code: str) -> list[str]:
    """A bash block's commands: continuation lines joined, comments dropped."""
    joined = code.replace("\\\n", " ")
    return [shlex.join(shlex.split(line, comments=True)) for line in joined.splitlines()
            if shlex.split(line, comments=True)]


def test_every_block_is_run_or_says_why():
    blocks = readme_blocks()
    assert len(blocks) >= 10
    for block in blocks:
        if not_run_reason(block):
            continue
        if block.lang in ("bash", "sh"):
            for command in command_lines(block.code):
                assert command.startswith("ragbeam "), (
                    f"{block}: `{command}` is neither a ragbeam command the walk-through "
                    "runs nor listed in NOT_RUN with a reason")
    # every entry of NOT_RUN and CHECKS still names a block (no stale exceptions)
    firsts = [b.first_line for b in blocks]
    for start in NOT_RUN:
        assert any(f.startswith(start) for f in firsts), f"NOT_RUN names no block: {start}"
    for key in CHECKS:
        assert any(key in b.code for b in blocks), f"CHECKS names no block: {key}"


def test_store_commands_write_what_the_query_blocks_read():
    """The query blocks search a ``sparse`` field: every command run here that fills a
    store (``--sink``) writes one (``--sparse``)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    queries_sparse = '"sparse"' in text or "using=\"sparse\"" in text
    assert queries_sparse
    for block in readme_blocks():
        if block.lang not in ("bash", "sh") or not_run_reason(block):
            continue
        for command in command_lines(block.code):
            if "--sink" in command:
                assert "--sparse" in command, f"{block}: `{command}` fills a store without --sparse"


# Runs a block's code in a fresh namespace, then its checks; prints them as JSON.
RUNNER = """
import json, sys
code, checks = sys.argv[1], json.loads(sys.argv[2])
namespace = {"__name__": "__main__"}
exec(compile(code, "README.md", "exec"), namespace)
print("\\n@@checks " + json.dumps([bool(eval(c, namespace)) for c in checks]))
"""
SQL_RUNNER = """
import sys, duckdb
for statement in sys.argv[1].split(";"):
    if statement.strip() and not all(l.strip().startswith("--") or not l.strip()
                                     for l in statement.splitlines()):
        print(duckdb.sql(statement).fetchall()[:3])
"""


def _env() -> dict[str, str]:
    return {**os.environ, "HF_HUB_OFFLINE": "1",
            "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}


def _run_command(block: Block, command: str, workdir: pathlib.Path) -> None:
    """A ``ragbeam`` line as a reader runs it: its own process (an embedded store such
    as Milvus Lite is then released for the next block's process, as in a shell)."""
    argv = [sys.executable, "-c", "from ragbeam.cli import console_main; "
            "console_main()", *shlex.split(command)[1:]]
    done = subprocess.run(argv, cwd=workdir, env=_env(), capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, f"{block}: `{command}` exited {done.returncode}:\n" \
                                 f"{done.stderr[-3000:]}"


def _run_block(block: Block, workdir: pathlib.Path) -> str:
    env = _env()
    checks = next((c for key, c in CHECKS.items() if key in block.code), [])
    if block.lang == "sql":
        argv = [sys.executable, "-c", SQL_RUNNER, block.code]
    else:
        argv = [sys.executable, "-c", RUNNER, block.code, json.dumps(checks)]
    done = subprocess.run(argv, cwd=workdir, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, f"{block} failed alone:\n{done.stderr[-3000:]}"
    assert "Traceback" not in done.stderr, f"{block} printed a traceback:\n{done.stderr[-3000:]}"
    if block.lang == "python":
        results = json.loads(done.stdout.rsplit("@@checks ", 1)[1])
        failed = [c for c, ok in zip(checks, results, strict=True) if not ok]
        assert not failed, f"{block}: not true after it ran: {failed}\n{done.stdout[-2000:]}"
    for expected in next((p for key, p in PRINTED.items() if key in block.code), []):
        assert expected in done.stdout, f"{block} did not print {expected!r}:\n{done.stdout}"
    return done.stdout


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A reader's folder: the repository's samples, and a docs/ folder of their own."""
    (tmp_path / "samples").symlink_to(SAMPLES, target_is_directory=True)
    copy_samples(tmp_path / "docs", ("faq.txt", "handbook.md", "station-news.html"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.slow  # every README command: several end-to-end runs, the model, two stores
def test_the_readme_block_by_block(workdir):
    ran = []
    for block in readme_blocks():
        if not_run_reason(block):
            continue
        if block.lang in ("bash", "sh"):
            for command in command_lines(block.code):
                _run_command(block, command, workdir)
        else:
            _run_block(block, workdir)
        ran.append(block)
    langs = [b.lang for b in ran]
    assert langs.count("python") >= 5 and "sql" in langs and langs.count("bash") >= 3


def test_the_morning_report_samples_have_the_columns_ragbeam_runs_prints():
    """The ``ragbeam runs`` samples of the README and docs/cli.md are output, not run:
    their header line is the one ``runs_table`` prints now (a column added later shows
    up here)."""
    from ragbeam.pipeline.runs import runs_table

    header = runs_table([])[0].split()  # column widths follow the rows: names only
    text = "\n".join((REPO / name).read_text(encoding="utf-8")
                      for name in ("README.md", "docs/cli.md"))
    samples = [line.split() for line in text.splitlines()
               if line.startswith("run ") and "finished (UTC)" in line]
    assert len(samples) >= 2
    assert all(names == header for names in samples), (samples, header)


def _config_example() -> str:
    """The config file example of docs/cli.md (the README points there)."""
    text = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    (example,) = [m.group(2) for m in FENCE.finditer(text) if m.group(1) == "yaml"]
    return example


def test_the_config_example_is_valid_and_embeds_every_chunk_whole(workdir, capsys):
    """Issue 41: the example (``chunk_size: 800``, ``embed_chunks: true``) made 16 of 25
    chunks longer than the model's window. Run as written, on the reader's docs/
    instead of its /data folders and without its Beam section (two worker processes):
    no chunk is over the window, and nothing warns."""
    import yaml

    from ragbeam.pipeline.cli import main

    example = yaml.safe_load(_config_example())
    (workdir / "ragbeam.yaml").write_text(_config_example())
    from ragbeam.pipeline.settings import load_settings

    load_settings({}, str(workdir / "ragbeam.yaml"))  # valid as written, Beam section too
    del example["beam"]
    example.update(input=["docs"], output="out/config-example")
    (workdir / "run.yaml").write_text(yaml.safe_dump(example))
    assert main(["run", "--config", "run.yaml", "-q"]) == 0
    summary = json.loads((workdir / "out" / "config-example" / "run.json").read_text())
    assert summary["chunks"] > 0 and summary["embedding"]["chunks_over_window"] == 0
    assert "window" not in capsys.readouterr().err


def test_a_chunk_size_past_the_model_window_is_said_before_the_run(workdir, capsys):
    from ragbeam.pipeline.cli import main

    assert main(["run", "--input", "docs/faq.txt", "--output", "out/big", "--chunk-size",
                 "800", "--embed-chunks", "-q"]) == 0
    err = capsys.readouterr().err
    assert ("--chunk-size 800 tokens is longer than the embedding model's 256-token window"
            in err and "--size-unit model --chunk-size 192" in err)


def test_version_numbers_in_the_readme_are_the_package_s():
    """The install line named ragbeam-0.1.0 while the build made 0.2.0."""
    import ragbeam

    text = (REPO / "README.md").read_text(encoding="utf-8")
    for version in re.findall(r"ragbeam-(\d+\.\d+\.\d+)", text):
        assert version == ragbeam.__version__, version


def _section(heading: str) -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else None]


def test_the_strategy_list_is_the_registry():
    """The README lists every strategy ``STRATEGIES`` holds, in its order, and no other
    (a hand list once missed ``similar_paragraphs``)."""
    from ragbeam.transforms.chunk.strategies import STRATEGIES

    listed = re.findall(r"^\* `(\w+)`:", _section("Strategies"), re.MULTILINE)
    assert listed == list(STRATEGIES)


def test_the_store_list_is_the_registry():
    """One row per store of ``STORES``, in its order, naming every ``--sink`` form the
    store declares (its local and server forms), and only those."""
    from ragbeam.transforms.sink.stores import STORES, uri_forms

    rows = [line for line in _section("Stores").splitlines() if line.startswith("| `")]
    forms = [re.findall(r"`([^`]+)`", row.split("|")[1]) for row in rows]
    assert [f[0].split(":")[0] for f in forms] == list(STORES)
    for store, listed in zip(STORES.values(), forms, strict=True):
        assert listed == uri_forms(store), (store.kind, listed)
    for store, row in zip(STORES.values(), rows, strict=True):
        assert ("sparse" in row) == store.keeps_sparse, row


def test_every_run_option_is_in_the_cli_reference():
    """docs/cli.md, where the README sends a reader for "every option", names each
    option ``ragbeam run`` takes (an option added later shows up here)."""
    import argparse

    from ragbeam.pipeline.settings import add_run_arguments

    parser = argparse.ArgumentParser()
    add_run_arguments(parser)
    options = {flag for action in parser._actions for flag in action.option_strings
               if flag.startswith("--") and flag != "--help"}
    text = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    missing = sorted(o for o in options if not re.search(rf"{re.escape(o)}(?![\w-])", text))
    assert options and not missing, missing
