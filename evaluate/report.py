"""``report.html`` for ``ragbeam compare``: one static page, inline SVG only.

Top to bottom: the one-line recommendation (``compare.recommend``), retrieval (hit
rate vs context budget, 200…2000 tokens, one chart per retriever, lines told apart by
colour, dash and marker and labelled at their ends; the tables at the budget), the
chunks (the side-by-side table, chunk-size histograms on one scale: same bins, same
share axis, the cap marked; where chunks end and what the index costs), the same
figures per media type, and example chunks side by side. Each strategy keeps one
colour, swatch and marker throughout.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from ragbeam.evaluate import svg

STYLE = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px;
       color: #1f2328; background: #fafafa; max-width: 1500px; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 28px 0 8px; }
h3 { font-size: 14px; margin: 16px 0 6px; }
.meta { color: #57606a; margin-bottom: 12px; }
.recommendation { background: #ddf4ff; border: 1px solid #54aeff; border-radius: 6px;
                  padding: 10px 14px; max-width: 70em; margin: 8px 0 4px; }
.recommendation b { display: block; font-size: 12px; text-transform: uppercase;
                    letter-spacing: .04em; color: #0969da; margin-bottom: 2px; }
table { border-collapse: collapse; background: #fff; margin-bottom: 10px; }
th, td { border: 1px solid #d0d7de; padding: 4px 8px; text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
th { background: #f0f3f6; font-weight: 600; }
th.group { text-align: center; }
.charts { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
svg.chart { background: #fff; border: 1px solid #d0d7de; }
svg .title { font-size: 12px; font-weight: 600; fill: #1f2328; }
svg .tick { font-size: 10px; fill: #57606a; }
svg .value { font-size: 10px; fill: #1f2328; }
svg .end-label { font-size: 11px; font-weight: 600; }
svg .grid { stroke: #eee; }
.legend { margin: 6px 0; } .legend-item { margin-right: 16px; white-space: nowrap; }
.legend-item i, i.swatch { display: inline-block; width: 10px; height: 10px; margin-right: 5px; }
.legend-item svg.key { vertical-align: -1px; margin-right: 4px; }
.note { color: #57606a; max-width: 70em; }
.examples { display: grid; gap: 10px; margin-bottom: 8px; }
.example { background: #fff; border: 1px solid #d0d7de; border-radius: 4px; padding: 6px 8px;
           min-width: 0; }
.example header { font-size: 12.5px; margin-bottom: 4px; }
.example .where { color: #57606a; font-size: 12px; overflow-wrap: anywhere; }
.example pre { white-space: pre-wrap; font: 12px/1.5 ui-monospace, "DejaVu Sans Mono", monospace;
               margin: 0; max-height: 260px; overflow-y: auto; background: #f6f8fa;
               padding: 6px; }
.badge { display: inline-block; border-radius: 10px; padding: 0 7px; font-size: 11.5px;
         font-weight: 600; margin-left: 6px; }
.badge.hit { background: #dafbe1; color: #1a7f37; }
.badge.miss { background: #ffebe9; color: #cf222e; }
.scroll { overflow-x: auto; max-width: 100%; }
td .full { color: #8c959f; font-size: 11px; margin-left: 6px; }
mark { background: #fff8c5; outline: 1px solid #d4a72c; }
mark.at { background: none; outline: none; color: #cf222e; font-weight: 700; }
.question { font-weight: 600; } .answer { color: #57606a; }
"""

COMPARE_COLUMNS = ("strategy", "chunks", "tokens mean", "p5", "median", "p95", "at cap",
                   "tiny", "mid-sentence", "index tokens", "redundancy")
MEDIA_COLUMNS = ("chunks", "median tokens", "mid-sentence")


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def _num(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float) and value != int(value):
        return f"{value:,.2f}"
    return f"{int(value):,}"


def _swatch(index: int) -> str:
    return f'<i class="swatch" style="background:{svg.colour(index)}"></i>'


def _table(header: Sequence[str], rows: list[list[str]], css_class: str,
           swatches: bool = True) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(
            f"<td>{_swatch(r) if swatches and i == 0 else ''}{escape(c)}</td>"
            for i, c in enumerate(row)) + "</tr>"
        for r, row in enumerate(rows))
    return f'<table class="{css_class}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def media_label(media_type: str) -> str:
    """``application/vnd.openxmlformats-officedocument.wordprocessingml.document`` →
    ``docx``: a short name for a chart's axis (the table keeps the media type)."""
    extension = mimetypes.guess_extension(media_type, strict=False)
    if extension:
        return extension.lstrip(".")
    return media_type.rsplit("/", 1)[-1][:12]


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


def _cap_tokens(compare: Mapping[str, Any]) -> float | None:
    """The size cap, where chunks are sized in tokens (the histograms' unit)."""
    size, _, unit = str(compare.get("cap") or "").partition(" ")
    return float(size) if unit == "tokens" and size.isdigit() else None


def _retrieval(compare: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    strategies = compare["strategies"]
    parts: list[str] = []
    curves = []
    for retriever in compare.get("retrievers", []):
        series = {}
        for name in names:
            r = strategies[name]["eval"].get("retrieval", {}).get(retriever)
            if r:
                series[name] = sorted((int(b), v) for b, v in r["recall_at_budget"].items())
        if series:
            curves.append(svg.line_chart(series, f"hit rate vs budget ({retriever})",
                                         x_label="context budget (tokens)"))
    if not curves:
        return parts
    parts.append("<h2>Retrieval</h2>")
    parts.append(svg.legend(names, lines=True))
    parts.append('<div class="charts">' + "".join(curves) + "</div>")
    parts.append('<p class="note">Each line is labelled where it ends; “a = b”: the same '
                 "curve. Hit: the context holds the answer. The context is filled greedily "
                 "with the top-ranked chunks until the next one would not fit in the budget; "
                 "parent-child children bring their parent (once) and are charged the "
                 "parent's tokens.</p>")
    for retriever in compare.get("retrievers", []):
        rows = retrieval_rows(strategies, retriever)
        if rows:
            parts.append(f"<h3>{escape(retriever)} at {compare['budget']} tokens</h3>")
            parts.append(_table(("strategy", "hits", "hit rate", "mean rank", "MRR",
                                 "chunks in context", "context tokens"), rows,
                                f"retrieval retrieval-{escape(retriever)}"))
    return parts


def _chunks(compare: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    strategies = compare["strategies"]
    parts = ["<h2>Chunks (label-free)</h2>",
             _table(COMPARE_COLUMNS, figures_rows(strategies), "figures")]
    hist = compare.get("token_histogram", {})
    counts = {n: hist.get("counts", {}).get(n) for n in names}
    counts = {n: c for n, c in counts.items() if c and sum(c)}
    if counts:
        top = max(max(c) / sum(c) for c in counts.values())
        y_max = min(1.0, svg.nice_ceiling(top))  # one share axis for every histogram
        parts.append("<h3>Chunk size (tokens): share of each strategy's chunks, same bins "
                     "and scale</h3><div class=\"charts\">")
        for i, name in enumerate(names):
            if name in counts:
                total = sum(counts[name])
                parts.append(svg.histogram(counts[name], hist["bins"],
                                           f"{name} · {total:,} chunks", svg.colour(i),
                                           y_max=y_max, cap=_cap_tokens(compare)))
        parts.append("</div>")
    figures = {n: strategies[n]["eval"]["figures"]["by_strategy"].get(n) for n in names}
    figures = {n: f for n, f in figures.items() if f}
    parts.append("<h3>Where chunks end, what the index costs</h3><div class=\"charts\">")
    parts.append(svg.bar_chart({n: f["mid_sentence_break_rate"] for n, f in figures.items()},
                               "chunks ending mid-sentence", percent=True))
    parts.append(svg.bar_chart({n: f["index_tokens"] for n, f in figures.items()},
                               "index tokens"))
    parts.append("</div>")
    return parts


def _by_media_type(compare: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    by_type: dict[str, dict[str, Any]] = {}
    for name in names:
        media = compare["strategies"][name]["eval"]["figures"]["by_strategy_media_type"].get(
            name, {})
        for media_type, f in media.items():
            by_type.setdefault(media_type, {})[name] = f
    if not by_type:
        return []
    head = ('<tr><th rowspan="2">media type</th>'
            + "".join(f'<th class="group" colspan="{len(MEDIA_COLUMNS)}">{_swatch(i)}'
                      f"{escape(n)}</th>" for i, n in enumerate(names))
            + "</tr><tr>" + "".join(f"<th>{c}</th>" for _ in names for c in MEDIA_COLUMNS)
            + "</tr>")
    body = []
    for media_type, row in sorted(by_type.items()):
        cells = []
        for name in names:
            f = row.get(name)
            cells += (["—"] * len(MEDIA_COLUMNS) if f is None else
                      [_num(f["chunks"]), _num(f["tokens"]["median"]),
                       _pct(f["mid_sentence_break_rate"])])
        body.append(f'<tr><td title="{escape(media_type)}">{escape(media_label(media_type))}'
                    f'<span class="full">{escape(media_type[:40])}</span></td>'
                    + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    labels = {media_type: media_label(media_type) for media_type in sorted(by_type)}
    breaks = {labels[m]: {n: f["mid_sentence_break_rate"] for n, f in row.items()}
              for m, row in sorted(by_type.items())}
    medians = {labels[m]: {n: f["tokens"]["median"] for n, f in row.items()}
               for m, row in sorted(by_type.items())}
    return ["<h2>By media type</h2>", svg.legend(names),
            '<div class="charts">',
            svg.grouped_bars(breaks, names, "chunks ending mid-sentence", percent=True),
            svg.grouped_bars(medians, names, "median tokens"), "</div>",
            f'<div class="scroll"><table class="media"><thead>{head}</thead>'
            f'<tbody>{"".join(body)}</tbody></table></div>']


def _marked(text: str, mark: Sequence[int] | None, point: bool) -> str:
    """``text`` escaped, with ``mark`` (``[start, end)``) highlighted, or, for a
    ``point``, a marker where the passage's offset falls."""
    if not mark:
        return escape(text)
    start, end = mark
    if point:
        return escape(text[:start]) + '<mark class="at">▶</mark>' + escape(text[start:])
    return (escape(text[:start]) + f"<mark>{escape(text[start:end])}</mark>"
            + escape(text[end:]))


def _examples(compare: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    examples = compare.get("examples") or []
    if not examples:
        return []
    parts = ['<h2 id="examples">Example chunks side by side</h2>']
    columns = f"grid-template-columns: repeat({len(names)}, minmax(0, 1fr))"
    for example in examples:
        if example["kind"] == "question":
            answer = (f' <span class="answer">answer: “{escape(example["answer_text"])}”</span>'
                      if example.get("answer_text") else "")
            parts.append(f'<h3><span class="question">{escape(example["question"])}</span>'
                         f"{answer} <small>({escape(example['retriever'])})</small></h3>")
        else:
            parts.append(f"<h3>The passage at character {example['offset']:,} of "
                         f"{escape(example['source'])} (▶), as each strategy cut it</h3>")
        cells = []
        for i, name in enumerate(names):
            shown = example["by_strategy"].get(name) or {}
            chunk = shown.get("chunk")
            badge = ""
            if "hit" in shown:
                rank = f" · answer doc at rank {shown['rank']}" if shown.get("rank") else ""
                badge = (f'<span class="badge {"hit" if shown["hit"] else "miss"}">'
                         f'{"hit" if shown["hit"] else "miss"}{rank}</span>')
            if chunk is None:
                body = '<p class="where">no chunk in the context</p>'
            else:
                role = {"answer": "the chunk holding the answer",
                        "top": "the top-ranked chunk (the answer is not in one chunk)",
                        "passage": "the chunk holding the passage"}.get(chunk.get("role"), "")
                heading = (f" · {escape(chunk['heading'])}" if chunk.get("heading") else "")
                if chunk.get("level") == "parent" and role:
                    role = role.replace("the chunk", "the parent chunk", 1)
                text = _marked(chunk["text"], chunk.get("mark"), example["kind"] == "passage")
                body = (f'<div class="where">{role}: {escape(chunk["source"])} '
                        f'#{chunk["chunk_index"]} · {chunk["tokens"]} tokens{heading}</div>'
                        f"<pre>{text}</pre>")
            cells.append(f'<div class="example" data-strategy="{escape(name)}"><header>'
                         f"{_swatch(i)}<b>{escape(name)}</b>{badge}</header>{body}</div>")
        parts.append(f'<div class="examples" style="{columns}">{"".join(cells)}</div>')
    return parts


def render_report(compare: Mapping[str, Any]) -> str:
    strategies: Mapping[str, Any] = compare["strategies"]
    names = list(strategies)
    parts = [f"<h1>ragbeam compare: {len(names)} strategies</h1>",
             f'<div class="meta">inputs: {escape(", ".join(compare["inputs"]))} · budget '
             f'{compare["budget"]} tokens · '
             f'{compare.get("questions", {}).get("count", 0)} questions · '
             f'cap {escape(str(compare.get("cap", "")))}</div>']
    if compare.get("recommendation"):
        parts.append(f'<p class="recommendation" id="recommendation"><b>Recommendation</b>'
                     f'{escape(compare["recommendation"])}</p>')
    parts += _retrieval(compare, names)
    parts += _chunks(compare, names)
    parts += _by_media_type(compare, names)
    parts += _examples(compare, names)
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            "<title>ragbeam compare</title><link rel=\"icon\" href=\"data:,\">"
            f"<style>{STYLE}</style></head><body>" + "".join(parts) + "</body></html>")
