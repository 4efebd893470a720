"""Run a Tika backend in a child process, with a per-document timeout.

iscc-tika is native code running in-process: a malformed file can make it spin
forever (``shared/corpus/bad/fuzzed-hang.one`` never returns) or crash the
process. A thread cannot be interrupted inside native code, so each extractor
owns one child Python process that does the extraction. The parent sends
``(data, filename)`` and waits at most ``timeout_s``; on a timeout it kills the
child, and on a crash it notices the closed pipe. Either way that document gets
an error and the next one starts a fresh child. The child is also recycled
every ``recycle_after`` documents to bound slow leaks in native memory.

Protocol: length-prefixed pickles over the child's stdin and a dedicated pipe
(the child's original stdout, which it moves aside so stray native output
cannot corrupt the stream).
"""

from __future__ import annotations

import os
import pickle
import select
import struct
import subprocess
import sys
import time
from typing import Any, BinaryIO

_HEADER = struct.Struct("!Q")


class ExtractionTimeout(Exception):
    """Extraction took longer than the per-document limit."""


class ExtractorCrashed(Exception):
    """The extraction process died while working on a document."""


def _write_message(stream: BinaryIO, obj: Any) -> None:
    payload = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(payload)))
    stream.write(payload)
    stream.flush()


def _read_exactly(fd: int, n: int, deadline: float | None) -> bytes:
    chunks: list[bytes] = []
    remaining = n
    while remaining:
        if deadline is not None:
            wait = deadline - time.monotonic()
            if wait <= 0:
                raise ExtractionTimeout
            ready, _, _ = select.select([fd], [], [], wait)
            if not ready:
                raise ExtractionTimeout
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            raise ExtractorCrashed("extraction process exited")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def _read_message(fd: int, deadline: float | None) -> Any:
    (size,) = _HEADER.unpack(_read_exactly(fd, _HEADER.size, deadline))
    return pickle.loads(_read_exactly(fd, size, deadline))


class IsolatedExtractor:
    """Extract documents in a child process that can be killed.

    ``backend_spec`` names the backend the child builds once at start:
    ``("embedded", {"max_string_chars": N})`` or ``("server", {"url": U})``.
    """

    def __init__(
        self,
        backend_spec: tuple[str, dict[str, Any]],
        timeout_s: float = 60.0,
        recycle_after: int = 500,
        memory_limit_bytes: int | None = None,
    ) -> None:
        self._spec = backend_spec
        self._timeout_s = timeout_s
        self._recycle_after = recycle_after
        self._memory_limit = memory_limit_bytes
        self._proc: subprocess.Popen[bytes] | None = None
        self._served = 0
        self.restarts = 0

    def _start(self) -> subprocess.Popen[bytes]:
        env = dict(os.environ)
        env.setdefault("OMP_NUM_THREADS", "1")
        limit = self._memory_limit

        def limit_memory() -> None:  # runs in the child before exec
            if limit:
                import resource

                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

        proc = subprocess.Popen(
            [sys.executable, "-m", "ragbeam.transforms.extract.isolation"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            preexec_fn=limit_memory if limit else None,
        )
        assert proc.stdin is not None
        _write_message(proc.stdin, self._spec)
        self._proc = proc
        self._served = 0
        return proc

    def extract(self, data: bytes, filename: str) -> tuple[str, dict[str, list[str]]]:
        proc = self._proc
        if proc is None or proc.poll() is not None or self._served >= self._recycle_after:
            self.close()
            proc = self._start()
        assert proc.stdin is not None and proc.stdout is not None
        self._served += 1
        try:
            _write_message(proc.stdin, (data, filename))
            reply = _read_message(proc.stdout.fileno(), time.monotonic() + self._timeout_s)
        except ExtractionTimeout:
            self._kill()
            raise ExtractionTimeout(
                f"extraction did not finish within {self._timeout_s:g} s; "
                "the extraction process was killed"
            ) from None
        except (ExtractorCrashed, BrokenPipeError) as exc:
            code = self._kill()
            raise ExtractorCrashed(
                f"extraction process died (exit code {code}) on this document"
            ) from exc
        status, payload = reply
        if status == "ok":
            return payload
        error_cls, message = payload
        from ragbeam.transforms.extract.backends import ExtractionError

        if error_cls == "MemoryError":
            raise MemoryError(message)
        if error_cls == "ConnectionError":
            raise ConnectionError(message)
        raise ExtractionError(message)

    def _kill(self) -> int | None:
        proc, self._proc = self._proc, None
        if proc is None:
            return None
        self.restarts += 1
        proc.kill()
        code = proc.wait()
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()
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
        if proc.stdout is not None:
            proc.stdout.close()


def _child_main() -> None:
    from ragbeam.transforms.extract.backends import EmbeddedTika, ExtractionError, TikaServer

    protocol_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # anything native code prints goes to stderr, not into the protocol
    stdin_fd = sys.stdin.fileno()
    kind, kwargs = _read_message(stdin_fd, None)
    backend = EmbeddedTika(**kwargs) if kind == "embedded" else TikaServer(**kwargs)
    while True:
        try:
            data, filename = _read_message(stdin_fd, None)
        except ExtractorCrashed:  # parent closed our stdin: done
            return
        try:
            reply: tuple[str, Any] = ("ok", backend.extract(data, filename))
        except ExtractionError as exc:
            reply = ("error", ("ExtractionError", str(exc)))
        except MemoryError as exc:
            reply = ("error", ("MemoryError", str(exc) or "out of memory"))
        except ConnectionError as exc:
            reply = ("error", ("ConnectionError", str(exc)))
        except Exception as exc:
            reply = ("error", (type(exc).__name__, f"{type(exc).__name__}: {exc}"))
        _write_message(protocol_out, reply)


if __name__ == "__main__":
    _child_main()
