"""A run you can watch: progress lines on stderr while a long run works."""

from __future__ import annotations

import collections
import os
import pathlib
import re
import shutil
import subprocess
import sys

from ragbeam.transforms.progress import progress_line

from conftest import SAMPLES, require_corpus

LINE = re.compile(r"^ragbeam: (\d+) s · (\d+)/(\d+) files done · (\d+) matched · (\d+) extracted"
                  r" · (\d+) chunked · (\d+) errors · [\d.]+ docs/s")


def test_the_line_says_where_a_run_is():
    counts = collections.Counter(matched=40, extracted=21, chunked=20, failed=0)
    assert progress_line(counts, 10.0, total=40) == (
        "ragbeam: 10 s · 20/40 files done · 40 matched · 21 extracted · 20 chunked · 0 errors · "
        "2.0 docs/s · ETA 10 s")


def test_a_long_run_prints_progress_every_few_seconds(tmp_path):
    corpus = require_corpus()
    inputs = tmp_path / "in"
    shutil.copytree(SAMPLES, inputs, ignore=shutil.ignore_patterns("*.py"))
    # A document that hangs Tika holds the run for the whole time limit: a long run.
    shutil.copy(corpus / "bad" / "fuzzed-hang.one", inputs / "hang.one")
    result = subprocess.run(
        [str(pathlib.Path(sys.executable).parent / "ragbeam"), "run", "--input", str(inputs),
         "--output", str(tmp_path / "out"), "--extract-timeout", "30",
         "--extract-memory-mb", "0"],  # the time limit, not the memory cap, ends the hang
        capture_output=True, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"}, timeout=600)
    assert result.returncode == 0, result.stderr
    lines = [m for m in map(LINE.match, result.stderr.splitlines()) if m]
    assert len(lines) >= 5, result.stderr  # one every 5 s of a run of over 30 s
    elapsed = [int(m.group(1)) for m in lines]
    assert elapsed == sorted(elapsed) and elapsed[-1] >= 25
    assert {int(m.group(3)) for m in lines} == {10}  # the total, listed before the run
    done = [int(m.group(2)) for m in lines]
    assert done == sorted(done) and done[-1] >= 1
    # Beam's and transformers' routine warnings are not shown without -v.
    assert "semi_persistent_directory" not in result.stderr
    assert "ragbeam: 10 files" in result.stdout
