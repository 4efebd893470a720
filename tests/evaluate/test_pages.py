"""report.html and the viz page in headless Chromium: load, console, element counts, screenshots.

Screenshots go to ``test-artifacts/`` (gitignored) for a human to look at.
"""

from __future__ import annotations

import json
import pathlib
import time

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from ragbeam.cli import main
from ragbeam.evaluate.run_data import load_run
from ragbeam.evaluate.viz import section_breaks

REPO = pathlib.Path(__file__).resolve().parents[2]
EPUB = "epub/winter-sports.epub"  # ~340k characters: the "100-page document"


def load(driver, path: pathlib.Path) -> list[dict]:
    """Open a local page; return its console errors."""
    driver.get(path.resolve().as_uri())
    assert driver.execute_script("return document.readyState") == "complete"
    return [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]


def count(driver, selector: str) -> int:
    return driver.execute_script("return document.querySelectorAll(arguments[0]).length",
                                 selector)


def test_report_page(chromium, artifacts, samples_compare):
    compare = json.loads((samples_compare / "compare.json").read_text())
    n = len(compare["strategies"])
    errors = load(chromium, samples_compare / "report.html")
    assert errors == []
    assert count(chromium, "svg.histogram") == n
    assert count(chromium, "svg.histogram rect.bar") == n * 20
    assert count(chromium, "svg.bars") == 2 and count(chromium, "svg.bars rect.bar") == 2 * n
    # One hit-rate-vs-budget curve per strategy and retriever, 10 budgets each.
    assert count(chromium, "polyline.curve") == n * 2
    assert count(chromium, "circle.point") == n * 2 * 10
    assert count(chromium, "table.figures tbody tr") == n
    assert count(chromium, "table.retrieval tbody tr") == n * 2
    # Charts are drawn, not just present: every histogram has a visible box.
    sizes = chromium.execute_script(
        "return [...document.querySelectorAll('svg.chart')].map(s => s.getBoundingClientRect())"
        ".map(r => r.width * r.height)")
    assert sizes and min(sizes) > 10_000
    chromium.set_window_size(1400, 2200)
    chromium.save_screenshot(str(artifacts / "report.png"))
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


def test_viz_page_for_a_100_page_document(chromium, artifacts, epub_viz):
    html, n_chunks, text = epub_viz
    started = time.perf_counter()
    errors = load(chromium, html)
    load_seconds = time.perf_counter() - started
    assert errors == []
    assert len(text) > 300_000
    assert count(chromium, "#doc .cut") == n_chunks
    assert count(chromium, "#chunk-list li") == n_chunks
    assert count(chromium, "#doc section") == len(section_breaks(text)) + 1
    assert count(chromium, "#doc span.ov") >= n_chunks - 1  # every window overlaps the next
    # The whole text is there, once.
    assert chromium.execute_script("return document.getElementById('doc').textContent.length"
                                   ) == len(text) + sum(len(str(i)) for i in range(n_chunks))
    # Responsive: loads, and scrolls to the last page, without a long freeze.
    # Generous bounds (a loaded CI machine): a page that froze would take minutes.
    assert load_seconds < 30
    scroll_ms = chromium.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const main = document.querySelector('main');
        const t0 = performance.now();
        main.scrollTop = main.scrollHeight;
        main.getBoundingClientRect();
        requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now() - t0)));
    """)
    assert scroll_ms < 5000
    # Hover shows the chunk's tokens and outlines it.
    chromium.execute_script("document.querySelector('main').scrollTop = 0")
    first_span = chromium.find_element(By.CSS_SELECTOR, "#doc span[data-c]")
    ActionChains(chromium).move_to_element(first_span).perform()
    tip = chromium.find_element(By.ID, "tip")
    assert tip.is_displayed() and "tokens" in tip.text
    assert count(chromium, ".hl") >= 1
    chromium.save_screenshot(str(artifacts / "viz-winter-sports.png"))
    # Clicking a chunk in the side list brings its marker into view.
    last = chromium.find_element(By.CSS_SELECTOR, f'#chunk-list li[data-n="{n_chunks - 1}"]')
    chromium.execute_script("arguments[0].scrollIntoView()", last)
    last.click()
    in_view = chromium.execute_script(
        "const r = document.getElementById(arguments[0]).getBoundingClientRect();"
        "return r.top >= 0 && r.bottom <= window.innerHeight", f"cut-{n_chunks - 1}")
    assert in_view
    chromium.save_screenshot(str(artifacts / "viz-winter-sports-end.png"))
    assert [e for e in chromium.get_log("browser") if e.get("level") == "SEVERE"] == []


def test_viz_page_shows_removed_page_numbers_struck_through(chromium, artifacts, corpus_dir,
                                                            tmp_path):
    output = tmp_path / "out"
    assert main(["run", "--input", str(corpus_dir / "pdf" / "llncsdoc.pdf"),
                 "--output", str(output)]) == 0
    html = tmp_path / "llncsdoc.html"
    assert main(["viz", "--output", str(output), "--doc", "pdf/llncsdoc.pdf",
                 "--html", str(html)]) == 0
    run = load_run(str(output))
    removed = int(run.documents[0].metadata.get("clean_furniture_lines_removed", "0"))
    assert load(chromium, html) == []
    assert count(chromium, "#doc .cut") == len(run.indexed_chunks)
    struck = chromium.execute_script(
        "return [...document.querySelectorAll('ul.furniture s')].map(s => s.textContent)")
    # Every removed line shows up in the panel (adjacent lines may share one entry).
    assert (removed == 0 and struck == []) or 1 <= len(struck) <= removed
    chromium.save_screenshot(str(artifacts / "viz-llncsdoc.png"))
