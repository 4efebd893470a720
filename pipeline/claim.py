"""One run per output: a run claims ``--output`` before it touches anything in it.

Object stores have no locks and Beam's ``FileSystems`` has no create-if-absent,
so the claim is the classic write-then-list: a run writes its own claim file,
``OUTPUT/_claims/<run id>.json``, with a name no other run can write, then lists
every claim. A run goes on only if its claim is strictly the oldest (by the
store's modification time); otherwise it deletes its claim and stops with the
other run's details. A run that listed before another wrote saw only itself,
and the other, writing later, cannot be strictly older; two runs that both see
both agree on the older one, and if the store gives them the same time both
stop, which is safe. This needs a store whose listing shows a completed write
and one clock for modification times (local disks, GCS and S3).

A claim is released when its run ends, successfully or not. A run killed
outright leaves its claim behind; the next run into that output refuses, says
whose claim it is, and ``--take-over`` removes it explicitly.
"""

from __future__ import annotations

import contextlib
import getpass
import json
import os
import random
import socket
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ragbeam.schemas.layout import CLAIMS_DIR
from ragbeam.transforms import storage


class OutputClaimed(Exception):
    """Another run holds the output."""


@dataclass(frozen=True)
class Claim:
    path: str
    details: dict[str, Any]
    modified: float


def claims_dir(output: str) -> str:
    return storage.join(output, CLAIMS_DIR)


def _list_claims(output: str) -> list[Claim]:
    pattern = storage.join(claims_dir(output), "*.json")
    try:
        found = storage.match(pattern)
    except Exception:  # nothing there yet (some filesystems raise for a missing prefix)
        return []
    claims = []
    for meta in found:
        try:
            details = json.loads(storage.read_bytes(meta.path).decode("utf-8"))
        except Exception:  # deleted meanwhile, or half written: still a claim
            details = {}
        claims.append(Claim(meta.path, details, float(meta.last_updated_in_seconds or 0)))
    return sorted(claims, key=lambda c: (c.modified, c.path))


def held_claims(output: str) -> list[Claim]:
    """The claims on ``output``, oldest first (none: no run holds it)."""
    return _list_claims(output)


def holder_alive(claim: Claim) -> bool | None:
    """Whether the run that wrote ``claim`` still runs: None when that cannot be told
    from here (another host, or a claim not readable yet)."""
    d = claim.details
    if d.get("host") == socket.gethostname() and isinstance(d.get("pid"), int):
        return _pid_alive(d["pid"])
    return None


def describe(claim: Claim) -> str:
    d = claim.details
    started = d.get("started")
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(started)) if started else "?"
    alive = {True: " (that process is still running)", None: "",
             False: " (that process is gone: the claim is stale)"}[holder_alive(claim)]
    return (f"run {d.get('run_id', '?')} by {d.get('user', '?')} on {d.get('host', '?')}, "
            f"pid {d.get('pid', '?')}, started {when}{alive}")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def claim_output(output: str, argv: Sequence[str] = (), take_over: bool = False,
                 attempts: int = 3) -> str:
    """Claim ``output`` for this run; returns the claim's path (for ``release_claim``).

    Raises ``OutputClaimed`` when another run holds it. ``take_over`` first removes
    every existing claim: for a claim left by a run that was killed. Two runs that
    claim at the same moment may both step back (same modification time); each then
    tries again after a random pause, so one of them gets the output.
    """
    if take_over:
        stale = [c.path for c in _list_claims(output)]
        if stale:
            storage.delete(stale)
    if "://" not in output:
        os.makedirs(claims_dir(output), exist_ok=True)
    for attempt in range(attempts):
        path, others = _try_claim(output, argv)
        if not others:
            return path
        tied = all(abs(c.modified - others[0].modified) < SIMULTANEOUS_S for c in others)
        if attempt + 1 == attempts or not tied or time.time() - others[0].modified > \
                SIMULTANEOUS_S:
            break
        time.sleep(random.uniform(0.2, 1.0))
    raise OutputClaimed(f"--output {output!r} is claimed by {describe(others[0])}; wait "
                        "for it to finish, or if it was killed, rerun with --take-over")


# Claims this close together may come from runs started at the same moment.
SIMULTANEOUS_S = 5.0


def _try_claim(output: str, argv: Sequence[str]) -> tuple[str, list[Claim]]:
    """Write a claim and list them all: ``(path, [])`` if ours is strictly the oldest,
    else our claim is deleted again and the others are returned, oldest first."""
    run_id = f"{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:12]}"
    path = storage.join(claims_dir(output), f"{run_id}.json")
    details = {"run_id": run_id, "host": socket.gethostname(), "pid": os.getpid(),
               "user": _user(), "started": time.time(),
               "command": " ".join(argv) if argv else " ".join(sys.argv)}
    storage.write_bytes(path, json.dumps(details, indent=2).encode("utf-8"))
    claims = _list_claims(output)
    mine = next((c for c in claims if c.path == path), None)
    others = [c for c in claims if c.path != path]
    if others and (mine is None or any(c.modified <= mine.modified for c in others)):
        release_claim(path)
        return path, others
    return path, []


def release_claim(path: str) -> None:
    with contextlib.suppress(Exception):  # already gone (a retried step, a take-over)
        storage.delete([path])
    if "://" not in path:  # object stores have no folders to leave behind
        with contextlib.suppress(OSError):
            os.rmdir(os.path.dirname(path))


def _user() -> str:
    try:
        return getpass.getuser()
    except Exception:
        return "?"
