"""benchmarks/small_files.py: the generated files are distinct and small, and the
benchmark runs end to end on a few of them (real Tika, real runs)."""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import subprocess
import sys

import pytest

from conftest import require_corpus

BENCHMARKS = pathlib.Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))


def test_generated_files_are_small_and_each_has_its_own_bytes(tmp_path):
    corpus = require_corpus()
    from small_files import build_files

    paths, size = build_files(corpus, tmp_path / "files", 600)
    digests = {hashlib.sha256(pathlib.Path(p).read_bytes()).hexdigest() for p in paths}
    assert len(paths) == len(digests) == 600
    assert size / len(paths) < 16 * 1024
    assert {pathlib.Path(p).suffix for p in paths} >= {".txt", ".md", ".csv", ".html"}


@pytest.mark.slow
def test_the_benchmark_measures_first_run_rerun_and_raw_tika(tmp_path):
    corpus = require_corpus()
    figures = tmp_path / "figures.json"
    done = subprocess.run([sys.executable, str(BENCHMARKS / "small_files.py"), "--files",
                           "40", "--corpus", str(corpus), "--work", str(tmp_path / "work"),
                           "--json", str(figures)], capture_output=True, text=True,
                          timeout=900, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(figures.read_text(encoding="utf-8"))
    assert result["files"] == 40 and result["rerun_unchanged_documents"] == 40
    for variant in ("raw_tika", "first_run", "unchanged_rerun"):
        assert result[variant]["wall_s"] > 0 and result[variant]["peak_rss_mib"] > 0
    assert result["first_over_rerun"] > 0 and result["first_over_rerun_cpu"] > 0
