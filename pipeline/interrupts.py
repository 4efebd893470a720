"""Ctrl-C and SIGTERM: a run that is stopped says so in one line and leaves nothing behind.

A scheduler stops a task with SIGTERM (a Kubernetes CronJob, Airflow), a person
with Ctrl-C (SIGINT). Python's default for SIGTERM ends the process without a
word, so the scheduler's log would not say why the run ended, and nothing is
cleaned up. While ``signals_interrupt()`` is active, both signals raise
``Interrupted`` in the main thread instead, so the run unwinds as for any
failure: it removes what it wrote into its output before ``run.json``
(``discard_uncommitted_output``), its claim is released, and the CLI prints
``interrupted_message`` and exits 128 + the signal's number (130, 143).

The extraction children ignore SIGINT (``transforms/extract/isolation.py``): a
Ctrl-C reaches the whole process group, and only the launcher decides when they end.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import sys
import threading
from collections.abc import Iterator

from ragbeam.pipeline.summary import run_json_path
from ragbeam.transforms import storage

INTERRUPT_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_received: list[int] = []


class Interrupted(KeyboardInterrupt):
    """The process received SIGINT or SIGTERM (``received_signal()`` says which)."""


def received_signal() -> int | None:
    """The first interrupting signal received while ``signals_interrupt`` was active."""
    return _received[0] if _received else None


def _raise_interrupted(signum: int, frame: object) -> None:
    if _received:  # a second Ctrl-C while unwinding: the clean-up goes on
        return
    _received.append(signum)
    if not logging.getLogger("ragbeam").isEnabledFor(logging.INFO):
        # Beam and the executors log the exception at every level it passes through;
        # without -v the run's one line says what happened (``restore_logging``).
        logging.disable(logging.CRITICAL)
    if (isolation := sys.modules.get("ragbeam.transforms.extract.isolation")) is not None:
        # Documents in flight are not waited for: their children are killed now. From a
        # thread: this handler may have interrupted the holder of the pools' lock.
        threading.Thread(target=isolation.abort_all_pools, name="ragbeam-interrupt",
                         daemon=True).start()
    raise Interrupted(signal.Signals(signum).name)


def restore_logging() -> None:
    logging.disable(logging.NOTSET)


@contextlib.contextmanager
def signals_interrupt() -> Iterator[None]:
    """While the block runs (in the main thread), SIGINT and SIGTERM raise ``Interrupted``."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _received.clear()
    before = {signum: signal.getsignal(signum) for signum in INTERRUPT_SIGNALS}
    for signum in INTERRUPT_SIGNALS:
        signal.signal(signum, _raise_interrupted)
    try:
        yield
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)
        if _received:
            restore_logging()


def exit_code_for_signal(signum: int) -> int:
    """The shell's convention: 128 + the signal number (SIGINT 130, SIGTERM 143)."""
    return 128 + signum


def interrupted_message(signum: int, committed: bool) -> str:
    name = signal.Signals(signum).name
    if committed:
        return (f"ragbeam: {name}: interrupted after the run was committed (every table and "
                "run.json written); a --sink it was still writing is synced in full by the "
                "next run")
    return f"ragbeam: {name}: interrupted; nothing was committed; the next run starts clean"


def discard_uncommitted_output(output: str, written: tuple[str, ...]) -> None:
    """Remove what an interrupted run wrote into ``output`` before its ``run.json``
    (tables, the temporary folder, sink states): the next run into it starts clean,
    without --overwrite. ``written``: the names the run may have written."""
    if storage.exists(run_json_path(output)):
        return
    paths = [storage.join(output, name) for name in written]
    present = [p for p in paths if storage.exists(p) or storage.match(storage.join(p, "*"))]
    if present:
        storage.delete(present)
