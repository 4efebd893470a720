"""``ragbeam viz``: one document's cleaned text with its chunk boundaries, as static HTML.

* Every character range is drawn once: the text is cut at every chunk start
  and end into *segments*, each tagged with the chunks covering it
  (``data-c="3 4"``). Chunks alternate six colours; segments covered by two
  or more chunks (overlap) are shaded with stripes; uncovered text is plain.
* A marker (``.cut``) opens each indexed chunk; hovering any segment shows the
  chunk's number, tokens, characters, pages and heading path, and outlines
  the whole chunk. One delegated listener, built lazily: no per-span handlers.
* The side panel lists the chunks (click to jump) and the page furniture the
  cleaner removed, struck through.
* Large documents stay responsive: the text is split into sections at line
  breaks every ~``SECTION_CHARS`` characters, rendered with
  ``content-visibility: auto`` so the browser lays out only what is on screen.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from ragbeam.evaluate.furniture import rederive_furniture, rederive_template
from ragbeam.evaluate.run_data import ChunkRecord, DocumentRecord, RunData

SECTION_CHARS = 6000
COLOURS = 6
FURNITURE_LINES_KEY = "clean_furniture_lines"  # JSON list of lines (or [page, line])
FURNITURE_COUNT_KEY = "clean_furniture_lines_removed"


def find_document(run: RunData, selector: str) -> DocumentRecord:
    """A document by doc_id, by source URI, or by a unique path suffix."""
    for d in run.documents:
        if selector in (d.doc_id, d.source_uri):
            return d
    wanted = selector.replace("\\", "/").lstrip("./")
    matches = [d for d in run.documents if d.source_uri.replace("\\", "/").endswith("/" + wanted)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise LookupError(f"no document {selector!r} in {run.output}")
    raise LookupError(f"{selector!r} matches {len(matches)} documents: "
                      + ", ".join(d.source_uri for d in matches[:5]))


def section_breaks(text: str, every: int = SECTION_CHARS) -> list[int]:
    """Offsets just after a line break, roughly every ``every`` characters."""
    breaks = []
    pos = every
    while pos < len(text):
        nl = text.find("\n", pos)
        if nl < 0:
            break
        breaks.append(nl + 1)
        pos = nl + 1 + every
    return breaks


def segments(length: int, chunks: Sequence[tuple[int, int]], extra_cuts: Sequence[int] = ()
             ) -> list[tuple[int, int, tuple[int, ...]]]:
    """Cut ``[0, length)`` at every chunk edge: ``(start, end, covering chunk numbers)``."""
    cuts = {0, length, *extra_cuts}
    for s, e in chunks:
        cuts.update((max(0, min(s, length)), max(0, min(e, length))))
    ordered = sorted(cuts)
    by_start = sorted(range(len(chunks)), key=lambda i: chunks[i][0])
    out: list[tuple[int, int, tuple[int, ...]]] = []
    active: list[int] = []
    k = 0
    for a, b in itertools.pairwise(ordered):
        if a >= b:
            continue
        while k < len(by_start) and chunks[by_start[k]][0] <= a:
            active.append(by_start[k])
            k += 1
        active = [i for i in active if chunks[i][1] > a]
        out.append((a, b, tuple(sorted(i for i in active if chunks[i][0] <= a))))
    return out


def furniture_lines(metadata: Mapping[str, str]) -> list[tuple[int | None, str]]:
    raw = metadata.get(FURNITURE_LINES_KEY)
    if not raw:
        return []
    try:
        items = json.loads(raw)
    except json.JSONDecodeError:
        return [(None, line) for line in raw.splitlines() if line.strip()]
    lines: list[tuple[int | None, str]] = []
    for item in items:
        if isinstance(item, list | tuple) and len(item) == 2:
            lines.append((item[0], str(item[1])))
        else:
            lines.append((None, str(item)))
    return lines


def _chunk_info(number: int, c: ChunkRecord) -> dict[str, Any]:
    pages = (f"{c.page_start}" if c.page_start == c.page_end else f"{c.page_start}–{c.page_end}"
             ) if c.page_start is not None else ""
    return {"n": number, "index": c.chunk_index, "start": c.char_start, "end": c.char_end,
            "tokens": c.token_count, "chars": c.char_count, "pages": pages,
            "heading": " › ".join(c.heading_path), "level": c.level,
            "parent": None}


STYLE = """
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #222;
       display: grid; grid-template-columns: minmax(0, 1fr) 330px; height: 100vh; }
main { overflow-y: auto; padding: 16px 24px; }
aside { overflow-y: auto; border-left: 1px solid #ddd; background: #f7f7f7; padding: 12px;
        font-size: 13px; }
h1 { font-size: 17px; margin: 0 0 4px; } h2 { font-size: 14px; margin: 14px 0 6px; }
.meta { color: #555; margin-bottom: 10px; overflow-wrap: anywhere; }
#doc { white-space: pre-wrap; font: 13px/1.6 ui-monospace, "DejaVu Sans Mono", monospace; }
#doc section { content-visibility: auto; contain-intrinsic-size: auto 2400px; }
.c0 { background: #dbeafe; } .c1 { background: #fde68a; } .c2 { background: #bbf7d0; }
.c3 { background: #fbcfe8; } .c4 { background: #ddd6fe; } .c5 { background: #fed7aa; }
.ov { background-image: repeating-linear-gradient(135deg, rgba(0,0,0,.16) 0 3px,
      transparent 3px 7px); }
.hl { outline: 1.5px solid #d00; }
.cut { display: inline-block; font: 600 10px/1 system-ui, sans-serif; color: #fff;
       background: #555; border-radius: 3px; padding: 1px 3px; margin: 0 2px;
       vertical-align: 1px; cursor: pointer; user-select: none; }
#tip { position: fixed; left: 16px; bottom: 16px; max-width: 520px; background: #222;
       color: #fff; padding: 6px 10px; border-radius: 4px; font-size: 12px;
       pointer-events: none; display: none; }
ol.chunks { padding-left: 0; list-style: none; margin: 0; max-height: 40vh; overflow-y: auto; }
ol.chunks li { padding: 1px 4px; cursor: pointer; white-space: nowrap; overflow: hidden;
               text-overflow: ellipsis; }
ol.chunks li:hover { background: #e8e8e8; }
ul.furniture { padding-left: 18px; margin: 0; }
ul.furniture s { color: #a00; }
figure.page { margin: 6px 0; } .sheet { fill: #fff; stroke: #999; }
rect.txt { fill: #cbd5e1; } rect.tpl { fill: #dc2626; fill-opacity: .75; }
.swatch { display: inline-block; width: 12px; height: 12px; vertical-align: -2px;
          border: 1px solid #bbb; margin-right: 4px; }
"""

SCRIPT = """
(function () {
  const chunks = JSON.parse(document.getElementById('chunk-data').textContent);
  const tip = document.getElementById('tip');
  const doc = document.getElementById('doc');
  let byChunk = null, lit = [];
  function index() {
    byChunk = new Map();
    for (const el of doc.querySelectorAll('[data-c]')) {
      for (const n of el.dataset.c.split(' ')) {
        if (!byChunk.has(n)) byChunk.set(n, []);
        byChunk.get(n).push(el);
      }
    }
  }
  function light(n) {
    for (const el of lit) el.classList.remove('hl');
    lit = [];
    if (n === null) return;
    if (!byChunk) index();
    lit = (byChunk.get(String(n)) || []).filter(el => !el.classList.contains('cut'));
    for (const el of lit) el.classList.add('hl');
  }
  function describe(c) {
    let s = '#' + c.index + ' · ' + c.tokens + ' tokens · ' + c.chars + ' chars';
    if (c.pages) s += ' · p. ' + c.pages;
    if (c.parent !== null && c.parent !== undefined) s += ' · parent #' + chunks[c.parent].index;
    if (c.heading) s += '\\n' + c.heading;
    return s;
  }
  doc.addEventListener('mouseover', function (ev) {
    const el = ev.target.closest('[data-c]');
    if (!el) { tip.style.display = 'none'; light(null); return; }
    const ns = el.dataset.c.split(' ').map(Number);
    tip.textContent = ns.map(n => describe(chunks[n])).join('\\n— overlaps —\\n');
    tip.style.whiteSpace = 'pre-wrap';
    tip.style.display = 'block';
    light(ns[ns.length - 1]);
  });
  doc.addEventListener('mouseleave', function () { tip.style.display = 'none'; light(null); });
  document.getElementById('chunk-list').addEventListener('click', function (ev) {
    const li = ev.target.closest('li[data-n]');
    if (!li) return;
    const cut = document.getElementById('cut-' + li.dataset.n);
    if (cut) { cut.scrollIntoView({block: 'center'}); light(Number(li.dataset.n)); }
  });
})();
"""


def document_furniture(run: RunData, doc: DocumentRecord) -> list[tuple[int | None, str]]:
    """Removed furniture: recorded by the run, else re-derived from the source file."""
    recorded = furniture_lines(doc.metadata)
    count = doc.metadata.get(FURNITURE_COUNT_KEY, "0")
    if recorded or not count.isdigit() or int(count) == 0:
        return recorded

    try:
        return rederive_furniture(doc.source_uri, doc.doc_id, run.texts.get(doc.doc_id, ""),
                                  run.run_summary.get("config", {}).get("clean", {}))
    except Exception:  # source moved or unreadable: the panel falls back to the count
        return []


MAX_TEMPLATE_PAGES = 4  # pages drawn in the page-template picture
TEMPLATE_PAGE_WIDTH = 300  # pixels


def template_pictures(sizes: Sequence[tuple[float, float]], lines: Sequence[Any],
                      max_pages: int = MAX_TEMPLATE_PAGES) -> str:
    """The page template on pictures of pages (``clean.document.page_template``'s lines):
    one SVG per page, up to ``max_pages`` of those that carry template lines, each line
    a box where the layout placed it, template lines red with their group as a tooltip.
    Empty where nothing is placed."""
    pages = sorted({line.page for line in lines if line.group and line.box})[:max_pages]
    out = []
    for page in pages:
        if not 0 < page <= len(sizes):
            continue
        width, height = sizes[page - 1]
        boxes = []
        for line in lines:
            if line.page != page or line.box is None:
                continue
            x0, top, x1, bottom = line.box
            kind = "tpl" if line.group else "txt"
            tip = escape(f"{line.group}: {line.text}" if line.group else line.text)
            boxes.append(f'<rect class="{kind}" x="{x0:.1f}" y="{top:.1f}" '
                         f'width="{max(x1 - x0, 1):.1f}" height="{max(bottom - top, 1):.1f}">'
                         f"<title>{tip}</title></rect>")
        out.append(f'<figure class="page"><svg viewBox="0 0 {width:.0f} {height:.0f}" '
                   f'width="{TEMPLATE_PAGE_WIDTH}" '
                   f'height="{TEMPLATE_PAGE_WIDTH * height / width:.0f}">'
                   f'<rect class="sheet" width="{width:.0f}" height="{height:.0f}"/>'
                   f'{"".join(boxes)}</svg><figcaption>p. {page}</figcaption></figure>')
    return "".join(out)


def document_template(run: RunData, doc: DocumentRecord) -> str:
    """Pictures of a PDF's pages with its page template marked, re-derived from the source
    file ("" for other formats, or where the file cannot be read again)."""
    if doc.media_type != "application/pdf":
        return ""
    try:
        sizes, lines = rederive_template(doc.source_uri, doc.doc_id,
                                         run.run_summary.get("config", {}).get("clean", {}))
    except Exception:  # source moved or unreadable: no pictures
        return ""
    return template_pictures(sizes, lines)


def render_viz(run: RunData, doc: DocumentRecord,
               furniture: Sequence[tuple[int | None, str]] | None = None,
               template: str = "") -> str:
    text = run.texts.get(doc.doc_id, "")
    doc_chunks = [c for c in run.chunks if c.doc_id == doc.doc_id]
    indexed = [c for c in doc_chunks if c.indexed]
    parents = [c for c in doc_chunks if not c.indexed]
    parent_numbers: dict[str, int] = {}
    infos = [_chunk_info(n, c) for n, c in enumerate(indexed)]
    for p in parents:  # parents go after the indexed chunks in the data list
        parent_numbers[p.chunk_id] = len(infos)
        infos.append(_chunk_info(len(infos), p))
    for n, c in enumerate(indexed):
        infos[n]["parent"] = parent_numbers.get(c.parent_id or "")
    spans = [(c.char_start, c.char_end) for c in indexed]
    breaks = section_breaks(text)
    starts: dict[int, list[int]] = {}
    for n, (s, _) in enumerate(spans):
        starts.setdefault(s, []).append(n)

    html_parts: list[str] = ["<section>"]
    break_set = set(breaks)
    for a, b, covering in segments(len(text), spans, breaks):
        if a in break_set:
            html_parts.append("</section><section>")
        for n in starts.pop(a, []):
            html_parts.append(f'<b class="cut" id="cut-{n}" data-c="{n}">'
                              f"{indexed[n].chunk_index}</b>")
        piece = escape(text[a:b], quote=False)
        if not covering:
            html_parts.append(piece)
            continue
        classes = f"c{covering[-1] % COLOURS}" + (" ov" if len(covering) > 1 else "")
        html_parts.append(f'<span class="{classes}" data-c="{" ".join(map(str, covering))}">'
                          f"{piece}</span>")
    html_parts.append("</section>")

    if furniture is None:
        furniture = furniture_lines(doc.metadata)
    removed_count = doc.metadata.get(FURNITURE_COUNT_KEY)
    furniture_html = "".join(
        f"<li><s>{escape(line)}</s>" + (f" <small>p. {page}</small>" if page else "")
        + "</li>"
        for page, line in furniture)
    if not furniture:
        furniture_html = ("<li><em>none recorded</em></li>" if not removed_count or
                          removed_count == "0" else
                          f"<li><em>{escape(removed_count)} lines removed (the run did not "
                          "record which)</em></li>")
    chunk_items = "".join(
        f'<li data-n="{n}" title="{escape(c.text[:200])}"><span class="swatch c{n % COLOURS}">'
        f"</span>#{c.chunk_index} · {c.token_count} tok · {escape(c.text[:60])}</li>"
        for n, c in enumerate(indexed))
    total_tokens = sum(c.token_count for c in indexed)
    overlapped = sum(b - a for a, b, cov in segments(len(text), spans) if len(cov) > 1)
    data = json.dumps(infos, ensure_ascii=False).replace("</", "<\\/")
    title = doc.title or doc.source_uri.rsplit("/", 1)[-1]
    side = (
        f"<h1>{escape(title)}</h1>"
        f'<div class="meta">{escape(doc.source_uri)}<br>{escape(doc.media_type or "")} · '
        f'strategy <b>{escape(doc.strategy or "—")}</b><br>{len(text):,} chars · '
        f"{len(indexed)} chunks"
        + (f" + {len(parents)} parents" if parents else "")
        + f" · {total_tokens:,} tokens · {overlapped:,} chars overlapped</div>"
        '<div><span class="swatch c0"></span>chunk <span class="swatch c1"></span>next chunk '
        '<span class="swatch c0 ov"></span>overlap</div>'
        f'<h2>Removed page furniture ({escape(str(removed_count or len(furniture)))})</h2>'
        f'<ul class="furniture">{furniture_html}</ul>'
        + (f"<h2>Page template (red: template lines)</h2>{template}" if template else "")
        + f'<h2>Chunks ({len(indexed)})</h2><ol class="chunks" id="chunk-list">{chunk_items}</ol>'
    )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>ragbeam viz: {escape(title)}</title><link rel="icon" href="data:,">'
        f"<style>{STYLE}</style></head><body>"
        f'<main><div id="doc">{"".join(html_parts)}</div></main>'
        f"<aside>{side}</aside><div id=\"tip\"></div>"
        f'<script type="application/json" id="chunk-data">{data}</script>'
        f"<script>{SCRIPT}</script></body></html>"
    )
