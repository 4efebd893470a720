"""Run a command and watch the resident memory of its whole process tree."""

from __future__ import annotations

import os
import resource
import subprocess
import time
from dataclasses import dataclass

_PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # The command name may hold spaces and parentheses: fields start after the last ')'.
        ppid = int(stat.rsplit(b")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry))
    return tree


def tree_rss_bytes(root: int) -> int:
    """Resident bytes of ``root`` and all its descendants, summed."""
    tree = _children()
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        stack.extend(tree.get(pid, ()))
        try:
            with open(f"/proc/{pid}/statm", "rb") as f:
                total += int(f.read().split()[1]) * _PAGE_BYTES
        except (OSError, IndexError, ValueError):
            pass
    return total


@dataclass
class WatchedRun:
    returncode: int
    output: str
    wall_seconds: float
    # CPU seconds of the command and every descendant it waited for: the work it did,
    # the same on an idle and a loaded machine (unlike ``wall_seconds``).
    cpu_seconds: float
    peak_tree_rss_bytes: int


def _children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_watched(cmd: list[str], timeout_s: float, poll_s: float = 0.05) -> WatchedRun:
    """Run ``cmd``; sample its process tree's total RSS every ``poll_s`` seconds.
    ``timeout_s`` (wall clock) only ends a command that hangs: bound its work by
    ``cpu_seconds``."""
    started, cpu_before = time.monotonic(), _children_cpu_seconds()
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT) as proc:
        peak = 0
        # Drain output in a thread-free way: the CLI prints little, the pipe buffer holds it.
        while proc.poll() is None:
            peak = max(peak, tree_rss_bytes(proc.pid))
            if time.monotonic() - started > timeout_s:
                proc.kill()
                proc.wait()
                raise TimeoutError(f"{cmd!r} ran over {timeout_s} s")
            time.sleep(poll_s)
        output = proc.stdout.read().decode("utf-8", "replace") if proc.stdout else ""
    return WatchedRun(proc.returncode, output, time.monotonic() - started,
                      _children_cpu_seconds() - cpu_before, peak)
