"""``ragbeam sync``: one scheduled re-index into a state folder of dated runs.

    ragbeam sync --state DIR --input PATH [--keep N] [--sink URI] [run options]

1. claims ``DIR`` (``claim.py``), so two syncs never write or prune one state
   folder at once (a claim whose process is provably gone is taken over);
2. writes ``DIR/<UTC time>/`` with the newest base under ``DIR`` as
   ``--previous`` (``runs.py`` says which runs are bases); a ``--run-name`` a
   scheduler gives (its logical date) that names a completed run is a retry of
   finished work: nothing runs, exit 0; one that names a dead attempt replaces it;
3. if that run is a new base, prunes the runs beyond ``--keep`` bases
   (``runs.runs_to_prune``): never the new run or its ``--previous``, never a run
   that may still be running. A run that is no base (the pipeline failed, the
   delete guard stopped it) prunes nothing, and the next sync builds on the same
   ``--previous`` again.

The exit code is the run's own (``ragbeam run``'s table in docs/cli.md), or 1 when
the run succeeded but pruning failed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import json
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ragbeam.pipeline.claim import (
    OutputClaimed,
    claim_output,
    held_claims,
    holder_alive,
    release_claim,
)
from ragbeam.pipeline.interrupts import received_signal
from ragbeam.pipeline.run import s3_endpoint_option, unreachable_storage
from ragbeam.pipeline.runs import (
    RUN_NAME,
    RunFolder,
    list_runs,
    new_run_name,
    plan_previous,
    read_run_folder,
    remove_run,
    runs_to_prune,
)
from ragbeam.pipeline.summary import run_json_path
from ragbeam.schemas.layout import INTERRUPTED_FILE
from ragbeam.transforms import storage

# Chosen by sync for each run: the user gives the state folder instead.
SYNC_CHOSEN_OPTIONS = ("--output", "--previous", "--overwrite")
DEFAULT_KEEP = 7
# Exit codes of a run stopped by SIGINT / SIGTERM (run.py).
INTERRUPT_CODES = (130, 143)


class SyncRefused(Exception):
    """Nothing ran: a bad sync option, or a state folder another sync holds (exit 2)."""


@dataclass(frozen=True)
class SyncPlan:
    """Where one sync writes and what it builds on (``plan_sync``)."""

    name: str
    output: str
    previous: str | None
    done: bool = False  # the folder already holds this run, completed: nothing to do
    replace: bool = False  # the folder holds a dead attempt: --overwrite (and its claim)


def plan_sync(state: str, runs: Sequence[RunFolder], name: str) -> SyncPlan:
    """The plan of a run named ``name`` over the run folders listed in ``state`` (pure).

    Raises ``SyncRefused`` when a run of that name may still be running.
    """
    output = state.rstrip("/") + "/" + name
    previous = plan_previous(runs, name)
    same = next((r for r in runs if r.name == name), None)
    if same is not None and same.completed:
        return SyncPlan(name, output, None, done=True)
    if same is not None and not same.dead:
        raise SyncRefused(f"{output} is claimed by a run that may still be running; "
                          "wait for it, or use another --run-name")
    return SyncPlan(name, output, previous.path if previous else None,
                    replace=same is not None)


def run_arguments(plan: SyncPlan, argv: Sequence[str]) -> list[str]:
    """``ragbeam run`` arguments for the plan's run: the user's, then the chosen ones."""
    return [*argv, "--output", plan.output,
            *(["--previous", plan.previous] if plan.previous else []),
            *(["--overwrite", "--take-over"] if plan.replace else [])]


def check_sync_arguments(argv: Sequence[str]) -> None:
    for arg in argv:
        name = arg.split("=", 1)[0]
        if name in SYNC_CHOSEN_OPTIONS:
            raise SyncRefused(f"{name} is chosen by ragbeam sync for each run (from --state); "
                              "give --state DIR instead")


def sync(state: str, argv: Sequence[str], run_one: Callable[[list[str]], int],
         keep: int = DEFAULT_KEEP, run_name: str | None = None, take_over: bool = False,
         report: Callable[[str], None] = print, submitted_only: bool = False) -> int:
    """One sync (see the module doc); returns the exit code.

    ``run_one(argv)`` runs ``ragbeam run argv`` and returns its exit code (the CLI
    passes its own, which prints the run's summary). ``submitted_only``: ``run_one``
    submits and returns at once (a Flex Template launcher); the run is then not
    finished, so pruning counts the bases already there.
    """
    check_sync_arguments(argv)
    if keep < 1:
        raise SyncRefused("--keep must be at least 1 (the newest run is the next --previous)")
    name = run_name or new_run_name()
    if not RUN_NAME.match(name):
        raise SyncRefused(f"--run-name {name!r}: expected YYYY-MM-DD or YYYY-MM-DDTHHMMSSZ "
                          "(run folders sort by name: the newest base is the next --previous)")
    state = state.rstrip("/")
    if "://" not in state:
        os.makedirs(state, exist_ok=True)
    elif problem := unreachable_storage([state], s3_endpoint_option(argv)):
        raise SyncRefused(problem)
    stale = held_claims(state)
    try:
        claim = claim_output(state, argv=["ragbeam", "sync", *argv], take_over=take_over or (
            bool(stale) and all(holder_alive(c) is False for c in stale)))
    except OutputClaimed as exc:
        raise SyncRefused(str(exc).replace("--output", "--state")) from None

    try:
        plan = plan_sync(state, list_runs(state), name)
        if plan.done:
            report(f"ragbeam sync: {plan.output} is already a completed run; nothing to do")
            return 0
        report(f"ragbeam sync: {plan.output} (previous: "
               f"{plan.previous or 'none, a full run'})")
        code = None
        try:
            code = run_one(run_arguments(plan, argv))
        finally:
            # Stopped by a signal (its exit code, or its exception on the way out): a
            # row in `ragbeam runs`, not nothing.
            if code in INTERRUPT_CODES or received_signal() is not None:
                _mark_interrupted(plan.output, code or 128 + (received_signal() or 0))
            else:
                _remove_if_empty(plan.output)
        new = read_run_folder(state, name)
        if new.is_base or submitted_only:
            try:
                prune(state, keep, in_use={name, (plan.previous or "").rsplit("/", 1)[-1]},
                      report=report)
            except Exception as exc:  # the run stands; old runs stay until the next sync
                logging.getLogger("ragbeam").error("ragbeam sync: pruning %s failed: %s: %s",
                                                   state, type(exc).__name__, exc)
                return code or 1
        else:
            report(f"ragbeam sync: {name} is no base for the next run ({new.status}); "
                   f"the next sync builds on {plan.previous or 'nothing (a full run)'} "
                   "again; nothing pruned")
        return code
    finally:
        release_claim(claim)


def dry_sync(state: str, argv: Sequence[str], run_dry: Callable[[list[str]], int],
             run_name: str | None = None, report: Callable[[str], None] = print) -> int:
    """``ragbeam sync --dry-run``: the next night's run as ``ragbeam run --dry-run``
    would show it, with the run folder and ``--previous`` the sync would choose (the
    newest base) and the options given: nothing claimed, written or pruned."""
    check_sync_arguments(argv)
    name = run_name or new_run_name()
    if not RUN_NAME.match(name):
        raise SyncRefused(f"--run-name {name!r}: expected YYYY-MM-DD or YYYY-MM-DDTHHMMSSZ")
    plan = plan_sync(state.rstrip("/"), list_runs(state.rstrip("/")), name)
    if plan.done:
        report(f"ragbeam sync --dry-run: {plan.output} is already a completed run; a sync "
               "would do nothing")
        return 0
    report(f"ragbeam sync --dry-run: the next run would write {plan.output} (previous: "
           f"{plan.previous or 'none, a full run'}); nothing claimed, written or pruned")
    return run_dry(run_arguments(dataclasses.replace(plan, replace=False), argv))


def prune(state: str, keep: int, in_use: set[str], report: Callable[[str], None]) -> None:
    gone = runs_to_prune(list_runs(state), keep, in_use)
    for run in gone:
        remove_run(run)
    if gone:
        report(f"ragbeam sync: pruned {len(gone)} run(s) beyond --keep {keep}: "
               + ", ".join(r.name for r in gone))


def _mark_interrupted(folder: str, code: int) -> None:
    """A run a signal stopped removed what it wrote; its folder keeps one small file
    saying so (``runs.INTERRUPTED_FILE``), so ``ragbeam runs`` shows the night."""
    with contextlib.suppress(Exception):
        if storage.exists(run_json_path(folder)):
            return  # committed before the signal: a completed run
        if "://" not in folder:
            os.makedirs(folder, exist_ok=True)
        storage.write_bytes(storage.join(folder, INTERRUPTED_FILE), json.dumps(
            {"exit_code": code, "at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}
        ).encode("utf-8"))


def _remove_if_empty(folder: str) -> None:
    """An interrupted run leaves its folder empty (it removes what it wrote)."""
    if "://" not in folder:
        with contextlib.suppress(OSError):
            os.rmdir(folder)
