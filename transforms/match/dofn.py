"""Match stage: patterns → ``SourceFile``s (the Read stage is ``transforms/read``)."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator

import apache_beam as beam
from apache_beam.metrics import Metrics

from ragbeam.transforms import progress
from ragbeam.transforms.ids import DOC_IDS_RELATIVE, doc_id_for, doc_key
from ragbeam.transforms.match.patterns import (
    BROKEN_LINK,
    DIRECTORY_LOOP,
    InputPattern,
    below_any,
    id_root,
    input_patterns,
    local_links,
    matching_files,
    passes_filters,
)
from ragbeam.transforms.types import SourceFile


class BrokenLinkError(Exception):
    """A symbolic link whose target does not exist (or a link loop)."""


def broken_links(pattern: InputPattern) -> Iterator[str]:
    """Local symbolic links under ``pattern.root`` that match the pattern but lead
    nowhere (dangling, a loop of links, or a directory link that leads back to a
    folder on its own path). Beam's local listing skips them silently; they are
    listed here so that each becomes an error row instead of vanishing."""
    for kind, path, _, _ in local_links(pattern):
        if kind in (BROKEN_LINK, DIRECTORY_LOOP):
            yield path


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
                 doc_ids: str = DOC_IDS_RELATIVE, own: tuple[str, ...] = ()) -> None:
        super().__init__()
        self._patterns = input_patterns(inputs)
        self._id_root = id_root(self._patterns)
        self._include = include
        self._exclude = exclude
        self._namespace = namespace
        self._doc_ids = doc_ids
        self._own = own  # ragbeam's own folders (patterns.own_folders)

    def expand(self, pbegin: beam.pvalue.PBegin) -> beam.PCollection[SourceFile]:
        patterns = self._patterns
        include, exclude, own = self._include, self._exclude, self._own
        namespace, mode, root = self._namespace, self._doc_ids, self._id_root
        counter = Metrics.counter("ragbeam", "files_matched")

        def listed(_: bytes) -> Iterator[tuple[str, tuple[int, float, float]]]:
            """``(path, (size, modified, listed))`` of every file that passes the filters."""
            for pattern in patterns:
                listed_at = time.time()
                for match in matching_files(pattern, include, exclude, own=own):
                    yield match.path, (int(match.size_in_bytes),
                                       float(match.last_updated_in_seconds or 0.0), listed_at)
                for path in broken_links(pattern):
                    if passes_filters(path, include, exclude) and not below_any(path, own):
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
