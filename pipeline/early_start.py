"""When ``ragbeam run`` starts extracting before Beam is imported.

Importing Beam, building the graph and starting the runner take one to two
seconds, during which the Extract stage's children could already work
(``transforms/extract/early.py``). ``start_early_extraction`` runs in ``ragbeam
run`` (``cli.py``) once its arguments are parsed, before anything imports Beam, and
starts them when the run is one whose Extract stage will certainly use this
process's pool with the same ``ExtractionSettings`` (``RunConfig.extraction_settings``,
the one value the stage extracts with too): no Beam options (the default local
runner, in this process), a first run (an incremental run extracts only what
changed), local inputs, embedded Tika. Anything else, or any doubt (a bad config),
and it does nothing: the run then reports problems as always.

``extraction_started_early`` is the same idea inside the run library
(``run.py``): on a local runner the Extract stage's pool boots while the graph is
built and the runner starts.
"""

from __future__ import annotations

import contextlib
import glob
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragbeam.pipeline.config import RunConfig
from ragbeam.pipeline.settings import RunSettings, beam_args_from, run_config
from ragbeam.transforms.cores import available_cores
from ragbeam.transforms.extract import early
from ragbeam.transforms.extract.isolation import ExtractionPool, release_pool
from ragbeam.transforms.ids import canonical_uri, doc_id_for, doc_key
from ragbeam.transforms.match.patterns import InputPattern, expand_input, id_root, passes_filters
from ragbeam.transforms.types import SourceFile

if TYPE_CHECKING:
    import apache_beam as beam


@dataclass
class EarlyStart:
    extraction: early.EarlyExtraction
    pool: ExtractionPool

    def close(self) -> None:
        early.unregister(self.extraction)
        self.extraction.close()
        release_pool(self.pool)


def start_early_extraction(settings: RunSettings, beam_args: Sequence[str]
                           ) -> EarlyStart | None:
    """Start extracting the inputs of the run ``settings`` and ``beam_args`` describe
    now, if the run is one that will take the results (see the module's doc); else
    None. Never raises."""
    try:
        return _start(settings, beam_args)
    except Exception:  # a doubt: the run goes on as if this had not been tried, and
        return None  # reports what is wrong itself


def _start(settings: RunSettings, beam_args: Sequence[str]) -> EarlyStart | None:
    if beam_args or beam_args_from(settings):
        return None  # another runner or running mode
    config = run_config(settings)
    if config.previous or config.extract.tika_server:
        # An incremental run extracts only what changed; a Tika server is checked by
        # the preflight first (a server that is down must not hold up exit 2 with
        # retries).
        return None
    inputs = [canonical_uri(raw) for raw in config.match.inputs]
    if any("://" in uri or not (glob.has_magic(uri) or os.path.exists(uri)) for uri in inputs):
        return None  # remote, or missing (the run says so)
    # Listed lazily, by the feeder thread: a large tree is never walked up front, and
    # feeding stops when the stage starts.
    sources = _local_sources(config.match.inputs, config.match.include, config.match.exclude,
                             config.ids.namespace, config.ids.mode)
    # The default local runner's pool size (runner.default_extract_processes), without
    # importing Beam to ask; were it to differ, the settings would too, and the stage
    # would extract everything itself.
    settings_now = config.extraction_settings(config.extract.processes or available_cores())
    _, pool = settings_now.acquire_pool()
    pool.start()
    extraction = early.EarlyExtraction(pool, sources, settings_now,
                                       max_file_bytes=config.match.max_file_bytes)
    early.register(extraction)
    extraction.start()
    return EarlyStart(extraction, pool)


@contextlib.contextmanager
def extraction_started_early(pipeline: beam.Pipeline, config: RunConfig) -> Iterator[None]:
    """When the runner works in this process, start the extraction children now.

    A child takes 0.5–1 s to boot (Python, iscc-tika's VM). Started here, before
    the graph is built and the runner starts, it is ready by the first document;
    the Extract stage, set up later in this same process, finds the same pool (same
    settings). Released at the end (the stage's own release closes it when it is the
    last).
    """
    from apache_beam.options.pipeline_options import DirectOptions

    from ragbeam.pipeline.runner import extract_processes_for, is_local_direct

    local = is_local_direct(pipeline.options) and pipeline.options.view_as(
        DirectOptions).direct_running_mode in ("in_memory", "multi_threading", None)
    if not local or config.previous:  # an incremental run may extract nothing
        yield
        return
    settings = config.extraction_settings(extract_processes_for(config, pipeline.options))
    _, pool = settings.acquire_pool()
    pool.start()
    try:
        yield
    finally:
        release_pool(pool)


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
