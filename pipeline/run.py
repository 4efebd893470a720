"""The run library: one ``ragbeam run`` end to end, for the CLI and every other caller.

``run_pipeline(request)`` checks the inputs, runs the preflight checks, claims the
output, prepares it, builds the graph (``graph.py``), runs it on the runner
(``runner.py``), syncs the vector-store sinks and leaves ``run.json`` (written by
the pipeline from the sink's counts, completed here in one update with the
runner's metrics and the stores' states: ``summary.complete_run_json``).
``pipeline/cli.py`` only parses arguments and prints; ``evaluate``,
``deploy/schedule/reindex.py`` and the benchmarks call this module::

    request = request_from_argv(["--input", "docs/", "--output", "out/"])
    result = run_pipeline(request)
    result.summary["chunks"], result.exit_code

Exit codes (``RunResult.exit_code``, ``exit_code_for``):

* 0 (``EXIT_OK``): the run completed and its error rate was within ``--max-error-rate``;
* 1 (``EXIT_FAILED``): the pipeline itself failed (an exception, a runner failure,
  ``RunFailed``);
* 2 (``EXIT_USAGE``): nothing ran: a bad option or config, a failed preflight check,
  or an output claimed by another run (``UsageError``);
* 3 (``EXIT_ERROR_RATE``): the run completed and wrote every table and ``run.json``,
  but more of the corpus's documents are failing than ``--max-error-rate`` allows;
* 4 (``EXIT_DELETES_HELD``): an incremental run completed, but more documents
  vanished than ``--max-delete-rate``/``--max-deletes`` allow: none was deleted
  (``transforms/plan/guard.py``). Takes precedence over 3;
* 130, 143: SIGINT or SIGTERM stopped it (``RunInterrupted``; ``interrupts.py``).

No Beam at module level: ``ragbeam run`` starts extracting before Beam's ~1 s import
(``early_start.py``; a test checks this).
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import logging
import os
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragbeam.pipeline.claim import OutputClaimed, claim_output, release_claim
from ragbeam.pipeline.config import RunConfig
from ragbeam.pipeline.early_start import beam_imported, extraction_started_early
from ragbeam.pipeline.interrupts import (
    Interrupted,
    discard_uncommitted_output,
    exit_code_for_signal,
    raise_if_interrupted,
    received_signal,
)
from ragbeam.pipeline.settings import (
    ConfigError,
    RunSettings,
    add_run_arguments,
    beam_args_from,
    flag_names,
    load_settings,
    run_config,
)
from ragbeam.pipeline.summary import (
    OUTCOME_DELETES_HELD,
    OUTCOME_ERROR_RATE,
    RUN_JSON_PARTIAL,
    complete_run_json,
    metrics_summary,
    run_json_path,
)
from ragbeam.pipeline.unchanged import listed_sources, nothing_to_do, write_unchanged
from ragbeam.schemas import OUTPUT_TABLES
from ragbeam.transforms import progress, storage
from ragbeam.transforms.collector import resume_collector
from ragbeam.transforms.embed.model import encode_texts, load_sentence_model
from ragbeam.transforms.endpoints import storage_endpoint, unreachable
from ragbeam.transforms.extract.backends import (
    NO_LANGUAGE_DATA,
    OcrSettings,
    ocr_unavailable,
    tika_server_version,
)
from ragbeam.transforms.identity.hashing import hash_file
from ragbeam.transforms.ids import doc_id_for, doc_key
from ragbeam.transforms.incremental.preview import preview
from ragbeam.transforms.incremental.previous import foreign_previous_problem, previous_run_problem
from ragbeam.transforms.incremental.previous_tables import DOCUMENTS, read_heads
from ragbeam.transforms.match.patterns import (
    InputsError,
    below_any,
    count_input_files,
    expand_input,
    id_root,
    matching_files,
)
from ragbeam.transforms.route.router import preview_route
from ragbeam.transforms.sink.base import SinkError
from ragbeam.transforms.sink.sync import (
    SINK_STATE_DIR,
    each_store,
    failed_sinks,
    finish_sync,
    hold_sync,
    new_run_token,
    prepare_sinks,
    record_failure,
)
from ragbeam.transforms.sink.uri import redact_text, redacted_logs
from ragbeam.transforms.types import SourceFile
from ragbeam.transforms.write.read import table_files
from ragbeam.transforms.write.shards import TEMP_DIR

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_ERROR_RATE, EXIT_DELETES_HELD = 0, 1, 2, 3, 4


class UsageError(Exception):
    """A problem with the command line or the environment, reported before Beam starts."""


class RunFailed(Exception):
    """The run wrote its tables but something after them failed (a sink): exit 1."""


class RunInterrupted(Interrupted):
    """SIGINT or SIGTERM stopped a run; ``committed``: it had written run.json
    (the CLI exits 128 + ``signum``)."""

    def __init__(self, signum: int, committed: bool) -> None:
        super().__init__(signum)
        self.signum = signum
        self.committed = committed



@dataclass(frozen=True)
class RunRequest:
    """One run: its config, its Beam arguments, and how to launch it.

    ``wait=False`` submits and returns at once; the pipeline then writes
    ``run.json`` and releases the output claim itself when done (for launchers
    that may not wait, e.g. Dataflow Flex Templates: deploy/dataflow/).
    ``preflight=False`` skips the preflight checks (``--no-preflight``);
    ``show_progress`` prints a progress line every few seconds on local runners.
    """

    config: RunConfig
    beam_args: tuple[str, ...] = ()
    overwrite: bool = False
    take_over: bool = False
    preflight: bool = True
    wait: bool = True
    show_progress: bool = False
    # time.monotonic() when the command started: the progress lines count from it.
    started: float | None = None


@dataclass(frozen=True)
class RunResult:
    """What a run did: ``summary`` is its run.json (empty when it was not waited for)."""

    summary: Mapping[str, Any] = field(default_factory=dict)
    # Seconds the launcher spent before the pipeline, by what it did ("stores": every
    # --sink reached and prepared; "model load": the preflight load), for the summary.
    phases: Mapping[str, float] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        """0; 3 when more documents are failing than ``--max-error-rate`` allows; 4 when
        the delete guard held this run's deletions."""
        return exit_code(self.summary)


def exit_code_for(exc: BaseException) -> int:
    """The exit code of a run that raised ``exc``: 2 for ``UsageError`` (nothing ran),
    130/143 for ``RunInterrupted`` (SIGINT/SIGTERM), 1 for anything else
    (``RunFailed``, a pipeline failure)."""
    if isinstance(exc, RunInterrupted):
        return exit_code_for_signal(exc.signum)
    return EXIT_USAGE if isinstance(exc, UsageError) else EXIT_FAILED


@contextlib.contextmanager
def _quiet(logger_name: str) -> Iterator[None]:
    logger = logging.getLogger(logger_name)
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def check_beam_args(beam_args: Sequence[str]) -> None:
    """Every argument that is not a ragbeam option must be a Beam pipeline option:
    Beam would otherwise drop it with a warning and run with defaults. (None given:
    nothing to check, and Beam is not imported for it.)"""
    if not beam_args:
        return
    from apache_beam.options.pipeline_options import PipelineOptions

    options = PipelineOptions(list(beam_args))
    with _quiet("apache_beam.options.pipeline_options"):
        known = options.get_all_options(retain_unknown_options=False)
        given = options.get_all_options(retain_unknown_options=True)
    unknown = sorted(set(given) - set(known))
    # A word that is no option's value: a stray argument (``ragbeam run docs/``).
    values = {str(v) for v in given.values()}
    stray = [a for a in beam_args if not a.startswith("-") and a not in values]
    if not unknown and not stray:
        return
    ours = flag_names()
    beams = [f"--{name}" for name in known]
    problems = [f"--{name}{_suggestion(f'--{name}', ours, beams)}" for name in unknown]
    problems.extend(repr(a) for a in stray)
    raise UsageError("unknown option(s): " + ", ".join(problems)
                     + " (neither a ragbeam option, see ragbeam run --help, nor a Beam "
                       "pipeline option)")


def _suggestion(flag: str, ours: list[str], beams: list[str]) -> str:
    hyphenated = flag.replace("_", "-")
    if hyphenated in ours:
        return f" (did you mean {hyphenated}?)"
    for candidates in (ours, beams):
        close = difflib.get_close_matches(hyphenated, candidates, n=1, cutoff=0.75) or \
            difflib.get_close_matches(flag, candidates, n=1, cutoff=0.75)
        if close:
            return f" (did you mean {close[0]}?)"
    return ""


def check_inputs(config: RunConfig) -> int | None:
    """Every --input must match a file that passes the filters (the Match stage's
    ``count_input_files``); returns how many, when every input was listed whole."""
    m = config.match
    try:
        counted = count_input_files(m.inputs, m.include, m.exclude, m.own)
    except InputsError as exc:
        cause = f": {storage_error(exc.__cause__)}" if exc.__cause__ is not None else ""
        # With --previous too: an input that lists nothing is never taken as "every
        # document deleted" (an unmounted share, an empty bucket).
        held = "; nothing was deleted" if config.previous else ""
        raise UsageError(f"{exc}{cause}{held}") from None
    roots = [expand_input(raw).root for raw in m.inputs]
    inside = sorted({*counted.own, *(f for f in m.own if below_any(f, roots))})
    if inside:  # once per run, before anything else is said
        print(f"ragbeam: note: not indexed: ragbeam's own files in the input ("
              f"{', '.join(inside)}: an output, --previous or sync state folder)",
              file=sys.stderr)
    return counted.files


def warn_if_ocr_unavailable(config: RunConfig) -> None:
    """One line on stderr when --ocr is on but Tesseract cannot run here; the run goes on
    with text layers only (each affected document says so in its ``ocr_note``). Languages
    the user asked for (``--ocr-languages``, not the default) whose pack is missing
    refuse the run instead (exit 2): OCR in another language would read them wrong."""
    extract = config.extract
    if extract.tika_server or extract.ocr == "off":
        return
    if problem := ocr_unavailable(extract.ocr_languages):
        if problem.startswith(NO_LANGUAGE_DATA) and extract.ocr_languages != OcrSettings.languages:
            raise UsageError(f"--ocr-languages {extract.ocr_languages}: {problem}; install "
                             "it, or leave that language out")
        print(f"ragbeam: warning: OCR unavailable, scanned pages and images get no text: "
              f"{problem}", file=sys.stderr)


def warn_if_chunks_outgrow_the_window(config: RunConfig) -> None:
    """One line on stderr, before anything runs, when the run embeds every chunk and
    its chunks are sized past the model's window (the model cuts each such text: its
    vector holds only its beginning). Counted in tokens: the model's own (``--size-unit
    model``), or tiktoken's, which a model's word pieces outnumber. The count after the
    run (``warn_over_window``) says how many chunks were cut."""
    chunk = config.chunk
    if not config.embed_chunks or chunk.unit not in ("tokens", "model"):
        return
    window = config.embedding_model_info.max_tokens
    if window and chunk.size > window:
        print(f"ragbeam: warning: --chunk-size {chunk.size} {chunk.unit} is longer than the "
              f"embedding model's {window}-token window: each chunk's vector holds only its "
              f"beginning. --size-unit model --chunk-size {window * 3 // 4} (room for the "
              "heading context) embeds every chunk whole", file=sys.stderr)


def unreachable_storage(uris: Sequence[str | None], s3_endpoint_url: str | None = None
                        ) -> str | None:
    """Why the object store of one of ``uris`` cannot be reached now (one line: the
    URI and the server), or None: checked in seconds before anything lists a bucket,
    which its client retries for minutes (``transforms/endpoints.py``)."""
    checked: set[tuple[str, int]] = set()
    for uri in uris:
        endpoint = storage_endpoint(uri, s3_endpoint_url) if uri else None
        if endpoint is None or endpoint in checked:
            continue
        checked.add(endpoint)
        scheme = "http" if uri.startswith("gs://") and os.environ.get(
            "STORAGE_EMULATOR_HOST", "").startswith("http://") else "https"
        if problem := unreachable(*endpoint, scheme):
            return f"{uri}: its store cannot be reached: {problem}"
    return None


def s3_endpoint_option(beam_args: Sequence[str]) -> str | None:
    """``--s3_endpoint_url`` among Beam's arguments (``--name value`` or ``--name=value``)."""
    for i, arg in enumerate(beam_args):
        if arg.startswith("--s3_endpoint_url="):
            return arg.split("=", 1)[1]
        if arg == "--s3_endpoint_url" and i + 1 < len(beam_args):
            return beam_args[i + 1]
    return None


def storage_error(exc: BaseException) -> str:
    """A storage failure in one line: Beam wraps the store's own error (a 404 for a
    missing bucket…) in nested ``BeamIOError``s keyed by path; say what it was."""
    while isinstance(getattr(exc, "exception_details", None), dict) and exc.exception_details:
        exc = next(iter(exc.exception_details.values()))
    status = getattr(exc, "code", None)
    if not isinstance(status, int):
        found = [a for a in getattr(exc, "args", ()) if isinstance(a, int) and 400 <= a < 600]
        status = found[0] if found else None
    hint = {404: "not found: does the bucket exist?", 403: "permission denied",
            401: "not authenticated"}.get(status, "")
    text = str(exc).strip() or type(exc).__name__
    return f"{hint} ({type(exc).__name__}: {text})" if hint else f"{type(exc).__name__}: {text}"


def preflight(config: RunConfig) -> None:
    """What can be checked before Beam starts, so a run that cannot work stops at once
    with exit 2 instead of failing every document: the Tika server answers, the
    embedding model loads and embeds."""
    preflight_servers(config)
    preflight_model(config)


def preflight_servers(config: RunConfig) -> None:
    """The Tika server answers (a request: seconds at most)."""
    if config.extract.tika_server and tika_server_version(config.extract.tika_server) is None:
        raise UsageError(f"--tika-server {config.extract.tika_server!r} does not answer "
                         "(GET /version); start it, or pass --no-preflight to run anyway")


def preflight_model(config: RunConfig) -> float:
    """The embedding model loads and embeds (the dearest check: ~15 s on a busy CPU);
    returns the seconds it took (0 for a run that does not embed)."""
    if not config.uses_embeddings:
        return 0.0

    loading = time.perf_counter()
    try:
        encode_texts(load_sentence_model(config.embedding), ["preflight"])
    except Exception as exc:
        raise UsageError(f"--embedding-model {config.embedding.model!r} does not load: "
                         f"{type(exc).__name__}: {exc}") from None
    took = time.perf_counter() - loading
    logging.getLogger("ragbeam").info("preflight: model %s loaded and embedding in %.1f s",
                                      config.embedding.model, took)
    return took


def log_run_plan(config: RunConfig, options, sink_plans: Sequence) -> None:
    """With -v: the runner, the extraction pool, the model and each sink's mode."""
    from apache_beam.options.pipeline_options import DirectOptions, StandardOptions

    from ragbeam.pipeline.runner import (
        default_extract_processes,
        is_local_direct,
        with_embedding_threads,
    )

    log = logging.getLogger("ragbeam")
    runner = options.view_as(StandardOptions).runner or "DirectRunner"
    if is_local_direct(options):
        direct = options.view_as(DirectOptions)
        log.info("runner: %s (%s, %s worker process(es))", runner,
                 direct.direct_running_mode or "in_memory", direct.direct_num_workers or 1)
    else:
        log.info("runner: %s", runner)
    ex = config.extract
    log.info("extraction: %d process(es) per worker process, %s; %g s per document, "
             "memory cap %s MiB, OCR %s", ex.processes or default_extract_processes(options),
             f"Tika server {ex.tika_server}" if ex.tika_server else "embedded Tika",
             ex.timeout_s, ex.memory_mb or "none", ex.ocr)
    if config.uses_embeddings:
        embedding = with_embedding_threads(config.embedding, options)
        log.info("model: %s (%s, %s, %d thread(s)); %s", embedding.model, embedding.precision,
                 embedding.backend, embedding.torch_threads,
                 "embeds every chunk" if config.embed_chunks else "semantic chunking only")
    else:
        log.info("model: none (no semantic chunking or embeddings in this run)")
    for plan in sink_plans:
        log.info("sink %s: %s sync (%s)", plan.spec.display, plan.mode, plan.reason)
        if plan.target:  # said without -v too: the night does a full upload
            log.warning("sink %s: the run's vectors are new to the store: it fills %s beside "
                        "%s, then %r names it", plan.spec.display, plan.target, plan.replaces,
                        plan.spec.collection)


def run_output_entries() -> tuple[str, ...]:
    """What a run writes into its output before ``run.json`` (and run.json's own
    partial copy, renamed to it when whole)."""
    return (*OUTPUT_TABLES, TEMP_DIR, SINK_STATE_DIR, RUN_JSON_PARTIAL)


def check_output(config: RunConfig, overwrite: bool) -> list[str]:
    """Fail early on an unwritable output; never mix two runs' tables. Returns what a
    previous run left there (``--overwrite``), for ``clear_output`` once every other
    check has passed: a run that stops at a check leaves the old run in place."""
    out = config.output
    existing = [t for t in (*run_output_entries(), "run.json")
                if storage.exists(storage.join(out, t))]
    if existing and not overwrite:
        if "run.json" not in existing:  # run.json is written last: its absence means a crash
            raise UsageError(f"--output {out!r} holds an unfinished run ({', '.join(existing)} "
                             "but no run.json: it was interrupted); use --overwrite to "
                             "replace it")
        raise UsageError(f"--output {out!r} already holds a run ({', '.join(existing)}); "
                         "use --overwrite or a new directory")
    try:
        if "://" not in out:
            os.makedirs(out, exist_ok=True)
        probe = storage.join(out, ".ragbeam-write-probe")
        storage.write_bytes(probe, b"ok")
        storage.delete([probe])
    except Exception as exc:
        raise UsageError(f"--output {out!r} is not writable: {storage_error(exc)}") from None
    return existing


def clear_output(config: RunConfig, existing: Sequence[str]) -> None:
    """Remove what ``check_output`` found of a previous run (``--overwrite``)."""
    if existing:
        storage.delete([storage.join(config.output, t) for t in existing])



# --- Arguments → request ------------------------------------------------------------

def settings_from_args(args: argparse.Namespace) -> RunSettings:
    """Parsed ``ragbeam run`` flags (``add_run_arguments``) → validated settings."""
    given = {k: v for k, v in vars(args).items() if k in RunSettings.model_fields}
    try:
        return load_settings(given, getattr(args, "config", None))
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


def request_from_settings(settings: RunSettings, beam_args: Sequence[str],
                          **launch: Any) -> RunRequest:
    """The run's request: its config, and its Beam arguments (the config file's
    ``beam:`` section first, then the command line's; both checked). ``launch``:
    ``wait``, ``show_progress``."""
    all_beam_args = beam_args_from(settings) + list(beam_args)
    check_beam_args(all_beam_args)
    try:
        config = run_config(settings)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    return RunRequest(config=config, beam_args=tuple(all_beam_args),
                      overwrite=settings.overwrite, take_over=settings.take_over,
                      preflight=settings.preflight, **launch)


def request_from_argv(argv: Sequence[str], prog: str = "ragbeam run",
                      **launch: Any) -> RunRequest:
    """``ragbeam run`` arguments → a request, split and validated exactly as the CLI
    does (for compare, benchmarks, schedulers). Raises ``UsageError`` for anything
    the CLI would exit 2 on."""
    parser = argparse.ArgumentParser(prog=prog, allow_abbrev=False)
    add_run_arguments(parser)
    args, beam_args = parser.parse_known_args(list(argv))
    return request_from_settings(settings_from_args(args), beam_args, **launch)


def dry_run(config: RunConfig) -> list[dict]:
    """What a run would do, without extracting anything: every matched file once,
    with its doc id and the route it would take (``preview_route``)."""
    m = config.match
    patterns = [expand_input(raw) for raw in m.inputs]
    root = id_root(patterns)
    found: dict[str, tuple[int, float, float]] = {}
    for pattern in patterns:
        listed = time.time()
        for meta in matching_files(pattern, m.include, m.exclude, own=m.own):
            found[meta.path] = (int(meta.size_in_bytes),
                                float(meta.last_updated_in_seconds or 0.0), listed)
    rows = []
    for path, (size, modified, listed) in sorted(found.items()):
        key = doc_key(path, root, config.ids.mode)
        strategy, reason = preview_route(path, config.route)
        rows.append({"path": path, "key": key, "doc_id": doc_id_for(key, config.ids.namespace),
                     "bytes": size, "strategy": strategy, "reason": reason,
                     "over_size_limit": size > m.max_file_bytes,
                     "modified": modified, "listed": listed})
    return rows


def dry_run_against_previous(config: RunConfig, rows: Sequence[Mapping[str, Any]]):
    """``--dry-run --previous``: what the run would do with each document (a
    ``preview.Preview``), after the checks the run makes on ``--previous``."""
    if problem := previous_run_problem(config.previous, config.output):
        raise UsageError(f"--previous {config.previous!r} {problem}")
    check_previous_is_ours(config)
    paths = table_files(config.previous, "documents")
    # As the pipeline reads them (``read_heads``): with whether each row has spans,
    # so a document the run would re-chunk without extracting is shown as such.
    heads = [head for path in paths for _, (_, head) in read_heads(path, DOCUMENTS)]
    sources = [SourceFile(r["path"], r["doc_id"], r["bytes"], r["modified"], r["listed"])
               for r in rows]
    max_bytes = config.match.max_file_bytes
    return preview(sources, heads, config.config_hash, config.route, config.delete_guard,
                   lambda s: hash_file(s.uri, s.size_bytes, max_bytes),
                   config.retry_errors, config.verify_hashes, config.extraction_reuse_key)


def run_pipeline(request: RunRequest) -> RunResult:
    """Check, claim, build, run and summarise one pipeline run (see ``RunRequest``).

    Raises ``UsageError`` when nothing ran (exit 2), ``RunFailed`` when the tables
    were written but a sink failed (exit 1); any other exception is a pipeline
    failure (exit 1).

    Beam is imported only when the run needs it: for a pipeline, for Beam options,
    or for files on a scheme ``storage.py`` leaves to Beam's filesystems (S3…). A
    night with nothing to do over local or ``gs://`` files (``unchanged.py``) runs
    without it.
    """
    config = request.config
    if problem := unreachable_storage([*config.match.inputs, config.output, config.previous],
                                      s3_endpoint_option(request.beam_args)):
        raise UsageError(problem)
    options = None
    if request.beam_args or any(storage.scheme(path) not in ("", storage.GCS)
                                for path in (*config.match.inputs, config.output,
                                             config.previous or "")):
        options = beam_options(request)
    beam_imported()  # `ragbeam run`'s early start may list its inputs now
    command_started = time.monotonic() if request.started is None else request.started
    total = check_inputs(config)
    if request.show_progress:  # the first line, before the checks, the model, the runner
        print(progress.starting_line(total, time.monotonic() - command_started),
              file=sys.stderr, flush=True)
    # Without Beam options the runner is the local default: its progress is seen here.
    local = True if options is None else _is_local(options)
    # Progress lines from then on, also while the model loads and the runner starts.
    with progress.watch(enabled=request.show_progress and local, total=total,
                        started=command_started, embeds=config.uses_embeddings):
        return _run_listed(request, options)


def beam_options(request: RunRequest):
    """The run's Beam pipeline options, given to Beam's filesystems too, as the pipeline
    will give them (S3 needs them before its first use; ``--s3_endpoint_url``…)."""
    from apache_beam.io.filesystems import FileSystems

    from ragbeam.pipeline.runner import pipeline_options

    options = pipeline_options(list(request.beam_args))
    FileSystems.set_options(options)
    return options


def _is_local(options) -> bool:
    from ragbeam.pipeline.runner import is_local

    return is_local(options)


def _run_listed(request: RunRequest, options) -> RunResult:
    """``run_pipeline`` once the inputs are listed: checks, claim, pipeline, run.json."""
    config = request.config
    warn_if_ocr_unavailable(config)
    try:  # the fingerprint reads the model's files: a model that is not there stops here
        _ = config.config_hash, config.table_schemas()
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    warn_if_chunks_outgrow_the_window(config)
    if config.previous and (problem := previous_run_problem(config.previous, config.output)):
        raise UsageError(f"--previous {config.previous!r} {problem}")
    check_previous_is_ours(config)
    unchanged = None
    if config.previous:  # nothing changed: no pipeline (unchanged.py)

        unchanged = nothing_to_do(config, listed_sources(dry_run(config)))
    # Cheapest first (an unreachable store fails in seconds, not after the model's
    # load): options, then the output (claim, an earlier run there, writable), then
    # servers and stores, then the model; only then is an --overwrite'n run removed.
    # Without work no model or extractor is needed; a store may still need a full sync.
    if options is None and (unchanged is None or config.sinks):
        options = beam_options(request)
    if config.sinks:
        check_sink_runner(config, options)
    try:
        claim = claim_output(config.output, take_over=request.take_over)
    except OutputClaimed as exc:
        raise UsageError(str(exc)) from None
    except Exception as exc:
        raise UsageError(f"--output {config.output!r} is not writable: "
                         f"{storage_error(exc)}") from None
    released_by_pipeline = owned = False
    sink_plans: list = []
    phases: dict[str, float] = {}
    started = time.perf_counter()
    # Client libraries and Beam's workers log exception texts ragbeam does not write
    # itself: while the run talks to a store, every log record is redacted.
    secrets = [secret for spec in config.sinks for secret in spec.secrets()]
    try:
        with redacted_logs(secrets) if config.sinks else contextlib.nullcontext():
            existing = check_output(config, request.overwrite)
            if request.preflight and (unchanged is None or config.sinks):
                preflight_servers(config)
            phase_started = time.perf_counter()
            sink_plans = prepare_sink_plans(config)
            if config.sinks:
                phases["stores"] = time.perf_counter() - phase_started
            if unchanged is not None and not any(plan.full for plan in sink_plans):
                clear_output(config, existing)
                owned = True
                resume_collector()  # start-up is over (collector.py)
                return _unchanged_result(config, unchanged, sink_plans, started)
            if request.preflight and config.uses_embeddings:
                progress.set_phase("starting: loading the embedding model")
                phases["model load"] = preflight_model(config)
            progress.set_phase("starting: the runner and the first documents")
            clear_output(config, existing)
            owned = True
            # Beam's import, only now that a pipeline runs; start-up is over then.
            from ragbeam.pipeline.graph import build_pipeline
            from ragbeam.pipeline.runner import make_pipeline

            resume_collector()  # collector.py

            pipeline = make_pipeline(options)
            if not request.wait:
                build_pipeline(pipeline, config, claim=claim, sink_plans=sink_plans)
                pipeline.run()
                released_by_pipeline = True
                return RunResult()
            with extraction_started_early(pipeline, config):
                build_pipeline(pipeline, config, sink_plans=sink_plans)
                log_run_plan(config, options, sink_plans)
                raise_if_interrupted()  # a signal whose exception was lost (interrupts.py)
                try:
                    result = pipeline.run()
                    result.wait_until_finish()
                except Exception as exc:
                    if not sink_plans:
                        raise
                    _sink_writes_failed(config, sink_plans, exc, started)
                raise_if_interrupted()
            summary = complete_run_json(
                config.output, lambda committed: _launcher_facts(config, committed, result,
                                                                 sink_plans, phases))
        warn_over_window(summary)
        if failed := failed_sinks(summary.get("sinks", ())):
            raise RunFailed("; ".join(s["error"] for s in failed) + f" (the tables in "
                            f"{config.output} are complete; the next run re-syncs the store "
                            "in full)")
        return RunResult(summary, phases)
    except BaseException as exc:
        if received_signal() is None:
            raise
        # Stopped by SIGINT/SIGTERM (interrupts.py), wherever the exception surfaced
        # (Beam may wrap it): what was written before run.json goes, the claim is released.
        raise RunInterrupted(received_signal(), committed=owned and _settle_interrupted(
            config, sink_plans)) from exc
    finally:
        if not released_by_pipeline:
            release_claim(claim)
        # A run that embedded (the module is loaded only then) leaves no model for
        # the next run in this process: that one reads the model's files again.
        if handler := sys.modules.get("ragbeam.transforms.embed.handler"):
            handler.forget_process_models()


def _unchanged_result(config: RunConfig, unchanged, sink_plans: list, started: float
                      ) -> RunResult:
    """The run written from the previous one (``unchanged.py``); a store that holds the
    previous run's chunks already holds this run's: checked and marked synced, no
    chunk written to it."""
    summary = write_unchanged(config, unchanged, started)
    if not sink_plans:
        return RunResult(summary)
    summary = complete_run_json(config.output, lambda committed: {"sinks": each_store(
        lambda plan: finish_sync(plan, config.output, committed["chunks"],
                                 {"upserts": 0, "deletes": 0}), sink_plans)})
    if failed := failed_sinks(summary.get("sinks", ())):
        raise RunFailed("; ".join(s["error"] for s in failed) + f" (the tables in "
                        f"{config.output} are complete; the next run re-syncs the store in full)")
    return RunResult(summary)


def _settle_interrupted(config: RunConfig, sink_plans: list) -> bool:
    """After an interrupt: whether the run had committed (written run.json). If not,
    what it wrote is removed; if so, a sink it was writing is marked failed, so the
    next run syncs that store in full."""
    if not storage.exists(run_json_path(config.output)):
        discard_uncommitted_output(config.output, run_output_entries())
        return False

    def interrupted_sinks(committed: Mapping[str, Any]) -> dict[str, Any]:
        if not sink_plans or committed.get("sinks"):
            return {}  # no sink, or the launcher had completed run.json already
        return {"sinks": [record_failure(plan, config.output, "interrupted")
                          for plan in sink_plans]}

    complete_run_json(config.output, interrupted_sinks)
    return True


# --- Vector-store sinks around the pipeline (transforms/sink/sync.py) ---------------

def check_sink_runner(config: RunConfig, options) -> None:
    """Milvus Lite and Qdrant's local mode lock their files to one process: they need
    the in-process local runner with one worker."""
    from apache_beam.options.pipeline_options import DirectOptions

    from ragbeam.pipeline.runner import is_local_direct

    local = [spec.display for spec in config.sinks if spec.local]
    direct = options.view_as(DirectOptions)
    if local and not (is_local_direct(options) and (direct.direct_num_workers or 1) == 1
                      and direct.direct_running_mode in (None, "in_memory")):
        raise UsageError(f"--sink {local[0]}: a local store (Milvus Lite, Qdrant local mode) "
                         "is opened by one process only: run with the default local runner "
                         "and one worker (--direct_num_workers 1), or use a store server")


def prepare_sink_plans(config: RunConfig) -> list:
    """Before Beam starts: every store reachable, its collection there, its mode chosen."""
    if not config.sinks:
        return []

    try:
        return prepare_sinks(config.sinks, config.embedding_model_info.dimension,
                             config.previous, new_run_token(), sparse=config.sparse,
                             layers=config.layer_keys, text_vector=config.text_vector,
                             text_vector_asked=config.text_vector_asked)
    except SinkError as exc:
        raise UsageError(str(exc)) from None


def _launcher_facts(config: RunConfig, committed: Mapping[str, Any], result,
                    plans: list, phases: dict[str, float] | None = None) -> dict[str, Any]:
    """What run.json gets from the launcher once the pipeline has committed it
    (``committed``): the runner's metrics and each store's state, checked against the
    committed chunks table (``summary.complete_run_json``); ``phases`` gets the seconds
    the stores' checks took ("store checks")."""
    facts = metrics_summary(result)
    if config.embed_chunks:
        from ragbeam.transforms.embed.transforms import embedding_summary

        facts["embedding"] = embedding_summary(result)  # added to the pipeline's record
    if plans and committed.get("outcome") == OUTCOME_DELETES_HELD:
        # Nothing was written (graph.build_pipeline): the stores stay at --previous.
        facts["sinks"] = [hold_sync(plan, config.output, config.previous) for plan in plans]
    elif plans:
        from ragbeam.transforms.sink.transforms import sink_counters

        started = time.perf_counter()
        facts["sinks"] = each_store(lambda plan: finish_sync(
            plan, config.output, committed["chunks"], sink_counters(result, plan)), plans)
        if phases is not None:  # said apart, not left in "start-up"
            phases["store checks"] = time.perf_counter() - started
    return facts


def _sink_writes_failed(config: RunConfig, plans: list, exc: Exception, started: float) -> None:
    """The pipeline failed. After run.json was written (every table committed), only a
    sink can have: record it and fail the run (the output stays a valid --previous).
    Before that, re-raise, with credentials redacted."""
    secrets = [secret for spec in config.sinks for secret in spec.secrets()]
    if not storage.exists(run_json_path(config.output)):
        raise RuntimeError(redact_text(f"{type(exc).__name__}: {exc}", secrets)) from None
    states = [record_failure(plan, config.output, exc) for plan in plans]
    complete_run_json(config.output, lambda _: {
        "sinks": states, "wall_seconds": round(time.perf_counter() - started, 3)})
    raise RunFailed("; ".join(s["error"] for s in states) + f" (the tables in {config.output} "
                    "are complete; the next run re-syncs the store in full)")


def warn_over_window(summary: dict) -> None:
    """Once per run: how many chunks were longer than the model's window."""
    embedding = summary.get("embedding") or {}
    over = embedding.get("chunks_over_window", 0)
    if over:
        logging.getLogger("ragbeam").warning(
            "%d chunks embedded in this run are longer than the model's %d-token window: "
            "only their beginning is in their vector. --size-unit model with a --chunk-size "
            "that leaves room for the heading context avoids it.",
            over, embedding["max_tokens"])


def exit_code(summary: Mapping[str, Any]) -> int:
    """0; 3 for a run.json whose outcome is an exceeded error rate; 4 for one whose
    deletions the delete guard held."""
    return {OUTCOME_ERROR_RATE: EXIT_ERROR_RATE,
            OUTCOME_DELETES_HELD: EXIT_DELETES_HELD}.get(summary.get("outcome"), EXIT_OK)


def check_previous_is_ours(config: RunConfig) -> None:
    """``--previous`` must be a run over the same inputs, namespace and id mode, unless
    ``--accept-foreign-previous`` says it is meant (exit 2 naming both)."""
    if not config.previous or config.accept_foreign_previous:
        return
    problem = foreign_previous_problem(config.previous, config.match.id_root,
                                       config.ids.namespace, config.ids.mode)
    if problem:
        raise UsageError(f"--previous {config.previous!r} {problem}")

