"""Read stage: ``SourceFile`` → ``FetchedFile`` (its bytes and their hash).

``ReadFile`` reads what the Match stage listed; ``FetchBytes`` takes ``(uri, bytes)``
pairs a caller already holds (``IngestDocuments`` applied to a PCollection). Both
refuse, as ``read`` failures, files over ``--max-file-bytes`` and empty ones.
"""

from __future__ import annotations

import os
import stat

import apache_beam as beam
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics import Metrics

from ragbeam.transforms import progress
from ragbeam.transforms.ids import doc_id_for, sha256_hex
from ragbeam.transforms.match.dofn import BrokenLinkError
from ragbeam.transforms.read.naming import broken_link_reason
from ragbeam.transforms.types import FAILURES, Failure, FetchedFile, SourceFile, Stage

EMPTY_HASH = sha256_hex(b"")


class FileTooLargeError(Exception):
    """The file is over ``--max-file-bytes``: refused before (or while) reading it."""


class EmptyFileError(Exception):
    """The file has no bytes at all: there is nothing to extract."""


class NotARegularFileError(Exception):
    """A FIFO, socket or device matched by a pattern: opening it could block forever."""


def check_regular_file(uri: str) -> None:
    """Local paths only; remote filesystems have no such things."""
    if "://" in uri:
        return
    mode = os.stat(uri).st_mode
    if not stat.S_ISREG(mode):
        kind = ("named pipe (FIFO)" if stat.S_ISFIFO(mode) else "socket" if stat.S_ISSOCK(mode)
                else "device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "special file")
        raise NotARegularFileError(f"not a regular file but a {kind}; not read")


class ReadFile(beam.DoFn):
    """Read a file's bytes (never past ``max_bytes``) and hash them.

    The size is checked twice: against the size the match reported (nothing is
    read), and while reading (a file that grew since is read no further than
    one byte past the limit), so memory never holds more than ``max_bytes + 1``.
    """

    def __init__(self, max_bytes: int) -> None:
        self._max_bytes = max_bytes
        self._bytes_read = Metrics.counter("ragbeam", "bytes_read")

    def process(self, source: SourceFile):
        try:
            if source.size_bytes < 0:
                raise BrokenLinkError(broken_link_reason(source.uri))
            if source.size_bytes > self._max_bytes:
                raise FileTooLargeError(
                    f"file is {source.size_bytes:,} bytes, over the --max-file-bytes limit "
                    f"of {self._max_bytes:,}; not read"
                )
            check_regular_file(source.uri)
            # UNCOMPRESSED: a .gz input is a document to extract, not a stream to inflate.
            with FileSystems.open(source.uri, compression_type=CompressionTypes.UNCOMPRESSED) as f:
                data = f.read(self._max_bytes + 1)
            if len(data) > self._max_bytes:
                raise FileTooLargeError(f"file grew past the --max-file-bytes limit of "
                                        f"{self._max_bytes:,} while being read")
            if not data:
                raise EmptyFileError("file is empty (0 bytes)")
        except Exception as exc:
            # An empty file's bytes are known: its row records their hash, so the next
            # incremental run sees the same (empty) file and does not redo it.
            known = EMPTY_HASH if isinstance(exc, EmptyFileError) else None
            yield beam.pvalue.TaggedOutput(
                FAILURES, Failure(source, Stage.READ, type(exc).__name__, str(exc),
                                  content_hash=known)
            )
            return
        self._bytes_read.inc(len(data))
        yield FetchedFile(source=source, data=data, content_hash=sha256_hex(data))


class FetchBytes(beam.DoFn):
    """``(uri, bytes)`` pairs a caller already holds → ``FetchedFile``s, with the same
    checks as ``ReadFile`` (size limit, empty). The doc id is the URI's (and the
    namespace's): there is no input root to be relative to."""

    def __init__(self, max_bytes: int, namespace: str = "") -> None:
        self._max_bytes = max_bytes
        self._namespace = namespace

    def process(self, element: tuple[str, bytes]):
        uri, data = element
        source = SourceFile(uri=uri, doc_id=doc_id_for(uri, self._namespace),
                            size_bytes=len(data))
        progress.tick(progress.MATCHED)
        error: Exception | None = None
        if len(data) > self._max_bytes:
            error = FileTooLargeError(f"{len(data):,} bytes, over the --max-file-bytes limit "
                                      f"of {self._max_bytes:,}")
        elif not data:
            error = EmptyFileError("file is empty (0 bytes)")
        if error is not None:
            yield beam.pvalue.TaggedOutput(
                FAILURES, Failure(source, Stage.READ, type(error).__name__, str(error),
                                  content_hash=EMPTY_HASH if not data else None))
            return
        yield FetchedFile(source=source, data=bytes(data), content_hash=sha256_hex(data))
