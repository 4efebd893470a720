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

The inputs are listed as the Match stage lists them (``patterns.matching_files``:
Beam's file systems, the same filters), so the two agree on which files a run has.
That listing needs Beam, which the run imports meanwhile, so a local directory is
first listed without it, as Beam's local file system lists it
(``patterns.local_directory_files``): feeding begins as soon as the children have
booted, and the second core extracts while the first imports Beam. The files Beam's
listing adds (below directory links, globs, single files) follow once the run
library says Beam's file systems are ready (``beam_imported``, from
``run.run_pipeline``). Waiting for Beam before feeding anything left the children
idle for the 2–3 s of its import (issue 33).

``extraction_started_early`` is the same idea inside the run library
(``run.py``): on a local runner the Extract stage's pool boots while the graph is
built and the runner starts.
"""

from __future__ import annotations

import contextlib
import glob
import os
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragbeam.pipeline.config import RunConfig
from ragbeam.pipeline.settings import RunSettings, beam_args_from, run_config
from ragbeam.transforms.cores import available_cores
from ragbeam.transforms.extract import early
from ragbeam.transforms.extract.isolation import ExtractionPool, release_pool
from ragbeam.transforms.ids import canonical_uri, doc_id_for, doc_key
from ragbeam.transforms.match.patterns import (
    FIRST_LISTING,
    id_root,
    input_patterns,
    local_directory_files,
    matching_files,
    plain_local_directory,
)
from ragbeam.transforms.types import SourceFile

if TYPE_CHECKING:
    import apache_beam as beam


# Set once Beam's file systems are imported (``beam_imported``): the listing of what
# needs them (``_listed_sources``) waits for it.
_beam_imported = threading.Event()
_WAIT_POLL_S = 0.05


@dataclass
class EarlyStart:
    extraction: early.EarlyExtraction
    pool: ExtractionPool

    def close(self) -> None:
        early.unregister(self.extraction)
        self.extraction.close()
        release_pool(self.pool)


def beam_imported() -> None:
    """Beam's file systems are imported (``run.run_pipeline``): an early start lists
    what only Beam's listing finds. Listing before, from the feeder thread, would
    import Beam there while the run imports it too."""
    _beam_imported.set()


def _wait_for_beam(extraction: early.EarlyExtraction) -> bool:
    """Wait until Beam is imported; False if the extraction stopped meanwhile."""
    # Already imported (by a caller that uses Beam itself, or a test): whole, since
    # the thread that imports it would be the one waiting.
    if "apache_beam.io.filesystems" in sys.modules:
        _beam_imported.set()
    while not _beam_imported.wait(_WAIT_POLL_S):
        if extraction.stopped:
            return False
    return not extraction.stopped


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
    # Listed by the feeder thread (local directories at once, the rest once Beam is
    # imported); feeding stops when the stage starts.
    sources = _listed_sources(config.match.inputs, config.match.include,
                              config.match.exclude, config.ids.namespace, config.ids.mode,
                              beam_ready=lambda: _wait_for_beam(extraction),
                              own=config.match.own)
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


def _listed_sources(inputs: Sequence[str], include: tuple[str, ...],
                    exclude: tuple[str, ...], namespace: str, mode: str,
                    beam_ready: Callable[[], bool] = lambda: True,
                    own: tuple[str, ...] = ()) -> Iterator[SourceFile]:
    """The inputs' files named as the Match stage names them (same listing, same root,
    same doc ids), lazily; at most the first ``FIRST_LISTING`` files of each input,
    the page the inputs check lists too (a large tree is not walked for this). Local
    directories come first, listed without Beam; then, once ``beam_ready()`` says
    Beam's file systems can be used (False: stop), what only they list."""
    patterns = input_patterns(inputs)
    root = id_root(patterns)
    seen: set[str] = set()

    def named(path: str, size: int, modified: float) -> SourceFile:
        seen.add(path)
        return SourceFile(uri=path, doc_id=doc_id_for(doc_key(path, root, mode), namespace),
                          size_bytes=int(size), modified=float(modified or 0.0))

    for pattern in patterns:
        if plain_local_directory(pattern):
            for path, size, modified in local_directory_files(pattern, include, exclude,
                                                              limit=FIRST_LISTING, own=own):
                if path not in seen:
                    yield named(path, size, modified)
    if not beam_ready():
        return
    for pattern in patterns:
        for meta in matching_files(pattern, include, exclude, limit=FIRST_LISTING, own=own):
            if meta.path not in seen:
                yield named(meta.path, meta.size_in_bytes, meta.last_updated_in_seconds)
