"""Extraction that starts before the pipeline exists (local runs of ``ragbeam run``).

A local run spends its first one to two seconds importing Beam, building the
graph and starting the runner: on a small corpus a third of the whole run,
while the cores that will extract stay idle. So ``ragbeam run`` on the local
default runner, for a first run over local inputs, starts the Extract stage's
pool first (the same pool: the same ``ExtractionSettings``, ``settings.py``)
and hands its children the input files one by one while the rest starts up
(``pipeline/early_start.py`` decides when). When the Extract stage sets up, feeding
stops, and for each file the stage takes the result from here instead of
extracting the file again, but only for the same path with the same bytes
(sha256) under equal ``ExtractionSettings`` (one value, which the stage extracts
with too); anything else is extracted as usual. Same
call, same bytes, same settings: the same document, only sooner. Every guard
(time limit, memory cap, archive check, text limit) applies as it would in the
stage.

Bounded: feeding stops when any Extract stage of this process sets up, or
after ``max_bytes`` of input. A result the stage never asks for (a run that
stops at a preflight check) is dropped with ``close``.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
import time
from collections.abc import Iterable
from concurrent.futures import Future
from typing import Any

from ragbeam.transforms.extract.document import with_source
from ragbeam.transforms.extract.isolation import MIB, ExtractionPool, IsolatedExtractor
from ragbeam.transforms.extract.settings import ExtractionSettings
from ragbeam.transforms.ids import sha256_hex
from ragbeam.transforms.types import FetchedFile, SourceFile

DEFAULT_MAX_BYTES = 256 * MIB  # input read ahead at most, per run


class EarlyExtraction:
    """Extract ``sources`` (read lazily, in the feeder thread) through ``pool`` in the
    background until ``stop``, each with ``settings.extract``, as the Extract stage
    would; that stage takes results only when its settings are equal to these.
    """

    def __init__(self, pool: ExtractionPool, sources: Iterable[SourceFile],
                 settings: ExtractionSettings, max_file_bytes: int,
                 max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.pool = pool
        self.settings = settings
        self._sources = sources  # iterated by the feeder thread only
        self._max_file_bytes = max_file_bytes
        self._max_bytes = max_bytes
        self._lock = threading.Lock()
        self._results: dict[str, tuple[str, Future[Any]]] = {}  # uri → (sha256, future)
        self._stopped = threading.Event()
        self._feeder: threading.Thread | None = None
        self.submitted = 0
        self.taken = 0

    def start(self) -> None:
        self._feeder = threading.Thread(target=self._feed, name="ragbeam-early-extract",
                                        daemon=True)
        self._feeder.start()

    def _feed(self) -> None:
        try:
            self._feed_until_stopped()
        except Exception:  # a listing or pool problem: the stage extracts what is left
            logging.getLogger(__name__).debug("early extraction stopped", exc_info=True)

    def _feed_until_stopped(self) -> None:
        budget = self._max_bytes
        for source in self._sources:
            if self._stopped.is_set():
                return
            data = self._read(source)
            if data is None:
                continue  # the stage will read it, and report what is wrong with it
            if len(data) > budget:
                return
            budget -= len(data)
            fetched = FetchedFile(source, data, sha256_hex(data))
            future = self.pool.submit(lambda extractor, f=fetched: self._timed(f, extractor))
            with self._lock:
                self._results[source.uri] = (fetched.content_hash, future)
                self.submitted += 1

    def _read(self, source: SourceFile) -> bytes | None:
        """The file's bytes, or None for anything the Read stage would refuse."""
        try:
            if not stat.S_ISREG(os.stat(source.uri).st_mode):
                return None
            with open(source.uri, "rb") as f:
                data = f.read(self._max_file_bytes + 1)
        except OSError:
            return None
        return data if 0 < len(data) <= self._max_file_bytes else None

    def _timed(self, fetched: FetchedFile, extractor: IsolatedExtractor) -> tuple[Any, float]:
        started = time.perf_counter()
        return self.settings.extract(fetched, extractor), time.perf_counter() - started

    def stop(self) -> None:
        """No more files: the pipeline's Extract stage is starting."""
        self._stopped.set()

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    def take(self, fetched: FetchedFile) -> Future[tuple[Any, float]] | None:
        """The result for ``fetched`` (done or still running), if this extracted the
        same file with the same bytes; each result is taken once."""
        with self._lock:
            entry = self._results.pop(fetched.source.uri, None)
            if entry is None or entry[0] != fetched.content_hash:
                return None
            self.taken += 1
        retargeted: Future[tuple[Any, float]] = Future()

        def hand_on(done: Future[tuple[Any, float]]) -> None:
            if done.cancelled():
                # Dropped before it ran (an interrupted run's pool, ``close``): so is
                # the stage's, or a stage waiting for it would wait forever (this
                # callback raising CancelledError would leave it pending).
                retargeted.cancel()
                return
            if not retargeted.set_running_or_notify_cancel():
                return  # the stage gave it up (a torn-down bundle): nobody waits for it
            if (exc := done.exception()) is not None:
                retargeted.set_exception(exc)
            else:
                document, seconds = done.result()
                retargeted.set_result((with_source(document, fetched.source), seconds))

        entry[1].add_done_callback(hand_on)
        return retargeted

    def join(self) -> None:
        """Wait until every file is submitted (or feeding stopped)."""
        if self._feeder is not None:
            self._feeder.join()

    def close(self) -> None:
        """Stop feeding and drop what nobody took (the pool's owner closes the pool)."""
        self.stop()
        self.join()
        with self._lock:
            for _, future in self._results.values():
                future.cancel()
            self._results.clear()


_registry_lock = threading.Lock()
_registry: dict[ExtractionSettings, EarlyExtraction] = {}


def register(early: EarlyExtraction) -> None:
    """Offer ``early`` to the Extract stage with the same settings."""
    with _registry_lock:
        _registry[early.settings] = early


def unregister(early: EarlyExtraction) -> None:
    with _registry_lock:
        for key, known in list(_registry.items()):
            if known is early:
                del _registry[key]


def stage_started(settings: ExtractionSettings) -> EarlyExtraction | None:
    """An Extract stage of this process is setting up: every early extraction stops
    feeding; the one with equal settings (so the same pool), if any, is returned to
    take from."""
    with _registry_lock:
        for early in _registry.values():
            early.stop()
        return _registry.get(settings)
