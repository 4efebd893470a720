"""Run a Tika backend in a child process, with a time limit and a memory cap.

iscc-tika is native code running in-process: a malformed file can make it spin
forever (``shared/corpus/bad/fuzzed-hang.one`` never returns), grow without
bound, or crash the process. A thread cannot be interrupted inside native code,
so each extractor owns one child Python process that does the extraction. The
parent sends ``(data, filename)`` and waits for the answer, at most
``timeout_s``; while it waits it watches the child's resident memory:

* too slow → the child is killed: ``ExtractionTimeout``;
* resident memory over ``memory_limit_bytes`` → killed: ``ExtractionMemoryExceeded``;
* the child dies on its own (segfault, abort, OOM killer) → ``ExtractorCrashed``.

Each of these is that document's error; the next document starts a fresh child.
The child is also recycled every ``recycle_after`` documents, and after any
document that left it holding more than half the memory cap, to bound slow
leaks in native memory (a Java heap rarely shrinks once grown).

Why a resident-memory watch and not ``RLIMIT_AS``: the GraalVM native image
inside iscc-tika reserves about 32 GiB of address space when it starts, so any
useful address-space limit makes every extraction fail ("Failed creating the
graal native vm: JniCall(NoMemory)"). ``RLIMIT_DATA`` is accepted but its
relation to real memory use is loose (a 200 MiB limit still let the child
reach 175 MiB resident, a 120 MiB one failed a 100 MiB e-book). The watch reads
``/proc/PID/statm`` (Linux; elsewhere the cap is not enforced) every
``poll_s`` seconds while it waits for the child. That watch is a thread of the
worker, late whenever the worker's other threads hold the GIL or the machine is
busy; so a small process of its own, the guard (``memory_guard.py``), also
polls every child every 10 ms and kills one past its cap. The cap can still be
passed by what a child allocates in one of the guard's intervals.

Tika copies some inputs to a temporary file (``/tmp/apache-tika-*.tmp``, the
size of the input) and deletes it when the parse ends. A killed child cannot,
and iscc-tika's VM takes no ``java.io.tmpdir`` (nor ``TMPDIR``), so each kill
would leave one copy of the document behind: a worker that kills many hanging
documents fills its disk. While a document is extracted the parent notes the
Tika temporary files the child holds open (``/proc/PID/fd``, every poll and
once more before a kill) and deletes them once the child is gone, after a
timeout, a memory kill or a crash.

A child whose parent is killed outright (``kill -9`` of the run, not of its
process group) would spin on a hanging document forever, and it cannot watch
for that itself (iscc-tika holds the GIL in native code). So before each
document the child sets its own ``RLIMIT_CPU`` a CPU budget ahead
(``cpu_limit_s``, default twice the timeout plus 10 s): the kernel kills it
with SIGXCPU there, parent or no parent. Normally the parent's timeout comes
first.

A caller may hand ``extract`` a ``then`` step: a picklable callable
``then(data, xhtml, metadata)`` that the child runs on Tika's answer before it
replies (the pipeline parses the XHTML into an ``ExtractedDocument`` there).
That work then runs in parallel across children, the reply is what the caller
needs rather than the whole XHTML, and an exception the step raises reaches
the caller as itself (same class, same message). The step runs under the same
time limit, memory cap and CPU budget as the extraction.

``ExtractionPool`` holds a bounded number of these extractors for one
process, whatever the number of threads that use it: ``submit`` runs a call on
whichever child is free (a thread pool of the same size does the waiting), at
most ``size`` documents are extracted at once, and at most ``2 × size`` are
admitted (queued or running), so a caller that submits faster than the
children extract blocks instead of piling documents up in memory.
``acquire_pool``/``release_pool`` give every user of the same settings in a
process the same pool (reference-counted: the last release closes it, and
anything left open is closed at interpreter exit).

Protocol: length-prefixed pickles over the child's stdin and a dedicated pipe
(the child's original stdout, which it moves aside so stray native output
cannot corrupt the stream).
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import pickle
import queue
import resource
import select
import signal
import struct
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable, Hashable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, BinaryIO, TypeVar

from ragbeam.transforms.extract.backends import (
    CHILD_ERRORS,
    EmbeddedTika,
    ExtractionError,
    TikaServer,
)
from ragbeam.transforms.extract.memory_guard import process_guard, resident_bytes

T = TypeVar("T")

_HEADER = struct.Struct("!Q")
MIB = 1 << 20
# How often a caller waiting for room in a pool (``ExtractionPool.submit``) looks
# whether the pool was aborted meanwhile.
ADMISSION_POLL_S = 0.1
TIKA_TEMP_PREFIX = "apache-tika-"  # Tika's TemporaryResources: Files.createTempFile(...)


class ExtractionTimeout(Exception):
    """Extraction took longer than the per-document limit."""


class ExtractorCrashed(Exception):
    """The extraction process died while working on a document."""


class ExtractionMemoryExceeded(Exception):
    """The extraction process grew past the memory cap and was killed."""


class ExtractionAborted(Exception):
    """The run was interrupted (``ExtractionPool.abort``): its children were killed and
    no document is extracted any more."""


ABORTED_MESSAGE = "extraction stopped: the run was interrupted"


@dataclass
class ExtractorStats:
    """What one ``IsolatedExtractor`` has been through (reported as Beam metrics)."""

    documents: int = 0
    starts: int = 0
    timeouts: int = 0
    crashes: int = 0
    memory_kills: int = 0
    recycles: int = 0  # planned restarts: every N documents, or grown too large
    peak_rss_bytes: int = 0  # largest resident size seen in any child
    temp_files_removed: list[str] = field(default_factory=list)  # left by killed children


def open_tika_temp_files(pid: int) -> set[str]:
    """Tika's temporary files that a live process holds open (Linux ``/proc``;
    empty elsewhere or once the process is gone)."""
    fd_dir = f"/proc/{pid}/fd"
    try:
        fds = os.listdir(fd_dir)
    except OSError:
        return set()
    found = set()
    for fd in fds:
        try:
            target = os.readlink(f"{fd_dir}/{fd}")
        except OSError:  # closed meanwhile
            continue
        name = os.path.basename(target)
        if name.startswith(TIKA_TEMP_PREFIX) and name.endswith(".tmp"):
            found.add(target)
    return found


def describe_exit(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def _write_message(stream: BinaryIO, obj: Any) -> None:
    payload = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(payload)))
    stream.write(payload)
    stream.flush()


def _wait_readable(fd: int, deadline: float | None, poll_s: float,
                   watch: Callable[[], None] | None) -> None:
    """Block until ``fd`` is readable; call ``watch`` every ``poll_s`` meanwhile."""
    while True:
        wait = None if deadline is None else deadline - time.monotonic()
        if wait is not None and wait <= 0:
            raise ExtractionTimeout
        if watch is not None:
            wait = poll_s if wait is None else min(wait, poll_s)
        ready, _, _ = select.select([fd], [], [], wait)
        if ready:
            return
        if watch is not None:
            watch()


def _read_exactly(fd: int, n: int, deadline: float | None, poll_s: float = 0.05,
                  watch: Callable[[], None] | None = None) -> bytes:
    chunks: list[bytes] = []
    remaining = n
    while remaining:
        if deadline is not None or watch is not None:
            _wait_readable(fd, deadline, poll_s, watch)
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            raise ExtractorCrashed("extraction process exited")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def _read_message(fd: int, deadline: float | None, poll_s: float = 0.05,
                  watch: Callable[[], None] | None = None) -> Any:
    (size,) = _HEADER.unpack(_read_exactly(fd, _HEADER.size, deadline, poll_s, watch))
    return pickle.loads(_read_exactly(fd, size, deadline, poll_s, watch))


class _OverMemory(Exception):
    def __init__(self, rss: int) -> None:
        self.rss = rss


class IsolatedExtractor:
    """Extract documents in a child process that can be killed.

    ``backend_spec`` names the backend the child builds once at start:
    ``("embedded", {"max_string_chars": N})`` or ``("server", {"url": U})``.
    ``memory_limit_bytes`` caps the child's resident memory (None: no cap).
    """

    def __init__(
        self,
        backend_spec: tuple[str, dict[str, Any]],
        timeout_s: float = 60.0,
        recycle_after: int = 500,
        memory_limit_bytes: int | None = None,
        poll_s: float = 0.05,
        cpu_limit_s: float | None = None,
    ) -> None:
        self._spec = backend_spec
        self._timeout_s = timeout_s
        self._recycle_after = recycle_after
        self._memory_limit = memory_limit_bytes
        self._poll_s = poll_s
        self._cpu_limit_s = cpu_limit_s if cpu_limit_s is not None else 2 * timeout_s + 10
        self._proc: subprocess.Popen[bytes] | None = None
        self._served = 0
        self.stats = ExtractorStats()
        # Set by ``abort`` (the run was interrupted): no child starts and no document is
        # sent from then on. The lock makes "not aborted, so start a child and keep it"
        # one step, so a child started by a pool thread as the abort comes is killed too.
        self._aborted = False
        self._start_lock = threading.Lock()

    @property
    def restarts(self) -> int:
        """Children killed because of a document (timeout, crash, memory)."""
        s = self.stats
        return s.timeouts + s.crashes + s.memory_kills

    @property
    def backend_spec(self) -> tuple[str, dict[str, Any]]:
        return self._spec

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def start(self) -> None:
        """Start the child if it is not running (it boots while the caller goes on)."""
        if self._proc is None or self._proc.poll() is not None:
            self.close()
            self._start()

    def _start(self) -> subprocess.Popen[bytes]:
        with self._start_lock:
            if self._aborted:
                raise ExtractionAborted(ABORTED_MESSAGE)
            return self._start_child()

    def _start_child(self) -> subprocess.Popen[bytes]:
        env = dict(os.environ)
        env.setdefault("OMP_NUM_THREADS", "1")
        proc = subprocess.Popen(
            [sys.executable, "-m", "ragbeam.transforms.extract.isolation"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            # Its own process group: a Ctrl-C (SIGINT to the terminal's group) reaches
            # the launcher only, which ends its children (closes their stdin, or kills
            # them when interrupted: ``abort``); none prints a traceback of its own.
            process_group=0,
        )
        assert proc.stdin is not None and proc.stderr is not None
        threading.Thread(target=_log_child_output, args=(proc.stderr, proc.pid),
                         name="ragbeam-extract-stderr", daemon=True).start()
        _write_message(proc.stdin, self._spec)
        self._proc = proc
        if (guard := process_guard()) is not None:  # its cap, and its end if we die
            guard.watch(proc.pid, self._memory_limit or 0)
        self._served = 0
        self.stats.starts += 1
        return proc

    def _watch(self, pid: int, temp_files: set[str]) -> Callable[[], None]:
        """Called every poll while the child works: memory cap, Tika temp files."""
        limit = self._memory_limit

        def watch() -> None:
            temp_files.update(open_tika_temp_files(pid))
            if not limit:
                return
            rss = resident_bytes(pid)
            if rss is not None:
                self.stats.peak_rss_bytes = max(self.stats.peak_rss_bytes, rss)
                if rss > limit:
                    raise _OverMemory(rss)

        return watch

    def extract(self, data: bytes, filename: str,
                then: Callable[[bytes, str, dict[str, list[str]]], Any] | None = None) -> Any:
        """Tika's ``(xhtml, metadata)`` for ``data``; with ``then``, what
        ``then(data, xhtml, metadata)`` returned in the child."""
        if self._aborted:
            raise ExtractionAborted(ABORTED_MESSAGE)
        proc = self._proc
        if proc is not None and self._served >= self._recycle_after:
            self.stats.recycles += 1
            self.close()
            proc = None
        if proc is None or proc.poll() is not None:
            self.close()
            proc = self._start()
        assert proc.stdin is not None and proc.stdout is not None
        self._served += 1
        self.stats.documents += 1
        temp_files: set[str] = set()
        try:
            _write_message(proc.stdin, (data, filename, self._cpu_limit_s, then))
            reply = _read_message(proc.stdout.fileno(), time.monotonic() + self._timeout_s,
                                  self._poll_s, self._watch(proc.pid, temp_files))
        except ExtractionTimeout:
            self.stats.timeouts += 1
            self._kill(temp_files)
            raise ExtractionTimeout(
                f"extraction did not finish within {self._timeout_s:g} s; "
                "the extraction process was killed"
            ) from None
        except _OverMemory as over:
            raise self._killed_over_memory(over.rss, temp_files) from None
        except (ExtractorCrashed, BrokenPipeError) as exc:
            if self._aborted:  # killed by ``abort``: not the document's doing, and no
                self._kill(temp_files)  # need to ask the guard (up to 1 s) who killed it
                raise ExtractionAborted(ABORTED_MESSAGE) from None
            guard = process_guard() if self._memory_limit else None
            if guard is not None and (rss := guard.killed(proc.pid)) is not None:
                raise self._killed_over_memory(rss, temp_files) from None
            self.stats.crashes += 1
            code = self._kill(temp_files)
            raise ExtractorCrashed(
                f"extraction process crashed ({describe_exit(code)}) on this document; "
                "a fresh one takes the next document"
            ) from exc
        self._after_document(proc.pid)
        status, payload = reply
        if status == "ok":
            return payload
        if status == "raised":  # an exception of the ``then`` step, as it was raised
            raise payload
        error_cls, message = payload

        # The child's own exception type, so the document's error (and whether it is
        # transient: transforms/errors.py) is the real one; anything else is Tika's.
        raise CHILD_ERRORS.get(error_cls, ExtractionError)(message)

    def _killed_over_memory(self, rss: int, temp_files: set[str]
                            ) -> ExtractionMemoryExceeded:
        """The child passed its cap (seen by the watch or killed by the guard)."""
        self.stats.memory_kills += 1
        self.stats.peak_rss_bytes = max(self.stats.peak_rss_bytes, rss)
        self._kill(temp_files)
        # The measured size goes to the log, not into the message: the message becomes the
        # document's error row, which must not change from one run to the next (the size
        # sampled at the kill varies by a few MiB).
        logging.getLogger(__name__).info("extraction process killed at %.0f MiB", rss / MIB)
        return ExtractionMemoryExceeded(
            f"extraction went over the {(self._memory_limit or 0) / MIB:,.0f} MiB cap "
            "(--extract-memory-mb); the extraction process was killed")

    def _forget(self, pid: int) -> None:
        if (guard := process_guard(start=False)) is not None:
            guard.forget(pid)

    def _after_document(self, pid: int) -> None:
        """Recycle a child that kept much of its peak: the next document gets a small one."""
        rss = resident_bytes(pid)
        if rss is None:
            return
        self.stats.peak_rss_bytes = max(self.stats.peak_rss_bytes, rss)
        if self._memory_limit and rss > self._memory_limit // 2:
            self.stats.recycles += 1
            self.close()

    def abort(self) -> None:
        """The run was interrupted (from any thread): kill the child, so a document in
        flight fails at once instead of being waited for, and start no other one: a
        document sent after this fails at once (``ExtractionAborted``)."""
        with self._start_lock:
            self._aborted = True
            proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.kill()

    def _kill(self, temp_files: set[str]) -> int | None:
        """Kill the child mid-document and delete the Tika temp files it held."""
        proc, self._proc = self._proc, None
        if proc is None:
            return None
        if proc.poll() is None:
            temp_files.update(open_tika_temp_files(proc.pid))
            proc.kill()
        code = proc.wait()
        self._forget(proc.pid)
        _close_pipes(proc)
        for path in sorted(temp_files):
            try:
                os.unlink(path)
            except FileNotFoundError:  # Tika got to delete it after all
                continue
            self.stats.temp_files_removed.append(path)
        return code

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            if proc.stdin is not None:
                proc.stdin.close()  # the child exits on end of input
            proc.wait(timeout=5)
        except (subprocess.TimeoutExpired, OSError):
            proc.kill()
            proc.wait()
        self._forget(proc.pid)
        _close_pipes(proc)


# What Tika, PDFBox and pdfminer.six print on a child's stderr ("Could not get FontBBox from font
# descriptor …", dozens a run over real PDFs) is a library's noise to someone running
# ragbeam, not the run's: it goes to this logger at info level (shown with -vv).
CHILD_LOGGER = "tika"


def _log_child_output(stream: BinaryIO, pid: int) -> None:
    """Forward a child's stderr, line by line, until it exits (its reader thread)."""
    log = logging.getLogger(CHILD_LOGGER)
    with contextlib.suppress(OSError, ValueError), stream:
        for line in iter(stream.readline, b""):
            if text := line.decode("utf-8", "replace").rstrip():
                log.info("extraction process %d: %s", pid, text)


def _close_pipes(proc: subprocess.Popen[bytes]) -> None:
    """Close a dead child's pipes. A request the child died before reading is still
    in stdin's buffer, and closing flushes it: that broken pipe says nothing new."""
    for stream in (proc.stdin, proc.stdout):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()


class ExtractionPool:
    """At most ``size`` isolated extraction children for the threads of one process.

    ``submit(fn)`` runs ``fn(extractor)`` on a free child's ``IsolatedExtractor``
    in one of ``size`` pool threads (each child serves one document at a time)
    and returns its future; ``run(fn)`` does the same in the calling thread.
    Children start on first use, so a pool larger than the work costs nothing.
    """

    def __init__(self, backend_spec: tuple[str, dict[str, Any]], size: int,
                 timeout_s: float = 60.0, memory_limit_bytes: int | None = None,
                 recycle_after: int = 500, cpu_limit_s: float | None = None) -> None:
        if size < 1:
            raise ValueError("an extraction pool needs at least one process")
        self.size = size
        self._extractors = [
            IsolatedExtractor(backend_spec, timeout_s=timeout_s, recycle_after=recycle_after,
                              memory_limit_bytes=memory_limit_bytes, cpu_limit_s=cpu_limit_s)
            for _ in range(size)
        ]
        self._idle: queue.SimpleQueue[IsolatedExtractor] = queue.SimpleQueue()
        for extractor in self._extractors:
            self._idle.put(extractor)
        # Admitted = queued or running. Released when a call ends, not when its
        # result is collected, so a blocked submitter never waits on itself.
        self._admitted = threading.BoundedSemaphore(2 * size)
        self._executor = ThreadPoolExecutor(size, thread_name_prefix="ragbeam-extract")
        self._start_lock = threading.Lock()
        self._started = False
        self._closed = False
        self._aborted = threading.Event()
        with _open_pools_lock:
            _open_pools.add(self)

    def start(self) -> None:
        """Start every child now, without waiting for them to be ready: a child
        boots (Python, iscc-tika) while the caller goes on, not on the first document.

        Once per pool: each user calls it before it submits anything, and a second
        caller waits for the first, so no child is started twice or under a call.
        """
        with self._start_lock:
            if not self._started:
                for extractor in self._extractors:
                    extractor.start()
                self._started = True

    def run(self, fn: Callable[[IsolatedExtractor], T]) -> T:
        extractor = self._idle.get()  # blocks until a child is free
        try:
            return fn(extractor)
        finally:
            self._idle.put(extractor)

    def submit(self, fn: Callable[[IsolatedExtractor], T]) -> Future[T]:
        # Waits for room, but not past an abort: the documents that hold the room may
        # never run (cancelled), and a caller that waits here forever holds up whoever
        # joins it (the early start's feeder, joined by an interrupted run).
        while not self._admitted.acquire(timeout=ADMISSION_POLL_S):
            if self._aborted.is_set():
                raise ExtractionAborted(ABORTED_MESSAGE)
        try:
            if self._aborted.is_set():
                raise ExtractionAborted(ABORTED_MESSAGE)
            future = self._executor.submit(self._run_admitted, fn)
        except BaseException:
            self._admitted.release()
            raise
        # A call cancelled before it ran (``abort``, a torn-down bundle) never reaches
        # ``_run_admitted``'s release: its room is given back here, once.
        future.add_done_callback(self._release_if_cancelled)
        return future

    def _release_if_cancelled(self, future: Future[Any]) -> None:
        if future.cancelled():
            self._admitted.release()

    def _run_admitted(self, fn: Callable[[IsolatedExtractor], T]) -> T:
        try:
            return self.run(fn)
        finally:
            self._admitted.release()

    def stats(self) -> ExtractorStats:
        """Everything the children went through, summed (peak RSS: the largest)."""
        total = ExtractorStats()
        for e in self._extractors:
            s = e.stats
            total.documents += s.documents
            total.starts += s.starts
            total.timeouts += s.timeouts
            total.crashes += s.crashes
            total.memory_kills += s.memory_kills
            total.recycles += s.recycles
            total.peak_rss_bytes = max(total.peak_rss_bytes, s.peak_rss_bytes)
            total.temp_files_removed.extend(s.temp_files_removed)
        return total

    def pids(self) -> list[int]:
        """Children alive now."""
        return [pid for e in self._extractors if (pid := e.pid) is not None]

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        # Lets documents in flight finish; an interrupt meanwhile (``abort_all_pools``)
        # still reaches this pool, which stays in ``_open_pools`` until it is closed.
        self._executor.shutdown(wait=True)
        for extractor in self._extractors:
            extractor.close()
        with _open_pools_lock:
            _open_pools.discard(self)

    def abort(self) -> None:
        """Interrupted: queued documents are dropped and the children killed now, so
        no thread waits for a document in flight (``close`` lets them finish); from
        then on no child starts and ``submit`` refuses at once."""
        self._aborted.set()
        self._executor.shutdown(wait=False, cancel_futures=True)
        for extractor in self._extractors:
            extractor.abort()


_pools_lock = threading.Lock()
_pools: dict[Hashable, tuple[ExtractionPool, int]] = {}
# Every pool made and not yet closed, registered in ``_pools`` or not: a pool whose last
# user released it is out of ``_pools`` while its ``close`` waits for the documents in
# flight, and an interrupt that comes then must stop it too (``abort_all_pools``).
# (Its own lock: ``acquire_pool`` makes a pool under ``_pools_lock``.)
_open_pools: weakref.WeakSet[ExtractionPool] = weakref.WeakSet()
_open_pools_lock = threading.Lock()


def acquire_pool(key: Hashable, make: Callable[[], ExtractionPool]) -> ExtractionPool:
    """This process's pool for ``key`` (the settings it was made with: the Extract
    stage and the early start key theirs by their ``ExtractionSettings``,
    ``settings.py``), made on first use."""
    with _pools_lock:
        pool, users = _pools.get(key, (None, 0))
        if pool is None:
            pool = make()
        _pools[key] = (pool, users + 1)
        return pool


def release_pool(pool: ExtractionPool) -> None:
    """One user fewer; the last one closes the pool (its children exit)."""
    with _pools_lock:
        for key, (known, users) in list(_pools.items()):
            if known is pool:
                if users > 1:
                    _pools[key] = (known, users - 1)
                    return
                del _pools[key]
                break
    pool.close()


@atexit.register
def _close_all_pools() -> None:
    """A runner that never tore its DoFns down still leaves no children behind."""
    with _pools_lock:
        pools = [pool for pool, _ in _pools.values()]
        _pools.clear()
    for pool in pools:
        pool.close()


def abort_all_pools() -> None:
    """Interrupted (SIGINT, SIGTERM): every pool of this process stops now (``abort``),
    including one its last user is closing. The signal's watcher thread calls this
    when the interpreter lets it run; on a loaded machine the main thread may have
    taken the signal first and, unwinding, released the pool: its ``close`` would
    then wait for the document in flight (the hang file's whole time limit, and the
    queued documents after it) had this looked at the registered pools only."""
    with _open_pools_lock:
        pools = list(_open_pools)
    for pool in pools:
        pool.abort()


def _limit_cpu_from_now(seconds: float) -> None:
    """SIGXCPU (which terminates) after ``seconds`` more CPU time, kernel-enforced.

    Only the soft limit moves, so it can be raised again for the next document.
    """
    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft = int(usage.ru_utime + usage.ru_stime + seconds) + 1
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def _child_main() -> None:
    protocol_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # anything native code prints goes to stderr, not into the protocol
    stdin_fd = sys.stdin.fileno()
    kind, kwargs = _read_message(stdin_fd, None)
    # OCR pages are left to the parent (document.extract_fetched), which spreads
    # them over the pool's cores and gives each its own time limit.
    # Nothing else runs here while Tika works: Tika's Tesseract checks may go without
    # Tesseract (EmbeddedTika's ``hide_tesseract``).
    backend = (EmbeddedTika(**kwargs, defer_ocr=True, hide_tesseract=True)
               if kind == "embedded" else TikaServer(**kwargs))
    while True:
        try:
            data, filename, cpu_limit_s, then = _read_message(stdin_fd, None)
        except ExtractorCrashed:  # parent closed our stdin: done
            # Every reply is written and flushed, and the parent removes Tika's temp
            # files: skip the interpreter's and the Tika VM's teardown, which the
            # parent would wait for (64 -> 16 ms per child, measured).
            protocol_out.flush()
            os._exit(0)
        _limit_cpu_from_now(cpu_limit_s)
        try:
            xhtml, metadata = backend.extract(data, filename)
            reply: tuple[str, Any] = ("ok", (xhtml, metadata))
        except MemoryError as exc:
            reply = ("error", ("MemoryError", str(exc) or "out of memory"))
        except tuple(CHILD_ERRORS.values()) as exc:
            reply = ("error", (type(exc).__name__, str(exc)))
        except Exception as exc:
            reply = ("error", (type(exc).__name__, f"{type(exc).__name__}: {exc}"))
        if then is not None and reply[0] == "ok":
            reply = _run_then(then, data, xhtml, metadata)
        _write_message(protocol_out, reply)


def _run_then(then: Callable[..., Any], data: bytes, xhtml: str,
              metadata: dict[str, list[str]]) -> tuple[str, Any]:
    """The caller's step on Tika's answer, in the child; its exception goes back as is."""
    try:
        return ("ok", then(data, xhtml, metadata))
    except Exception as exc:
        try:
            pickle.loads(pickle.dumps(exc, protocol=pickle.HIGHEST_PROTOCOL))
        except Exception:  # an exception that does not survive pickling: name and message
            return ("error", (type(exc).__name__, f"{type(exc).__name__}: {exc}"))
        return ("raised", exc)


if __name__ == "__main__":
    _child_main()
