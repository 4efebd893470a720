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
* 3: the run completed and wrote every table and ``run.json``, but more of the
  corpus's documents are failing than ``--max-error-rate`` allows;
* 4: an incremental run completed, but more documents vanished than
  ``--max-delete-rate``/``--max-deletes`` allow: none was deleted;
* 130, 143: interrupted by SIGINT (Ctrl-C) or SIGTERM (a scheduler stopping it).

``ragbeam sync`` exits with its run's code; ``ragbeam runs DIR`` lists a sync's runs.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import logging
import os
import platform
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NoReturn

import ragbeam
from ragbeam.pipeline.config import RunConfig, package_version
from ragbeam.pipeline.early_start import start_early_extraction
from ragbeam.pipeline.interrupts import (
    exit_after_interrupt,
    exit_code_for_signal,
    interrupted_message,
    received_signal,
    restore_logging,
    signals_interrupt,
)
from ragbeam.pipeline.peek import peek
from ragbeam.pipeline.run import (
    EXIT_DELETES_HELD,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    RunFailed,
    RunRequest,
    UsageError,
    check_inputs,
    dry_run,
    dry_run_against_previous,
    request_from_argv,
    request_from_settings,
    run_pipeline,
    settings_from_args,
    storage_error,
    unreachable_storage,
)
from ragbeam.pipeline.runs import (
    NotRuns,
    check_state_folder,
    list_runs,
    run_changes,
    runs_table,
)
from ragbeam.pipeline.settings import add_run_arguments
from ragbeam.pipeline.summary import headline, read_run_json, store_words
from ragbeam.pipeline.sync import DEFAULT_KEEP, SyncRefused, dry_sync, sync

# No Beam at module level (it is imported inside the functions that use it): `ragbeam
# run` starts extracting before Beam's ~1 s import (early_start.py; a test checks this).
from ragbeam.transforms.collector import pause_collector, resume_collector
from ragbeam.transforms.extract.isolation import CHILD_LOGGER
from ragbeam.transforms.ids import doc_key
from ragbeam.transforms.incremental.previous import option_differences
from ragbeam.transforms.plan.guard import held_line
from ragbeam.transforms.plan.layers import LAYERS_KEPT, layer_effects
from ragbeam.transforms.plan.retries import MAX_ATTEMPTS
from ragbeam.transforms.route.router import BY_CONTENT, content_signals

# This module parses arguments and prints; the run library (run.py) runs. (The module
# docstring is `ragbeam --help`'s text.)


def _size(n: int) -> str:
    if n < 0:
        return "broken link"
    for unit in ("B", "KiB", "MiB"):
        if n < 1024:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"


def print_dry_run(config: RunConfig, rows: list[dict], to_process: int | None = None) -> None:
    """``to_process``: with ``--previous``, how many of the files would be processed."""
    width = max((len(r["key"]) for r in rows), default=4)
    if to_process is None:
        print(f"ragbeam run --dry-run: {len(rows)} files would be processed "
              "(nothing extracted, nothing written)")
    else:
        print(f"ragbeam run --dry-run: {len(rows)} files matched, {to_process} would be "
              "processed (nothing extracted, nothing written)")
    for r in rows:
        note = "  [over --max-file-bytes: error row]" if r["over_size_limit"] else ""
        print(f"  {r['key']:<{width}}  {_size(r['bytes']):>11}  {r['strategy']:<12} "
              f"{r['reason']}{note}")
    if any(r["strategy"] == BY_CONTENT for r in rows):
        print(f"  {BY_CONTENT}: {content_signals(config.route)}")


def print_option_differences(config: RunConfig) -> None:
    """``--dry-run --previous``: the options (and versions) that differ from the previous
    run's, and which layers of the output they redo (``layers.layer_effects``)."""
    previous = read_run_json(config.previous)
    differences = option_differences(previous, dict(config.settings),
                                     config.fingerprint_fields())
    second = (("made for every chunk" if config.text_vector else "dropped from every chunk")
              if config.layer_plan.first_vector_kept else None)
    effects = layer_effects(config.previous_layer_keys, config.layer_keys,
                            config.extraction_reuse_key is not None, second)
    if not differences and effects == [LAYERS_KEPT]:
        print(f"  options: as in {config.previous}")
        return
    print(f"  options that differ from {config.previous}'s: "
          + ("; ".join(differences) or "none named (the model's or Tika's files changed)")
          + f" (layers: {'; '.join(effects)})")


def print_dry_run_diff(config: RunConfig, preview, key_of: Mapping[str, str],
                       verbose: bool) -> None:
    """``--dry-run --previous``: counts of what would happen to each document, whether
    the delete guard would stop the run, and with ``-v`` each file."""
    c = preview.count
    print(f"  since {config.previous}: {c('new') + c('changed')} to process ({c('new')} new, "
          f"{c('changed')} changed), {c('re-chunked')} chunked again without extracting, "
          f"{c('retried')} retried, {c('unchanged')} unchanged, "
          f"{c('kept failure')} kept failures, {c('deleted')} deleted, {c('moved')} moved, "
          f"{c('duplicate')} duplicates")
    if preview.held:
        print("  delete guard: would stop the run (exit 4): "
              + held_line(preview.vanished, preview.previous_documents, config.delete_guard))
    else:
        print(f"  delete guard: passes ({preview.vanished} of {preview.previous_documents} "
              f"documents vanished; {config.delete_guard.describe()})")
    if verbose:
        root = config.match.id_root
        for kind, uris in preview.uris.items():
            for uri in uris:
                print(f"  {kind:<10} {key_of.get(uri) or doc_key(uri, root, config.ids.mode)}")


def time_spent(command_seconds: float, pipeline_seconds: float,
               phases: Mapping[str, float], sinks: bool = False) -> str:
    """The command's wall time, all of it accounted for: Python's start, imports and
    checks ("start-up", what the others leave), each launcher phase, the pipeline
    (which writes the stores: "incl. store sync")."""
    parts = {"start-up": 0.0, **phases,
             "pipeline incl. store sync" if sinks else "pipeline": pipeline_seconds}
    parts["start-up"] = max(0.0, command_seconds - sum(v for k, v in parts.items()
                                                       if k != "start-up"))
    return f"{command_seconds:.1f} s (" + ", ".join(f"{k} {v:.1f} s" for k, v in parts.items()
                                                    if v >= 0.05 or k.startswith("pipeline")) + ")"


def print_summary(config: RunConfig, summary: Mapping[str, Any],
                  command_seconds: float | None = None, quiet: bool = False,
                  phases: Mapping[str, float] | None = None) -> None:
    """``command_seconds``: the command's wall time, shown beside the pipeline's own
    (``wall_seconds``: graph, runner and tables; not Python's start, the checks or the
    model's preflight load). ``quiet`` (``-q``): the headline only (a scheduler's mail
    reads one line; run.json has the rest)."""
    out = config.output
    took = f"{summary['wall_seconds']:.1f} s" if command_seconds is None else time_spent(
        command_seconds, summary["wall_seconds"], phases or {}, bool(config.sinks))

    print(headline(summary, took))
    if quiet:
        return
    if config.previous:
        print(f"  since {config.previous}: {summary['documents_unchanged']} unchanged, "
              f"{summary['documents_deleted']} deleted; changes: "
              f"{summary['changes_upsert']} upserts, {summary['changes_delete']} deletes")
    if summary["documents_stale"]:
        print(f"  {summary['documents_stale']} stale: failed, their last good chunks kept "
              "(documents.status = 'stale')")
    if summary.get("documents_gave_up"):
        print(f"  {summary['documents_gave_up']} gave up: failed the same way "
              f"{MAX_ATTEMPTS} runs in a row, not retried until the file or the config "
              "changes, or --retry-errors (documents.metadata.gave_up)")
    if summary.get("documents_unsupported"):
        counted = ("counted as failing (--unsupported-as-errors)"
                   if summary.get("unsupported_as_errors") else "not counted as failures")
        print(f"  {summary['documents_unsupported']} unsupported: audio, video, images "
              f"without text or programs, no text to index, {counted} "
              "(documents.status = 'unsupported')")
    if summary.get("documents_duplicate"):
        print(f"  {summary['documents_duplicate']} duplicates: same bytes as another document, "
              "indexed once under it (documents.status = 'duplicate')")
    identity = summary.get("identity") or {}
    if identity.get("moved"):
        print(f"  {identity['moved']} moved: same bytes under a new path, chunks taken over "
              "without extraction or embedding (documents.metadata.moved_from)")
    if identity.get("near_duplicates"):
        print(f"  {identity['near_duplicates']} near-duplicates: same text as another document "
              "from other bytes, indexed each (-v lists them)")
    if summary.get("documents_vanished"):
        print(f"  {summary['documents_vanished']} vanished: not matched, kept by the delete "
              "guard with their chunks (documents.status = 'vanished')")
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
        if incomplete := coverage.get("ocr_incomplete_documents"):
            print(f"  {incomplete} incomplete: OCR stopped by a time limit on some pages "
                  "(documents.metadata.incomplete); the next incremental run reads them again")
    if furniture := (summary.get("cleaning") or {}).get("furniture_lines_removed"):
        print(f"  cleaning:  {furniture} lines of page furniture removed (running heads, page "
              "numbers, stamps: `ragbeam viz --doc FILE` lists a document's)")
    if truncated := (summary.get("documents_incomplete_by_reason") or {}).get("TruncatedFile"):
        print(f"  {truncated} incomplete: the file is cut short, only the part before the cut "
              "was read (documents.metadata.incomplete = 'TruncatedFile')")
    print(f"  chunks:    {out}/chunks/*.parquet")
    print(f"  documents: {out}/documents/*.parquet")
    print(f"  errors:    {out}/errors/*.parquet")
    print(f"  changes:   {out}/changes/*.parquet")
    if summary.get("sparse"):
        print(f"  terms:     {out}/terms/*.parquet (document frequencies for a sparse query: "
              "ragbeam.load_term_frequencies)")
    for state in summary.get("sinks", ()):
        print(f"  sink:      {store_words(state)}")
    print(f"  summary:   {out}/run.json")


def _error_rate_line(summary: Mapping[str, Any]) -> str:
    return (f"ragbeam: error: {summary['documents_failing']} of "
            f"{summary['documents_indexed']} documents are failing "
            f"({summary['error_rate']:.1%}; {summary['documents_failed']} of "
            f"{summary['documents_processed']} processed in this run failed), over "
            f"--max-error-rate {summary['max_error_rate']:.1%}; every table and run.json "
            "were written")


def _deletes_held_line(config: RunConfig, summary: Mapping[str, Any]) -> str:
    return "ragbeam: error: " + held_line(summary["documents_vanished"],
                                          summary.get("previous_documents", 0),
                                          config.delete_guard)


def run_command(args: argparse.Namespace, beam_args: list[str]) -> int:
    early = None

    def make_request() -> RunRequest:
        nonlocal early
        settings = settings_from_args(args)
        if not args.dry_run:  # before Beam's import (request_from_settings)
            early = start_early_extraction(settings, beam_args)
        return request_from_settings(settings, beam_args, show_progress=not args.quiet,
                                     started=args.started)

    try:
        return report_run(make_request, dry=args.dry_run, verbose=args.verbose > 0,
                          quiet=args.quiet)
    finally:
        if early is not None:
            early.close()


def report_run(make_request: Callable[[], RunRequest], dry: bool = False,
               verbose: bool = False, quiet: bool = False) -> int:
    """Make the request, run it and print what happened; returns the exit code.
    ``verbose``: a dry run against ``--previous`` lists every file; ``quiet``: the
    summary's headline only."""
    started = time.monotonic()
    try:
        request = make_request()
        config = request.config
        if dry:
            resume_collector()  # the run's settings are loaded: start-up is over
            check_inputs(config)
            rows = dry_run(config)
            if not config.previous:
                print_dry_run(config, rows)
                return EXIT_OK
            # Against --previous: the options that differ first (a config change redoes
            # every document, which is then not the files' doing), and only what would
            # be processed counted as such.
            preview = dry_run_against_previous(config, rows)
            print_dry_run(config, rows, to_process=preview.count("new")
                          + preview.count("changed") + preview.count("retried")
                          + preview.count("re-chunked"))
            print_option_differences(config)
            key_of = {r["path"]: r["key"] for r in rows}
            print_dry_run_diff(config, preview, key_of, verbose=verbose)
            return EXIT_OK
        result = run_pipeline(request)
        if not request.wait:
            print(f"ragbeam: submitted; the job writes {config.output}/run.json when it "
                  "finishes")
            return EXIT_OK
    except UsageError as exc:
        print(f"ragbeam: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except RunFailed as exc:
        print(f"ragbeam: error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except Exception as exc:  # the pipeline failed: say so in one line, then the trace
        logging.getLogger("ragbeam").debug("run failed", exc_info=True)
        print(f"ragbeam: error: the run failed after {time.monotonic() - started:.1f} s: "
              f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    print_summary(config, result.summary, time.monotonic() - (request.started or started),
                  quiet=quiet, phases=result.phases)
    if result.exit_code == EXIT_DELETES_HELD:
        print(_deletes_held_line(config, result.summary), file=sys.stderr)
    if result.summary.get("error_rate_exceeded"):
        print(_error_rate_line(result.summary), file=sys.stderr)
    return result.exit_code


def sync_command(args: argparse.Namespace, run_argv: list[str]) -> int:
    def run_one(argv: list[str]) -> int:
        return report_run(lambda: request_from_argv(argv, prog="ragbeam sync",
                                                    wait=not args.submit_only,
                                                    show_progress=not args.quiet,
                                                    started=args.started),
                          quiet=args.quiet)

    def run_dry(argv: list[str]) -> int:
        return report_run(lambda: request_from_argv(argv, prog="ragbeam sync",
                                                    started=args.started),
                          dry=True, verbose=args.verbose > 0)

    try:
        if args.dry_run:
            return dry_sync(args.state, run_argv, run_dry, run_name=args.run_name)
        return sync(args.state, run_argv, run_one, keep=args.keep, run_name=args.run_name,
                    take_over=args.take_over, submitted_only=args.submit_only)
    except SyncRefused as exc:
        print(f"ragbeam sync: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # the state folder could not be listed, claimed or read
        logging.getLogger("ragbeam").debug("sync failed", exc_info=True)
        print(f"ragbeam sync: error: {args.state!r}: {type(exc).__name__}: {exc}",
              file=sys.stderr)
        return EXIT_FAILED


def runs_command(args: argparse.Namespace, extra: list[str]) -> int:
    if extra:
        print(f"ragbeam runs: error: unrecognized arguments: {' '.join(extra)}", file=sys.stderr)
        return EXIT_USAGE
    if problem := unreachable_storage([args.state]):
        print(f"ragbeam runs: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    try:
        runs = list_runs(args.state)
        check_state_folder(args.state, runs)
    except NotRuns as exc:
        print(f"ragbeam runs: error: {args.state!r}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # unreadable, unknown scheme…
        print(f"ragbeam runs: error: {args.state!r}: {storage_error(exc)}", file=sys.stderr)
        return EXIT_USAGE
    if not runs:
        print(f"ragbeam runs: no runs under {args.state} (no folder named YYYY-MM-DD or "
              "YYYY-MM-DDTHHMMSSZ: no sync has written into it yet)")
        return EXIT_OK
    if args.run:
        run = next((r for r in runs if r.name == args.run), None)
        if run is None:
            print(f"ragbeam runs: error: no run {args.run!r} under {args.state} (runs: "
                  f"{', '.join(r.name for r in runs)})", file=sys.stderr)
            return EXIT_USAGE
        print("\n".join(run_changes(run)))
        return EXIT_OK
    print("\n".join(runs_table(runs)))
    return EXIT_OK


def add_sync_subcommands(sub: argparse._SubParsersAction, common: argparse.ArgumentParser
                         ) -> None:
    sync_parser = sub.add_parser(
        "sync", parents=[common], allow_abbrev=False,
        help="one scheduled re-index: a dated run under --state, built on the newest "
             "completed one; old runs pruned",
        description="Writes STATE/<UTC time>/ with the newest completed run under STATE as "
                    "--previous, then prunes completed runs beyond --keep. Every other "
                    "option is a `ragbeam run` option (--input, --sink, --config…) or a "
                    "Beam option; --output, --previous and --overwrite are chosen by sync. "
                    "Exits with the run's exit code.")
    sync_parser.add_argument("--state", required=True, metavar="DIR",
                             help="folder of dated runs (any Beam filesystem)")
    sync_parser.add_argument("--keep", type=int, default=DEFAULT_KEEP, metavar="N",
                             help="completed runs to keep (default: %(default)s)")
    sync_parser.add_argument("--run-name", metavar="NAME",
                             help="the run's folder name, YYYY-MM-DD or YYYY-MM-DDTHHMMSSZ "
                                  "(default: now, UTC); a scheduler's logical date makes a "
                                  "retry of a completed run a no-op")
    sync_parser.add_argument("--take-over", action="store_true",
                             help="remove a claim on --state left by a sync that was killed")
    sync_parser.add_argument("--submit-only", action="store_true",
                             help="submit the run and return without waiting (Dataflow Flex "
                                  "Templates); the job writes run.json when it finishes")
    sync_parser.add_argument("--dry-run", action="store_true",
                             help="preview the next run (ragbeam run --dry-run with the "
                                  "--previous this sync would choose); nothing is written")
    sync_parser.set_defaults(handler=sync_command)
    runs_parser = sub.add_parser("runs", parents=[common],
                                 help="list the runs under a sync's --state folder",
                                 description="One line per run folder: run, finished, status, "
                                             "documents, chunks, changes, previous.")
    runs_parser.add_argument("state", metavar="DIR", help="a sync's --state folder")
    runs_parser.add_argument("--run", metavar="ID",
                             help="list one run's documents by what it did to them (added, "
                                  "changed, moved, deleted, failed, gave up), by path")
    runs_parser.set_defaults(handler=runs_command)


def version_text() -> str:
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
                        help="only errors and the summary's first line; no progress line")
    parent.add_argument("--log-level", choices=("DEBUG", "INFO", "WARNING", "ERROR"),
                        help="log level of every logger (overrides -v/-q)")
    return parent


# Libraries whose routine messages (worker start-up, deprecation notes, weight
# loading) are noise to someone running ragbeam; shown with -v.
NOISY_LOGGERS = ("apache_beam", "transformers", "sentence_transformers", "urllib3",
                 "huggingface_hub", "filelock", CHILD_LOGGER)


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
    if extra:
        print(f"ragbeam peek: error: unrecognized arguments: {' '.join(extra)}", file=sys.stderr)
        return EXIT_USAGE

    try:
        peek(args.output, per_document=args.chunks)
    except NotRuns as exc:
        print(f"ragbeam peek: error: {args.output!r}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # unreadable…
        print(f"ragbeam peek: error: {args.output!r}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK


# Adds more subcommands to the ``ragbeam`` parser: ``(subparsers, parents)``.
Subcommands = Callable[[argparse._SubParsersAction, list[argparse.ArgumentParser]], None]


def main(argv: Sequence[str] | None = None, started: float | None = None,
         more: Subcommands | None = None) -> int:
    """The pipeline's subcommands (``python -m ragbeam.pipeline.cli``), and ``more``
    (the ``ragbeam`` command, ``ragbeam/cli.py``, adds the evaluation's). ``started``:
    ``time.monotonic()`` when the command started (default: now); the summary's time
    and the progress lines count from it."""
    argv = list(sys.argv[1:] if argv is None else argv)
    started = time.monotonic() if started is None else started
    with signals_interrupt():
        try:
            args, extra = build_parser(more).parse_known_args(argv)
            args.started = started
            configure_logging(args)
            if args.handler not in (run_command, sync_command):
                resume_collector()  # a run resumes it when its start-up is over (run.py)
            return args.handler(args, extra)
        except KeyboardInterrupt as exc:
            return report_interrupt(exc)


def report_interrupt(exc: KeyboardInterrupt) -> int:
    """One line on stderr (the traceback with -v), and 128 + the signal's number."""
    signum = received_signal() or signal.SIGINT
    restore_logging()
    logging.getLogger("ragbeam").info("interrupted here:", exc_info=exc)
    print(interrupted_message(signum, getattr(exc, "committed", False)), file=sys.stderr,
          flush=True)
    return exit_code_for_signal(signum)


def build_parser(more: Subcommands | None = None) -> argparse.ArgumentParser:
    """The ``ragbeam`` parser: ``run``, ``peek``, ``sync`` and ``runs``, and ``more``."""
    parser = argparse.ArgumentParser(prog="ragbeam", description=plain_text(__doc__),
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
    add_sync_subcommands(sub, common)
    if more is not None:
        more(sub, [common])
    return parser


def plain_text(rst: str) -> str:
    """A docstring as ``--help`` shows it: RST's ````literal```` marks dropped."""
    return rst.replace("``", "")


def process_started() -> float:
    """``time.monotonic()`` when this process started (Linux: from /proc), so the
    command's time includes Python's start and the imports; elsewhere, now."""
    try:
        with open("/proc/self/stat", "rb") as f:
            start_ticks = int(f.read().rsplit(b")", 1)[1].split()[19])
        with open("/proc/uptime", encoding="ascii") as f:
            uptime_s = float(f.read().split()[0])
        age_s = uptime_s - start_ticks / os.sysconf("SC_CLK_TCK")
        return time.monotonic() - max(0.0, age_s)
    except (OSError, ValueError, IndexError):
        return time.monotonic()


def exit_code(exc: SystemExit) -> int:
    """What ``sys.exit(arg)`` would have made the process's status."""
    if exc.code is None or isinstance(exc.code, int):
        return exc.code or 0
    print(exc.code, file=sys.stderr)
    return 1


def exit_now(code: int) -> NoReturn:
    """End the process as ``sys.exit`` would, without the interpreter's teardown.

    Python's teardown runs the C++ static destructors of every native library loaded:
    Arrow's thread pools (pyarrow, read by every command), gRPC's (Beam) and their
    threads may still be joinable then, and a joinable ``std::thread`` destroyed at exit
    calls ``std::terminate``: "terminate called without an active exception", SIGABRT,
    exit 134 instead of the command's code, in some runs (apache/arrow#34314; `ragbeam
    viz --doc nope.pdf` aborted in 8 of 20). Nothing of the teardown is needed: the
    tables and run.json are written and closed, the extraction children are gone. What
    a normal exit does that matters still happens here, in its order: wait for
    non-daemon threads, run the atexit handlers (logging, progress tallies, the
    extraction pool's shutdown), flush stdout and stderr. It also saves the 0.5-0.6 s
    the collector spent walking every module's heap at exit (4-5 s corpus run).

    The threads are waited for by ``threading._shutdown``, the interpreter's own first
    step of an exit, not by joining them: it first runs the ``threading`` exit hooks,
    which tell idle ``ThreadPoolExecutor`` workers to stop (non-daemon since Python
    3.9). Joined without that, an idle worker (one a sync with Milvus Lite leaves)
    waits forever: a finished ``run --sink milvus:…`` printed its summary and hung
    (a library's executor left idle; seen in every such run under load)."""
    threading._shutdown()  # type: ignore[attr-defined]
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # closed, or a broken pipe
            stream.flush()
    os._exit(code)


class ReaderGoneStream:
    """``sys.stdout``/``sys.stderr`` for a command whose reader may go away
    (``ragbeam peek out | head -3``): once a write or flush finds the pipe closed, the
    stream writes to ``/dev/null`` from then on and the command ends as it would have,
    with its own exit code, instead of "Broken pipe" errors or a traceback.

    Not ``SIGPIPE``'s default action (die at once, as ``cat`` does): ``run`` writes to
    its extraction children through pipes and handles a child gone away
    (``BrokenPipeError``) as a crashed document; the signal would kill the launcher."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def _reader_gone(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())  # what is still buffered goes there too
            os.close(devnull)

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._reader_gone()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._reader_gone()
            with contextlib.suppress(OSError, ValueError):
                self._stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def console_main(command: Callable[..., int] = main) -> None:
    """A command (``main``, or the ``ragbeam`` command's: ``ragbeam/cli.py``), then exit
    without the interpreter's teardown (``exit_now``). Not in ``main``: callers that run
    it in their own process keep their interpreter (and their own streams)."""
    pause_collector()
    exit_after_interrupt()  # this process is the command's: it ends soon after a Ctrl-C
    sys.stdout, sys.stderr = ReaderGoneStream(sys.stdout), ReaderGoneStream(sys.stderr)
    try:
        code = command(started=process_started())
    except SystemExit as exc:  # argparse's --help and usage errors
        code = exit_code(exc)
    exit_now(code)


if __name__ == "__main__":
    console_main()
