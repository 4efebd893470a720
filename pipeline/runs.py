"""A state folder of dated runs: what ``ragbeam sync`` writes and ``ragbeam runs`` lists.

``ragbeam sync --state DIR`` writes each run to ``DIR/<run name>/``, named by its
UTC start time (``2026-12-01T020000Z``) or a date a scheduler gives
(``2026-12-01``), so names sort by time. Folders with other names are never
read, used or removed. Each run folder is in one of these states, decided from
its ``run.json`` (written last) and its claims (``claim.py``):

* **completed**: ``run.json`` is there. It is a **base** (the next run's
  ``--previous``) when its outcome is one a later run may build on: ``ok``
  (also when a ``--sink`` failed: the next run re-syncs that store in full) or
  ``error_rate_exceeded`` (every table was written; failures are rows the next
  run retries or keeps). Any other outcome (a run the delete guard stopped, an
  outcome this version does not know) is complete but no base: the next run
  reads the older base again, so a stop is repeated, not forgotten.
* **running**: no ``run.json``, and a claim whose process still runs, or runs on
  another host (it cannot be proved dead from here).
* **dead**: no ``run.json``, and no claim (a run holds its claim from before it
  writes anything until it ends), or a claim whose process on this host is gone;
  **interrupted** when the sync that ran it was stopped by a signal (it leaves
  ``INTERRUPTED``, the signal's exit code and the time, in the folder).

Pruning (``runs_to_prune``) keeps the ``keep`` newest bases and everything newer
than the oldest of them; older folders go if completed or dead, never the runs a
sync is using, never a run that may still be running.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragbeam.pipeline.claim import held_claims, holder_alive
from ragbeam.pipeline.summary import run_json_path, store_words
from ragbeam.schemas.layout import CLAIMS_DIR, INTERRUPTED_FILE
from ragbeam.transforms import storage
from ragbeam.transforms.incremental.report import COLUMNS, document_details, document_report
from ragbeam.transforms.write.read import read_table_columns

# A run folder's name: a date, or a UTC time to the second.
RUN_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}(T\d{6}Z)?$")
RUN_NAME_FORMAT = "%Y-%m-%dT%H%M%SZ"
# Outcomes (summary.py, run.json's "outcome") a later run may take as its --previous.
BASE_OUTCOMES = frozenset({"ok", "error_rate_exceeded"})
RUNNING, DEAD, INTERRUPTED = "running", "dead", "interrupted"


def new_run_name(now: dt.datetime | None = None) -> str:
    """The folder name of a run started ``now`` (UTC)."""
    return (now or dt.datetime.now(dt.UTC)).strftime(RUN_NAME_FORMAT)


@dataclass(frozen=True)
class RunFolder:
    """One folder under a state folder, as listed (``list_runs``)."""

    name: str
    path: str
    summary: Mapping[str, Any] | None = None  # run.json; None: not completed
    finished: float | None = None  # run.json's modification time (epoch seconds)
    # One entry per claim on the folder: its holder is alive (True), gone (False), or
    # cannot be told from here (None).
    claims: tuple[bool | None, ...] = field(default_factory=tuple)
    interrupted: bool = False  # stopped by a signal (``INTERRUPTED_FILE``)

    @property
    def completed(self) -> bool:
        return self.summary is not None

    @property
    def is_base(self) -> bool:
        """A completed run the next run may take as its --previous."""
        return self.completed and self.summary.get("outcome") in BASE_OUTCOMES

    @property
    def dead(self) -> bool:
        """Not completed, and provably not running any more."""
        return not self.completed and all(alive is False for alive in self.claims)

    @property
    def status(self) -> str:
        if not self.completed:
            return (INTERRUPTED if self.interrupted else DEAD) if self.dead else RUNNING
        outcome = str(self.summary.get("outcome", "?"))
        failed = [s for s in self.summary.get("sinks") or () if s.get("status") != "synced"]
        if outcome == "ok" and failed:
            return "sink_failed"
        return outcome


def plan_previous(runs: Sequence[RunFolder], name: str | None = None) -> RunFolder | None:
    """The base a run named ``name`` builds on: the newest base named before it (a
    backfill of an older date never reads a newer run); without a name, the newest."""
    earlier = [r for r in runs if r.is_base and (name is None or r.name < name)]
    return max(earlier, key=lambda r: r.name) if earlier else None


def runs_to_prune(runs: Sequence[RunFolder], keep: int,
                  in_use: Collection[str] = ()) -> list[RunFolder]:
    """The run folders to remove so that ``keep`` bases remain (see the module doc).

    ``in_use``: names never removed (the run being written, its --previous).
    """
    if keep < 1:
        raise ValueError("keep must be at least 1: the newest base is the next --previous")
    bases = sorted((r for r in runs if r.is_base), key=lambda r: r.name)
    if len(bases) <= keep:
        return []
    oldest_kept = bases[-keep].name
    return sorted((r for r in runs if r.name < oldest_kept and r.name not in in_use
                   and (r.completed or r.dead)), key=lambda r: r.name)


# --- Reading a state folder (wherever it is: ``storage.py``) ------------------------

def _run_folder_names(state: str) -> list[str]:
    if "://" not in state:
        if not os.path.isdir(state):
            return []
        return sorted(n for n in os.listdir(state)
                      if RUN_NAME.match(n) and os.path.isdir(os.path.join(state, n)))
    # An object store has no folders: a run folder is the prefix of its objects.
    prefix = state.rstrip("/") + "/"
    found = storage.match(prefix + "**")
    return sorted({m.path[len(prefix):].split("/", 1)[0] for m in found
                   if m.path.startswith(prefix) and "/" in m.path[len(prefix):]
                   and RUN_NAME.match(m.path[len(prefix):].split("/", 1)[0])})


def read_run_folder(state: str, name: str) -> RunFolder:
    path = storage.join(state, name)
    summary, finished = None, None
    found = storage.match(run_json_path(path))
    if found:
        try:
            summary = json.loads(storage.read_bytes(found[0].path).decode("utf-8"))
            finished = float(found[0].last_updated_in_seconds or 0) or None
        except (OSError, ValueError):  # half written: a run that is still finishing
            summary = None
    claims = tuple(holder_alive(c) for c in held_claims(path))
    interrupted = summary is None and storage.exists(storage.join(path, INTERRUPTED_FILE))
    return RunFolder(name, path, summary, finished, claims, interrupted)


def list_runs(state: str) -> list[RunFolder]:
    """Every run folder directly under ``state``, oldest first."""
    return [read_run_folder(state, name) for name in _run_folder_names(state)]


def remove_run(run: RunFolder) -> None:
    """Delete a run folder and everything in it."""
    storage.delete([run.path if "://" not in run.path else run.path.rstrip("/") + "/"])


# --- ``ragbeam runs DIR`` ----------------------------------------------------------

def _when(epoch: float | None) -> str:
    if epoch is None:
        return "-"
    return dt.datetime.fromtimestamp(epoch, dt.UTC).strftime("%Y-%m-%d %H:%M:%S")


class NotRuns(Exception):
    """``ragbeam runs``/``peek`` on a folder that is missing or holds no run (exit 2)."""


def run_report(run: RunFolder, rows: list[dict[str, Any]] | None = None
               ) -> dict[str, list[str]] | None:
    """What a completed run did to each document (``report.document_report``), from its
    documents table and its previous run's; None when not completed or unreadable.
    With its previous run gone (pruned), ok documents cannot be told added from
    changed: they are listed under "changed?". ``rows``: its documents rows, when
    the caller has read them (``_documents_rows``)."""
    rows = _documents_rows(run) if rows is None else rows
    if rows is None:
        return None
    previous_path = (run.summary or {}).get("previous")
    previous = None
    if previous_path:
        try:
            table = read_table_columns(previous_path, "documents", ["doc_id", "status"])
        except Exception:
            table = None
        if table is None:  # gone: added and changed cannot be told apart
            report = document_report(rows, [])
            report["changed?"] = sorted(report.pop("added") + report.pop("changed"))
            return report
        previous = table.to_pylist()
    return document_report(rows, previous)


def _documents_rows(run: RunFolder) -> list[dict[str, Any]] | None:
    """A completed run's documents rows, the report's columns only; None when not
    completed or unreadable."""
    if not run.completed:
        return None
    try:
        rows = read_table_columns(run.path, "documents", COLUMNS)
    except Exception:
        return None
    return rows.to_pylist() if rows else []


def _count(report: Mapping[str, list[str]] | None, kind: str) -> str:
    if report is None:
        return "-"
    if kind in ("added", "changed") and "changed?" in report:
        return f"{len(report['changed?'])}?" if kind == "changed" else "?"
    return str(len(report.get(kind, ())))


def runs_table(runs: Sequence[RunFolder]) -> list[str]:
    """``ragbeam runs``: one line per run folder, newest last, and which one the next
    sync builds on: per run the documents it indexed, and what it did to them
    (added, changed, moved, deleted, failed in this run, of them given up on)."""
    header = ("run", "finished (UTC)", "status", "documents", "added", "changed", "moved",
              "deleted", "failed", "gave up", "chunks", "changes", "previous")
    rows = [header]
    for r in runs:
        s = r.summary or {}
        changes = (f"+{s.get('changes_upsert', 0)} -{s.get('changes_delete', 0)}"
                   if r.completed else "-")
        previous = s.get("previous")
        report = run_report(r)
        rows.append((r.name, _when(r.finished), r.status,
                     str(s.get("files_matched", "-")) if r.completed else "-",
                     *(_count(report, kind) for kind in
                       ("added", "changed", "moved", "deleted", "failed", "gave up")),
                     str(s.get("chunks", "-")) if r.completed else "-", changes,
                     str(previous).rstrip("/").rsplit("/", 1)[-1] if previous else "-"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
             for row in rows]
    base = plan_previous(runs)
    lines.append(f"next --previous: {base.name}" if base else
                 "next --previous: none (no completed run to build on: the next run is a "
                 "full one)")
    return lines


def run_changes(run: RunFolder) -> list[str]:
    """``ragbeam runs DIR --run ID``: one run's morning report: its totals, each vector
    store's sync (a switch to a new collection said), then the documents by what it
    did to them, one line each (kind, path; a move with its old path, a failure with
    its reason)."""
    if not run.completed:
        return [f"{run.name}: {run.status}: no run.json, nothing was committed"]
    rows = _documents_rows(run)
    report = run_report(run, rows) or {}
    details = document_details(rows or [])
    s = run.summary or {}
    stores = s.get("sinks") or []
    switched = sum(1 for state in stores if "window_s" in (state.get("cutover") or {})
                   and state.get("status") == "synced")
    synced = sum(1 for state in stores if state.get("status") == "synced")
    store_totals = (f", {synced} of {len(stores)} stores synced"
                    + (f" ({switched} switched to a new collection)" if switched else "")
                    if stores else "")
    lines = [f"{run.name}: {run.status}, {s.get('files_matched', 0)} documents, "
             f"{s.get('documents_unchanged', 0)} unchanged, "
             f"since {str(s.get('previous') or '-').rstrip('/').rsplit('/', 1)[-1]}"
             + store_totals]
    lines.extend(f"  store     {store_words(state)}" for state in stores)
    for kind, uris in report.items():
        lines.extend(f"  {kind:<9} {uri}" + (f" {details[uri]}" if uri in details else "")
                     for uri in uris)
    if s.get("documents_gave_up"):
        lines.append(f"  ({s['documents_gave_up']} documents given up on in all, not "
                     "retried until they change or --retry-errors)")
    return lines


def check_state_folder(state: str, runs: Sequence[RunFolder]) -> None:
    """``ragbeam runs`` on a folder that is missing, is a run itself, or holds other
    things and no run: ``NotRuns`` with a line saying which. An empty folder (or one
    holding only sync's released claims) is a state folder no sync has written yet
    (the CLI says so, exit 0); so is an object-store prefix without objects, which
    cannot be told from a missing one."""
    if runs:
        return
    if storage.exists(run_json_path(state)):
        raise NotRuns("is a run's output, not a state folder of runs: "
                      f"ragbeam peek {state} shows it")
    if "://" not in state:
        if not os.path.isdir(state):
            raise NotRuns("no such folder")

        others = sorted(n for n in os.listdir(state) if n != CLAIMS_DIR)
        if others:
            raise NotRuns("holds no run of ragbeam sync (no folder named YYYY-MM-DD or "
                          f"YYYY-MM-DDTHHMMSSZ; it holds {others[0]!r}"
                          + (f" and {len(others) - 1} more" if len(others) > 1 else "")
                          + "): is it the state folder?")
