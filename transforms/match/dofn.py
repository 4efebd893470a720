"""Match and Read stages: patterns → ``SourceFile`` → ``FetchedFile``."""

from __future__ import annotations

import os
import re
import stat
import time
from collections.abc import Iterable, Iterator

import apache_beam as beam
from apache_beam.io.filesystem import CompressionTypes, FileSystem
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics import Metrics

from ragbeam.transforms import progress
from ragbeam.transforms.ids import DOC_IDS_RELATIVE, doc_id_for, doc_key, sha256_hex
from ragbeam.transforms.match.patterns import (
    InputPattern,
    expand_input,
    id_root,
    passes_filters,
)
from ragbeam.transforms.types import FAILURES, Failure, FetchedFile, SourceFile, Stage


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


class BrokenLinkError(Exception):
    """A symbolic link whose target does not exist (or a link loop)."""


def broken_links(pattern: InputPattern) -> Iterator[str]:
    """Local symbolic links under ``pattern.root`` that match the pattern but lead
    nowhere. Beam's local listing skips them silently (it cannot stat them); they
    are listed here so that each becomes an error row instead of vanishing."""
    if "://" in pattern.pattern or not os.path.isdir(pattern.root):
        return
    matches = re.compile(FileSystem.translate_pattern(pattern.pattern)).match
    stack = [pattern.root]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)
            elif entry.is_symlink() and not os.path.exists(entry.path) and matches(entry.path):
                yield entry.path


class MatchInputs(beam.PTransform):
    """Every file matched by the input patterns, once, as a ``SourceFile``,
    spread over workers (the output of a shuffle keyed by path).

    A file's ``doc_id`` comes from its key (``ids.doc_key``: the path below the
    inputs' common root, ``patterns.id_root``, or the whole URI with
    ``doc_ids="absolute"``) and the namespace. A broken symbolic link is passed
    on with size -1, so that Read turns it into an error row.
    """

    def __init__(self, inputs: tuple[str, ...], include: tuple[str, ...] = (),
                 exclude: tuple[str, ...] = (), namespace: str = "",
                 doc_ids: str = DOC_IDS_RELATIVE) -> None:
        super().__init__()
        self._patterns = sorted({expand_input(p) for p in inputs},
                                key=lambda p: (p.pattern, p.root))
        self._id_root = id_root(self._patterns)
        self._include = include
        self._exclude = exclude
        self._namespace = namespace
        self._doc_ids = doc_ids

    def expand(self, pbegin: beam.pvalue.PBegin) -> beam.PCollection[SourceFile]:
        patterns = self._patterns
        include, exclude = self._include, self._exclude
        namespace, mode, root = self._namespace, self._doc_ids, self._id_root
        counter = Metrics.counter("ragbeam", "files_matched")

        def listed(_: bytes) -> Iterator[tuple[str, tuple[int, float, float]]]:
            """``(path, (size, modified, listed))`` of every file that passes the filters."""
            for pattern in patterns:
                listed_at = time.time()
                for match in pattern.match():
                    if passes_filters(match.path, include, exclude):
                        yield match.path, (int(match.size_in_bytes),
                                           float(match.last_updated_in_seconds or 0.0), listed_at)
                for path in broken_links(pattern):
                    if passes_filters(path, include, exclude):
                        yield path, (-1, 0.0, listed_at)

        def to_source(path: str, found: Iterable[tuple[int, float, float]]) -> SourceFile:
            counter.inc()
            progress.tick(progress.MATCHED)
            key = doc_key(path, root, mode)
            size, modified, listed_at = next(iter(found))
            return SourceFile(uri=path, doc_id=doc_id_for(key, namespace), size_bytes=size,
                              modified=modified, listed=listed_at)

        return (
            pbegin
            # One listing per pattern (Beam's own file systems), with the filters
            # applied, in one step: every transform costs Beam time at launch.
            | "Patterns" >> beam.Impulse()
            | "Match files" >> beam.FlatMap(listed)
            # One file matched by two patterns must still be one document. Grouping
            # by path also spreads the files over workers before the expensive
            # stages (a match arrives as one bundle): one shuffle does both.
            | "Once per file" >> beam.GroupByKey()
            | "Source file" >> beam.MapTuple(to_source)
        )


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
                raise BrokenLinkError("symbolic link to a file that does not exist; not read")
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
            yield beam.pvalue.TaggedOutput(
                FAILURES, Failure(source, Stage.READ, type(exc).__name__, str(exc))
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
                FAILURES, Failure(source, Stage.READ, type(error).__name__, str(error)))
            return
        yield FetchedFile(source=source, data=bytes(data), content_hash=sha256_hex(data))
