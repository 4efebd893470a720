"""OCR of scanned pages and images, page by page, over the cores of the worker.

Tika's own OCR (one parse of the whole document with Tesseract switched on)
reads a document's pages one after another on one core, under one time limit
for the whole document and a wall-clock limit per page: under load a page ran
out of time and its text silently went missing, and a 43-page scan did not fit
in the document's budget at all. Here the ordinary extraction finds the pages
that need OCR, and then each page is one job of its own:

1. ``pdftoppm`` (poppler-utils) renders it at ``OCR_DPI`` in grey, as Tika does;
2. the ``tesseract`` command reads the image (one thread: ``OMP_THREAD_LIMIT=1``);
3. its text **replaces** that page's text in Tika's XHTML, as a
   ``<div class="ocr">`` in the page's ``<div class="page">``.

**Only pages without a usable text layer are OCR'd** (``text_layer_problem``):
almost no characters, or a layer of which a large share is glyphs without a
Unicode mapping or characters nothing reads (U+FFFD, private use, controls).
Tika's AUTO test OCR'd a page with more than 10 unmapped glyphs, however many
good ones it had (math, ligatures, form check boxes), and its text was then
appended beside the text layer: born-digital pages were indexed twice, the
second time with OCR errors. Such a page now keeps its text layer, and a page
that is OCR'd loses nothing worth keeping, so its OCR text replaces the layer.
Each document says which pages were OCR'd and why (``ocr_page_list``,
``ocr_reasons``).

Pages run in parallel, as many at once as the extraction pool has processes
(``ocr_workers``), so a scan takes its page time divided by the cores.

**Time limits count CPU seconds, not wall-clock seconds.** Each program of a
page (the renderer, then Tesseract) runs under ``RLIMIT_CPU`` at
``--ocr-page-timeout`` (SIGXCPU past it; a SIGKILL, from the hard limit or the
kernel's OOM killer, counts the same): the work a page needs does not
depend on what else the machine does, so the same page gives the same text on
an idle or a saturated machine. A wall-clock backstop (``WALL_BACKSTOP_FACTOR``
times the limit) still ends a program that waits on nothing. A page stopped by
either limit, or not started within ``--ocr-timeout`` (wall clock, per
document, off by default), leaves the document *incomplete*: it keeps every
page that was read, ``metadata.incomplete`` names a transient error type
(``transforms/errors.py``), so a user can filter on it and the next incremental
run processes it again. No time figure is ever written into a document.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from lxml import etree

from ragbeam.transforms.errors import INCOMPLETE_KEY, OCR_TIME_LIMIT, OCR_UNAVAILABLE

# Metadata keys (they reach documents.metadata, except OCR_PENDING_KEY).
OCR_PAGES_KEY = "ocr_pages"
OCR_NOTE_KEY = "ocr_note"
# The pages whose text OCR replaced, comma-separated ("0": the image), and for every
# page chosen for OCR (read or not) why, as JSON {"page": "reason"}.
OCR_PAGE_LIST_KEY = "ocr_page_list"
OCR_REASONS_KEY = "ocr_reasons"
# Set by an extraction child that leaves OCR to its parent (isolation.py): the
# pages, comma-separated (0: the whole image). Removed once OCR is done.
OCR_PENDING_KEY = "ocr_pending_pages"

# Tika's rendering for OCR (PDFParserConfig: ocrDPI 300, ocrImageType GRAY).
OCR_DPI = 300
# A program over its CPU limit is killed by the kernel; one that is not using CPU
# (blocked, or starved far beyond any normal load) by this multiple of it, in
# wall-clock seconds, plus WALL_BACKSTOP_MIN_S.
WALL_BACKSTOP_FACTOR = 10
WALL_BACKSTOP_MIN_S = 60
OCR_IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/tiff", "image/bmp", "image/gif",
                             "image/jp2"})
_IMAGE_SUFFIXES = {"image/png": ".png", "image/jpeg": ".jpg", "image/tiff": ".tif",
                   "image/bmp": ".bmp", "image/gif": ".gif", "image/jp2": ".jp2"}
# Pictures by their first bytes, for a picture Tika cannot parse (``picture_type``).
_PICTURE_SIGNATURES = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"),
                       (b"GIF87a", "image/gif"), (b"GIF89a", "image/gif"),
                       (b"II*\x00", "image/tiff"), (b"MM\x00*", "image/tiff"),
                       (b"\x00\x00\x00\x0cjP  \r\n\x87\n", "image/jp2"), (b"BM", "image/bmp"))
WHOLE_IMAGE = 0
# A page needs OCR when at most this many of its characters are usable (Tika's
# AUTO threshold), or when more than OCR_MAX_BAD_SHARE of them are not: glyphs
# without a Unicode mapping (pdf:unmappedUnicodeCharsPerPage) or characters in
# its text that nothing reads (_GARBAGE). Measured: born-digital pages with
# math, ligatures or check boxes that Tika's test (> 10 unmapped) sent to OCR
# have 0.3-1.2 % of their glyphs unmapped (pdfminer.six's issue-1061 sample,
# IRS form f1040nr); at 30 % most words of a page have lost a letter, and OCR
# reads it better than its text layer.
OCR_AUTO_MAX_CHARS = 10
OCR_MAX_BAD_SHARE = 0.30
_GARBAGE = re.compile("[\ufffd\ue000-\uf8ff\U000f0000-\U0010ffff\x00-\x08\x0b\x0c"
                      "\x0e-\x1f\x7f-\x9f]")
_PAGE_DIV = re.compile(r'<div class="page">')
_TAG = re.compile(r"<[^>]*>")
_XML_INVALID = "".join(chr(c) for c in (*range(0, 9), 11, 12, *range(14, 32)))
_XML_INVALID_TABLE = str.maketrans("", "", _XML_INVALID + "\ufffe\uffff")


class OcrTimeLimit(Exception):
    """A page (or the document) ran out of OCR time: the text is incomplete."""


class OcrUnavailable(Exception):
    """Pages need OCR and Tesseract or pdftoppm is missing: a later run with them
    reads those pages (transient)."""


@dataclass(frozen=True)
class PageText:
    """What OCR made of one page: its text, or why there is none."""

    page: int  # 1-based PDF page; WHOLE_IMAGE for an image file
    text: str | None = None
    timed_out: bool = False  # stopped by a time limit (transient)
    problem: str | None = None  # failed for another reason (the same next time)


def picture_type(data: bytes) -> str | None:
    """The media type of a picture OCR reads, by its first bytes (None: not one)."""
    return next((kind for signature, kind in _PICTURE_SIGNATURES
                 if data.startswith(signature)), None)


def media_type_of(metadata: dict[str, list[str]]) -> str:
    return (metadata.get("Content-Type") or [""])[0].split(";", 1)[0].strip().lower()


@dataclass(frozen=True)
class TextLayer:
    """What a PDF page's text layer holds: glyphs Tika counted, those without a
    Unicode mapping, and characters of its text nothing reads."""

    chars: int
    unmapped: int = 0
    garbage: int = 0


def text_layer_problem(layer: TextLayer) -> str | None:
    """Why a page's text layer is not usable (then OCR reads the page), or None."""
    bad = layer.unmapped + layer.garbage
    usable = max(layer.chars - bad, 0)
    if usable <= OCR_AUTO_MAX_CHARS:
        return f"no text layer ({usable} usable characters)"
    if bad > OCR_MAX_BAD_SHARE * layer.chars:
        return (f"unreadable text layer ({round(100 * bad / layer.chars)} % of "
                f"{layer.chars} characters unmapped or garbage)")
    return None


def page_texts(xhtml: str) -> list[str]:
    """The text of each ``<div class="page">`` of Tika's XHTML, roughly (tags dropped,
    entities kept): enough to count characters nothing reads, without a parse."""
    parts = _PAGE_DIV.split(xhtml)[1:]
    return [_TAG.sub("", part) for part in parts]


def text_layers(metadata: dict[str, list[str]], xhtml: str = "") -> list[TextLayer]:
    """Each PDF page's text layer, from Tika's per-page counts and its XHTML."""
    chars = [int(c) if c.isdigit() else 0 for c in metadata.get("pdf:charsPerPage", ())]
    unmapped = [int(u) if u.isdigit() else 0
                for u in metadata.get("pdf:unmappedUnicodeCharsPerPage", ())]
    unmapped += [0] * (len(chars) - len(unmapped))
    if not xhtml:
        return [TextLayer(c, u) for c, u in zip(chars, unmapped, strict=False)]
    texts = page_texts(xhtml)
    texts += [""] * (len(chars) - len(texts))
    # Tika counts a glyph of a font without a Unicode map as unmapped even where it
    # reads it through the font's encoding: an Italian disclosure with every glyph
    # "unmapped" reads correctly. What the page's text shows as letters and digits was
    # read, whatever the count says.
    return [TextLayer(c, min(u, max(c - sum(map(str.isalnum, text)), 0)),
                      len(_GARBAGE.findall(text)))
            for c, u, text in zip(chars, unmapped, texts, strict=False)]


def ocr_candidates(metadata: dict[str, list[str]], mode: str, xhtml: str = ""
                   ) -> dict[int, str]:
    """The pages of an extracted document that OCR reads (``WHOLE_IMAGE``: an image),
    each with why, in page order."""
    if mode == "off":
        return {}
    media_type = media_type_of(metadata)
    if media_type in OCR_IMAGE_TYPES:
        return {WHOLE_IMAGE: "image"}
    if media_type != "application/pdf":
        return {}
    if (metadata.get("pdf:encrypted") or [""])[0].lower() == "true":
        return {}  # nothing to render without the password
    layers = text_layers(metadata, xhtml)
    if mode == "only":
        pages = (metadata.get("xmpTPg:NPages") or [""])[0]
        count = int(pages) if pages.isdigit() else len(layers)
        return {page: "--ocr only" for page in range(1, count + 1)}
    return {page: problem for page, layer in enumerate(layers, start=1)
            if (problem := text_layer_problem(layer))}


def pages_needing_ocr(metadata: dict[str, list[str]], mode: str, xhtml: str = "") -> list[int]:
    """The pages of an extracted document that OCR reads (``[WHOLE_IMAGE]``: an image)."""
    return list(ocr_candidates(metadata, mode, xhtml))


def unavailable_metadata(metadata: dict[str, list[str]], pages: list[int], problem: str
                         ) -> dict[str, list[str]]:
    """``metadata`` of a document whose ``pages`` need OCR that cannot run here: it
    keeps its text layers, says so, and is marked incomplete (``OcrUnavailable``, a
    transient type) so that a later run, with Tesseract installed, reads them."""
    return {**metadata, OCR_PAGES_KEY: ["0"], INCOMPLETE_KEY: [OCR_UNAVAILABLE],
            OCR_NOTE_KEY: [f"{len(pages)} page(s) need OCR, which is unavailable: {problem}"]}


def pending_pages(metadata: dict[str, list[str]]) -> list[int] | None:
    """The pages a child left to OCR (``OCR_PENDING_KEY``), or None."""
    value = (metadata.get(OCR_PENDING_KEY) or [None])[0]
    return None if value is None else [int(p) for p in value.split(",") if p]


def ocr_programs_missing(media_type: str) -> str | None:
    """The program OCR of this kind of document needs and cannot find, or None."""
    if shutil.which("tesseract") is None:
        return "tesseract not found on PATH (Debian: apt-get install tesseract-ocr)"
    if media_type == "application/pdf" and shutil.which("pdftoppm") is None:
        return "pdftoppm not found on PATH (Debian: apt-get install poppler-utils)"
    return None


def _limited(argv: list[str], cpu_seconds: int) -> list[str]:
    """``argv`` under a CPU-time limit (the kernel sends SIGXCPU past it); a shell's
    ``ulimit`` rather than ``preexec_fn``, which is not safe in a threaded process."""
    return ["/bin/sh", "-c", f'ulimit -t {int(cpu_seconds)} && exec "$@"', "ocr", *argv]


def _run_limited(argv: list[str], cpu_seconds: int) -> subprocess.CompletedProcess[bytes]:
    """Run a program under the CPU limit and the wall-clock backstop.

    Raises ``OcrTimeLimit`` when either limit stops it."""
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    backstop = max(WALL_BACKSTOP_FACTOR * cpu_seconds, WALL_BACKSTOP_MIN_S)
    try:
        done = subprocess.run(_limited(argv, cpu_seconds), capture_output=True, env=env,
                              timeout=backstop, check=False)
    except subprocess.TimeoutExpired:
        raise OcrTimeLimit(f"{os.path.basename(argv[0])} stopped by the wall-clock "
                           "backstop") from None
    if done.returncode in (-signal.SIGXCPU, 128 + signal.SIGXCPU, -signal.SIGKILL):
        raise OcrTimeLimit(f"{os.path.basename(argv[0])} over its CPU time limit")
    return done


def _failure(program: str, done: subprocess.CompletedProcess[bytes]) -> str:
    lines = [line for line in done.stderr.decode("utf-8", "replace").splitlines()
             if line.strip() and not line.startswith("Estimating resolution")]
    return f"{program} failed ({done.returncode}): {lines[-1] if lines else 'no message'}"


def read_page(source_path: str, page: int, languages: str, cpu_seconds: int,
              work_dir: str) -> PageText:
    """OCR of one PDF page (rendered by ``pdftoppm``), or of a whole image file."""
    try:
        if page == WHOLE_IMAGE:
            image = source_path
        else:
            root = os.path.join(work_dir, f"page-{page}")
            rendered = _run_limited(["pdftoppm", "-f", str(page), "-l", str(page),
                                     "-r", str(OCR_DPI), "-gray", "-singlefile",
                                     source_path, root], cpu_seconds)
            image = root + ".pgm"
            if rendered.returncode != 0 or not os.path.exists(image):
                return PageText(page, problem=_failure("pdftoppm", rendered))
        try:
            read = _run_limited(_tesseract_argv(image, page, languages), cpu_seconds)
        finally:
            if image != source_path:
                os.unlink(image)
    except OcrTimeLimit:
        return PageText(page, timed_out=True)
    if read.returncode != 0:
        return PageText(page, problem=_failure("tesseract", read))
    return PageText(page, text=read.stdout.decode("utf-8", "replace"))


def _tesseract_argv(image: str, page: int, languages: str) -> list[str]:
    argv = ["tesseract", image, "stdout", "-l", languages]
    if page != WHOLE_IMAGE:
        argv += ["--dpi", str(OCR_DPI)]  # rendered at it (a PGM file does not say)
    return argv


_executors_lock = threading.Lock()
_executors: dict[int, ThreadPoolExecutor] = {}


def page_executor(workers: int) -> ThreadPoolExecutor:
    """This process's threads for OCR pages, ``workers`` of them (one per extraction
    process: each thread waits on one program at a time), shared by every document."""
    with _executors_lock:
        if workers not in _executors:
            _executors[workers] = ThreadPoolExecutor(workers, thread_name_prefix="ragbeam-ocr")
        return _executors[workers]


def read_pages(data: bytes, media_type: str, pages: list[int], languages: str,
               page_cpu_seconds: int, workers: int, deadline_s: float | None = None,
               read: Callable[..., PageText] = read_page) -> list[PageText]:
    """OCR of ``pages`` of one document, ``workers`` at a time, in page order.

    ``deadline_s``: wall-clock seconds for the whole document; a page not started
    by then counts as timed out (``--ocr-timeout``)."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ragbeam-ocr-") as work_dir:
        source = os.path.join(work_dir, "source" + _IMAGE_SUFFIXES.get(media_type, ".pdf"))
        with open(source, "wb") as f:
            f.write(data)

        def one(page: int) -> PageText:
            if deadline_s is not None and time.monotonic() - started > deadline_s:
                return PageText(page, timed_out=True)
            return read(source, page, languages, page_cpu_seconds, work_dir)

        if workers <= 1 or len(pages) == 1:
            return [one(page) for page in pages]
        futures = [page_executor(workers).submit(one, page) for page in pages]
        return [future.result() for future in futures]


def ocr_div(text: str) -> etree._Element:
    div = etree.Element("{http://www.w3.org/1999/xhtml}div", {"class": "ocr"})
    div.text = text.translate(_XML_INVALID_TABLE)
    return div


def merge_ocr(xhtml: str, results: list[PageText]) -> str:
    """Tika's XHTML with each page's OCR text as a ``<div class="ocr">`` instead of the
    page's own text in its ``<div class="page">`` (for an image: at the end of the
    body). Only pages without a usable text layer are OCR'd, so the layer goes: a
    copy beside it would index the page twice. A page OCR found nothing on keeps it."""
    parser = etree.XMLParser(recover=True, huge_tree=True, resolve_entities=False,
                             no_network=True)
    root = etree.fromstring(xhtml.encode("utf-8"), parser=parser) if xhtml.strip() else None
    if root is None:
        root = etree.fromstring(b'<html xmlns="http://www.w3.org/1999/xhtml"><head/>'
                                b"<body/></html>")
    body = next((el for el in root if _local(el.tag) == "body"), None)
    if body is None:
        body = etree.SubElement(root, "{http://www.w3.org/1999/xhtml}body")
    page_divs = [el for el in body.iter() if _local(el.tag) == "div"
                 and "page" in (el.get("class") or "").split()]
    for result in results:
        if not result.text or not result.text.strip():
            continue
        if result.page == WHOLE_IMAGE:
            target = body
        elif result.page <= len(page_divs):
            target = page_divs[result.page - 1]
            for child in list(target):
                target.remove(child)
            target.text = None
        else:
            continue  # Tika wrote fewer pages than the PDF has: nowhere to put it
        target.append(ocr_div(result.text))
    return etree.tostring(root, encoding="unicode")


def _local(tag: object) -> str:
    return tag.rsplit("}", 1)[-1].lower() if isinstance(tag, str) else ""


def complete_ocr(data: bytes, xhtml: str, metadata: dict[str, list[str]], pages: list[int],
                 languages: str, page_cpu_seconds: int, workers: int,
                 deadline_s: float | None = None) -> tuple[str, dict[str, list[str]]]:
    """Tika's answer for a document with ``pages`` OCR'd into it, and its metadata
    saying what OCR did: ``ocr_pages`` (how many pages were read), ``ocr_page_list``
    (which: their text replaced the text layer), ``ocr_note`` (pages that could not
    be, and why: no time figures), and for pages stopped by a time limit or OCR
    programs missing ``incomplete`` (a transient error type)."""
    metadata = {k: v for k, v in metadata.items() if k != OCR_PENDING_KEY}
    media_type = media_type_of(metadata)
    if problem := ocr_programs_missing(media_type):
        return xhtml, unavailable_metadata(metadata, pages, problem)
    results = read_pages(data, media_type, pages, languages, page_cpu_seconds, workers,
                         deadline_s)
    merged = merge_ocr(xhtml, results)
    metadata[OCR_PAGES_KEY] = [str(sum(1 for r in results if r.text is not None))]
    metadata[OCR_PAGE_LIST_KEY] = [",".join(str(r.page) for r in results
                                            if r.text and r.text.strip())]
    notes = []
    timed_out = [r.page for r in results if r.timed_out]
    if timed_out:
        notes.append(f"{_pages(timed_out)} not read within the OCR time limit "
                     "(--ocr-page-timeout, --ocr-timeout): retried by the next incremental run")
        metadata[INCOMPLETE_KEY] = [OCR_TIME_LIMIT]
    notes += [f"{_pages([r.page])}: {r.problem}" for r in results if r.problem]
    if notes:
        metadata[OCR_NOTE_KEY] = ["; ".join(notes)]
    return merged, metadata


def reasons_value(candidates: dict[int, str]) -> list[str]:
    """``ocr_reasons``'s value: why each page was chosen for OCR, as JSON."""
    return [json.dumps({str(page): reason for page, reason in candidates.items()},
                       ensure_ascii=False)]


def _pages(pages: list[int]) -> str:
    if pages == [WHOLE_IMAGE]:
        return "the image"
    return ("page " if len(pages) == 1 else "pages ") + ", ".join(map(str, pages))
