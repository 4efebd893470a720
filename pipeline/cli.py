"""The ``ragbeam`` command line.

``ragbeam run [--config FILE] [options] [Beam pipeline options]``: every ragbeam
option is defined once, in ``settings.py``; anything else must be a Beam
pipeline option (``--runner``, ``--direct_num_workers``, ``--project``…), or the
run stops before it starts, with a suggestion for what was probably meant.

Exit codes of ``ragbeam run``:

* 0: the run completed and its error rate was within ``--max-error-rate``;
* 1: the pipeline itself failed (an exception, a runner failure);
* 2: nothing ran: a bad option or config, a failed preflight check, or an
  output claimed by another run;
* 3: the run completed and wrote every table and ``run.json``, but more
  documents failed than ``--max-error-rate`` allows.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import gc
import logging
import os
import sys
import time
from collections.abc import Iterator, Sequence

# No Beam at module level (it is imported inside the functions that use it): `main`
# starts extracting before Beam's ~1 s import (early_start.py; a test checks this).
from ragbeam.pipeline.config import RunConfig
from ragbeam.pipeline.early_start import start_early_extraction
from ragbeam.pipeline.settings import (
    ConfigError,
    RunSettings,
    add_run_arguments,
    beam_args_from,
    flag_names,
    load_settings,
    run_config,
)
from ragbeam.schemas import OUTPUT_TABLES
from ragbeam.transforms import progress
from ragbeam.transforms.match.patterns import expand_input, passes_filters
from ragbeam.transforms.sink.uri import redact_text, redacted_logs

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_ERROR_RATE = 0, 1, 2, 3


class UsageError(Exception):
    """A problem with the command line or the environment, reported before Beam starts."""


class RunFailed(Exception):
    """The run wrote its tables but something after them failed (a sink): exit 1."""


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
    Beam would otherwise drop it with a warning and run with defaults."""
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


# Files check_inputs lists first: on an object store, one page of the listing.
FIRST_LISTING = 1000


def check_inputs(config: RunConfig) -> int | None:
    """Every --input must match at least one file that passes the filters. The
    launcher lists no further than it must: the first files usually answer, and
    only when none of them passes the filters is the whole input listed. Returns
    how many distinct files pass when every input was listed whole (for the
    progress line's ETA), else None."""
    m = config.match
    paths: set[str] = set()
    whole = True
    for raw in m.inputs:
        pattern = expand_input(raw)
        try:
            found = pattern.match(limit=FIRST_LISTING)
            if len(found) == FIRST_LISTING and not _any_passes(found, m):
                found = pattern.match()
        except Exception as exc:  # BeamIOError for unknown schemes, missing buckets…
            raise UsageError(f"--input {raw!r}: cannot list: {storage_error(exc)}") from None
        if not _any_passes(found, m):
            raise UsageError(f"--input {raw!r} matched no files"
                             + (" (after --include/--exclude)" if found else ""))
        whole = whole and len(found) < FIRST_LISTING
        paths.update(f.path for f in found if passes_filters(f.path, m.include, m.exclude))
    return len(paths) if whole else None


def warn_if_ocr_unavailable(config: RunConfig) -> None:
    """One line on stderr when --ocr is on but Tesseract cannot run here; the run goes on
    with text layers only (each affected document says so in its ``ocr_note``)."""
    from ragbeam.transforms.extract.backends import ocr_unavailable

    extract = config.extract
    if extract.tika_server or extract.ocr == "off":
        return
    if problem := ocr_unavailable(extract.ocr_languages):
        print(f"ragbeam: warning: OCR unavailable, scanned pages and images get no text: "
              f"{problem}", file=sys.stderr)


def _any_passes(found: Sequence, m) -> bool:
    return any(passes_filters(f.path, m.include, m.exclude) for f in found)


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
    if config.extract.tika_server:
        from ragbeam.transforms.extract.backends import tika_server_version

        if tika_server_version(config.extract.tika_server) is None:
            raise UsageError(f"--tika-server {config.extract.tika_server!r} does not answer "
                             "(GET /version); start it, or pass --no-preflight to run anyway")
    if config.uses_embeddings:
        from ragbeam.transforms.embed.model import encode_texts, load_sentence_model

        try:
            encode_texts(load_sentence_model(config.embedding), ["preflight"])
        except Exception as exc:
            raise UsageError(f"--embedding-model {config.embedding.model!r} does not load: "
                             f"{type(exc).__name__}: {exc}") from None


def prepare_output(config: RunConfig, overwrite: bool) -> None:
    """Fail early on an unwritable output; never mix two runs' tables."""
    from apache_beam.io.filesystems import FileSystems

    from ragbeam.transforms.sink.sync import SINK_STATE_DIR
    from ragbeam.transforms.write.parquet import TEMP_DIR

    out = config.output
    existing = [t for t in (*OUTPUT_TABLES, TEMP_DIR, "run.json", SINK_STATE_DIR)
                if FileSystems.exists(FileSystems.join(out, t))]
    if existing and not overwrite:
        if "run.json" not in existing:  # run.json is written last: its absence means a crash
            raise UsageError(f"--output {out!r} holds an unfinished run ({', '.join(existing)} "
                             "but no run.json: it was interrupted); use --overwrite to "
                             "replace it")
        raise UsageError(f"--output {out!r} already holds a run ({', '.join(existing)}); "
                         "use --overwrite or a new directory")
    try:
        if "://" not in out:
            import os

            os.makedirs(out, exist_ok=True)
        probe = FileSystems.join(out, ".ragbeam-write-probe")
        with FileSystems.create(probe) as f:
            f.write(b"ok")
        FileSystems.delete([probe])
    except Exception as exc:
        raise UsageError(f"--output {out!r} is not writable: {storage_error(exc)}") from None
    if existing:
        FileSystems.delete([FileSystems.join(out, t) for t in existing])


def _parse(argv: Sequence[str], prog: str) -> tuple[RunSettings, argparse.Namespace, list[str]]:
    parser = argparse.ArgumentParser(prog=prog, allow_abbrev=False)
    add_run_arguments(parser)
    args, beam_args = parser.parse_known_args(list(argv))
    return _settings(args), args, beam_args


def _settings(args: argparse.Namespace) -> RunSettings:
    given = {k: v for k, v in vars(args).items() if k in RunSettings.model_fields}
    try:
        return load_settings(given, getattr(args, "config", None))
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


def parse_run_args(argv: Sequence[str], prog: str = "ragbeam run"
                   ) -> tuple[RunConfig, RunSettings, list[str]]:
    """``ragbeam run`` arguments → (config, validated settings, Beam arguments).

    For callers that start runs themselves (compare, benchmarks, schedulers), so
    every one of them splits and validates options exactly as the CLI does.
    Raises ``UsageError`` for anything the CLI would exit 2 on.
    """
    settings, _, beam_args = _parse(argv, prog)
    config, beam_args = _config_and_beam_args(settings, beam_args)
    return config, settings, beam_args


def _config_and_beam_args(settings: RunSettings, beam_args: list[str]
                          ) -> tuple[RunConfig, list[str]]:
    """The run's config, and its Beam arguments: the config file's ``beam:``
    section first, then the command line's; both checked."""
    beam_args = beam_args_from(settings) + beam_args
    check_beam_args(beam_args)
    try:
        return run_config(settings), beam_args
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


def dry_run(config: RunConfig) -> list[dict]:
    """What a run would do, without extracting anything: every matched file once,
    with its doc id and the route it would take (``preview_route``)."""
    from ragbeam.transforms.ids import doc_id_for, doc_key
    from ragbeam.transforms.match.patterns import id_root
    from ragbeam.transforms.route.router import preview_route

    m = config.match
    patterns = [expand_input(raw) for raw in m.inputs]
    root = id_root(patterns)
    found: dict[str, int] = {}
    for pattern in patterns:
        for meta in pattern.match():
            if passes_filters(meta.path, m.include, m.exclude):
                found[meta.path] = int(meta.size_in_bytes)
    rows = []
    for path, size in sorted(found.items()):
        key = doc_key(path, root, config.ids.mode)
        strategy, reason = preview_route(path, config.route)
        rows.append({"path": path, "key": key, "doc_id": doc_id_for(key, config.ids.namespace),
                     "bytes": size, "strategy": strategy, "reason": reason,
                     "over_size_limit": size > m.max_file_bytes})
    return rows


def _size(n: int) -> str:
    if n < 0:
        return "broken link"
    for unit in ("B", "KiB", "MiB"):
        if n < 1024:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"


def print_dry_run(config: RunConfig, rows: list[dict]) -> None:
    from ragbeam.transforms.route.router import BY_CONTENT, content_signals

    width = max((len(r["key"]) for r in rows), default=4)
    print(f"ragbeam run --dry-run: {len(rows)} files would be processed "
          "(nothing extracted, nothing written)")
    for r in rows:
        note = "  [over --max-file-bytes: error row]" if r["over_size_limit"] else ""
        print(f"  {r['key']:<{width}}  {_size(r['bytes']):>11}  {r['strategy']:<12} "
              f"{r['reason']}{note}")
    if any(r["strategy"] == BY_CONTENT for r in rows):
        print(f"  {BY_CONTENT}: {content_signals(config.route)}")


def run(config: RunConfig, beam_args: Sequence[str], overwrite: bool = False,
        wait: bool = True, take_over: bool = False, check: bool = True,
        show_progress: bool = False) -> dict:
    """Check, claim, build, run and summarise one pipeline run. Returns run.json.

    ``wait=False`` submits and returns ``{}`` at once; the pipeline then writes
    ``run.json`` and releases the output claim itself when done (for launchers
    that may not wait, e.g. Dataflow Flex Templates: deploy/dataflow/).
    ``check=False`` skips the preflight checks (``--no-preflight``);
    ``show_progress`` prints a progress line every few seconds on local runners.
    """
    from apache_beam.io.filesystems import FileSystems

    from ragbeam.pipeline.claim import OutputClaimed, claim_output, release_claim
    from ragbeam.pipeline.graph import build_pipeline
    from ragbeam.pipeline.runner import (
        extraction_started_early,
        is_local,
        make_pipeline,
        pipeline_options,
    )
    from ragbeam.pipeline.summary import read_run_json, write_run_json
    from ragbeam.transforms.incremental.previous import previous_run_problem
    from ragbeam.transforms.sink.sync import failed_sinks

    # The checks below use Beam's filesystems before any pipeline exists: give them
    # the run's options, as the pipeline will (S3 needs them; --s3_endpoint_url…).
    options = pipeline_options(list(beam_args))
    FileSystems.set_options(options)
    total = check_inputs(config)
    warn_if_ocr_unavailable(config)
    try:  # the fingerprint reads the model's files: a model that is not there stops here
        _ = config.config_hash, config.table_schemas()
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if config.previous and (problem := previous_run_problem(config.previous, config.output)):
        raise UsageError(f"--previous {config.previous!r} {problem}")
    if check:
        preflight(config)
    check_sink_runner(config, options)
    try:
        claim = claim_output(config.output, take_over=take_over)
    except OutputClaimed as exc:
        raise UsageError(str(exc)) from None
    except Exception as exc:
        raise UsageError(f"--output {config.output!r} is not writable: "
                         f"{storage_error(exc)}") from None
    released_by_pipeline = False
    started = time.perf_counter()
    # Client libraries and Beam's workers log exception texts ragbeam does not write
    # itself: while the run talks to a store, every log record is redacted.
    secrets = [secret for spec in config.sinks for secret in spec.secrets()]
    try:
        with redacted_logs(secrets) if config.sinks else contextlib.nullcontext():
            prepare_output(config, overwrite)
            sink_plans = prepare_sink_plans(config)
            pipeline = make_pipeline(options)
            if not wait:
                build_pipeline(pipeline, config, claim=claim, sink_plans=sink_plans)
                pipeline.run()
                released_by_pipeline = True
                return {}
            with extraction_started_early(pipeline, config):
                build_pipeline(pipeline, config, sink_plans=sink_plans)
                try:
                    with progress.watch(enabled=show_progress and is_local(options),
                                        total=total):
                        result = pipeline.run()
                        result.wait_until_finish()
                except Exception as exc:
                    if not sink_plans:
                        raise
                    _sink_writes_failed(config, sink_plans, exc, started)
            from ragbeam.pipeline.runner import metrics_summary

            summary = read_run_json(config.output)
            summary.update(metrics_summary(result))
            if config.embed_chunks:
                from ragbeam.transforms.embed.transforms import embedding_summary

                summary["embedding"] = {**(summary.get("embedding") or {}),
                                        **embedding_summary(result)}
            if sink_plans:
                summary["sinks"] = _finish_sinks(config, sink_plans, summary["chunks"], result)
            write_run_json(config.output, summary)
        warn_over_window(summary)
        if failed := failed_sinks(summary.get("sinks", ())):
            raise RunFailed("; ".join(s["error"] for s in failed) + f" (the tables in "
                            f"{config.output} are complete; the next run re-syncs the store "
                            "in full)")
        return summary
    finally:
        if not released_by_pipeline:
            release_claim(claim)
        # A run that embedded (the module is loaded only then) leaves no model for
        # the next run in this process: that one reads the model's files again.
        if handler := sys.modules.get("ragbeam.transforms.embed.handler"):
            handler.forget_process_models()


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
    from ragbeam.transforms.sink.base import SinkError
    from ragbeam.transforms.sink.sync import new_run_token, prepare_sinks

    try:
        return prepare_sinks(config.sinks, config.embedding_model_info.dimension,
                             config.previous, new_run_token(), sparse=config.sparse)
    except SinkError as exc:
        raise UsageError(str(exc)) from None


def _finish_sinks(config: RunConfig, plans: list, chunk_rows: int, result) -> list[dict]:
    from ragbeam.transforms.sink.sync import finish_sync
    from ragbeam.transforms.sink.transforms import sink_counters

    return [finish_sync(plan, config.output, chunk_rows, sink_counters(result, plan))
            for plan in plans]


def _sink_writes_failed(config: RunConfig, plans: list, exc: Exception, started: float) -> None:
    """The pipeline failed. After run.json was written (every table committed), only a
    sink can have: record it and fail the run (the output stays a valid --previous).
    Before that, re-raise, with credentials redacted."""
    from apache_beam.io.filesystems import FileSystems

    from ragbeam.pipeline.summary import read_run_json, run_json_path, write_run_json
    from ragbeam.transforms.sink.sync import record_failure

    secrets = [secret for spec in config.sinks for secret in spec.secrets()]
    if not FileSystems.exists(run_json_path(config.output)):
        raise RuntimeError(redact_text(f"{type(exc).__name__}: {exc}", secrets)) from None
    states = [record_failure(plan, config.output, exc) for plan in plans]
    summary = read_run_json(config.output)
    summary["sinks"] = states
    summary["wall_seconds"] = round(time.perf_counter() - started, 3)
    write_run_json(config.output, summary)
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


def exit_code(summary: dict) -> int:
    from ragbeam.pipeline.summary import OUTCOME_ERROR_RATE

    return EXIT_ERROR_RATE if summary.get("outcome") == OUTCOME_ERROR_RATE else EXIT_OK


def print_summary(config: RunConfig, summary: dict) -> None:
    out = config.output
    print(f"ragbeam: {summary['files_matched']} files → {summary['documents_ok']} ok, "
          f"{summary['documents_error']} error, {summary['documents_stale']} stale; "
          f"{summary['chunks']} chunks in {summary['wall_seconds']:.1f} s")
    if config.previous:
        print(f"  since {config.previous}: {summary['documents_unchanged']} unchanged, "
              f"{summary['documents_deleted']} deleted; changes: "
              f"{summary['changes_upsert']} upserts, {summary['changes_delete']} deletes")
    if summary["documents_stale"]:
        print(f"  {summary['documents_stale']} stale: failed, their last good chunks kept "
              "(documents.status = 'stale')")
    for kind, count in summary["errors_by_type"].items():
        print(f"  {count} × {kind}")
    if extraction := summary.get("extraction"):
        print(f"  extraction: {extraction['timeouts']} timed out, {extraction['crashes']} "
              f"crashed, {extraction['memory_kills']} over the memory cap, "
              f"{extraction['archive_bombs']} archive bombs, {extraction['text_too_large']} "
              f"over the text limit; peak child RSS {extraction['child_peak_rss_mib']} MiB")
    if coverage := summary.get("extraction_coverage"):
        print(f"  coverage:  {coverage['ocr_pages']} pages OCR'd in {coverage['ocr_documents']} "
              f"documents; {coverage['pdf_fallbacks']} PDFs read by the fallback extractor")
    print(f"  chunks:    {out}/chunks/*.parquet")
    print(f"  documents: {out}/documents/*.parquet")
    print(f"  errors:    {out}/errors/*.parquet")
    print(f"  changes:   {out}/changes/*.parquet")
    for state in summary.get("sinks", ()):
        print(f"  sink:      {state['sink']} ({state['collection']}): {state['status']}, "
              f"{state['mode']} sync, {state.get('points', '?')} chunks")
    print(f"  summary:   {out}/run.json")


def _error_rate_line(summary: dict) -> str:
    return (f"ragbeam: error: {summary['documents_failed']} of "
            f"{summary['documents_processed']} processed documents failed "
            f"({summary['error_rate']:.1%}), over --max-error-rate "
            f"{summary['max_error_rate']:.1%}; every table and run.json were written")


def run_command(args: argparse.Namespace, beam_args: list[str]) -> int:
    started = time.perf_counter()
    try:
        settings = _settings(args)
        config, beam_args = _config_and_beam_args(settings, beam_args)
        if args.dry_run:
            check_inputs(config)
            print_dry_run(config, dry_run(config))
            return EXIT_OK
        summary = run(config, beam_args, overwrite=settings.overwrite,
                      take_over=settings.take_over, check=settings.preflight,
                      show_progress=not args.quiet)
    except UsageError as exc:
        print(f"ragbeam: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except RunFailed as exc:
        print(f"ragbeam: error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except Exception as exc:  # the pipeline failed: say so in one line, then the trace
        logging.getLogger("ragbeam").debug("run failed", exc_info=True)
        print(f"ragbeam: error: the run failed after {time.perf_counter() - started:.1f} s: "
              f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    print_summary(config, summary)
    code = exit_code(summary)
    if code == EXIT_ERROR_RATE:
        print(_error_rate_line(summary), file=sys.stderr)
    return code


def version_text() -> str:
    import platform

    import ragbeam
    from ragbeam.pipeline.config import package_version

    return (f"ragbeam {ragbeam.__version__} (apache-beam "
            f"{package_version('apache-beam')}, iscc-tika {package_version('iscc-tika')}, "
            f"Python {platform.python_version()})")


def logging_arguments() -> argparse.ArgumentParser:
    """``-v``/``-q``/``--log-level``, for every subcommand."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("-v", "--verbose", action="count", default=0,
                        help="more detail: -v shows ragbeam's info messages and Beam's "
                             "warnings, -vv everything")
    parent.add_argument("-q", "--quiet", action="store_true",
                        help="only errors and the final summary; no progress line")
    parent.add_argument("--log-level", choices=("DEBUG", "INFO", "WARNING", "ERROR"),
                        help="log level of every logger (overrides -v/-q)")
    return parent


# Libraries whose routine messages (worker start-up, deprecation notes, weight
# loading) are noise to someone running ragbeam; shown with -v.
NOISY_LOGGERS = ("apache_beam", "transformers", "sentence_transformers", "urllib3",
                 "huggingface_hub", "filelock")


def configure_logging(args: argparse.Namespace) -> None:
    if args.log_level:
        level, libraries = getattr(logging, args.log_level), getattr(logging, args.log_level)
    elif args.quiet:
        level, libraries = logging.ERROR, logging.ERROR
    elif args.verbose >= 2:
        level, libraries = logging.DEBUG, logging.DEBUG
    elif args.verbose == 1:
        level, libraries = logging.INFO, logging.WARNING
    else:
        level, libraries = logging.WARNING, logging.ERROR
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s",
                        force=True)
    for name in NOISY_LOGGERS:
        logging.getLogger(name).setLevel(libraries)
    if libraries > logging.WARNING:
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


def peek_command(args: argparse.Namespace, extra: list[str]) -> int:
    from ragbeam.pipeline.peek import peek

    if extra:
        print(f"ragbeam peek: error: unrecognized arguments: {' '.join(extra)}", file=sys.stderr)
        return EXIT_USAGE
    try:
        peek(args.output, per_document=args.chunks)
    except Exception as exc:  # not a run's output, unreadable…
        print(f"ragbeam peek: error: {args.output!r}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # Before anything imports Beam (the parser's eval subcommands do): a plain local
    # run's extraction children start on the inputs now (pipeline/early_start.py).
    early = start_early_extraction(argv)
    try:
        return _main(argv)
    finally:
        if early is not None:
            early.close()


def _main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="ragbeam", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=version_text())
    common = logging_arguments()
    sub = parser.add_subparsers(dest="command", required=True)
    run_parser = sub.add_parser("run", help="run the ingestion pipeline", allow_abbrev=False,
                                parents=[common],
                                description="Options not listed here must be Beam pipeline "
                                            "options.")
    add_run_arguments(run_parser)
    run_parser.add_argument("--dry-run", action="store_true",
                            help="list the files a run would process, with their doc ids and "
                                 "routes, then stop: nothing is extracted or written")
    run_parser.set_defaults(handler=run_command)
    peek_parser = sub.add_parser("peek", parents=[common],
                                 help="a short look at a finished run's output",
                                 description="One line per document (status, chunk count, "
                                             "strategy) and its first chunks, then the run's "
                                             "totals.")
    peek_parser.add_argument("output", metavar="DIR", help="a finished run's output")
    peek_parser.add_argument("--chunks", type=int, default=1, metavar="N",
                             help="chunks shown per document (default: %(default)s)")
    peek_parser.set_defaults(handler=peek_command)
    from ragbeam.evaluate.cli import add_subcommands  # eval, compare, viz

    add_subcommands(sub, parents=[common])
    args, extra = parser.parse_known_args(argv)
    configure_logging(args)
    return args.handler(args, extra)


def console_main() -> None:
    """The ``ragbeam`` command: ``main``, then exit without a slow teardown."""
    code = main()
    # Tearing the interpreter down with the cyclic collector on walks the heap of
    # every module Beam, protobuf and pyarrow loaded, again and again: 0.5-0.6 s at
    # the end of every run (measured on a 4-5 s shared-corpus run). Nothing left
    # needs it: the tables and run.json are written and closed, the extraction
    # children are gone, and atexit handlers still run. (Not in ``main``: callers
    # that run it in their own process keep their collector.)
    gc.disable()
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    console_main()
