"""``ragbeam compare``: the seed-004 experiment as one command.

Runs the real pipeline once per strategy (``ragbeam run … --strategy NAME``,
everything else equal) into ``WORK/<strategy>/``, evaluates each run with the
same questions, retrievers and token budget, and writes ``WORK/compare.json``
and ``WORK/report.html``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from ragbeam.evaluate.evaluation import Question, evaluate_run, format_table
from ragbeam.evaluate.report import render_report
from ragbeam.evaluate.retrieval import EmbeddingCache
from ragbeam.evaluate.run_data import load_run
from ragbeam.evaluate.svg import bin_counts, nice_ceiling
from ragbeam.evaluate.token_level import DEFAULT_K
from ragbeam.pipeline.run import request_from_argv, run_pipeline
from ragbeam.transforms.chunk.strategies import strategy_names

HISTOGRAM_BINS = 20


def known_strategies() -> list[str]:
    return strategy_names()


def parse_strategies(value: str) -> list[str]:
    """``"fixed, recursive"`` → ``["fixed", "recursive"]``; unknown names are an error."""
    names = list(dict.fromkeys(n.strip() for n in value.split(",") if n.strip()))
    if not names:
        raise ValueError("--strategies is empty")
    known = known_strategies()
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown strategies: {', '.join(unknown)} "
                         f"(registered: {', '.join(known)})")
    return names


def token_histogram(token_counts: dict[str, list[int]]) -> dict[str, Any]:
    """Shared bins for every strategy: 0 … the largest p99, in ``HISTOGRAM_BINS`` steps."""
    tops = []
    for counts in token_counts.values():
        if counts:
            ordered = sorted(counts)
            tops.append(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))])
    top = nice_ceiling(max(tops, default=1))
    bins = [top * i / HISTOGRAM_BINS for i in range(HISTOGRAM_BINS + 1)]
    return {"bins": bins,
            "counts": {name: bin_counts(c, bins) for name, c in token_counts.items()}}


RunFunction = Callable[[str, str], dict[str, Any]]


def compare_strategies(inputs: Sequence[str], work: str, strategies: Sequence[str],
                       run_strategy: RunFunction, questions: Sequence[Question] | None,
                       budget: int, retrievers: Sequence[str], dense_model: str = "minilm",
                       k: int = DEFAULT_K) -> dict[str, Any]:
    """Run and evaluate each strategy; ``run_strategy(name, output)`` runs the pipeline."""
    cache = EmbeddingCache(model=dense_model) if {"dense", "hybrid"} & set(retrievers) else None
    results: dict[str, Any] = {}
    token_counts: dict[str, list[int]] = {}
    cap = None
    for index, name in enumerate(strategies, 1):
        output = os.path.join(work, name)
        # A compare runs the pipeline once per strategy: say which one is under way.
        print(f"ragbeam compare: strategy {index}/{len(strategies)}: {name}", file=sys.stderr,
              flush=True)
        summary = run_strategy(name, output)
        run = load_run(output)
        cap = run.chunk_cap
        results[name] = {
            "output": output,
            "run": {k: summary.get(k) for k in ("files_matched", "documents_ok",
                                                 "documents_error", "chunks", "wall_seconds",
                                                 "config_hash")},
            "eval": evaluate_run(run, questions, budget, retrievers, cache, k),
        }
        token_counts[name] = [c.token_count for c in run.indexed_chunks]
    return {
        "inputs": list(inputs),
        "work": work,
        "budget": budget,
        "cap": f"{cap[0]} {cap[1]}" if cap else None,
        "retrievers": list(retrievers) if questions else [],
        "questions": {"count": len(questions or [])},
        "strategies": results,
        "token_histogram": token_histogram(token_counts),
    }


def format_compare(compare: dict[str, Any]) -> str:
    """One side-by-side table: a row per strategy, chunk figures then retrieval."""
    header = ["strategy", "chunks", "tok mean", "tok p95", "at cap", "mid-sent", "idx tokens",
              "redund"]
    for retriever in compare["retrievers"]:
        header += [f"{retriever} hits", f"{retriever} rank", f"{retriever} chunks/ctx",
                   f"{retriever} tok R/IoU"]
    rows = []
    for name, entry in compare["strategies"].items():
        f = entry["eval"]["figures"]["by_strategy"].get(name)
        if f is None:
            continue
        row = [name, f["chunks"], f["tokens"]["mean"], f["tokens"]["p95"], f["share_at_cap"],
               f["mid_sentence_break_rate"], f["index_tokens"], f["overlap_redundancy"]]
        for retriever in compare["retrievers"]:
            r = entry["eval"]["retrieval"][retriever]
            token = r.get("token_level") or {}
            row += [f"{r['hits']}/{r['questions']}", r["mean_first_answer_rank"],
                    r["mean_chunks_in_context"],
                    f"{token.get('recall', 0):.1f}/{token.get('iou', 0):.1f}"]
        rows.append(row)
    title = (f"cap {compare['cap']}; retrieval at a {compare['budget']}-token context budget"
             if compare["retrievers"] else f"cap {compare['cap']}")
    return title + "\n" + format_table(header, rows)


def write_compare(compare: dict[str, Any], work: str) -> tuple[str, str]:
    os.makedirs(work, exist_ok=True)
    json_path = os.path.join(work, "compare.json")
    html_path = os.path.join(work, "report.html")
    with open(json_path, "w", encoding="utf-8") as f:
        json.dump(compare, f, indent=2, ensure_ascii=False)
    with open(html_path, "w", encoding="utf-8") as f:
        f.write(render_report(compare))
    return json_path, html_path


def pipeline_runner(inputs: Sequence[str], run_options: Sequence[str]) -> RunFunction:
    """A ``run_strategy`` that runs the pipeline as ``ragbeam run`` does (the run
    library, ``pipeline/run.py``).

    ``run_options`` are the compare command's extra arguments: run options
    (``--exclude``, ``--chunk-size``…) and Beam options, split exactly as
    ``ragbeam run`` would split them.
    """
    def run_strategy(name: str, output: str) -> dict[str, Any]:
        argv = [a for path in inputs for a in ("--input", path)]
        argv += ["--output", output, "--strategy", name, *run_options]
        request = request_from_argv(argv, prog="ragbeam compare", show_progress=True)
        return dict(run_pipeline(dataclasses.replace(request, overwrite=True)).summary)

    return run_strategy
