"""``ragbeam eval``: label-free figures plus, with questions, retrieval under a budget.

Questions are JSONL, one object per line: ``question`` plus ``answer_doc``
(path relative to the input root) and/or ``answer_text``. A question is a
*hit* when the budgeted context contains ``answer_text`` (whitespace runs
collapsed, case folded) or, without ``answer_text``, when a chunk of
``answer_doc`` made it into the context.

Per retriever:

* ``hit_rate``: hits / questions at ``--budget`` tokens;
* ``recall_at_budget``: the same for every budget of ``BUDGET_CURVE``;
* ``mean_first_answer_rank``: mean 1-based rank of the first chunk of the
  answer document, over questions whose document was ranked at all (BM25 does
  not rank chunks sharing no term with the question); ``mrr`` counts the
  others as 0;
* ``mean_chunks_in_context``: context units that fit (a parent counts once);
* ``mean_context_tokens``;
* ``token_level``: Chroma's token-level recall, precision and IoU of the
  questions' reference excerpts at ``k`` retrieved chunks (``token_level.py``);
* ``by_language``: hits per question language (``lang``, else guessed from the
  question's script and stop words).

A question may carry ``references`` (excerpts of its answer document, for the
token-level figures) and ``lang``.
"""

from __future__ import annotations

import json
import pathlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ragbeam.evaluate.budget import ContextUnit, ContextUnits, FilledContext, fill_context
from ragbeam.evaluate.metrics import run_figures
from ragbeam.evaluate.retrieval import EmbeddingCache, make_retriever
from ragbeam.evaluate.run_data import ChunkRecord, DocumentRecord, RunData
from ragbeam.evaluate.token_level import (
    DEFAULT_K,
    SpanScore,
    locate_excerpt,
    mean_scores,
    score_spans,
)
from ragbeam.transforms.charsets import CJK_CHAR
from ragbeam.transforms.embed.lexical import FieldedText, guess_language, words_of
from ragbeam.transforms.embed.text import dense_text_for, sparse_fields_for, text_vector_text_for

DEFAULT_BUDGET = 600
# What a retriever indexes of a chunk: its text, or what the pipeline indexes
# (``contextual``: BM25 the contextual header and the text, the dense model the label and
# the nearest heading and the text;
# ``transforms/embed/text.py``).
CHUNK_TEXTS = ("text", "contextual")
BUDGET_CURVE = (200, 400, 600, 800, 1000, 1200, 1400, 1600, 1800, 2000)


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    answer_doc: str | None = None
    answer_text: str | None = None
    references: tuple[str, ...] = ()
    lang: str | None = None

    @property
    def excerpts(self) -> tuple[str, ...]:
        """Reference excerpts for the token-level figures (``answer_text`` if none)."""
        if self.references:
            return self.references
        return (self.answer_text,) if self.answer_text else ()

    @property
    def language(self) -> str:
        if self.lang:
            return self.lang

        if CJK_CHAR.search(self.question):
            return "zh"

        return guess_language(words_of(self.question))


def normalize(text: str) -> str:
    return " ".join(text.split()).casefold()


def load_questions(path: str | pathlib.Path) -> list[Question]:
    questions: list[Question] = []
    lines = pathlib.Path(path).read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{number}: not JSON: {exc}") from None
        if not isinstance(obj, dict) or not str(obj.get("question") or "").strip():
            raise ValueError(f"{path}:{number}: needs a non-empty 'question'")
        answer_doc = obj.get("answer_doc") or None
        answer_text = obj.get("answer_text") or None
        if answer_doc is None and answer_text is None:
            raise ValueError(f"{path}:{number}: needs 'answer_doc' and/or 'answer_text'")
        references = obj.get("references") or ()
        if isinstance(references, str) or not all(isinstance(r, str) for r in references):
            raise ValueError(f"{path}:{number}: 'references' must be a list of strings")
        questions.append(Question(str(obj.get("id") or f"q{number:02d}"), obj["question"],
                                  answer_doc, answer_text, tuple(references),
                                  obj.get("lang") or None))
    return questions


def _uri_path(uri: str) -> str:
    path = uri[len("file://"):] if uri.startswith("file://") else uri
    return path.replace("\\", "/")


def resolve_answer_doc(answer_doc: str, documents: Sequence[DocumentRecord]) -> str | None:
    """The doc_id whose source path ends with ``answer_doc`` (relative to an input root)."""
    wanted = answer_doc.replace("\\", "/").lstrip("./").lstrip("/")
    matches = [d.doc_id for d in documents
               if _uri_path(d.source_uri) == wanted
               or _uri_path(d.source_uri).endswith("/" + wanted)]
    return matches[0] if len(matches) == 1 else None


def is_hit(question: Question, context: FilledContext, answer_doc_id: str | None) -> bool:
    if question.answer_text:
        return normalize(question.answer_text) in normalize(context.text)
    return answer_doc_id is not None and any(u.doc_id == answer_doc_id for u in context.units)


def answer_unit(question: Question, context: FilledContext, answer_doc_id: str | None
                ) -> ContextUnit | None:
    """The first unit of the context that holds the answer: its ``answer_text``, else a
    unit of its answer document (None: the context has no such unit, or the answer only
    runs across two units)."""
    for unit in context.units:
        if question.answer_text:
            if normalize(question.answer_text) in normalize(unit.text):
                return unit
        elif answer_doc_id is not None and unit.doc_id == answer_doc_id:
            return unit
    return None


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def reference_spans(question: Question, text: str | None) -> list[tuple[int, int]]:
    """Where the question's excerpts lie in its answer document's cleaned text."""
    if text is None:
        return []
    return [span for span in (locate_excerpt(text, e) for e in question.excerpts) if span]


def indexed_texts(chunks: Sequence[ChunkRecord], chunk_text: str = "text"
                  ) -> tuple[list[str] | list[FieldedText], list[str]]:
    """What BM25 and what the dense model index of each chunk (``CHUNK_TEXTS``); BM25's
    contextual text as its header and text (``sparse_fields_for``)."""
    if chunk_text == "contextual":
        return ([sparse_fields_for(c.context, c.text, c.heading_path) for c in chunks],
                [dense_text_for(c.context, c.text, c.heading_path) for c in chunks])
    if chunk_text != "text":
        raise ValueError(f"unknown chunk text {chunk_text!r} (known: {', '.join(CHUNK_TEXTS)})")
    texts = [c.text for c in chunks]
    return texts, texts


def evaluate_retrieval(run: RunData, questions: Sequence[Question], retriever_name: str,
                       budget: int, cache: EmbeddingCache | None = None,
                       k: int = DEFAULT_K, chunk_text: str = "text") -> dict[str, Any]:
    indexed = run.indexed_chunks
    units = ContextUnits(indexed, run.chunks)
    sparse_texts, dense_texts = indexed_texts(indexed, chunk_text)
    # A --text-vector run: each chunk's second vector is of its text (max-sim).
    second = ([text_vector_text_for(c.text) for c in indexed]
              if run.text_vectors and chunk_text == "contextual" else None)
    retriever = make_retriever(retriever_name, sparse_texts, cache, dense_texts, second)
    answer_ids = {q.answer_doc: resolve_answer_doc(q.answer_doc, run.documents)
                  for q in questions if q.answer_doc}
    budgets = sorted({*BUDGET_CURVE, budget})
    hits_at = dict.fromkeys(budgets, 0)
    per_question: list[dict[str, Any]] = []
    ranks: list[int] = []
    reciprocal: list[float] = []
    span_scores: list[SpanScore] = []
    unlocated: list[str] = []
    by_language: dict[str, list[int]] = {}
    for q in questions:
        ranking = retriever.rank(q.question)
        doc_id = answer_ids.get(q.answer_doc) if q.answer_doc else None
        first_rank = None
        if doc_id is not None:
            first_rank = next((r + 1 for r, i in enumerate(ranking)
                               if indexed[i].doc_id == doc_id), None)
            reciprocal.append(1 / first_rank if first_rank else 0.0)
            if first_rank:
                ranks.append(first_rank)
        contexts = {b: fill_context(ranking, units, b) for b in budgets}
        for b, ctx in contexts.items():
            hits_at[b] += is_hit(q, ctx, doc_id)
        main = contexts[budget]
        token_score = None
        refs = reference_spans(q, run.texts.get(doc_id)) if doc_id else []
        if refs:
            top = _top_units(ranking, units, k)
            token_score = score_spans(
                refs, [(u.char_start, u.char_end) for u in top if u.doc_id == doc_id],
                sum(u.char_end - u.char_start for u in top))
            span_scores.append(token_score)
        elif q.excerpts and doc_id:
            unlocated.append(q.id)
        tally = by_language.setdefault(q.language, [0, 0])
        tally[0] += is_hit(q, main, doc_id)
        tally[1] += 1
        found = answer_unit(q, main, doc_id)
        per_question.append({
            "id": q.id, "question": q.question, "hit": is_hit(q, main, doc_id),
            # What a reader of the context sees first, and where the answer is in it.
            "top_chunk_id": main.units[0].chunk_id if main.units else None,
            "answer_chunk_id": found.chunk_id if found else None,
            "first_answer_rank": first_rank, "chunks_in_context": len(main.units),
            "context_tokens": main.tokens,
            "answer_doc_found": doc_id is not None if q.answer_doc else None,
            "language": q.language,
            "token_level": None if token_score is None else {
                "recall": round(100 * token_score.recall, 2),
                "precision": round(100 * token_score.precision, 2),
                "iou": round(100 * token_score.iou, 2)},
        })
    n = len(questions)
    return {
        "questions": n,
        "hits": hits_at[budget],
        "hit_rate": round(hits_at[budget] / n, 4) if n else 0.0,
        "recall_at_budget": {str(b): round(hits_at[b] / n, 4) if n else 0.0 for b in budgets},
        "mean_first_answer_rank": _mean(ranks),
        "answer_doc_ranked": len(ranks),
        "mrr": _mean(reciprocal),
        "mean_chunks_in_context": _mean([p["chunks_in_context"] for p in per_question]),
        "mean_context_tokens": _mean([p["context_tokens"] for p in per_question]),
        "unresolved_answer_docs": sorted(d for d, i in answer_ids.items() if i is None),
        "token_level": {"k": k, **mean_scores(span_scores), "unlocated": unlocated},
        "by_language": {lang: {"hits": h, "questions": n}
                        for lang, (h, n) in sorted(by_language.items())},
        "per_question": per_question,
    }


def _top_units(ranking: Sequence[int], units: ContextUnits, k: int) -> list[ContextUnit]:
    """The first ``k`` distinct context units of the ranking (a parent counts once)."""
    top: list[ContextUnit] = []
    seen: set[str] = set()
    for index in ranking:
        unit = units[index]
        if unit.chunk_id not in seen:
            seen.add(unit.chunk_id)
            top.append(unit)
            if len(top) == k:
                break
    return top


def evaluate_run(run: RunData, questions: Sequence[Question] | None = None,
                 budget: int = DEFAULT_BUDGET, retrievers: Sequence[str] = ("bm25",),
                 cache: EmbeddingCache | None = None, k: int = DEFAULT_K,
                 chunk_text: str = "text") -> dict[str, Any]:
    result: dict[str, Any] = {
        "output": run.output,
        "config_hash": run.run_summary.get("config_hash"),
        "strategies": sorted({c.strategy for c in run.chunks}),
        "figures": run_figures(run),
    }
    if questions:
        result["budget"] = budget
        result["k"] = k
        result["chunk_text"] = chunk_text
        if run.text_vectors and chunk_text == "contextual":
            result["dense_scoring"] = "max-sim of two vectors a chunk (--text-vector)"
        result["retrieval"] = {
            name: evaluate_retrieval(run, questions, name, budget, cache, k, chunk_text)
            for name in retrievers
        }
    return result


def _fmt(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.3f}".rstrip("0").rstrip(".") if value != int(value) else f"{value:.0f}"
    return str(value)


def format_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    cells = [list(header), *[[_fmt(v) for v in row] for row in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in
                       enumerate(zip(r, widths, strict=True))) for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


FIGURE_COLUMNS = ("chunks", "tok mean", "tok p5", "tok med", "tok p95", "chr mean", "at cap",
                  "tiny", "mid-sent", "idx tokens", "redund")


def figure_row(label: str, f: Mapping[str, Any]) -> list[Any]:
    return [label, f["chunks"], f["tokens"]["mean"], f["tokens"]["p5"], f["tokens"]["median"],
            f["tokens"]["p95"], f["chars"]["mean"], f["share_at_cap"], f["share_tiny"],
            f["mid_sentence_break_rate"], f["index_tokens"], f["overlap_redundancy"]]


RETRIEVAL_COLUMNS = ("hits", "hit rate", "mean rank", "MRR", "chunks/ctx", "ctx tokens",
                     "by language", "tok recall", "tok prec", "tok IoU")


def retrieval_row(label: str, r: Mapping[str, Any]) -> list[Any]:
    token = r.get("token_level") or {}
    languages = " ".join(f"{lang} {v['hits']}/{v['questions']}"
                         for lang, v in (r.get("by_language") or {}).items())
    return [label, f"{r['hits']}/{r['questions']}", r["hit_rate"], r["mean_first_answer_rank"],
            r["mrr"], r["mean_chunks_in_context"], r["mean_context_tokens"], languages,
            token.get("recall"), token.get("precision"), token.get("iou")]


# The default table fits 100 columns: the figures a reader compares first, each column
# named in words and explained under the table; ``--wide`` shows every figure.
NARROW_FIGURES = (("chunks", "chunks"), ("mean tokens", "tok mean"), ("p95 tokens", "tok p95"),
                  ("at cap", "at cap"), ("mid-sentence", "mid-sent"), ("overlap", "redund"))
FIGURE_LEGEND = ("at cap: share of chunks at the size cap; mid-sentence: share of chunks "
                 "ending inside a sentence;\noverlap: share of indexed tokens repeating "
                 "another chunk's text\n(--wide: every figure; DIR/eval.json: all of them)")
NARROW_RETRIEVAL = (("hits", "hits"), ("hit rate", "hit rate"), ("MRR", "MRR"),
                    ("context tokens", "ctx tokens"), ("token IoU %", "tok IoU"))
LABEL_WIDTH = 30  # a media type such as application/vnd.openxmlformats-…document is cut


def _narrow(header: Sequence[str], rows: Sequence[Sequence[Any]],
            keep: Sequence[tuple[str, str]]) -> tuple[list[str], list[list[Any]]]:
    index = [list(header).index(column) for _, column in keep]
    label = [r[0] if len(str(r[0])) <= LABEL_WIDTH else str(r[0])[:LABEL_WIDTH - 1] + "…"
             for r in rows]
    return ([header[0], *(name for name, _ in keep)],
            [[lab, *(r[i] for i in index)] for lab, r in zip(label, rows, strict=True)])


def format_eval(result: Mapping[str, Any], wide: bool = False) -> str:
    """The eval table: at most 100 columns wide, or with ``wide`` every figure."""
    figures = result["figures"]
    rows: list[list[Any]] = []
    for strategy, f in figures["by_strategy"].items():
        rows.append(figure_row(strategy, f))
        for media, mf in figures["by_strategy_media_type"][strategy].items():
            rows.append(figure_row(f"  {media}", mf))
    cap = figures["cap"]
    header: tuple[str, ...] = ("strategy / media type", *FIGURE_COLUMNS)
    shown = (header, rows) if wide else _narrow(header, rows, NARROW_FIGURES)
    parts = [f"chunks (cap {cap['size']} {cap['unit']}; furniture lines removed: "
             f"{figures['furniture_removed']})", format_table(*shown)]
    if not wide:
        parts.append(FIGURE_LEGEND)
    if "retrieval" in result:
        parts.append(f"\nretrieval at a {result['budget']}-token context budget; token-level "
                     f"figures (Chroma's method, %) at k = {result.get('k', DEFAULT_K)} chunks")
        header = ("retriever", *RETRIEVAL_COLUMNS)
        rows = [retrieval_row(n, r) for n, r in result["retrieval"].items()]
        parts.append(format_table(*((header, rows) if wide else
                                    _narrow(header, rows, NARROW_RETRIEVAL))))
        for name, r in result["retrieval"].items():
            if r["unresolved_answer_docs"]:
                parts.append(f"  {name}: answer_doc not in this run: "
                             + ", ".join(r["unresolved_answer_docs"]))
    return "\n".join(parts)
