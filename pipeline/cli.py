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
import logging
import sys
import time
from collections.abc import Iterator, Sequence

from apache_beam.io.filesystems import FileSystems

from ragbeam.pipeline.claim import OutputClaimed, claim_output, release_claim
from ragbeam.pipeline.config import RunConfig
from ragbeam.pipeline.settings import (
    ConfigError,
    RunSettings,
    add_run_arguments,
    beam_args_from,
    flag_names,
    load_settings,
    run_config,
)
from ragbeam.schemas import OUTPUT_SCHEMAS
from ragbeam.transforms.incremental.previous import previous_run_problem
from ragbeam.transforms.match.patterns import expand_input, passes_filters
from ragbeam.transforms.write.parquet import TEMP_DIR

OUTPUT_TABLES = tuple(OUTPUT_SCHEMAS)
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_ERROR_RATE = 0, 1, 2, 3


class UsageError(Exception):
    """A problem with the command line or the environment, reported before Beam starts."""


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


def check_inputs(config: RunConfig) -> None:
    """Every --input must match at least one file that passes the filters. The
    launcher lists no further than it must: the first files usually answer, and
    only when none of them passes the filters is the whole input listed."""
    m = config.match
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
    out = config.output
    existing = [t for t in (*OUTPUT_TABLES, TEMP_DIR, "run.json")
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
    given = {k: v for k, v in vars(args).items()
             if k not in ("config", "command", "handler")}
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
    beam_args = beam_args_from(settings) + beam_args
    check_beam_args(beam_args)
    try:
        config = run_config(settings)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    return config, settings, beam_args


def run(config: RunConfig, beam_args: Sequence[str], overwrite: bool = False,
        wait: bool = True, take_over: bool = False, check: bool = True) -> dict:
    """Check, claim, build, run and summarise one pipeline run. Returns run.json.

    ``wait=False`` submits and returns ``{}`` at once; the pipeline then writes
    ``run.json`` and releases the output claim itself when done (for launchers
    that may not wait, e.g. Dataflow Flex Templates: deploy/dataflow/).
    ``check=False`` skips the preflight checks (``--no-preflight``).
    """
    from ragbeam.pipeline.graph import build_pipeline
    from ragbeam.pipeline.runner import make_pipeline, pipeline_options
    from ragbeam.pipeline.summary import read_run_json, write_run_json

    # The checks below use Beam's filesystems before any pipeline exists: give them
    # the run's options, as the pipeline will (S3 needs them; --s3_endpoint_url…).
    options = pipeline_options(list(beam_args))
    FileSystems.set_options(options)
    check_inputs(config)
    if config.previous and (problem := previous_run_problem(config.previous, config.output)):
        raise UsageError(f"--previous {config.previous!r} {problem}")
    if check:
        preflight(config)
    try:
        claim = claim_output(config.output, take_over=take_over)
    except OutputClaimed as exc:
        raise UsageError(str(exc)) from None
    except Exception as exc:
        raise UsageError(f"--output {config.output!r} is not writable: "
                         f"{storage_error(exc)}") from None
    released_by_pipeline = False
    try:
        prepare_output(config, overwrite)
        pipeline = make_pipeline(options)
        build_pipeline(pipeline, config, claim=None if wait else claim)
        result = pipeline.run()
        if not wait:
            released_by_pipeline = True
            return {}
        result.wait_until_finish()
        from ragbeam.pipeline.runner import metrics_summary

        summary = read_run_json(config.output)
        summary.update(metrics_summary(result))
        write_run_json(config.output, summary)
        return summary
    finally:
        if not released_by_pipeline:
            release_claim(claim)


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
    print(f"  chunks:    {out}/chunks/*.parquet")
    print(f"  documents: {out}/documents/*.parquet")
    print(f"  errors:    {out}/errors/*.parquet")
    print(f"  changes:   {out}/changes/*.parquet")
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
        beam_args = beam_args_from(settings) + beam_args
        check_beam_args(beam_args)
        try:
            config = run_config(settings)
        except ConfigError as exc:
            raise UsageError(str(exc)) from None
        summary = run(config, beam_args, overwrite=settings.overwrite,
                      take_over=settings.take_over, check=settings.preflight)
    except UsageError as exc:
        print(f"ragbeam: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ragbeam", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    run_parser = sub.add_parser("run", help="run the ingestion pipeline", allow_abbrev=False,
                                description="Options not listed here must be Beam pipeline "
                                            "options.")
    add_run_arguments(run_parser)
    run_parser.set_defaults(handler=run_command)
    from ragbeam.evaluate.cli import add_subcommands  # eval, compare, viz

    add_subcommands(sub)
    args, beam_args = parser.parse_known_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    return args.handler(args, beam_args)


if __name__ == "__main__":
    sys.exit(main())
