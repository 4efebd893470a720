"""benchmarks/gpu_embedding.py runs its comparison on the CPU here (no GPU in CI) and
refuses a CUDA device that is not there with exit 2."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "gpu_embedding.py"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                          text=True, timeout=600, env={**os.environ, "HF_HUB_OFFLINE": "1"})


def test_the_gpu_benchmark_compares_stage_and_plain_encode_on_the_cpu(tmp_path):
    texts = tmp_path / "texts.json"
    texts.write_text(json.dumps([f"Sentence number {i} about boats and sondes." for i in
                                 range(40)]), encoding="utf-8")
    figures = tmp_path / "figures.json"
    done = _run("--device", "cpu", "--texts", str(texts), "--max-texts", "96",
                "--repeats", "1", "--json", str(figures))
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(figures.read_text(encoding="utf-8"))
    assert result["device"] == "cpu" and result["texts"] == 96 and result["corpus_texts"] == 40
    assert result["plain_per_s"] > 0 and result["stage_per_s"] > 0 and result["ratio"] > 0


def test_the_gpu_benchmark_exits_2_without_cuda():
    import torch

    if torch.cuda.is_available():
        pytest.skip("CUDA is available here")
    done = _run("--device", "cuda", "--texts", "/nonexistent.json")
    assert done.returncode == 2 and "CUDA is not available" in done.stderr
