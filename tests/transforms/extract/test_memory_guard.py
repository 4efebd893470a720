"""The memory guard: its polling (often near a cap, seldom far below it), and the
children of a worker that died ended with it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from ragbeam.transforms.extract.memory_guard import (
    FASTEST_GROWTH_BYTES_PER_S,
    GUARD_MAX_POLL_S,
    GUARD_POLL_S,
    MemoryGuard,
    end_orphans,
    next_poll_s,
    start_ticks,
)

MIB = 1024 * 1024


def test_a_child_close_to_its_cap_is_polled_every_guard_poll():
    assert next_poll_s(None) == GUARD_POLL_S  # nothing measured yet
    assert next_poll_s(0) == GUARD_POLL_S
    assert next_poll_s(20 * MIB) == GUARD_POLL_S  # under 10 ms of the fastest growth


def test_a_child_far_below_its_cap_is_polled_when_it_could_first_reach_it():
    headroom = 200 * MIB
    assert next_poll_s(headroom) == pytest.approx(headroom / FASTEST_GROWTH_BYTES_PER_S)
    assert GUARD_POLL_S < next_poll_s(headroom) < GUARD_MAX_POLL_S
    assert next_poll_s(1800 * MIB) == GUARD_MAX_POLL_S


def _sleeper() -> subprocess.Popen:
    """A stand-in for an extraction child: its own process group, as theirs is."""
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"],
                            process_group=0)


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="Linux only")
def test_the_children_of_a_worker_that_died_are_ended_with_it():
    guard = MemoryGuard()
    watched, forgotten = _sleeper(), _sleeper()
    try:
        guard.watch(watched.pid, 0)  # no cap: ended only with its worker
        guard.watch(forgotten.pid, 0)
        guard.forget(forgotten.pid)  # closed by its worker: not the guard's any more
        guard._proc.stdin.close()  # what the guard sees of a worker killed by SIGKILL
        assert guard._proc.wait(timeout=120) == 0
        assert watched.wait(timeout=120) == -signal.SIGKILL
        assert forgotten.poll() is None
    finally:
        for child in (watched, forgotten):
            child.kill()
            child.wait()


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="Linux only")
def test_a_pid_given_to_a_new_process_is_not_killed():
    child = _sleeper()
    try:
        started = start_ticks(child.pid)
        assert started is not None
        assert end_orphans({child.pid: (0, started - 1)}) == []  # another process
        assert child.poll() is None
        assert end_orphans({child.pid: (0, started)}) == [child.pid]
        assert child.wait(timeout=120) == -signal.SIGKILL
    finally:
        child.kill()
        child.wait()
