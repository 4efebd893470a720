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

Python runs a signal's handler in the main thread only, between two bytecodes: a main
thread inside a long native call (a Parquet write, a regular expression over a long
text) runs it when the call returns. So the handler only notes the signal and
raises; what must happen at once is done by a watcher thread that the interpreter
wakes however busy the main thread is (``signal.set_wakeup_fd``): it stops the
extraction pools (their children are killed, no document starts after) and, for the
``ragbeam`` command (``exit_after_interrupt``), arms a deadline: a command still
running ``EXIT_DEADLINE_S`` after the signal prints every thread's stack and a line
saying so, and exits with the signal's code without the rest of its clean-up. A
second signal while the run unwinds is ignored (the clean-up goes on); the deadline
bounds it. ``raise_if_interrupted``: a signal whose exception was lost still stops
the run before it commits.
"""

from __future__ import annotations

import contextlib
import faulthandler
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator

from ragbeam.pipeline.summary import run_json_path
from ragbeam.transforms import storage

INTERRUPT_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_received: list[int] = []  # by the handler, in the main thread
_seen: list[int] = []  # by the watcher thread (the main thread may not have run it yet)
_active = 0  # signals_interrupt blocks running
# Seconds a command may take to end after the signal (``exit_after_interrupt``); None:
# no limit (a caller's own process, e.g. a test calling ``main``). Below the 30 s a
# scheduler commonly waits before SIGKILL (Kubernetes' terminationGracePeriodSeconds,
# Slurm's KillWait), so that a stuck clean-up still ends with the one line, the stacks
# and 143, not killed without a word (docs/cli.md); an interrupted run's clean-up takes
# about a second at most (at most 1.0 s over 120 tries beside busy loops, load 12-16).
EXIT_DEADLINE_S = 25.0
_exit_deadline_s: float | None = None
# A signal the main thread has not taken yet is sent to it again this often, this long.
REDELIVER_EVERY_S = 0.05
REDELIVER_FOR_S = 30.0
_redeliver_lock = threading.Lock()


class Interrupted(KeyboardInterrupt):
    """The process received SIGINT or SIGTERM (``received_signal()`` says which)."""


def received_signal() -> int | None:
    """The first interrupting signal received while ``signals_interrupt`` was active."""
    if _received:
        return _received[0]
    return _seen[0] if _seen else None


def raise_if_interrupted() -> None:
    """Raise ``Interrupted`` if a signal came while ``signals_interrupt`` is active
    though its exception did not stop the caller: the handler raises wherever the main
    thread is, and inside a finalizer (``__del__``, a weakref or garbage-collection
    callback) Python only prints the exception and goes on. A run checks this before
    it commits, so a Ctrl-C is never followed by a run that ends as if none came."""
    if _active and (signum := received_signal()) is not None:
        raise Interrupted(signal.Signals(signum).name)


def exit_after_interrupt(deadline_s: float | None = EXIT_DEADLINE_S) -> None:
    """The ``ragbeam`` command owns its process: once interrupted, it ends within
    ``deadline_s`` seconds whatever its clean-up waits for (None: no limit)."""
    global _exit_deadline_s
    _exit_deadline_s = deadline_s


def _holds_a_logging_lock() -> bool:
    """Whether this thread holds logging's lock or a logging handler's.

    ``logging`` takes them in a call before its ``try`` (``_acquireLock()``, then
    ``try: … finally: _releaseLock()``), and Python checks for signals right after that
    call: an exception raised there leaves the lock held for good. This thread can
    still take it again (a re-entrant lock), every other one waits for ever: an
    extraction pool's thread, the early start's feeder or the progress thread, each of
    which logs, and which an interrupted run then waits for (a Ctrl-C was seen to hang
    a run that way: the feeder in ``logging.getLogger``, the main thread joining it)."""
    locks = [getattr(logging, "_lock", None)]
    for ref in list(getattr(logging, "_handlerList", ())):
        handler = ref() if callable(ref) else None
        locks.append(getattr(handler, "lock", None))
    return any(lock is not None and getattr(lock, "_is_owned", bool)() for lock in locks)


def _raise_interrupted(signum: int, frame: object) -> None:
    # No more than noting the signal: the pools are stopped by the watcher thread
    # (``_watch``), at the signal, not when the main thread gets to run this.
    if _received:  # a second Ctrl-C while unwinding: the clean-up goes on
        return
    if _holds_a_logging_lock():
        # Not here (see ``_holds_a_logging_lock``): the watcher sends the signal to the
        # main thread again in a moment (``_deliver_until_taken``).
        return
    _received.append(signum)
    if not logging.getLogger("ragbeam").isEnabledFor(logging.INFO):
        # Beam and the executors log the exception at every level it passes through;
        # without -v the run's one line says what happened (``restore_logging``).
        logging.disable(logging.CRITICAL)
    raise Interrupted(signal.Signals(signum).name)


def _watch(wakeup: socket.socket, deadline_s: float | None) -> None:
    """The watcher thread: the interpreter writes each signal's number to ``wakeup``
    as the signal arrives (whatever the main thread is doing). On the first SIGINT or
    SIGTERM: arm the command's deadline, then stop the extraction pools now (the
    deadline first: it bounds everything after the signal, stopping the pools too,
    which waits for their locks)."""
    with wakeup:
        while True:
            try:
                data = wakeup.recv(64)
            except OSError:
                return
            if not data:  # the block ended
                return
            for signum in data:
                if signum not in INTERRUPT_SIGNALS or _seen:
                    continue
                _seen.append(signum)
                if deadline_s is not None:
                    threading.Thread(target=_exit_at_deadline, args=(signum, deadline_s),
                                     name="ragbeam-interrupt-deadline", daemon=True).start()
                threading.Thread(target=_deliver_until_taken, args=(signum,),
                                 name="ragbeam-interrupt-redeliver", daemon=True).start()
                isolation = sys.modules.get("ragbeam.transforms.extract.isolation")
                if isolation is not None:
                    # Documents in flight are not waited for: their children are killed.
                    isolation.abort_all_pools()


def _deliver_until_taken(signum: int) -> None:
    """Send the signal to the main thread again until its handler has taken it: it
    put it off (``_holds_a_logging_lock``), or the kernel gave the signal to another
    thread while the main thread waits in a call that only a signal of its own would
    break."""
    main = threading.main_thread().ident
    for _ in range(int(REDELIVER_FOR_S / REDELIVER_EVERY_S)):
        time.sleep(REDELIVER_EVERY_S)
        with _redeliver_lock:  # not once the block has put the old handlers back
            if _received or not _active or main is None:
                return
            with contextlib.suppress(OSError, ValueError):
                signal.pthread_kill(main, signum)


def _exit_at_deadline(signum: int, deadline_s: float) -> None:
    """The command did not end ``deadline_s`` after the signal: say where every thread
    was, then end it with the signal's code (the guard ends the extraction children
    when this process's pipes close)."""
    time.sleep(deadline_s)
    with contextlib.suppress(Exception):
        sys.stderr.flush()
    with contextlib.suppress(Exception):
        faulthandler.dump_traceback(file=2, all_threads=True)
    name = signal.Signals(signum).name
    with contextlib.suppress(OSError):
        os.write(2, (f"ragbeam: {name}: interrupted; the clean-up did not end within "
                     f"{deadline_s:g} s (where each thread was: above), so the command "
                     "stopped without it: the output may hold what the run wrote (the "
                     "next run into it needs --overwrite)\n").encode())
    os._exit(exit_code_for_signal(signum))


def restore_logging() -> None:
    logging.disable(logging.NOTSET)


@contextlib.contextmanager
def signals_interrupt() -> Iterator[None]:
    """While the block runs (in the main thread), SIGINT and SIGTERM raise ``Interrupted``."""
    global _active
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _received.clear()
    _seen.clear()
    # The watcher's end of a socket pair the interpreter writes each signal's number
    # to, from its C-level handler (the write end must not block).
    watched, wakeup = socket.socketpair()
    wakeup.setblocking(False)
    threading.Thread(target=_watch, args=(watched, _exit_deadline_s),
                     name="ragbeam-interrupt-watcher", daemon=True).start()
    wakeup_before = signal.set_wakeup_fd(wakeup.fileno(), warn_on_full_buffer=False)
    before = {signum: signal.getsignal(signum) for signum in INTERRUPT_SIGNALS}
    for signum in INTERRUPT_SIGNALS:
        signal.signal(signum, _raise_interrupted)
    _active += 1
    try:
        yield
    finally:
        with _redeliver_lock:
            _active -= 1
        for signum, handler in before.items():
            signal.signal(signum, handler)
        signal.set_wakeup_fd(wakeup_before)
        wakeup.close()  # the watcher ends (an armed deadline stays armed)
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
