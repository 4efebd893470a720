"""Checks run cheapest first: an unreachable store and an output that already holds a
run stop the run before the embedding model loads (its preflight load, ~15 s on a
busy CPU, logs "preflight: model … loaded" with -v)."""

from __future__ import annotations

import os
import subprocess
import sys

from helpers import copy_samples, run_cli

MODEL_LOADED = "preflight: model"


def _ragbeam(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    return subprocess.run([sys.executable, "-c", "from ragbeam.cli import "
                           "console_main; console_main()", *args],
                          env=env, capture_output=True, text=True, timeout=300)


def test_an_unreachable_store_fails_before_the_model_loads(tmp_path):
    folder = copy_samples(tmp_path / "in", ("faq.txt",))
    done = _ragbeam("run", "--input", str(folder), "--output", str(tmp_path / "out"), "-v",
                    "--sink", "qdrant://127.0.0.1:9?collection=docs")
    assert done.returncode == 2, done.stderr[-2000:]
    assert "127.0.0.1:9" in done.stderr and MODEL_LOADED not in done.stderr


def test_an_output_that_holds_a_run_fails_before_the_model_loads(tmp_path):
    folder = copy_samples(tmp_path / "in", ("faq.txt",))
    out = tmp_path / "out"
    run_cli(["--input", str(folder), "--output", str(out), "--ocr", "off"])
    done = _ragbeam("run", "--input", str(folder), "--output", str(out), "--embed-chunks", "-v")
    assert done.returncode == 2, done.stderr[-2000:]
    assert "already holds a run" in done.stderr and MODEL_LOADED not in done.stderr
    # a run that stops at a check leaves the earlier run in place
    assert (out / "run.json").is_file()
