"""``report.html`` for ``ragbeam compare``: one static page, inline SVG only.

Sections: the side-by-side table, chunk-size histograms (one per strategy,
same bins), mid-sentence break rate and index-token bars, and hit rate vs
context budget (200…2000 tokens), one chart per retriever.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from ragbeam.evaluate import svg

STYLE = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px;
       color: #222; background: #fafafa; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 28px 0 8px; }
.meta { color: #666; margin-bottom: 16px; }
table { border-collapse: collapse; background: #fff; }
th, td { border: 1px solid #ddd; padding: 4px 8px; text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
th { background: #f0f0f0; font-weight: 600; }
.charts { display: flex; flex-wrap: wrap; gap: 12px; }
svg.chart { background: #fff; border: 1px solid #ddd; }
svg .title { font-size: 12px; font-weight: 600; fill: #333; }
svg .tick { font-size: 10px; fill: #666; }
svg .value { font-size: 10px; fill: #333; }
svg .grid { stroke: #eee; }
.legend { margin: 6px 0; } .legend-item { margin-right: 14px; white-space: nowrap; }
.legend-item i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; }
.note { color: #666; max-width: 60em; }
"""

COMPARE_COLUMNS = ("strategy", "chunks", "tokens mean", "p5", "median", "p95", "at cap",
                   "tiny", "mid-sentence", "index tokens", "redundancy")


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def _num(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float) and value != int(value):
        return f"{value:,.2f}"
    return f"{int(value):,}"


def _table(header: tuple[str, ...], rows: list[list[str]], css_class: str) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>"
                   for row in rows)
    return f'<table class="{css_class}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def figures_rows(strategies: Mapping[str, Any]) -> list[list[str]]:
    rows = []
    for name, entry in strategies.items():
        f = entry["eval"]["figures"]["by_strategy"].get(name)
        if f is None:
            rows.append([name, *["—"] * (len(COMPARE_COLUMNS) - 1)])
            continue
        rows.append([name, _num(f["chunks"]), _num(f["tokens"]["mean"]), _num(f["tokens"]["p5"]),
                     _num(f["tokens"]["median"]), _num(f["tokens"]["p95"]),
                     _pct(f["share_at_cap"]), _pct(f["share_tiny"]),
                     _pct(f["mid_sentence_break_rate"]), _num(f["index_tokens"]),
                     _pct(f["overlap_redundancy"])])
    return rows


def retrieval_rows(strategies: Mapping[str, Any], retriever: str) -> list[list[str]]:
    rows = []
    for name, entry in strategies.items():
        r = entry["eval"].get("retrieval", {}).get(retriever)
        if r is None:
            continue
        rows.append([name, f"{r['hits']}/{r['questions']}", _pct(r["hit_rate"]),
                     _num(r["mean_first_answer_rank"]), _num(r["mrr"]),
                     _num(r["mean_chunks_in_context"]), _num(r["mean_context_tokens"])])
    return rows


def render_report(compare: Mapping[str, Any]) -> str:
    strategies: Mapping[str, Any] = compare["strategies"]
    names = list(strategies)
    parts = [f"<h1>ragbeam compare: {len(names)} strategies</h1>",
             f'<div class="meta">inputs: {escape(", ".join(compare["inputs"]))} · budget '
             f'{compare["budget"]} tokens · '
             f'{compare.get("questions", {}).get("count", 0)} questions · '
             f'cap {escape(str(compare.get("cap", "")))}</div>',
             "<h2>Chunks (label-free)</h2>",
             _table(COMPARE_COLUMNS, figures_rows(strategies), "figures")]
    for retriever in compare.get("retrievers", []):
        rows = retrieval_rows(strategies, retriever)
        if rows:
            parts.append(f"<h2>Retrieval: {escape(retriever)} at {compare['budget']} tokens</h2>")
            parts.append(_table(("strategy", "hits", "hit rate", "mean rank", "MRR",
                                 "chunks in context", "context tokens"), rows,
                                f"retrieval retrieval-{escape(retriever)}"))
    hist = compare.get("token_histogram", {})
    if hist:
        parts.append("<h2>Chunk size (tokens)</h2><div class=\"charts\">")
        for i, name in enumerate(names):
            counts = hist["counts"].get(name)
            if counts:
                parts.append(svg.histogram(counts, hist["bins"], name, svg.colour(i)))
        parts.append("</div>")
    figures = {n: e["eval"]["figures"]["by_strategy"].get(n) for n, e in strategies.items()}
    figures = {n: f for n, f in figures.items() if f}
    parts.append("<h2>Where chunks end, what the index costs</h2><div class=\"charts\">")
    parts.append(svg.bar_chart({n: f["mid_sentence_break_rate"] for n, f in figures.items()},
                               "chunks ending mid-sentence", percent=True))
    parts.append(svg.bar_chart({n: f["index_tokens"] for n, f in figures.items()},
                               "index tokens"))
    parts.append("</div>")
    curves = []
    for retriever in compare.get("retrievers", []):
        series = {}
        for name, entry in strategies.items():
            r = entry["eval"].get("retrieval", {}).get(retriever)
            if r:
                series[name] = sorted((int(b), v) for b, v in r["recall_at_budget"].items())
        if series:
            curves.append(svg.line_chart(series, f"hit rate vs budget ({retriever})",
                                         x_label="context budget (tokens)"))
    if curves:
        parts.append("<h2>Hit rate vs context budget</h2>")
        parts.append(svg.legend(names))
        parts.append('<div class="charts">' + "".join(curves) + "</div>")
        parts.append('<p class="note">The context is filled greedily with the top-ranked chunks '
                     "until the next one would not fit in the budget; parent-child children "
                     "bring their parent (once) and are charged the parent's tokens.</p>")
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            "<title>ragbeam compare</title><link rel=\"icon\" href=\"data:,\">"
            f"<style>{STYLE}</style></head><body>" + "".join(parts) + "</body></html>")
