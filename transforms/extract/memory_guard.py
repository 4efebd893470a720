"""The extraction children's memory cap, enforced from a process of its own.

The worker watches each child's resident memory while it waits for it
(``isolation.py``), but that watch is a thread of the worker: when the
worker's other threads hold the GIL (a regular expression over a long text, a
Parquet write) or the machine is busy, a poll comes late, and a runaway parse
grows by up to ~1.5 GB/s (the corpus's hang file). A child was seen at 941 MiB
under a 768 MiB cap that way. The guard is one small process per worker process
that does nothing but poll the children it is told about, every
``GUARD_POLL_S``, and kill one that passes its cap; it tells the worker which
it killed and at what size, so the document still fails as over the memory cap
and not as a crash.

It also ends the children of a worker that died. Each child runs in a process group
of its own (so that a Ctrl-C reaches the launcher only), so a worker killed by
SIGKILL, an out-of-memory kill or a scheduler leaves them running, and a child in
the middle of a runaway parse, with no one left to enforce its cap, grows until
the machine thrashes (one was seen at 18 GB after its run was killed). The guard
sees its stdin close however the worker ended, and kills every child it still
watches; a worker that ends normally has closed and forgotten them first.

Protocol (lines on the guard's stdin / stdout)::

    watch PID LIMIT_BYTES   →   (nothing; LIMIT_BYTES 0: no cap, only ended with the worker)
    forget PID              →   (nothing)
                                 killed PID RSS_BYTES   (when it kills one)

The guard exits when its stdin closes (the worker ended, however it ended), after
killing the children still watched. Linux only (``/proc``); elsewhere it is not started.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import threading
import time

GUARD_POLL_S = 0.01
# A child far below its cap is looked at less often: the next poll comes when a
# child growing at FASTEST_GROWTH could first reach its cap (at least GUARD_POLL_S,
# at most GUARD_MAX_POLL_S later), so one that grows no faster is still seen within
# GUARD_POLL_S of passing it, as with a poll every GUARD_POLL_S. The fastest growth
# measured is the corpus's hang file, ~1.5 GB/s; FASTEST_GROWTH allows for more.
# Polling every 10 ms cost the guard 2.7 % of a core per watched child (issue 33).
GUARD_MAX_POLL_S = 0.1
FASTEST_GROWTH_BYTES_PER_S = 4 * 1024**3
_PAGE_BYTES = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def resident_bytes(pid: int) -> int | None:
    """Resident memory of a live process (Linux ``/proc``); None if unknown."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE_BYTES
    except (OSError, ValueError, IndexError):
        return None


class MemoryGuard:
    """The worker's side: register children, learn which the guard killed."""

    def __init__(self) -> None:
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "ragbeam.transforms.extract.memory_guard"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
            # Its own process group: a Ctrl-C (SIGINT to the terminal's group) does not
            # reach it; it ends when its worker closes its stdin.
            process_group=0)
        self._lock = threading.Lock()
        self._killed: dict[int, int] = {}
        self._buffer = ""

    def alive(self) -> bool:
        return self._proc.poll() is None

    def _send(self, line: str) -> None:
        assert self._proc.stdin is not None
        # If the guard is gone, the worker's own watch still holds the cap.
        with self._lock, contextlib.suppress(BrokenPipeError, ValueError):
            self._proc.stdin.write(line + "\n")

    def watch(self, pid: int, limit_bytes: int) -> None:
        self._send(f"watch {pid} {limit_bytes}")

    def forget(self, pid: int) -> None:
        self._send(f"forget {pid}")
        with self._lock:
            self._killed.pop(pid, None)

    def killed(self, pid: int, wait_s: float = 1.0) -> int | None:
        """The size at which the guard killed ``pid`` (None: it did not), waiting up to
        ``wait_s`` for its report (a child that just died may have been killed by it
        an instant ago)."""
        assert self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        deadline = time.monotonic() + wait_s
        with self._lock:
            while pid not in self._killed:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([fd], [], [], left)[0]:
                    return None
                chunk = os.read(fd, 4096).decode()
                if not chunk:
                    return None
                self._buffer += chunk
                *lines, self._buffer = self._buffer.split("\n")
                for line in lines:
                    word, killed_pid, rss = line.split()
                    if word == "killed":
                        self._killed[int(killed_pid)] = int(rss)
            return self._killed.pop(pid)

    def close(self) -> None:
        if self._proc.stdin is not None:
            self._proc.stdin.close()
        self._proc.wait(timeout=5)


_guard: MemoryGuard | None = None
_guard_pid: int | None = None
_guard_lock = threading.Lock()


def process_guard(start: bool = True) -> MemoryGuard | None:
    """This worker process's guard, started on first use (None off Linux, and with
    ``start=False`` when this process has none running)."""
    global _guard, _guard_pid
    if not os.path.exists("/proc/self/statm"):
        return None
    with _guard_lock:
        if _guard is None or _guard_pid != os.getpid() or not _guard.alive():
            if not start:
                return None
            _guard, _guard_pid = MemoryGuard(), os.getpid()
        return _guard


def start_ticks(pid: int) -> int | None:
    """When a process started, in clock ticks since boot (``/proc/PID/stat``): with
    its pid, names one process, not a later one given the same pid."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
        # the command name (field 2) may hold spaces and parentheses: count from its end
        return int(stat[stat.rindex(b")") + 2:].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def end_orphans(watched: dict[int, tuple[int, int | None]]) -> list[int]:
    """Kill the children still watched when their worker is gone; return their pids.
    A pid whose process started at another time is a new process: left alone."""
    ended = []
    for pid, (_, started) in watched.items():
        if started is not None and start_ticks(pid) == started:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
                ended.append(pid)
    return ended


def next_poll_s(headroom_bytes: int | None) -> float:
    """Seconds until the next poll, given the smallest gap between a watched child's
    resident memory and its cap at the last poll (None: not known yet)."""
    if headroom_bytes is None:
        return GUARD_POLL_S
    return min(max(headroom_bytes / FASTEST_GROWTH_BYTES_PER_S, GUARD_POLL_S),
               GUARD_MAX_POLL_S)


def main() -> None:
    """The guard process: poll the watched children, kill those over their cap, and
    all of them when the worker is gone."""
    watched: dict[int, tuple[int, int | None]] = {}  # pid: (cap or 0, start ticks)
    stdin = sys.stdin.fileno()
    pending = ""
    headroom: int | None = None  # the smallest gap to a cap at the last poll
    while True:
        capped = any(limit for limit, _ in watched.values())
        wait = next_poll_s(headroom) if capped else None
        ready, _, _ = select.select([stdin], [], [], wait)
        if ready:
            chunk = os.read(stdin, 4096).decode()
            if not chunk:  # the worker is gone: so must its children be
                end_orphans(watched)
                return
            pending += chunk
            *lines, pending = pending.split("\n")
            for line in lines:
                parts = line.split()
                if parts[:1] == ["watch"]:
                    pid = int(parts[1])
                    watched[pid] = (int(parts[2]), start_ticks(pid))
                elif parts[:1] == ["forget"]:
                    watched.pop(int(parts[1]), None)
        headroom = None
        for pid, (limit, _) in list(watched.items()):
            if not limit:
                continue  # no cap: only ended with its worker
            rss = resident_bytes(pid)
            if rss is not None and rss <= limit:
                headroom = min(limit - rss, headroom if headroom is not None else limit)
            if rss is None:
                watched.pop(pid)  # exited
            elif rss > limit:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                watched.pop(pid)
                sys.stdout.write(f"killed {pid} {rss}\n")
                sys.stdout.flush()


if __name__ == "__main__":
    main()
