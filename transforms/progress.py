"""A run you can watch: one progress line on stderr every few seconds.

Beam's local runners report metrics only when a run has ended, so the stages
report progress themselves: ``tick("extracted")`` adds to a per-process tally
that is written, at most once a second, to a small JSON file in a folder the
launcher names in ``RAGBEAM_PROGRESS_DIR`` (inherited by the worker processes of
``multi_processing`` and of the portable runner's loopback workers). The
launcher sums the files and prints::

    ragbeam: 14 s · 22/39 files done · 39 matched · 21 extracted · 20 chunked · 2 errors
             · 1.6 docs/s · ETA 11 s

Without the variable (a Dataflow or Flink worker), ``tick`` does nothing: those
runners have their own monitoring. Nothing here changes a run's output.
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import json
import logging
import os
import shutil
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from typing import TextIO

PROGRESS_DIR_ENV = "RAGBEAM_PROGRESS_DIR"
FLUSH_EVERY_S = 1.0
# What the line shows, in order; ``done`` documents are chunked, failed or carried over.
MATCHED, EXTRACTED, CHUNKED, EMBEDDED, FAILED, CARRIED = (
    "matched", "extracted", "chunked", "embedded", "failed", "carried")
CHUNKS = "chunks"  # chunks made (the work the Embed stage has before it)
# What the launcher waits for before any stage reports (``set_phase``): "starting"
# alone for 15-30 s reads as a hang.
_phase = "starting"


def set_phase(what: str) -> None:
    """What the run is busy with before its stages report ("loading the model")."""
    global _phase
    _phase = what
# With -v, when each stage first reports (``watch``).
STAGE_OF = {MATCHED: "Match", CARRIED: "Carry over (incremental)", EXTRACTED: "Extract",
            CHUNKED: "Chunk", EMBEDDED: "Embed"}


class _Tally:
    """This process's counts, flushed to its own file (one writer per file)."""

    def __init__(self, folder: str) -> None:
        self.path = os.path.join(folder, f"{os.getpid()}-{uuid.uuid4().hex[:8]}.json")
        self.counts: collections.Counter[str] = collections.Counter()
        self.lock = threading.Lock()
        self.flushed = 0.0
        self.pending: threading.Timer | None = None

    def add(self, name: str, n: int) -> None:
        with self.lock:
            first_of_its_kind = name not in self.counts
            self.counts[name] += n
            # A stage's first event is written at once: a stage can start and end
            # within the throttle window, and the launcher logs when each one started.
            if not first_of_its_kind and time.monotonic() - self.flushed < FLUSH_EVERY_S:
                # Written within a second anyway, even if nothing else happens (a
                # document that takes minutes must not hide the ones before it).
                if self.pending is None:
                    self.pending = threading.Timer(FLUSH_EVERY_S, self.flush)
                    self.pending.daemon = True
                    self.pending.start()
                return
        self.flush()

    def flush(self) -> None:
        with self.lock:
            self.flushed = time.monotonic()
            self.pending = None
            data = json.dumps(self.counts)
        tmp = f"{self.path}.tmp"
        with contextlib.suppress(OSError):  # the launcher may have cleaned up already
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(data)
            os.replace(tmp, self.path)


_tally: _Tally | None = None
_tally_lock = threading.Lock()


def tick(name: str, n: int = 1) -> None:
    """Count ``n`` events of ``name`` for the progress line (no-op outside local runs)."""
    global _tally
    folder = os.environ.get(PROGRESS_DIR_ENV)
    if not folder or n == 0:
        return
    if _tally is None:
        with _tally_lock:
            if _tally is None:
                _tally = _Tally(folder)

                atexit.register(_tally.flush)
    _tally.add(name, n)


def flush() -> None:
    """Write this process's counts now (end of a bundle, so the last line is exact)."""
    if _tally is not None:
        _tally.flush()


def read_counts(folder: str) -> collections.Counter[str]:
    total: collections.Counter[str] = collections.Counter()
    for name in os.listdir(folder):
        if name.endswith(".json"):
            with (contextlib.suppress(OSError, ValueError),
                  open(os.path.join(folder, name), encoding="utf-8") as f):
                total.update(json.load(f))
    return total


def starting_line(matched: int | None, elapsed_s: float) -> str:
    """The first line, printed as soon as the launcher has listed the inputs (before the
    checks, the model and the runner start); ``matched``: None when the listing
    stopped at its first page."""
    files = f"{matched} files matched" if matched is not None else (
        "over 1000 files matched so far")
    return f"ragbeam: {elapsed_s:.0f} s · {files} · {_phase}"


def progress_line(counts: collections.Counter[str], elapsed_s: float,
                  total: int | None = None, embedding_s: float | None = None) -> str:
    """One progress line; ``total`` is the number of files the launcher listed;
    ``embedding_s``: how long the Embed stage has been at work (0: not yet; None: the
    run does not embed). While it works the line names it and its
    chunks, and the ETA is the longer of the files' and the chunks' (extrapolated from
    the chunks made so far to every file)."""
    done = counts[CHUNKED] + counts[FAILED] + counts[CARRIED]
    rate = done / elapsed_s if elapsed_s > 0 else 0.0
    total = total or counts[MATCHED]
    parts = [f"ragbeam: {elapsed_s:.0f} s", f"{done}/{total} files done",
             f"{counts[MATCHED]} matched"]
    if counts[CARRIED]:
        parts.append(f"{counts[CARRIED]} carried over")
    parts += [f"{counts[EXTRACTED]} extracted", f"{counts[CHUNKED]} chunked"]
    embedding = embedding_s is not None and counts[CHUNKS] > 0
    if embedding:
        parts.append(f"embedding {counts[EMBEDDED]:,}/{counts[CHUNKS]:,} chunks")
    elif counts[EMBEDDED]:
        parts.append(f"{counts[EMBEDDED]} chunks embedded")
    parts += [f"{counts[FAILED]} errors", f"{rate:.1f} docs/s"]
    remaining = total - done
    eta = remaining / rate if total and rate > 0 and remaining > 0 else 0.0
    if embedding and embedding_s and counts[EMBEDDED]:
        chunked = counts[CHUNKED] or 1
        expected = counts[CHUNKS] * max(1.0, (total or chunked) / chunked)
        eta = max(eta, (expected - counts[EMBEDDED]) / (counts[EMBEDDED] / embedding_s))
    if eta > 0:
        parts.append(f"ETA {eta:.0f} s")
    return " · ".join(parts)


@contextlib.contextmanager
def watch(interval_s: float = 5.0, stream: TextIO | None = None, enabled: bool = True,
          total: int | None = None, started: float | None = None,
          embeds: bool = False) -> Iterator[None]:
    """Print a progress line every ``interval_s`` while the block runs (a local run);
    ``total``: the files to process, when known (for the ETA); ``started``: the
    ``time.monotonic()`` the lines count from (the command's start; default: now);
    ``embeds``: the run embeds its chunks (the line then counts them as they wait).
    Each stage's first report is logged (ragbeam's info level: ``-v``)."""
    if not enabled:
        yield
        return
    stream = stream or sys.stderr
    set_phase("starting")  # a run before this one in the process may have left its own
    folder = tempfile.mkdtemp(prefix="ragbeam-progress-")
    previous = os.environ.get(PROGRESS_DIR_ENV)
    os.environ[PROGRESS_DIR_ENV] = folder
    stop = threading.Event()
    started = time.monotonic() if started is None else started
    log = logging.getLogger("ragbeam")

    def report() -> None:
        printed, seen = time.monotonic(), set()
        embedding_since: float | None = None

        def log_new_stages() -> collections.Counter[str]:
            counts = read_counts(folder)
            for name, stage in STAGE_OF.items():
                if counts[name] and name not in seen:
                    seen.add(name)
                    log.info("stage %s started (first report by %.1f s)", stage,
                             time.monotonic() - started)
            return counts

        while not stop.wait(min(1.0, interval_s)):
            counts, now = log_new_stages(), time.monotonic()
            if counts[EMBEDDED] and embedding_since is None:
                embedding_since = now
            if now - printed >= interval_s:
                printed = now
                embedding_s = (now - embedding_since if embedding_since is not None
                               else 0.0 if embeds else None)
                line = progress_line(counts, now - started, total, embedding_s) \
                    if any(counts.values()) else starting_line(total, now - started)
                print(line, file=stream, flush=True)
        log_new_stages()  # a stage that started and ended within the last second

    thread = threading.Thread(target=report, name="ragbeam-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        if previous is None:
            os.environ.pop(PROGRESS_DIR_ENV, None)
        else:
            os.environ[PROGRESS_DIR_ENV] = previous
        global _tally
        _tally = None

        shutil.rmtree(folder, ignore_errors=True)
