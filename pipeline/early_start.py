"""When ``ragbeam run`` starts extracting before Beam is imported.

Importing Beam, building the graph and starting the runner take one to two
seconds, during which the Extract stage's children could already work
(``transforms/extract/early.py``). ``start_early_extraction`` runs first in
``cli.main``, before anything imports Beam, and starts them when the run is
one whose Extract stage will certainly use this process's pool with the same
settings: ``ragbeam run`` with no Beam options (the default local runner, in
this process), a first run (an incremental run extracts only what changed),
local inputs, embedded Tika. Anything else, or any doubt (an option it cannot parse, a bad
config), and it does nothing: the CLI then reports problems as always.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import glob
import io
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ragbeam.transforms.extract import early
from ragbeam.transforms.extract.document import extract_fetched
from ragbeam.transforms.extract.guards import ArchiveLimits
from ragbeam.transforms.extract.isolation import (
    ExtractionPool,
    acquire_extraction_pool,
    available_cores,
    release_pool,
)
from ragbeam.transforms.ids import canonical_uri, doc_id_for, doc_key
from ragbeam.transforms.match.patterns import InputPattern, expand_input, id_root, passes_filters
from ragbeam.transforms.types import SourceFile


@dataclass
class EarlyStart:
    extraction: early.EarlyExtraction
    pool: ExtractionPool

    def close(self) -> None:
        early.unregister(self.extraction)
        self.extraction.close()
        release_pool(self.pool)


def start_early_extraction(argv: Sequence[str]) -> EarlyStart | None:
    """Start extracting ``ragbeam run``'s inputs now, if the run is one that will
    take the results (see the module's doc); else None. Never raises."""
    try:
        return _start(list(argv))
    except (Exception, SystemExit):  # a doubt (argparse exits): the run goes on as if
        return None  # this had not been tried, and the CLI reports what is wrong


def _start(argv: list[str]) -> EarlyStart | None:
    from ragbeam.pipeline.settings import (
        RunSettings,
        add_run_arguments,
        beam_args_from,
        load_settings,
        run_config,
    )

    if not argv or argv[0] != "run":
        return None
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    add_run_arguments(parser)
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("-v", "--verbose", action="count", default=0)
    parser.add_argument("-q", "--quiet", action="store_true")
    parser.add_argument("--log-level")
    with contextlib.redirect_stderr(io.StringIO()):  # the CLI reports bad arguments
        args, beam_args = parser.parse_known_args(argv[1:])
    if beam_args or args.dry_run:
        return None  # another runner or running mode, or not a run at all
    given = {k: v for k, v in vars(args).items() if k in RunSettings.model_fields}
    settings = load_settings(given, getattr(args, "config", None))
    if beam_args_from(settings):
        return None
    config = run_config(settings)
    if config.previous or config.extract.tika_server:
        # An incremental run extracts only what changed; a Tika server is checked by
        # the preflight first (a server that is down must not hold up exit 2 with
        # retries).
        return None
    inputs = [canonical_uri(raw) for raw in config.match.inputs]
    if any("://" in uri or not (glob.has_magic(uri) or os.path.exists(uri)) for uri in inputs):
        return None  # remote, or missing (the CLI says so)
    # Listed lazily, by the feeder thread: a large tree is never walked up front, and
    # feeding stops when the stage starts.
    sources = _local_sources(config.match.inputs, config.match.include, config.match.exclude,
                             config.ids.namespace, config.ids.mode)
    ex = config.extract
    size = ex.processes or available_cores()
    key, pool = acquire_extraction_pool(ex.backend_spec, size, ex.timeout_s,
                                        ex.memory_limit_bytes)
    pool.start()
    # The Extract stage's own arguments (pipeline/graph.py, extract_dofn): it takes
    # the results only where its settings are equal to these.
    limits = ArchiveLimits()
    extract = functools.partial(extract_fetched, in_child=size >= 2,
                                max_text_chars=ex.max_text_chars, clean=config.clean,
                                archive_limits=limits)
    extraction = early.EarlyExtraction(
        pool, sources, extract, early.result_settings(size, ex.max_text_chars, config.clean,
                                                      limits),
        max_file_bytes=config.match.max_file_bytes)
    early.register(key, extraction)
    extraction.start()
    return EarlyStart(extraction, pool)


def _local_sources(inputs: Sequence[str], include: tuple[str, ...], exclude: tuple[str, ...],
                   namespace: str, mode: str) -> Iterator[SourceFile]:
    """The inputs' files as the Match stage will name them, by a local listing (no
    Beam), lazily. A file listed here that Match does not list, or one named
    differently, is only extracted once more, never wrong."""
    patterns = sorted({expand_input(raw) for raw in inputs}, key=lambda p: (p.pattern, p.root))
    root = id_root(patterns)
    seen: set[str] = set()
    for pattern in patterns:
        for path in _listed(pattern):
            if path in seen or not passes_filters(path, include, exclude):
                continue
            seen.add(path)
            try:
                stat = os.stat(path)
            except OSError:
                continue  # gone, or a broken link: the Read stage reports it
            yield SourceFile(uri=path, doc_id=doc_id_for(doc_key(path, root, mode), namespace),
                             size_bytes=stat.st_size, modified=stat.st_mtime)


def _listed(pattern: InputPattern) -> Iterator[str]:
    if pattern.pattern == os.path.join(pattern.root, "**") and os.path.isdir(pattern.root):
        for folder, folders, names in os.walk(pattern.root):
            folders.sort()
            yield from (os.path.join(folder, name) for name in sorted(names))
    elif glob.has_magic(pattern.pattern):
        yield from glob.iglob(pattern.pattern, recursive=True)
    else:
        yield pattern.pattern
