"""Kill a real run, check what it left, rerun, compare with an uninterrupted run.

Two kill points, both measured on the real ``ragbeam run`` in a subprocess,
killed with SIGKILL to its whole process group (what Ctrl-C, a scheduler or an
out-of-memory kill of the container does):

1. mid-extraction: the run is held by the hang file (until the memory cap ends it);
2. mid-write: as soon as the first temporary shard appears under
   ``_temporary/``, i.e. after the writers started and before finalize
   renames anything into place.

In neither case may a file under the final table names exist, nor run.json.
A rerun (``--overwrite``) then gives exactly the tables of an uninterrupted
run: same rows, same ids.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import time

import pyarrow.parquet as pq
import pytest

from conftest import SAMPLES, TEST_EXTRACT_TIMEOUT
from helpers import read_table

TABLES = ("chunks", "documents", "errors")


def _copy_samples(folder: pathlib.Path) -> pathlib.Path:
    folder.mkdir(parents=True)
    for sample in SAMPLES.iterdir():
        if sample.is_file() and sample.suffix != ".py":
            shutil.copy(sample, folder / sample.name)
    return folder


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> pathlib.Path:
    return _copy_samples(tmp_path_factory.mktemp("kill") / "in")


def _command(inputs: pathlib.Path, out: pathlib.Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "ragbeam.pipeline.cli", "run", "--input", str(inputs),
            "--output", str(out), "--extract-timeout", TEST_EXTRACT_TIMEOUT, *extra]


def _descendants(pid: int) -> dict[int, str]:
    """The live processes under ``pid`` (children, theirs…): pid → command line."""
    parents: dict[int, int] = {}
    commands: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = pathlib.Path(f"/proc/{entry}/stat").read_bytes()
                parents[int(entry)] = int(stat[stat.rindex(b")") + 2:].split()[1])
                commands[int(entry)] = pathlib.Path(f"/proc/{entry}/cmdline").read_bytes(
                    ).replace(b"\0", b" ").decode(errors="replace")
            except (OSError, ValueError):
                continue
    found, frontier = {}, {pid}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier}
        found.update({p: commands[p] for p in frontier})
    return found


def _run_and_kill(cmd: list[str], kill_when) -> None:
    """Run ``cmd``; SIGKILL its process group as soon as ``kill_when()`` holds. The run
    ending first fails (however long it took: a run that never gets there is ended by
    the test's own time limit). The run's extraction children, in process groups of
    their own, must end with it (its memory guard kills them): one left on the hang
    file grows until the machine thrashes."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    children: dict[int, str] = {}
    try:
        while not kill_when():
            assert proc.poll() is None, "the run ended before the kill point"
            time.sleep(0.005)
        children = {pid: command for pid, command in _descendants(proc.pid).items()
                    if "ragbeam.transforms.extract.isolation" in command}
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert children, "no extraction child at the kill point"
    deadline = time.monotonic() + 120  # the guard acts at once; this is for a busy machine
    while (left := [pid for pid in children if _alive(pid)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in left:  # do not leave them to the next test either
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    assert left == [], "extraction children outlived their killed run"


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting for its new parent to reap it."""
    try:
        stat = pathlib.Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    return stat[stat.rindex(b")") + 2:][:1] != b"Z"


def _final_files(out: pathlib.Path) -> list[str]:
    """Files under the final table names (the temp dir excluded)."""
    return sorted(p for t in TABLES for p in glob.glob(str(out / t / "*.parquet")))


def _temp_shards(out: pathlib.Path) -> list[str]:
    return glob.glob(str(out / "_temporary" / "*"))


def _rows(out: pathlib.Path, table: str) -> list[dict]:
    key = {"chunks": "chunk_id", "documents": "doc_id", "errors": "doc_id"}[table]
    rows = read_table(out, table).to_pylist()
    for row in rows:
        # source_modified is what the listing said, recorded once the file's time has
        # settled (transforms/write/rows.py): it depends on when the run listed it,
        # not on the content, so two runs minutes apart may differ in it alone.
        row["metadata"] = sorted((k, v) for k, v in (row.get("metadata") or [])
                                 if k != "source_modified")
    return sorted(rows, key=lambda r: (r[key], repr(r)))


@pytest.fixture(scope="module")
def uninterrupted(inputs, tmp_path_factory) -> pathlib.Path:
    out = tmp_path_factory.mktemp("kill") / "uninterrupted"
    subprocess.run(_command(inputs, out), check=True, capture_output=True)
    return out


def test_run_killed_mid_extraction_leaves_no_final_files(tmp_path, corpus_dir):
    inputs = _copy_samples(tmp_path / "in")
    shutil.copy(corpus_dir / "bad/fuzzed-hang.one", inputs / "hang.one")
    out = tmp_path / "out"
    # The writers create the temp dir when the bundle that also extracts starts; from
    # then on the hang file keeps the run in extraction (the kill comes at once).
    _run_and_kill(_command(inputs, out), lambda: (out / "_temporary").is_dir())
    assert _final_files(out) == []
    assert not (out / "run.json").exists()


def test_run_killed_mid_write_leaves_no_final_files_and_rerun_matches(inputs, tmp_path,
                                                                   uninterrupted):
    """Killed mid-write: as soon as the first temporary shard exists."""
    out = tmp_path / "out"
    _run_and_kill(_command(inputs, out), lambda: bool(_temp_shards(out)))
    assert _temp_shards(out), "killed before any shard was written"
    assert _final_files(out) == []
    assert not (out / "run.json").exists()

    # The killed run still claims the output: a rerun must take it over, explicitly…
    refused = subprocess.run(_command(inputs, out), capture_output=True, text=True)
    assert refused.returncode == 2
    assert "the claim is stale" in refused.stderr and "--take-over" in refused.stderr
    # …and replace what it left, explicitly too.
    refused = subprocess.run(_command(inputs, out, "--take-over"), capture_output=True,
                             text=True)
    assert refused.returncode == 2
    assert "unfinished run" in refused.stderr and "--overwrite" in refused.stderr

    subprocess.run(_command(inputs, out, "--overwrite", "--take-over"), check=True,
                   capture_output=True)
    assert (out / "run.json").is_file()
    assert _temp_shards(out) == []  # the killed run's leftovers are gone
    for table in TABLES:
        assert _rows(out, table) == _rows(uninterrupted, table), table
    for path in _final_files(out):
        assert pq.ParquetFile(path).metadata.num_rows >= 0  # complete: footer readable
