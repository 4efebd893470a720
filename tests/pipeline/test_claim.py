"""One run per output: claims on a real filesystem."""

from __future__ import annotations

import json
import os

import pytest

from ragbeam.pipeline.claim import OutputClaimed, claim_output, release_claim
from ragbeam.pipeline.cli import main

from conftest import SAMPLES


def test_a_second_claim_is_refused_with_the_first_runs_details(tmp_path):
    out = str(tmp_path / "o")
    first = claim_output(out, ["ragbeam", "run", "first"])
    with pytest.raises(OutputClaimed, match=r"claimed by run .* pid \d+, started .*still running"):
        claim_output(out, ["ragbeam", "run", "second"], attempts=1)
    assert os.listdir(tmp_path / "o" / "_claims") == [os.path.basename(first)]
    release_claim(first)
    release_claim(claim_output(out))  # free again once the first run is done


def test_a_run_into_an_output_another_live_run_claimed_exits_2(tmp_path, capsys):
    out = tmp_path / "o"
    running = claim_output(str(out), ["ragbeam", "run", "last night"])  # this process: alive
    assert main(["run", "--input", str(SAMPLES / "faq.txt"), "--output", str(out)]) == 2
    err = capsys.readouterr().err
    assert "is claimed by run" in err and "still running" in err
    assert not (out / "documents").exists() and not (out / "run.json").exists()
    release_claim(running)


def test_a_claim_left_by_a_killed_run_blocks_until_taken_over(tmp_path, capsys):
    out = tmp_path / "o"
    claim = claim_output(str(out))
    with open(claim, encoding="utf-8") as f:
        details = json.load(f)
    details["pid"] = 2**22 + 1  # no such process: the run was killed
    with open(claim, "w", encoding="utf-8") as f:
        json.dump(details, f)
    args = ["run", "--input", str(SAMPLES / "faq.txt"), "--output", str(out)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "that process is gone: the claim is stale" in err and "--take-over" in err
    assert not (out / "documents").exists()
    assert main([*args, "--take-over"]) == 0
    assert (out / "run.json").exists() and not (out / "_claims").exists()
