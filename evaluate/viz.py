"""``ragbeam viz``: one document's cleaned text with its chunks, beside its pages, as a
static HTML page (``viz.css`` and ``viz.js`` inlined; page pictures as files beside it).

Three columns:

* **the chunk list** (left): each chunk's number, pages, tokens, heading path and first
  words, a link to it; under it the lines furniture removal took, each a link to its
  page;
* **the text** (middle): every character range drawn once: the text is cut at every
  chunk edge and page start into *segments*, each tagged with the chunks covering it
  (``data-c="3 4"``). Chunks alternate six colours; text two chunks cover (overlap) is
  striped; uncovered text is plain. A marker opens each chunk with its number and
  heading path, a rule marks where each page begins. Labels are drawn from ``data-``
  attributes by CSS, so the text copies out (and reads back) as the document's text;
* **the pages** (right, PDFs): each page's picture with every line the layout placed
  drawn over it in its chunk's colour, and the removed lines outlined in red with their
  template group (``evaluate/pages.py``).

Clicking a chunk (in the list, the text or on a page) selects it everywhere: outlined in
the text, its lines on the page picture, its list entry, and ``#chunk-N`` in the
address, so a link to a chunk can be shared. Scrolling the text brings its page along.

Large documents stay responsive: the text is split into sections at line breaks every
~``SECTION_CHARS`` characters, and sections and pages use ``content-visibility: auto``,
so the browser lays out only what is on screen; one delegated listener per column.
"""

from __future__ import annotations

import itertools
import json
import pathlib
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from importlib import resources
from typing import Any

from ragbeam.evaluate.furniture import extract_again
from ragbeam.evaluate.pages import (
    DEFAULT_DPI,
    LineBox,
    Span,
    chunk_line_boxes,
    page_starts,
    removed_line_boxes,
    render_page_images,
)
from ragbeam.evaluate.run_data import (
    ChunkRecord,
    DocumentRecord,
    RunData,
    load_document_spans,
)

SECTION_CHARS = 6000
COLOURS = 6
FURNITURE_LINES_KEY = "clean_furniture_lines"  # JSON list of lines (or [page, line])
FURNITURE_COUNT_KEY = "clean_furniture_lines_removed"
PDF = "application/pdf"
MARKER_HEADING_CHARS = 48


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
    cuts = {0, length, *(c for c in extra_cuts if 0 <= c <= length)}
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
    """The removed lines a run recorded: ``(page, line)``."""
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


@dataclass(frozen=True)
class PagePicture:
    """One page in the pages column: its displayed size in points, its picture (a path
    relative to the HTML file, or None) and the lines drawn over it."""

    number: int
    width: float
    height: float
    image: str | None
    lines: tuple[LineBox, ...] = ()


@dataclass(frozen=True)
class RemovedLine:
    """A line furniture removal took: its page, text and template group (if known)."""

    page: int | None
    text: str
    group: str | None = None


def _pages_label(c: ChunkRecord) -> str:
    if c.page_start is None:
        return ""
    if c.page_end is None or c.page_end == c.page_start:
        return f"p. {c.page_start}"
    return f"p. {c.page_start}–{c.page_end}"


def _chunk_info(number: int, c: ChunkRecord) -> dict[str, Any]:
    return {"n": number, "index": c.chunk_index, "start": c.char_start, "end": c.char_end,
            "tokens": c.token_count, "chars": c.char_count, "pages": _pages_label(c),
            "page": c.page_start, "heading": " › ".join(c.heading_path), "level": c.level,
            "parent": None}


def heading_label(path: Sequence[str], width: int = MARKER_HEADING_CHARS) -> str:
    """The heading path as a chunk's marker shows it: whole where it fits in ``width``
    characters, else its deepest headings that fit after "… › " (the nearest heading
    says most about the chunk; the list and the tooltip show the whole path)."""
    whole = " › ".join(path)
    if len(whole) <= width:
        return whole
    tail: list[str] = []
    for heading in reversed(path):
        if tail and len(" › ".join(["…", heading, *tail])) > width:
            break
        tail.insert(0, heading)
    label = " › ".join(["…", *tail]) if len(tail) < len(path) else " › ".join(tail)
    return label if len(label) <= width else label[:width - 1] + "…"


def _asset(name: str) -> str:
    return resources.files("ragbeam.evaluate").joinpath(name).read_text(encoding="utf-8")


def _text_html(text: str, indexed: Sequence[ChunkRecord],
               pieces: Sequence[tuple[int, int, tuple[int, ...]]],
               starts_of_pages: Sequence[tuple[int, int]]) -> str:
    """The text column: sections, page rules, chunk markers and covered segments."""
    chunk_starts: dict[int, list[int]] = {}
    for n, c in enumerate(indexed):
        chunk_starts.setdefault(c.char_start, []).append(n)
    page_at = dict(starts_of_pages)
    section_at = set(section_breaks(text))
    parts: list[str] = ["<section>"]
    for a, b, covering in pieces:
        if a in section_at:
            parts.append("</section><section>")
        if a in page_at:
            page = page_at.pop(a)
            parts.append(f'<a class="pb" id="pb-{page}" href="#pg-{page}" '
                         f'data-page="{page}"></a>')
        for n in chunk_starts.pop(a, []):
            c = indexed[n]
            label, path = heading_label(c.heading_path), " › ".join(c.heading_path)
            parts.append(f'<a class="cut" id="chunk-{n}" href="#li-{n}" data-c="{n}" '
                         f'data-i="{c.chunk_index}" data-h="{escape(label)}" '
                         f'title="{escape(path)}"></a>')
        piece = escape(text[a:b], quote=False)
        if not covering:
            parts.append(piece)
            continue
        classes = f"c{covering[-1] % COLOURS}" + (" ov" if len(covering) > 1 else "")
        parts.append(f'<span class="{classes}" data-c="{" ".join(map(str, covering))}">'
                     f"{piece}</span>")
    parts.append("</section>")
    return "".join(parts)


def _chunk_list_html(indexed: Sequence[ChunkRecord]) -> str:
    items = []
    for n, c in enumerate(indexed):
        heading = " › ".join(c.heading_path)
        preview = " ".join(c.text[:160].split())
        items.append(
            f'<li id="li-{n}" data-n="{n}"><a href="#chunk-{n}">'
            f'<span class="row"><i class="swatch c{n % COLOURS}"></i><b>#{c.chunk_index}</b>'
            f' <span class="pg">{escape(_pages_label(c))}</span>'
            f' <span class="tok">{c.token_count} tok</span></span>'
            + (f'<span class="hp">{escape(heading)}</span>' if heading else
               '<span class="hp none">no heading</span>')
            + f'<span class="pv">{escape(preview)}</span></a></li>')
    return "".join(items)


def _furniture_html(removed: Sequence[RemovedLine], count: str | None, linked: bool) -> str:
    if not removed:
        if not count or count == "0":
            return "<li><em>none</em></li>"
        return (f"<li><em>{escape(count)} lines removed (the run did not record which, "
                "and the source could not be read again)</em></li>")
    items = []
    # Consecutive lines of one page and group (a stamp cut into glyphs, a two-line
    # running head) share an entry.
    for (page, group), run in itertools.groupby(removed, key=lambda r: (r.page, r.group)):
        link = ""
        if page:
            target = f"#pg-{page}" if linked else f"#pb-{page}"
            link = f'<a href="{target}" data-page="{page}">p. {page}</a> '
        struck = " ".join(f"<s>{escape(line.text)}</s>" for line in run)
        label = f' <span class="grp">{escape(group)}</span>' if group else ""
        items.append(f"<li>{link}{struck}{label}</li>")
    return "".join(items)


def _page_html(page: PagePicture) -> str:
    boxes = []
    for line in page.lines:
        x, y = f"{line.x0:.1f}", f"{line.top:.1f}"
        w, h = f"{max(line.x1 - line.x0, 1):.1f}", f"{max(line.bottom - line.top, 1):.1f}"
        if line.removed is not None:
            boxes.append(f'<rect class="fur" x="{x}" y="{y}" width="{w}" height="{h}">'
                         f"<title>removed ({escape(line.removed)}): {escape(line.text)}"
                         "</title></rect>")
        elif line.chunks:
            boxes.append(f'<rect class="ln k{line.chunks[-1] % COLOURS}" '
                         f'data-c="{" ".join(map(str, line.chunks))}" x="{x}" y="{y}" '
                         f'width="{w}" height="{h}"/>')
    image = (f'<img src="{escape(page.image)}" alt="page {page.number}" loading="lazy" '
             'decoding="async">' if page.image else "")
    return (f'<figure class="page" id="pg-{page.number}" data-page="{page.number}">'
            f'<figcaption><a href="#pb-{page.number}">page {page.number}</a></figcaption>'
            f'<div class="sheet" style="aspect-ratio: {page.width:.1f} / {page.height:.1f}">'
            f'{image}<svg viewBox="0 0 {page.width:.1f} {page.height:.1f}" '
            f'preserveAspectRatio="none">{"".join(boxes)}</svg></div></figure>')


def render_viz(run: RunData, doc: DocumentRecord, spans: Sequence[Span] = (),
               removed: Sequence[RemovedLine] | None = None,
               pages: Sequence[PagePicture] = (), notes: Sequence[str] = ()) -> str:
    """The viz page of ``doc``: ``spans`` (``documents.spans``) place the page rules,
    ``removed`` lists the lines furniture removal took (default: what the run recorded),
    ``pages`` fill the pages column, ``notes`` say what could not be shown."""
    text = run.texts.get(doc.doc_id, "")
    doc_chunks = [c for c in run.chunks if c.doc_id == doc.doc_id]
    indexed = [c for c in doc_chunks if c.indexed]
    parents = [c for c in doc_chunks if not c.indexed]
    infos = [_chunk_info(n, c) for n, c in enumerate(indexed)]
    parent_numbers: dict[str, int] = {}
    for p in parents:  # parents go after the indexed chunks in the data list
        parent_numbers[p.chunk_id] = len(infos)
        infos.append(_chunk_info(len(infos), p))
    for n, c in enumerate(indexed):
        infos[n]["parent"] = parent_numbers.get(c.parent_id or "")
    spans_of_chunks = [(c.char_start, c.char_end) for c in indexed]
    starts_of_pages = page_starts(spans)
    pieces = segments(len(text), spans_of_chunks,
                      [*section_breaks(text), *(offset for offset, _ in starts_of_pages)])
    if removed is None:
        removed = [RemovedLine(page, line) for page, line in furniture_lines(doc.metadata)]
    removed_count = doc.metadata.get(FURNITURE_COUNT_KEY)
    total_tokens = sum(c.token_count for c in indexed)
    overlapped = sum(b - a for a, b, cov in segments(len(text), spans_of_chunks) if len(cov) > 1)
    data = json.dumps(infos, ensure_ascii=False).replace("</", "<\\/")
    title = doc.title or doc.source_uri.rsplit("/", 1)[-1]
    page_count = doc.page_count or (starts_of_pages[-1][1] if starts_of_pages else 0)
    facts = [escape(doc.media_type or "unknown type"),
             f'strategy <b>{escape(doc.strategy or "—")}</b>', f"{len(text):,} chars",
             f"{len(indexed)} chunks" + (f" + {len(parents)} parents" if parents else ""),
             f"{total_tokens:,} tokens", f"{overlapped:,} chars overlapped"]
    if page_count:
        facts.append(f"{page_count} pages")
    legend = ('<span class="key"><i class="swatch c0"></i><i class="swatch c1"></i>chunks'
              '</span><span class="key"><i class="swatch c0 ov"></i>overlap</span>'
              '<span class="key"><i class="swatch sel"></i>selected</span>'
              + ('<span class="key"><i class="swatch fur"></i>removed line</span>'
                 if pages else ""))
    header = (f'<header><h1>{escape(title)}</h1><div class="meta">'
              f'<span class="src">{escape(doc.source_uri)}</span> · {" · ".join(facts)}</div>'
              f'<div class="legend">{legend}</div></header>')
    shown_count = str(removed_count) if removed_count and removed_count != "0" else str(
        len(removed))
    nav = (f'<nav id="side"><h2>Chunks ({len(indexed)})</h2>'
           f'<ol class="chunks" id="chunk-list">{_chunk_list_html(indexed)}</ol>'
           f'<details class="removed" open><summary>Removed page furniture ({shown_count})'
           f'</summary><ul class="furniture">'
           f'{_furniture_html(removed, removed_count, bool(pages))}</ul></details>'
           + "".join(f'<p class="note">{escape(note)}</p>' for note in notes) + "</nav>")
    pages_html = (f'<aside id="pages">{"".join(_page_html(p) for p in pages)}</aside>'
                  if pages else "")
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>ragbeam viz: {escape(title)}</title><link rel="icon" href="data:,">'
        f'<style>{_asset("viz.css")}</style></head>'
        f'<body class="{"with-pages" if pages else "no-pages"}">{header}{nav}'
        f'<main id="text"><div id="doc">{_text_html(text, indexed, pieces, starts_of_pages)}'
        f"</div></main>{pages_html}<div id=\"tip\"></div>"
        f'<script type="application/json" id="chunk-data">{data}</script>'
        f'<script>{_asset("viz.js")}</script></body></html>'
    )


def with_groups(removed: Sequence[RemovedLine], template: Sequence[Any]) -> list[RemovedLine]:
    """The removed lines with their template groups (``template``: the page template's
    furniture lines): each line takes the group of the first template line of its page
    and text not taken yet. Without lines recorded by the run, the template's own."""
    if not removed:
        return [RemovedLine(line.page, line.text, line.group) for line in template]
    unused: dict[tuple[int | None, str], list[str]] = {}
    for line in template:
        unused.setdefault((line.page, line.text), []).append(line.group)
    out = []
    for line in removed:
        groups = unused.get((line.page, line.text))
        out.append(RemovedLine(line.page, line.text, groups.pop(0) if groups else line.group))
    return out


def _warn(message: str) -> None:
    print(f"ragbeam viz: {message}", file=sys.stderr)


def write_viz(run: RunData, doc: DocumentRecord, html_path: str,
              page_dpi: int = DEFAULT_DPI) -> str:
    """Write the viz page of ``doc`` to ``html_path``, and a PDF's page pictures to the
    folder ``<html stem>_pages/`` beside it (``page_dpi`` 0: no pictures). The source is
    extracted again for the pictures, the line boxes and the removed lines' groups; where
    it cannot be, the page says what is missing. Returns the HTML path."""
    html = pathlib.Path(html_path)
    spans = [Span.from_row(row) for row in load_document_spans(run.output, doc.doc_id)]
    text = run.texts.get(doc.doc_id, "")
    recorded = [RemovedLine(page, line) for page, line in furniture_lines(doc.metadata)]
    count = doc.metadata.get(FURNITURE_COUNT_KEY, "0")
    is_pdf = (doc.media_type or "").split(";")[0].strip() == PDF
    needs_source = is_pdf or (not recorded and count.isdigit() and int(count) > 0)
    notes: list[str] = []
    source = None
    if needs_source:
        try:
            source = extract_again(doc.source_uri, doc.doc_id,
                                   run.run_summary.get("config", {}).get("clean", {}))
        except Exception as exc:  # source moved or unreadable: text and list only
            notes.append(f"The source could not be read again ({type(exc).__name__}): no "
                         "page pictures, and removed lines as the run recorded them.")
    removed: list[RemovedLine] = recorded
    pages: list[PagePicture] = []
    if source is not None and not recorded and count.isdigit() and int(count) > 0:
        removed = [RemovedLine(page, line) for page, line in source.removed_fragments(text)]
    if source is not None and is_pdf:
        pages, removed, page_notes = _pdf_pages(source, doc, run, spans, text, html, page_dpi,
                                                removed)
        notes.extend(page_notes)
    for note in notes:
        _warn(note)
    html.write_text(render_viz(run, doc, spans, removed, pages, notes), encoding="utf-8")
    return str(html)


def _pdf_pages(source: Any, doc: DocumentRecord, run: RunData, spans: Sequence[Span],
               text: str, html: pathlib.Path, page_dpi: int,
               removed: list[RemovedLine]) -> tuple[list[PagePicture], list[RemovedLine],
                                                    list[str]]:
    """A PDF's page pictures with its chunks' lines and removed lines, and the removed
    lines with their template groups."""
    notes: list[str] = []
    layout = source.extracted.layout
    if layout is None:
        return [], removed, ["PDFium could not read this PDF: no page pictures."]
    sizes, template = source.template()
    removed = with_groups(removed, [line for line in template if line.group])
    removed_boxes = removed_line_boxes(template)
    indexed = [c for c in run.chunks if c.doc_id == doc.doc_id and c.indexed]
    line_boxes: list[LineBox] = []
    cleaned = source.cleaned()
    if cleaned.text == text and spans:
        pieces = segments(len(text), [(c.char_start, c.char_end) for c in indexed])
        line_boxes = chunk_line_boxes(spans, layout, pieces)
    else:
        notes.append("The source, extracted and cleaned again, is not the run's text any "
                     "more (changed since the run, or other extraction options): chunks are "
                     "not drawn on the pages.")
    images: list[str | None] = [None] * len(sizes)
    if page_dpi > 0:
        folder = html.with_name(html.stem + "_pages")
        names = render_page_images(source.data, folder, page_dpi)
        images = [f"{folder.name}/{name}" for name in names][:len(sizes)]
        images += [None] * (len(sizes) - len(images))
    by_page: dict[int, list[LineBox]] = {}
    for box in (*line_boxes, *removed_boxes):
        by_page.setdefault(box.page, []).append(box)
    pages = [PagePicture(number, width, height, image, tuple(by_page.get(number, ())))
             for number, ((width, height), image) in enumerate(zip(sizes, images,
                                                                    strict=True), 1)]
    return pages, removed, notes
