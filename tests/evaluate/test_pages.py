"""report.html and the viz page in headless Chromium: what a reader sees and can click.

Screenshots go to ``test-artifacts/`` (gitignored) for a human to look at, as small
PNGs (256 colours): ``docs/images/`` holds copies of two of them.
"""

from __future__ import annotations

import io
import json
import pathlib
import time

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from ragbeam.cli import main
from ragbeam.evaluate.pages import Span, page_starts
from ragbeam.evaluate.run_data import load_document_spans, load_run
from ragbeam.evaluate.viz import find_document, heading_label, section_breaks

REPO = pathlib.Path(__file__).resolve().parents[2]
EPUB = "epub/winter-sports.epub"  # ~340k characters: the "100-page document"
PDF = "pdf/dpr-multi-column.pdf"  # 13 pages, two columns, a margin stamp, headings
NUMBERED = "pdf/llncsdoc.pdf"  # page numbers on pages 2-7


def load(driver, path: pathlib.Path) -> list[dict]:
    """Open a local page; return its console errors."""
    driver.get(path.resolve().as_uri())
    assert driver.execute_script("return document.readyState") == "complete"
    return [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]


SCROLL_TO_END_MS = """
    const done = arguments[arguments.length - 1];
    const main = document.querySelector('main');
    const t0 = performance.now();
    main.scrollTop = main.scrollHeight;
    main.getBoundingClientRect();
    requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now() - t0)));
"""


def timed_load_and_scroll(driver, path: pathlib.Path) -> tuple[list[dict], float, float]:
    """Console errors, seconds to load, milliseconds to scroll ``main`` to its end."""
    started = time.perf_counter()
    errors = load(driver, path)
    return errors, time.perf_counter() - started, driver.execute_async_script(SCROLL_TO_END_MS)


def plain_page_times(driver, text: str, folder: pathlib.Path) -> tuple[float, float]:
    """Load and scroll times of the same text as a plain page, in the same browser now:
    what this machine's load makes of a page of that size (the viz page's bounds scale
    with it, so no outcome depends on the load)."""
    import html

    page = folder / "plain.html"
    page.write_text("<!doctype html><html><body><main style='height:100vh;overflow:auto'>"
                    f"<pre>{html.escape(text)}</pre></main></body></html>", encoding="utf-8")
    _, load_s, scroll_ms = timed_load_and_scroll(driver, page)
    return load_s, scroll_ms


def count(driver, selector: str) -> int:
    return driver.execute_script("return document.querySelectorAll(arguments[0]).length",
                                 selector)


def screenshot(driver, path: pathlib.Path) -> None:
    """The window as a 256-colour PNG: a fraction of the size, as legible."""
    from PIL import Image

    with Image.open(io.BytesIO(driver.get_screenshot_as_png())) as image:
        image.convert("RGB").quantize(256).save(path, optimize=True)


def test_report_page(chromium, artifacts, samples_compare):
    compare = json.loads((samples_compare / "compare.json").read_text())
    n = len(compare["strategies"])
    errors = load(chromium, samples_compare / "report.html")
    assert errors == []
    # The recommendation, first thing on the page, is the measured line.
    assert chromium.find_element(By.ID, "recommendation").text.endswith(
        compare["recommendation"])
    assert count(chromium, "svg.histogram") == n
    assert count(chromium, "svg.histogram rect.bar") == n * 20
    assert count(chromium, "svg.bars") == 2 and count(chromium, "svg.bars rect.bar") == 2 * n
    # One hit-rate-vs-budget curve per strategy and retriever, 10 budgets each.
    assert count(chromium, "polyline.curve") == n * 2
    assert count(chromium, "svg.lines .point") == n * 2 * 10
    assert count(chromium, "table.figures tbody tr") == n
    assert count(chromium, "table.retrieval tbody tr") == n * 2
    # Charts are drawn, not just present: every chart has a visible box.
    sizes = chromium.execute_script(
        "return [...document.querySelectorAll('svg.chart')].map(s => s.getBoundingClientRect())"
        ".map(r => r.width * r.height)")
    assert sizes and min(sizes) > 10_000
    # The histograms share one scale: the same axis labels, at the same heights.
    axes = chromium.execute_script("""
        return [...document.querySelectorAll('svg.histogram')].map(s =>
            [...s.querySelectorAll('text.tick[text-anchor="end"]')]
                .map(t => t.textContent + '@' + t.getAttribute('y')).join(' '));""")
    assert len(axes) == n and len(set(axes)) == 1 and "%" in axes[0]
    # Lines are told apart: in each chart every line has its own colour and dash, and
    # every strategy is named at a line's end.
    styles = chromium.execute_script("""
        return [...document.querySelectorAll('svg.lines')].map(s =>
            [...s.querySelectorAll('polyline.curve')].map(p =>
                p.getAttribute('stroke') + '|' + (p.getAttribute('stroke-dasharray') || '')));""")
    assert all(len(set(chart)) == n for chart in styles)
    named = chromium.execute_script("""
        return [...document.querySelectorAll('svg.lines')].map(s =>
            [...s.querySelectorAll('text.end-label')].map(t => t.dataset.series).join(' '));""")
    assert all(sorted(chart.split()) == sorted(compare["strategies"]) for chart in named)
    # Per media type: a grouped bar per strategy and type, a table row per type.
    media = {m for e in compare["strategies"].values()
             for m in next(iter(e["eval"]["figures"]["by_strategy_media_type"].values()))}
    assert count(chromium, "table.media tbody tr") == len(media)
    assert count(chromium, "svg.grouped") == 2
    # Examples side by side: a column per strategy, the answer marked where there is one.
    assert count(chromium, ".examples") == len(compare["examples"]) >= 2
    assert count(chromium, ".example") == n * len(compare["examples"])
    assert count(chromium, ".example pre mark") >= 1
    chromium.set_window_size(1400, 2200)
    screenshot(chromium, artifacts / "report.png")
    chromium.set_window_size(1400, 1100)
    chromium.execute_script("document.getElementById('examples').scrollIntoView()")
    screenshot(chromium, artifacts / "report-examples.png")
    chromium.set_window_size(1400, 900)


@pytest.fixture(scope="module")
def epub_viz(corpus_dir, tmp_path_factory) -> tuple[pathlib.Path, int, str]:
    """A real sliding-window run (25% overlap) over the e-book, and its viz page."""
    work = tmp_path_factory.mktemp("viz")
    output = work / "out"
    assert main(["run", "--input", str(corpus_dir / EPUB), "--output", str(output),
                 "--strategy", "sliding"]) == 0
    html = work / "winter-sports.html"
    assert main(["viz", "--output", str(output), "--doc", EPUB, "--html", str(html)]) == 0
    run = load_run(str(output))
    text = next(iter(run.texts.values()))
    return html, len(run.indexed_chunks), text


def test_viz_page_for_a_100_page_document(chromium, artifacts, epub_viz, tmp_path):
    html, n_chunks, text = epub_viz
    plain_load_s, plain_scroll_ms = plain_page_times(chromium, text, tmp_path)
    errors, load_seconds, scroll_ms = timed_load_and_scroll(chromium, html)
    assert errors == []
    assert len(text) > 300_000
    assert count(chromium, "#doc a.cut") == n_chunks
    assert count(chromium, "#chunk-list li") == n_chunks
    assert count(chromium, "#doc section") == len(section_breaks(text)) + 1
    assert count(chromium, "#doc span.ov") >= n_chunks - 1  # every window overlaps the next
    assert count(chromium, "#pages") == 0  # no pages: no pages column
    # The whole text is there, once: markers and labels are drawn by CSS.
    assert chromium.execute_script("return document.getElementById('doc').textContent"
                                   ) == text
    # Responsive: loads, and scrolls to the last page, without a long freeze (a page
    # that froze would take minutes): bounds generous on an idle machine, and scaled by
    # what the same text as a plain page takes in this browser now.
    assert load_seconds < max(30.0, 20 * plain_load_s), (load_seconds, plain_load_s)
    assert scroll_ms < max(5000.0, 20 * plain_scroll_ms), (scroll_ms, plain_scroll_ms)
    # Hover shows the chunk's tokens and outlines it.
    chromium.execute_script("document.querySelector('main').scrollTop = 0")
    first_span = chromium.find_element(By.CSS_SELECTOR, "#doc span[data-c]")
    ActionChains(chromium).move_to_element(first_span).perform()
    tip = chromium.find_element(By.ID, "tip")
    assert tip.is_displayed() and "tokens" in tip.text
    assert count(chromium, "#doc .hl") >= 1
    # Clicking a chunk in the side list brings its marker into view, selected.
    last = chromium.find_element(By.CSS_SELECTOR, f'#li-{n_chunks - 1} a')
    chromium.execute_script("arguments[0].scrollIntoView()", last)
    last.click()
    in_view = chromium.execute_script(
        "const r = document.getElementById(arguments[0]).getBoundingClientRect();"
        "return r.top >= 0 && r.bottom <= window.innerHeight", f"chunk-{n_chunks - 1}")
    assert in_view
    assert count(chromium, "#doc span.sel") >= 1
    assert chromium.execute_script("return location.hash") == f"#chunk-{n_chunks - 1}"
    screenshot(chromium, artifacts / "viz-winter-sports-end.png")
    assert [e for e in chromium.get_log("browser") if e.get("level") == "SEVERE"] == []


@pytest.fixture(scope="module")
def pdf_viz(corpus_dir, tmp_path_factory) -> dict:
    """One default run over two corpus PDFs, and a viz page of each."""
    work = tmp_path_factory.mktemp("pdfviz")
    output = work / "out"
    assert main(["run", "--input", str(corpus_dir / PDF), "--input", str(corpus_dir / NUMBERED),
                 "--output", str(output)]) == 0
    pages = {}
    for name in (PDF, NUMBERED):
        html = work / (pathlib.Path(name).stem + ".html")
        assert main(["viz", "--output", str(output), "--doc", name, "--html", str(html)]) == 0
        pages[name] = html
    return {"run": load_run(str(output)), "html": pages}


def test_viz_of_a_pdf_shows_pages_headings_and_links_both_ways(chromium, artifacts, pdf_viz):
    run = pdf_viz["run"]
    doc = find_document(run, PDF)
    text = run.texts[doc.doc_id]
    chunks = [c for c in run.chunks if c.doc_id == doc.doc_id and c.indexed]
    spans = [Span.from_row(r) for r in load_document_spans(run.output, doc.doc_id)]
    assert load(chromium, pdf_viz["html"][PDF]) == []
    assert chromium.execute_script("return document.getElementById('doc').textContent"
                                   ) == text
    # Page boundaries: a rule where each page's text begins; a picture of every page.
    rules = chromium.execute_script(
        "return [...document.querySelectorAll('#doc a.pb')].map(a => Number(a.dataset.page))")
    assert rules == [page for _, page in page_starts(spans)] and len(rules) >= 10
    assert count(chromium, "#pages figure.page") == doc.page_count == 13
    # The heading path beside each chunk (marker: drawn by CSS), and in the list.
    marked = chromium.execute_script(
        "return [...document.querySelectorAll('#doc a.cut')].map(a =>"
        " [a.dataset.h, getComputedStyle(a, '::after').content])")
    assert [h for h, _ in marked] == [heading_label(c.heading_path) for c in chunks]
    assert all(css == json.dumps(h, ensure_ascii=False) for h, css in marked if h)
    assert sum(1 for h, _ in marked if h) > len(chunks) * 0.9
    listed = chromium.execute_script(
        "return [...document.querySelectorAll('#chunk-list li')].map(li =>"
        " li.querySelector('.hp').textContent)")
    assert listed == [" › ".join(c.heading_path) or "no heading" for c in chunks]
    # The page pictures load (PDFium's renders, beside the HTML file).
    chromium.execute_script("document.getElementById('pg-3').scrollIntoView()")
    WebDriverWait(chromium, 60).until(lambda d: d.execute_script(
        "const i = document.querySelector('#pg-3 img'); return i.complete && i.naturalWidth"))
    width = chromium.execute_script("return document.querySelector('#pg-3 img').naturalWidth")
    assert width == pytest.approx(595 * 100 / 72, abs=2)  # A4 at 100 dpi
    # A click on a chunk in the list: selected in the list, the text and on its page.
    # (The chunk from page 5 on with the most lines placed: a paragraph.)
    n = chromium.execute_script("""
        const lines = [...document.querySelectorAll('rect.ln')];
        const chunks = JSON.parse(document.getElementById('chunk-data').textContent);
        const placed = chunks.map((c, n) => c.page >= 5 && c.level !== 'parent' ?
            lines.filter(r => r.dataset.c.split(' ').includes(String(n))).length : 0);
        return placed.indexOf(Math.max(...placed));""")
    assert n > 0
    item = chromium.find_element(By.CSS_SELECTOR, f"#li-{n} a")
    chromium.execute_script("arguments[0].scrollIntoView()", item)
    item.click()
    state = chromium.execute_script("""
        const n = arguments[0];
        const inside = (el, col) => { const r = el.getBoundingClientRect(),
            c = col.getBoundingClientRect(); return r.top >= c.top && r.bottom <= c.bottom; };
        const lines = [...document.querySelectorAll('rect.ln.sel')];
        return {hash: location.hash, li: document.getElementById('li-' + n).className,
                spans: document.querySelectorAll('#doc span.sel').length,
                marker: inside(document.getElementById('chunk-' + n),
                               document.getElementById('text')),
                lines: lines.length,
                pages: lines.map(r => Number(r.closest('figure').dataset.page)),
                lineInView: lines.length > 0 && inside(lines[0], document.getElementById('pages')),
                current: document.querySelector('figure.page.current').dataset.page};""", n)
    assert state["hash"] == f"#chunk-{n}" and "sel" in state["li"]
    assert state["spans"] >= 1 and state["marker"]
    assert state["lines"] >= 1 and state["lineInView"]
    assert all(chunks[n].page_start <= p <= chunks[n].page_end for p in state["pages"])
    assert int(state["current"]) == chunks[n].page_start
    screenshot(chromium, artifacts / "viz-dpr.png")
    # And back: a click on another chunk's line on a page picture selects that chunk.
    other = chromium.execute_script("""
        const r = [...document.querySelectorAll('rect.ln:not(.sel)')].find(r =>
            r.getBoundingClientRect().top > document.getElementById('pages')
                .getBoundingClientRect().top + 20);
        r.dispatchEvent(new MouseEvent('click', {bubbles: true}));
        return Number(r.dataset.c.split(' ').pop());""")
    assert chromium.execute_script("return location.hash") == f"#chunk-{other}"
    assert chromium.execute_script(
        "const r = document.getElementById(arguments[0]).getBoundingClientRect(),"
        " c = document.getElementById('text').getBoundingClientRect();"
        "return r.top >= c.top && r.bottom <= c.bottom", f"chunk-{other}")
    # Reading on: the pages column follows the text to the page being read.
    # (Sections off screen are laid out at an estimated height, content-visibility: auto;
    # rendering the ones scrolled past moves the rule: scroll until it stays in place.)
    # A check that finds the rule out of place scrolls again; it passes once the rule has
    # stayed put over a poll.
    WebDriverWait(chromium, 30, poll_frequency=0.5).until(lambda d: d.execute_script(
        "const r = document.getElementById('pb-8'), t = document.getElementById('text');"
        "if (Math.abs(r.getBoundingClientRect().top - t.getBoundingClientRect().top - 40) < 2)"
        "  return true;"
        "r.scrollIntoView({block: 'start'}); t.scrollTop -= 40; return false;"))
    WebDriverWait(chromium, 30).until(lambda d: d.execute_script(
        "const f = document.querySelector('figure.page.current'); return f && f.id") == "pg-8")
    assert chromium.execute_script(
        "const f = document.getElementById('pg-8').getBoundingClientRect(),"
        " c = document.getElementById('pages').getBoundingClientRect();"
        "return f.top >= c.top - 1 && f.top < c.top + 40")
    # The lines furniture removal took: listed, and outlined on their page (the arXiv
    # stamp up page 1's margin).
    removed = int(doc.metadata["clean_furniture_lines_removed"])
    assert count(chromium, "ul.furniture s") == removed > 0
    pages_of_removed = chromium.execute_script(
        "return [...document.querySelectorAll('rect.fur')].map(r =>"
        " r.closest('figure').dataset.page)")
    # (A glyph or two of the stamp PDFium does not place: listed, not drawn.)
    assert removed - 4 <= len(pages_of_removed) <= removed and set(pages_of_removed) == {"1"}
    assert count(chromium, "ul.furniture .grp") == 1  # one entry: page 1's stamp
    assert [e for e in chromium.get_log("browser") if e.get("level") == "SEVERE"] == []


def test_viz_shows_removed_page_numbers_where_they_were(chromium, artifacts, pdf_viz):
    run = pdf_viz["run"]
    doc = find_document(run, NUMBERED)
    assert load(chromium, pdf_viz["html"][NUMBERED]) == []
    struck = chromium.execute_script(
        "return [...document.querySelectorAll('ul.furniture li')].map(li =>"
        " [li.querySelector('a').dataset.page, li.querySelector('s').textContent,"
        "  li.querySelector('.grp').textContent])")
    assert struck == [[str(p), str(p), "page number"] for p in range(2, 8)]
    assert doc.metadata["clean_furniture_lines_removed"] == "6"
    boxes = chromium.execute_script(
        "return [...document.querySelectorAll('rect.fur')].map(r =>"
        " [r.closest('figure').dataset.page, Number(r.getAttribute('y')),"
        "  r.closest('svg').viewBox.baseVal.height])")
    assert [page for page, _, _ in boxes] == [str(p) for p in range(2, 8)]
    assert all(min(y, height - y) < 0.12 * height for _, y, height in boxes)  # an edge
    # A click on a removed line shows its page, its box flashed.
    chromium.find_element(By.CSS_SELECTOR, 'ul.furniture a[data-page="5"]').click()
    assert count(chromium, "#pg-5 rect.fur.flash") == 1
    screenshot(chromium, artifacts / "viz-llncsdoc.png")
