"""``ragbeam compare``: the seed-004 experiment as one command.

Runs the real pipeline once per strategy (``ragbeam run … --strategy NAME``,
everything else equal) into ``WORK/<strategy>/``, evaluates each run with the
same questions, retrievers and token budget, and writes ``WORK/compare.json``
and ``WORK/report.html``: the figures side by side, example chunks of each strategy
side by side (``EXAMPLE_QUESTIONS`` questions, those the strategies disagree on first,
and one passage as each strategy cut it), and a one-line recommendation read off the
measurements (``recommend``).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ragbeam.evaluate.evaluation import Question, evaluate_run, format_table
from ragbeam.evaluate.report import render_report
from ragbeam.evaluate.retrieval import EmbeddingCache
from ragbeam.evaluate.run_data import ChunkRecord, RunData, load_run
from ragbeam.evaluate.svg import bin_counts, nice_ceiling
from ragbeam.evaluate.token_level import DEFAULT_K
from ragbeam.pipeline.run import request_from_argv, run_pipeline
from ragbeam.transforms.chunk.strategies import strategy_names

HISTOGRAM_BINS = 20
EXAMPLE_QUESTIONS = 2
EXAMPLE_CHARS = 1500  # of a chunk shown in the examples: around the answer, or its start
EXAMPLE_LEAD = 240  # characters shown before the answer (or the passage)
# Two strategies' hits differ by more than noise when a two-sided sign test over the
# questions only one of them answered puts the difference below this level.
NOISE_LEVEL = 0.05


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
    passage: tuple[str, int] | None = None
    shown: dict[str, dict[str, Any]] = {}  # strategy → chunk_id → what the examples show
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
        passage = passage or middle_of_longest(run)
        shown[name] = example_chunks(run, results[name]["eval"], passage)
    compare = {
        "inputs": list(inputs),
        "work": work,
        "budget": budget,
        "cap": f"{cap[0]} {cap[1]}" if cap else None,
        "retrievers": list(retrievers) if questions else [],
        "questions": {"count": len(questions or [])},
        "strategies": results,
        "token_histogram": token_histogram(token_counts),
    }
    compare["examples"] = pick_examples(compare, shown, passage,
                                        {q.id: q.answer_text for q in questions or []})
    compare["recommendation"] = recommend(compare)
    return compare


def _chunk_shown(c: ChunkRecord, role: str) -> dict[str, Any]:
    return {"chunk_id": c.chunk_id, "chunk_index": c.chunk_index, "level": c.level,
            "source": c.source_uri.rsplit("/", 1)[-1], "tokens": c.token_count,
            "heading": " › ".join(c.heading_path), "char_start": c.char_start,
            "char_end": c.char_end, "text": c.text, "role": role}


def middle_of_longest(run: RunData) -> tuple[str, int] | None:
    """``(doc_id, offset)``: the middle of the run's longest text, the passage every
    strategy's chunks are shown for (every strategy chunks the same cleaned text)."""
    if not run.texts:
        return None
    doc_id = max(sorted(run.texts), key=lambda d: len(run.texts[d]))
    text = run.texts[doc_id]
    middle = len(text) // 2
    space = text.find(" ", middle)  # a word's start: the marker goes between words
    return doc_id, space + 1 if 0 <= space < len(text) - 1 else middle


def example_chunks(run: RunData, evaluation: Mapping[str, Any],
                   passage: tuple[str, int] | None) -> dict[str, Any]:
    """The chunks the examples may show, by chunk_id: each question's top and answer
    units (``per_question``), and the indexed chunk that holds the passage (key
    ``"passage"``)."""
    wanted = {pq[key] for r in evaluation.get("retrieval", {}).values()
              for pq in r["per_question"] for key in ("top_chunk_id", "answer_chunk_id")
              if pq.get(key)}
    out = {c.chunk_id: _chunk_shown(c, "") for c in run.chunks if c.chunk_id in wanted}
    if passage is not None:
        doc_id, offset = passage
        holder = next((c for c in run.indexed_chunks
                       if c.doc_id == doc_id and c.char_start <= offset < c.char_end), None)
        if holder is not None:
            out["passage"] = _chunk_shown(holder, "passage")
    return out


def pick_examples(compare: Mapping[str, Any], shown: Mapping[str, Mapping[str, Any]],
                  passage: tuple[str, int] | None, answers: Mapping[str, str | None]
                  ) -> list[dict[str, Any]]:
    """Example chunks side by side: up to ``EXAMPLE_QUESTIONS`` questions of the first
    retriever (those the strategies disagree on first, then those with an answer text,
    then those whose answer chunks differ most in size), each with every strategy's chunk
    holding the answer (or, on a miss, its top chunk); then the passage, as each
    strategy's chunk holding it."""
    names = list(compare["strategies"])
    examples: list[dict[str, Any]] = []
    if compare["retrievers"]:
        retriever = compare["retrievers"][0]
        per_strategy = {n: {pq["id"]: pq for pq in compare["strategies"][n]["eval"][
            "retrieval"][retriever]["per_question"]} for n in names}
        ids = list(per_strategy[names[0]])

        def interest(qid: str) -> tuple[bool, bool, int]:
            """Disagreement first, then an answer text to mark, then unlike chunks."""
            hits = {per_strategy[n][qid]["hit"] for n in names}
            sizes = [shown[n].get(per_strategy[n][qid].get("answer_chunk_id") or "", {}).get(
                "tokens", 0) for n in names]
            return (len(hits) > 1, bool(answers.get(qid)), max(sizes) - min(sizes))

        for qid in sorted(ids, key=interest, reverse=True)[:EXAMPLE_QUESTIONS]:
            row: dict[str, Any] = {}
            for n in names:
                pq = per_strategy[n][qid]
                key = pq.get("answer_chunk_id") or pq.get("top_chunk_id")
                chunk = dict(shown[n].get(key or "", {}))
                if chunk:
                    chunk["role"] = "answer" if pq.get("answer_chunk_id") else "top"
                    chunk["text"], chunk["mark"] = excerpt(chunk["text"], answers.get(qid))
                row[n] = {"hit": pq["hit"], "rank": pq.get("first_answer_rank"),
                          "context_tokens": pq.get("context_tokens"), "chunk": chunk or None}
            examples.append({"kind": "question", "retriever": retriever, "id": qid,
                             "question": per_strategy[names[0]][qid]["question"],
                             "answer_text": answers.get(qid), "by_strategy": row})
    if passage is not None and all("passage" in shown[n] for n in names):
        row = {}
        for n in names:
            chunk = dict(shown[n]["passage"])
            at = passage[1] - chunk["char_start"]
            chunk["text"], chunk["mark"] = _window(chunk["text"], at, at)
            row[n] = {"chunk": chunk}
        examples.append({"kind": "passage", "source": shown[names[0]]["passage"]["source"],
                         "offset": passage[1], "by_strategy": row})
    return examples


def excerpt(text: str, answer: str | None) -> tuple[str, list[int] | None]:
    """At most ``EXAMPLE_CHARS`` of a chunk, around the answer where it holds it (its
    whitespace may differ), and the answer's ``[start, end)`` in what is returned."""
    if answer:
        words = answer.split()
        pattern = r"\s+".join(re.escape(w) for w in words)
        match = re.search(pattern, text, re.IGNORECASE) if words else None
        if match:
            return _window(text, match.start(), match.end())
    return _window(text, 0, 0)[0], None


def _window(text: str, start: int, end: int) -> tuple[str, list[int]]:
    """``text`` from a little before ``[start, end)`` (so that range shows at the top of
    the example's box), at most ``EXAMPLE_CHARS``, saying how much was left out; and
    that range's place in the result."""
    lo = 0
    if start > 2 * EXAMPLE_LEAD:
        space = text.find(" ", start - EXAMPLE_LEAD)
        lo = space + 1 if 0 <= space < start else start
    hi = min(len(text), max(lo + EXAMPLE_CHARS, end))
    head = f"[… {lo:,} characters before]\n" if lo else ""
    tail = f"\n[… {len(text) - hi:,} characters after]" if hi < len(text) else ""
    return head + text[lo:hi] + tail, [start - lo + len(head), end - lo + len(head)]


def sign_test(wins: int, losses: int) -> float:
    """Two-sided exact sign test: the chance of a split at least this uneven among
    ``wins + losses`` questions only one of two strategies answered, were both equal."""
    n = wins + losses
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(wins, losses) + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def fisher_exact(a: int, n: int, b: int, m: int) -> float:
    """Two-sided Fisher exact test: the chance, were both rates equal, of a split of the
    ``a + b`` events between samples of ``n`` and ``m`` at most as likely as ``a`` : ``b``."""
    events, total = a + b, n + m
    if events == 0 or events == total:
        return 1.0

    def likelihood(k: int) -> float:
        return math.comb(n, k) * math.comb(m, events - k) / math.comb(total, events)

    observed = likelihood(a)
    possible = range(max(0, events - m), min(n, events) + 1)
    return min(1.0, sum(p for p in map(likelihood, possible) if p <= observed * (1 + 1e-9)))


def _hits(entry: Mapping[str, Any], retrievers: Sequence[str]) -> list[bool]:
    """Per retriever and question, whether the context held the answer."""
    return [pq["hit"] for r in retrievers for pq in entry["eval"]["retrieval"][r][
        "per_question"]]


def _and(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


class _Shape:
    """Where chunks end, per strategy: mid-sentence ends out of the ends counted."""

    def __init__(self, figures: Mapping[str, Mapping[str, Any]]) -> None:
        self.figures = figures

    def ends(self, name: str) -> str:
        f = self.figures[name]
        return f"{f['mid_sentence_breaks']} of {f['breaks_counted']}"

    def rate(self, name: str) -> float:
        return self.figures[name]["mid_sentence_break_rate"]

    def as_good(self, names: Sequence[str]) -> tuple[list[str], list[str]]:
        """``names`` split into those ending about as few chunks mid-sentence as the best
        of them (a Fisher test cannot tell them apart) and those ending more."""
        leader = min(names, key=lambda n: (self.rate(n), self.figures[n]["index_tokens"]))
        lead = self.figures[leader]
        close, worse = [], []
        for n in sorted(names, key=lambda n: (self.rate(n), n != leader)):
            f = self.figures[n]
            p = fisher_exact(lead["mid_sentence_breaks"], lead["breaks_counted"],
                             f["mid_sentence_breaks"], f["breaks_counted"])
            (close if n == leader or p >= NOISE_LEVEL else worse).append(n)
        return close, worse

    def pick(self, names: Sequence[str]) -> tuple[str, str]:
        """What the shape says among ``names``: who ends fewest chunks mid-sentence
        beyond noise, else who of those as good indexes the fewest tokens; and why."""
        close, worse = self.as_good(names)
        pick = min(close, key=lambda n: self.figures[n]["index_tokens"])
        tokens = f"{self.figures[pick]['index_tokens']:,}"
        others = "".join(f", {n} {self.ends(n)}" for n in worse)
        if len(close) == 1:
            return pick, (f"the fewest chunk ends mid-sentence ({self.ends(pick)}{others}: "
                          f"beyond noise), at {tokens} index tokens")
        peers = [n for n in close if n != pick]
        return pick, (f"about as few chunk ends mid-sentence as {_and(peers)} ("
                      + ", ".join(f"{n} {self.ends(n)}" for n in close)
                      + (f": within noise; {'; '.join(f'{n} {self.ends(n)}' for n in worse)}"
                         if worse else ": within noise")
                      + f") and the fewest index tokens of them ({tokens})")


def recommend(compare: Mapping[str, Any]) -> str:
    """One line read off the measurements. With questions: the strategy that found the
    most answers within the budget (over all retrievers), by how much against the next,
    and whether that is within noise (a sign test over the questions only one of the two
    answered); among strategies that found as many, where their chunks end (mid-sentence
    ends, a Fisher test) and then what they index. Without questions: where chunks end,
    then what they index."""
    strategies = compare["strategies"]
    figures = {n: e["eval"]["figures"]["by_strategy"].get(n) for n, e in strategies.items()}
    names = [n for n, f in figures.items() if f]
    if not names:
        return "No strategy produced chunks: nothing to recommend."
    shape = _Shape({n: figures[n] for n in names})
    if len(names) < 2:
        return (f"Only {names[0]} was measured ({shape.ends(names[0])} chunk ends "
                "mid-sentence): compare it with another strategy to choose.")
    retrievers = compare["retrievers"]
    if not retrievers:
        pick, why = shape.pick(names)
        return (f"{pick}, by chunk shape alone (no questions): {why}; pass --questions to "
                "choose by what a retriever finds within the budget.")
    outcomes = {n: _hits(strategies[n], retrievers) for n in names}
    found = {n: sum(outcomes[n]) for n in names}
    total = len(outcomes[names[0]])
    budget = compare["budget"]

    def per_retriever(name: str) -> str:
        return ", ".join(f"{r} {strategies[name]['eval']['retrieval'][r]['hits']}/"
                         f"{strategies[name]['eval']['retrieval'][r]['questions']}"
                         for r in retrievers)

    most = max(found.values())
    tied = [n for n in names if found[n] == most]
    if len(tied) > 1:
        pick, why = shape.pick(tied)
        return (f"{pick}: as many answers within {budget} tokens as "
                f"{_and([n for n in tied if n != pick])} ({most} of {total}: "
                f"{per_retriever(pick)}), {why}.")
    best = tied[0]
    other = max((n for n in names if n != best), key=lambda n: (found[n], -shape.rate(n)))
    wins = sum(a and not b for a, b in zip(outcomes[best], outcomes[other], strict=True))
    losses = sum(b and not a for a, b in zip(outcomes[best], outcomes[other], strict=True))
    p = sign_test(wins, losses)
    noise = (f"within noise ({wins} answered only by {best}, {losses} only by {other}: "
             f"sign test p = {p:.2f}; more questions would tell)" if p >= NOISE_LEVEL else
             f"beyond noise ({wins} answered only by {best}, {losses} only by {other}: "
             f"sign test p = {p:.3f})")
    return (f"{best}: the most answers within {budget} tokens, {most} of {total} "
            f"({per_retriever(best)}), {most - found[other]} more than {other} "
            f"({found[other]}), {noise}; {shape.ends(best)} of its chunk ends are "
            "mid-sentence.")


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
    text = title + "\n" + format_table(header, rows)
    if compare.get("recommendation"):
        text += "\nrecommendation: " + compare["recommendation"]
    return text


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
