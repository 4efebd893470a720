"""Match and Read stages: patterns → ``SourceFile`` → ``FetchedFile``."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable

import apache_beam as beam
from apache_beam.io import fileio
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics import Metrics

from ragbeam.transforms.ids import doc_id_for, sha256_hex
from ragbeam.transforms.match.patterns import expand_input, passes_filters
from ragbeam.transforms.types import Failure, FetchedFile, SourceFile, Stage

FAILURES = "failures"


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


class MatchInputs(beam.PTransform):
    """Every file matched by the input patterns, once, as a ``SourceFile``,
    spread over workers (the output of a shuffle keyed by path)."""

    def __init__(self, inputs: tuple[str, ...], include: tuple[str, ...] = (),
                 exclude: tuple[str, ...] = ()) -> None:
        super().__init__()
        self._patterns = sorted({expand_input(p) for p in inputs})
        self._include = include
        self._exclude = exclude

    def expand(self, pbegin: beam.pvalue.PBegin) -> beam.PCollection[SourceFile]:
        include, exclude = self._include, self._exclude
        counter = Metrics.counter("ragbeam", "files_matched")

        def to_source(path: str, sizes: Iterable[int]) -> SourceFile:
            counter.inc()
            return SourceFile(uri=path, doc_id=doc_id_for(path), size_bytes=next(iter(sizes)))

        return (
            pbegin
            | "Patterns" >> beam.Create(self._patterns)
            | "Match files" >> fileio.MatchAll(fileio.EmptyMatchTreatment.ALLOW)
            | "Path and size" >> beam.Map(lambda m: (m.path, int(m.size_in_bytes)))
            | "Include/exclude" >> beam.Filter(lambda ps: passes_filters(ps[0], include, exclude))
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
