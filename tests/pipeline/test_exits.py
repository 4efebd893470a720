"""Every command's error paths end with their documented exit code, never a signal.

A native thread pool alive at interpreter teardown (Arrow's, gRPC's) can turn an exit
into "terminate called without an active exception" and SIGABRT (134) in some runs
only, so each error path runs ``REPEATS`` times as its own ``ragbeam`` process. When
it happened (issue 32) it aborted 8 of 20 runs of one path: 3 runs of each of the five
paths that load Arrow miss that with a chance of 0.6**15 (about 5 in 10,000; 5 runs,
the earlier default, cost 40 processes and ~2 minutes of a loaded CI worker);
``RAGBEAM_EXIT_REPEATS`` asks for more."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from helpers import copy_samples, run_cli

REPEATS = int(os.environ.get("RAGBEAM_EXIT_REPEATS", "3"))


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    """A finished run with an ok and an error document (an empty PDF)."""
    folder = copy_samples(tmp_path_factory.mktemp("exits") / "in", ("faq.txt",))
    (folder / "bad").mkdir()
    (folder / "bad" / "empty.pdf").write_bytes(b"")
    out = folder.parent / "out"
    run_cli(["--input", str(folder), "--output", str(out), "--ocr", "off"])
    return out


def _ragbeam(args: list[str]) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    return subprocess.run([sys.executable, "-c", "from ragbeam.cli import "
                           "console_main; console_main()", *args],
                          env=env, capture_output=True, text=True, timeout=300)


ERROR_PATHS = {  # name: (arguments, with {out} for the finished run, exit code, message)
    "viz, no such document": (["viz", "--output", "{out}", "--doc", "nope.pdf",
                               "--html", "{tmp}/v.html"], 2, "no document 'nope.pdf'"),
    "viz, a document without text": (["viz", "--output", "{out}", "--doc", "bad/empty.pdf",
                                      "--html", "{tmp}/v.html"], 2, "has status"),
    "viz, no run": (["viz", "--output", "{tmp}/none", "--doc", "x", "--html", "{tmp}/v.html"],
                    2, "error"),
    "peek, no run": (["peek", "{tmp}/none"], 2, "error"),
    "eval, no run": (["eval", "--output", "{tmp}/none"], 2, "error"),
    "run, no input": (["run", "--output", "{tmp}/o"], 2, "--input"),
    "run, unknown option": (["run", "--input", "{out}", "--output", "{tmp}/o", "--bogus"], 2,
                            "bogus"),
    "sync, no state": (["sync", "--input", "{out}"], 2, "--state"),
}


@pytest.mark.slow  # 24 processes
@pytest.mark.parametrize("name", list(ERROR_PATHS))
def test_an_error_path_exits_with_its_code_every_time(name, finished_run, tmp_path):
    args, code, message = ERROR_PATHS[name]
    argv = [a.format(out=finished_run, tmp=tmp_path) for a in args]
    with ThreadPoolExecutor(4) as pool:
        done = list(pool.map(lambda _: _ragbeam(argv), range(REPEATS)))
    codes = sorted(d.returncode for d in done)
    assert codes == [code] * REPEATS, f"{name}: exit codes {codes}\n{done[0].stderr[-2000:]}"
    assert all(message in d.stderr for d in done), done[0].stderr[-2000:]
    assert not any("terminate called" in d.stderr or "Traceback" in d.stderr for d in done)


@pytest.mark.parametrize("args", [
    ["peek", "{out}"],
    ["run", "--input", "{out}/../in", "--output", "{tmp}/out", "--ocr", "off"],
], ids=["peek", "run"])
def test_a_reader_gone_away_ends_the_command_quietly(args, finished_run, tmp_path):
    """``ragbeam peek out | head -3``: the reader closes the pipe; here it is closed
    before the command writes at all, so every write to stdout finds it gone. The
    command ends with its own code, its work done (a run once exited 1 on the
    summary's "Broken pipe", its tables written)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    env = {**os.environ, "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    try:
        done = subprocess.run([sys.executable, "-c", "from ragbeam.cli import "
                               "console_main; console_main()",
                               *[a.format(out=finished_run, tmp=tmp_path) for a in args]],
                              env=env, stdout=write_end, stderr=subprocess.PIPE, text=True,
                              timeout=300)
    finally:
        os.close(write_end)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Broken pipe" not in done.stderr and "Traceback" not in done.stderr
    if args[0] == "run":
        assert (tmp_path / "out" / "run.json").exists()


def test_an_idle_thread_pool_worker_does_not_hold_the_exit():
    """A library's ``ThreadPoolExecutor`` left with an idle worker (non-daemon): the
    command still ends, with its code. Joining the threads before the ``threading``
    exit hooks ran waited for that worker forever (a finished Milvus Lite sync hung
    after its summary)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    script = ("from concurrent.futures import ThreadPoolExecutor\n"
              "from ragbeam.pipeline.cli import exit_now\n"
              "pool = ThreadPoolExecutor(2)\n"
              "pool.submit(print, 'task done').result()\n"
              "exit_now(3)\n")
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 3, done.stderr[-2000:]
    assert done.stdout == "task done\n"
