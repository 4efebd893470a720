"""The README's "Use it from Python" and "Send it to a vector store" examples run as
written: their ``ragbeam run`` lines through the CLI, their Python blocks with exec."""

from __future__ import annotations

import contextlib
import io
import re
import shlex

import pytest

from ragbeam.pipeline.cli import main

from conftest import REPO, SAMPLES
from helpers import copy_samples

FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def readme_section(title: str) -> list[tuple[str, str]]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return FENCE.findall(text[start:end if end > 0 else None])


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    (tmp_path / "samples").symlink_to(SAMPLES, target_is_directory=True)
    copy_samples(tmp_path / "docs", ("faq.txt", "handbook.md", "station-news.html"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _exec(code: str, namespace: dict) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), namespace)
    return out.getvalue()


def test_use_it_from_python(workdir):
    blocks = [code for lang, code in readme_section("Use it from Python") if lang == "python"]
    assert blocks
    namespace: dict = {}
    printed = "".join(_exec(code, namespace) for code in blocks)
    assert "('# Guide', '## Safety')" in printed
    assert namespace["doc"].strategy == "structure"
    # IngestDocuments inside the reader's own pipeline: on files, and on bytes.
    assert "('handbook.md', " in printed and "error: ExtractionError" in printed
    assert "note: Boats leave at nine." in printed


def test_send_it_to_a_vector_store(workdir):
    blocks = readme_section("Send it to a vector store")
    commands = [line for lang, code in blocks if lang == "bash"
                for line in code.splitlines() if line.startswith("ragbeam run ")]
    assert len(commands) == 2
    for command in commands:
        assert main(shlex.split(command)[1:]) == 0, command
    python = [code for lang, code in blocks if lang == "python"]
    assert len(python) == 4  # Milvus, Qdrant (hybrid and dense), LanceDB, Chroma (dense)
    namespace: dict = {}
    for code in python:
        _exec(code, namespace)
    top = namespace["hits"][0]["entity"]
    assert "Calibration solutions" in top["text"] and top["source_uri"].endswith("handbook.md")
    assert "Calibration solutions" in namespace["dense_only"][0].payload["text"]
    qdrant_top = namespace["points"][0].payload
    assert "Calibration solutions" in qdrant_top["text"]
    assert "Calibration solutions" in namespace["rows"][0]["text"]  # LanceDB
    assert "Calibration solutions" in namespace["found"]["documents"][0][0]  # Chroma
