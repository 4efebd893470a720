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
A scan's poor OCR layer is not usable either: a page images cover
(``layout.scanned_pages``) whose words are mostly unknown to its language's word
list (``garbage.unknown_word_share`` with Tesseract's own list, ``pack_words``;
``POOR_WORD_SHARE``) is read again, its layer replaced; a scan with a good layer,
and any born-digital page, keeps its text. Each document says which pages were
OCR'd and why (``ocr_page_list``, ``ocr_reasons``).

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

**Each page is read in its own script** (``read_picture``, ``--ocr-languages
auto``, the default). With ``eng`` a Chinese or a Japanese picture became Latin
garbage (``PSS MD, SEMANA "EK" . MHI A``) indexed as ``ok``. Tesseract says how
sure it is of each word; measured on pictures of the UDHR's first article in ten
languages and real photographs and scans (``benchmarks/ocr_scripts.py``), a
reading of a script by a pack that does not know it stays below
``MIN_CONFIDENCE`` (50 % mean word confidence, by characters) in 83 of 94 cases,
while right readings reach it in 87 of 91. So: ``eng`` reads first, and its
reading is kept when it is confident (``CONFIDENT``, 80 %: no wrong-script reading
by ``eng`` reached 50 %); else
Tesseract's OSD (``--psm 0``, the ``osd`` pack) names the script and that script's
packs (``SCRIPT_PACKS``) read it, and the most confident reading is kept if it
reaches ``MIN_CONFIDENCE``; OSD needs some text (it gave up on a full English page
photographed on colour), so when it cannot tell, the other common scripts' packs
are tried. OSD also says how the page is to be turned to stand upright: a page
scanned upside down or sideways (``eng`` read one at 32 %) is turned so and read
again, and the upright reading is kept where it is the more confident. A page no
reading reaches it with is not indexed: its problem says so,
and a picture without text read is ``unsupported``; one whose script's pack is not
installed is *incomplete* (``OcrUnavailable``: the next run with the pack reads
it). With languages given (``eng+deu``) they read every page, under the same
``MIN_CONFIDENCE``. Tesseract puts a space between Chinese and Japanese characters
(``新 鲜 甘 草 黄酮 养分 ，``); they are taken out (``unspaced_cjk``), not between
Hangul words, which Korean spaces.

**A document whose only content is pictures** (a slide deck of scans, a Word file
of screenshots: ``PICTURE_PACKAGE_TYPES``) has its pictures read like a picture
file (``document_pictures``: Tika's ``<img src="embedded:NAME">``, the picture
from the package's own zip); their text takes the picture's place.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import html
import io
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import zipfile
import zlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from lxml import etree
from PIL import Image

from ragbeam.transforms.charsets import CJK_PUNCTUATION_CLASS, CJK_SCRIPTS_CLASS
from ragbeam.transforms.errors import INCOMPLETE_KEY, OCR_TIME_LIMIT, OCR_UNAVAILABLE
from ragbeam.transforms.extract.xhtml import parse_tika_xhtml
from ragbeam.transforms.garbage import is_garbage, judged_language, unknown_word_share

# Metadata keys (they reach documents.metadata, except OCR_PENDING_KEY).
OCR_PAGES_KEY = "ocr_pages"
OCR_NOTE_KEY = "ocr_note"
# The pages whose text OCR replaced, comma-separated ("0": the image), and for every
# page chosen for OCR (read or not) why, as JSON {"page": "reason"}.
OCR_PAGE_LIST_KEY = "ocr_page_list"
OCR_REASONS_KEY = "ocr_reasons"
# Which packs read each page whose text OCR gave, and how sure Tesseract was (its
# mean word confidence, by characters), as JSON {"page": "chi_sim 88 %"}.
OCR_LANGUAGES_KEY = "ocr_languages"
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
# A scan's page whose text layer has at least this share of words unknown to its
# language's Tesseract word list (garbage.unknown_word_share) is read again by OCR: a
# poor OCR layer. Chosen on benchmarks/text_layer_quality.py's labelled pages: real
# poor layers score 0.29-0.52, good ones at most 0.25 (a 1977 page of letter-spaced
# formulas); halfway between.
POOR_WORD_SHARE = 0.27
# Why such a page is OCR'd (the start of its reason); only a page an image covers
# (layout.scanned_pages) is: a born-digital page of code, tables or references has
# as many "unknown" words, and its text layer is the text.
POOR_LAYER_REASON = "poor OCR layer"
# So a page's words are scored only where it could be sent for them: its scan test (a
# ``scans`` of ``text_layers``: ``layout.scanned_pages``) comes first while its
# language's word list is not yet read (~0.47 CPU s and ~22 MB once per process, with
# the tools that read it), and a born-digital PDF never reads the list. The test loads
# each page (PDFium: 0.7-1.4 ms a page on the large-document PDFs), so a process tests
# at most this many pages that way, about the list's own cost; then it reads the list
# and tests only the pages whose words score as poor (the same decisions either way).
SCAN_TEST_PAGES = 400
_scan_test_pages_left = SCAN_TEST_PAGES
_read_packs: set[str] = set()  # the packs pack_words has read in this process
_GARBAGE = re.compile("[\ufffd\ue000-\uf8ff\U000f0000-\U0010ffff\x00-\x08\x0b\x0c"
                      "\x0e-\x1f\x7f-\x9f]")
# Fill: one glyph of Latin-1's upper half set three or more times in a row. Old data
# sheets shade their tables' cells with a symbol font's glyph that Tika reads as "Î"
# ("ÎÎÎÎÎÎÎÎÎRating"): a page whose words read correctly between such runs scored as
# encoding garbage and went to OCR, which misread its symbols (VEB as "Ves", IC as
# "lo"). No language writes one such letter three times running, and mojibake
# alternates its bytes ("Ã©Ã©"), so the runs are left out of the judgement, not the text.
_FILL_RUN = re.compile(r"([\x80-\xff])\1{2,}")
# A symbol font's own codes (private use): a formula's glyphs (``_without_formula_lines``).
_SYMBOL_GLYPH = re.compile("[\ue000-\uf8ff]")
_PAGE_DIV = re.compile(r'<div class="page">')
_TAG = re.compile(r"<[^>]*>")
_XML_INVALID = "".join(chr(c) for c in (*range(0, 9), 11, 12, *range(14, 32)))
_XML_INVALID_TABLE = str.maketrans("", "", _XML_INVALID + "\ufffe\uffff")


# --ocr-languages auto (read_picture): the default pack, kept when its reading is
# CONFIDENT; else the script OSD names, read by its packs (alternatives: the most
# confident is kept), and, where OSD cannot tell, the common scripts in turn. No
# reading below MIN_CONFIDENCE is kept. Measured: benchmarks/ocr_scripts.py.
AUTO_LANGUAGES = "auto"
DEFAULT_PACK = "eng"
CONFIDENT = 80.0
MIN_CONFIDENCE = 50.0
# Readings this close in confidence are the same call: the first asked for is kept.
# Measured on Chinese pictures: chi_tra 0.3 above chi_sim on Simplified text (in
# Traditional characters), 13-17 above it on Traditional text.
SAME_CALL = 2.0
OSD_PACK = "osd"
SCRIPT_PACKS: dict[str, tuple[str, ...]] = {
    "Latin": ("eng",), "Han": ("chi_sim", "chi_tra"), "HanS": ("chi_sim",),
    "HanT": ("chi_tra",), "Japanese": ("jpn",), "Korean": ("kor",), "Hangul": ("kor",),
    "Cyrillic": ("rus",), "Greek": ("ell",), "Arabic": ("ara",), "Hebrew": ("heb",),
    "Devanagari": ("hin",), "Thai": ("tha",), "Bengali": ("ben",), "Tamil": ("tam",),
    "Telugu": ("tel",), "Kannada": ("kan",), "Malayalam": ("mal",), "Gujarati": ("guj",),
    "Gurmukhi": ("pan",), "Armenian": ("hye",), "Georgian": ("kat",), "Ethiopic": ("amh",),
    "Khmer": ("khm",), "Lao": ("lao",), "Myanmar": ("mya",), "Sinhala": ("sin",),
    "Tibetan": ("bod",),
}
# Tried in turn where OSD cannot name the script (and Latin's reading was not confident).
COMMON_SCRIPTS = ("Han", "Japanese", "Korean")
_OSD_SCRIPT = re.compile(r"^Script: (\w+)", re.M)
_OSD_ROTATE = re.compile(r"^Rotate: (\d+)", re.M)
# A space Tesseract puts between characters of scripts written without spaces (Han,
# kana, their punctuation): between two of them, or one and a Latin punctuation mark.
_UNSPACED = f"{CJK_SCRIPTS_CLASS}\uf900-\ufaff{CJK_PUNCTUATION_CLASS}\U00020000-\U0002fa1f"
_CJK_SPACE = re.compile(f"(?<=[{_UNSPACED}])[ \u3000]+(?=[{_UNSPACED},.;:!?)])"
                        f"|(?<=[{_UNSPACED},.;:!?(])[ \u3000]+(?=[{_UNSPACED}])")
# Office packages whose pictures are read where they are all the document has
# (zip members; Tika marks each picture's place with <img src="embedded:NAME">).
PICTURE_PACKAGE_TYPES = frozenset({
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "application/vnd.oasis.opendocument.text",
    "application/vnd.oasis.opendocument.presentation",
    "application/vnd.oasis.opendocument.spreadsheet",
})
_EMBEDDED_SRC = "embedded:"
_EMBEDDED_IMG = re.compile(r'<img\b[^>]*?\bsrc="embedded:([^"]+)"')
MAX_PICTURE_BYTES = 64 << 20


class OcrTimeLimit(Exception):
    """A page (or the document) ran out of OCR time: the text is incomplete."""


class OcrUnavailable(Exception):
    """Pages need OCR and Tesseract or pdftoppm is missing: a later run with them
    reads those pages (transient)."""


@dataclass(frozen=True)
class PageText:
    """What OCR made of one page: its text, or why there is none."""

    page: int  # 1-based PDF page (or picture of a package); WHOLE_IMAGE for an image file
    text: str | None = None
    timed_out: bool = False  # stopped by a time limit (transient)
    problem: str | None = None  # failed for another reason (the same next time)
    unavailable: bool = False  # its script's pack is not installed (transient)
    reading: str | None = None  # which packs read the text, and how sure: "jpn 91 %"


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
    # Its text reads as binary data or encoding garbage (transforms/garbage.py): a
    # font whose map gives the wrong letters, every one of them "mapped".
    reads_as_garbage: bool = False
    # The share of its words its language's word list does not know (None: not
    # measured: few words, a language without a list, no Tesseract).
    unknown_words: float | None = None


def text_layer_problem(layer: TextLayer) -> str | None:
    """Why a page's text layer is not usable (then OCR reads the page), or None."""
    bad = layer.unmapped + layer.garbage
    usable = max(layer.chars - bad, 0)
    if usable <= OCR_AUTO_MAX_CHARS:
        return f"no text layer ({usable} usable characters)"
    if bad > OCR_MAX_BAD_SHARE * layer.chars:
        return (f"unreadable text layer ({round(100 * bad / layer.chars)} % of "
                f"{layer.chars} characters unmapped or garbage)")
    if layer.reads_as_garbage:
        return "unreadable text layer (it reads as encoding garbage)"
    if layer.unknown_words is not None and layer.unknown_words >= POOR_WORD_SHARE:
        return (f"{POOR_LAYER_REASON} ({round(100 * layer.unknown_words)} % of its words "
                "unknown to its language's word list)")
    return None


def page_texts(xhtml: str) -> list[str]:
    """The text of each ``<div class="page">`` of Tika's XHTML, roughly (tags dropped,
    entities kept): enough to count characters nothing reads, without a parse."""
    parts = _PAGE_DIV.split(xhtml)[1:]
    return [_TAG.sub("", part) for part in parts]


def text_layers(metadata: dict[str, list[str]], xhtml: str = "",
                scans: Callable[[list[int]], set[int]] | None = None) -> list[TextLayer]:
    """Each PDF page's text layer, from Tika's per-page counts and its XHTML. With
    ``scans`` (which of the given pages are scans; ``layout.scanned_pages``), a page's
    words are scored (``unknown_words``) only where nothing else ails its layer and it
    may be a scan (``SCAN_TEST_PAGES``): the only pages a poor score sends to OCR."""
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
    readables = [_FILL_RUN.sub(" ", html.unescape(text)) for text in texts[:len(chars)]]
    layers = [_text_layer(c, u, text, readable)
              for c, u, text, readable in zip(chars, unmapped, texts, readables, strict=False)]
    scored = range(len(layers))
    if scans is not None:
        languages = {k: language for k, layer in enumerate(layers)
                     if text_layer_problem(layer) is None
                     and (language := judged_language(readables[k])) is not None}
        scored = set(languages) - _not_scans(languages, scans)
    for k in scored:
        layers[k] = dataclasses.replace(
            layers[k], unknown_words=unknown_word_share(readables[k], pack_words))
    return layers


def _text_layer(chars: int, unmapped: int, text: str, readable: str) -> TextLayer:
    """One page's ``TextLayer`` from Tika's counts and its text (``readable``: unescaped,
    fill runs blanked), its formula lines left out (``_without_formula_lines``)."""
    judged, formula_chars = _without_formula_lines(readable)
    if formula_chars:
        chars = max(chars - formula_chars, 0)
        text = judged
    return TextLayer(chars, min(unmapped, max(chars - sum(map(str.isalnum, text)), 0)),
                     len(_GARBAGE.findall(text)), is_garbage(_mess_tested_text(judged)))


def _without_formula_lines(readable: str) -> tuple[str, int]:
    """A page's text less its formula lines, and how many characters (not spaces) those
    held; ``(readable, 0)`` where there are none or they are half its text or more.

    A formula line is one holding private-use glyphs (a symbol font's own codes) and no
    letter and no U+FFFD: a display formula set in a math font Tika gives as private-use
    glyphs, broken into short lines of symbols, digits and brackets. (U+FFFD is a glyph
    whose character Tika could not tell at all: a text font without a map, whose words
    OCR reads, as a sidebar of IBM's redp5110 set in one.) OCR reads no formula either
    (it makes letters of its symbols), so such lines neither count against a page
    (``OCR_MAX_BAD_SHARE``) nor enter its encoding-garbage test: a Korean thesis's pages
    of clean prose between formulas were read again by OCR, which misread or dropped
    their Hangul (4.8 % of the thesis's body words). Where such lines are half the
    page's text or more (a page whose font gives every glyph as private use, a running
    head the only line read), the whole text is judged, as ``_mess_tested_text`` does
    for the lines it leaves out."""
    if not _SYMBOL_GLYPH.search(readable):  # most pages: no private-use glyph at all
        return readable, 0
    lines = readable.split("\n")
    formula = [bool(_SYMBOL_GLYPH.search(line)) and "\ufffd" not in line
               and not any(map(str.isalpha, line)) for line in lines]
    left_out = [line for line, is_formula in zip(lines, formula, strict=True) if is_formula]
    if not left_out or 2 * sum(map(len, left_out)) >= len(readable):
        return readable, 0
    return ("\n".join(line for line, is_formula in zip(lines, formula, strict=True)
                      if not is_formula),
            sum(not c.isspace() for line in left_out for c in line))


def _mess_tested_text(readable: str) -> str:
    """The part of a page's text the encoding-garbage test (``is_garbage``) judges.

    Characters nothing reads (``_GARBAGE``: private use, U+FFFD, controls) are counted
    against a page by their share (``OCR_MAX_BAD_SHARE``); the mess test is for letters
    read as the wrong ones. It counts those characters as suspects too, so a page of
    clean prose with a few formula lines set in a font Tika gives as private-use glyphs
    (13-14 % of a Korean thesis's pages) scored as garbage, and OCR replaced its good
    Hangul with misread words. Where the lines holding such characters are under half
    the page's text they are left out of the test; where they run through most of it
    (a figure whose font shifts every letter and spaces its words with private-use
    glyphs) the whole text is judged, as the test's own half-the-windows rule would."""
    lines = readable.split("\n")
    marked = [bool(_GARBAGE.search(line)) for line in lines]
    if 2 * sum(len(line) for line, bad in zip(lines, marked, strict=True) if bad) >= len(
            readable):
        return readable
    return "\n".join(line for line, bad in zip(lines, marked, strict=True) if not bad)


def _not_scans(languages: dict[int, str], scans: Callable[[list[int]], set[int]]
               ) -> set[int]:
    """Which of the pages (0-based, each with the language its words would be scored
    in) need no score, being no scans: tested (``scans``, 1-based) where the
    language's list is not read yet and this process's ``SCAN_TEST_PAGES`` allow;
    a page whose list is read is scored first (its scan test follows a poor score)."""
    global _scan_test_pages_left
    unread = [k for k, language in languages.items() if language not in _read_packs]
    if not unread or len(unread) > _scan_test_pages_left:
        return set()
    _scan_test_pages_left -= len(unread)
    try:
        found = scans([k + 1 for k in unread])
    except Exception:  # PDFium refuses the file: no page is a scan (as the OCR filter)
        found = set()
    return {k for k in unread if k + 1 not in found}


def ocr_candidates(metadata: dict[str, list[str]], mode: str, xhtml: str = "",
                   scans: Callable[[list[int]], set[int]] | None = None) -> dict[int, str]:
    """The pages of an extracted document that OCR reads (``WHOLE_IMAGE``: an image),
    each with why, in page order. ``scans``: as ``text_layers``'s (the caller then
    drops the pages of a poor layer that are no scans, as ``scans`` tells)."""
    if mode == "off":
        return {}
    media_type = media_type_of(metadata)
    if media_type in OCR_IMAGE_TYPES:
        return {WHOLE_IMAGE: "image"}
    if media_type in PICTURE_PACKAGE_TYPES:
        return {number: "a picture, all the document holds"
                for number, _ in enumerate(pictures_only(xhtml), start=1)}
    if media_type != "application/pdf":
        return {}
    if (metadata.get("pdf:encrypted") or [""])[0].lower() == "true":
        return {}  # nothing to render without the password
    if mode == "only":
        pages = (metadata.get("xmpTPg:NPages") or [""])[0]
        count = int(pages) if pages.isdigit() else len(text_layers(metadata))
        return {page: "--ocr only" for page in range(1, count + 1)}
    layers = text_layers(metadata, xhtml, scans)
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
            return read_picture(image, page, languages, cpu_seconds, work_dir,
                                dpi=None if page == WHOLE_IMAGE else OCR_DPI)
        finally:
            if image != source_path:
                os.unlink(image)
    except OcrTimeLimit:
        return PageText(page, timed_out=True)


@dataclass(frozen=True)
class Reading:
    """One Tesseract reading of a picture: its text and its mean word confidence
    (0-100, weighted by characters; 0 when it read no word)."""

    packs: str
    text: str
    confidence: float
    words: int

    @property
    def label(self) -> str:
        return f"{self.packs} {round(self.confidence)} %"


def read_picture(image: str, page: int, languages: str, cpu_seconds: int, work_dir: str,
                 dpi: int | None = None) -> PageText:
    """One picture read in its own script (the module's doc): the text of the most
    confident reading that reaches ``MIN_CONFIDENCE``, or why there is none.
    Raises ``OcrTimeLimit`` when a program runs out of time."""
    installed = installed_packs()
    readings: list[Reading] = []
    missing: list[str] = []

    def read_with(script: str, alternatives: tuple[str, ...]) -> None:
        for packs in alternatives:
            absent = [pack for pack in packs.split("+") if pack not in installed]
            if absent:
                missing.append(f"{script}: {'+'.join(absent)}")
            elif all(r.packs != packs for r in readings):
                readings.append(_read(image, packs, cpu_seconds, work_dir, dpi))

    def best() -> Reading | None:
        """The most confident reading; of readings within ``SAME_CALL`` points of it,
        the first asked for (a script's packs in their order: chi_tra read Simplified
        Chinese as confidently as chi_sim, in Traditional characters)."""
        top = max((r.confidence for r in readings), default=None)
        return next((r for r in readings if r.confidence >= top - SAME_CALL), None)

    try:
        read_with(languages, (DEFAULT_PACK if languages == AUTO_LANGUAGES else languages,))
        blank = bool(readings) and readings[0].words == 0
        if languages != AUTO_LANGUAGES and blank:
            return PageText(page, text="")
        if languages == AUTO_LANGUAGES and (best() is None or best().confidence < CONFIDENT):
            # Not confidently Latin: the script OSD names; where that reads no text
            # confidently, or OSD cannot tell, the common scripts too.
            named, turn = (detect_orientation(image, cpu_seconds, dpi)
                           if OSD_PACK in installed else (None, 0))
            if turn:
                # A page scanned upside down or sideways: read upright, as OSD turns it,
                # where that reads better than the page as it lies.
                upright = _turned(image, turn, work_dir)
                reading = _read(upright, DEFAULT_PACK, cpu_seconds, work_dir, dpi)
                lying = best()
                if lying is None or reading.confidence > lying.confidence:
                    image, readings[:] = upright, [reading]
                    blank = reading.words == 0
            if blank and named in (None, "Latin"):  # no word, no other script: no text
                return PageText(page, text="")
            if named is not None and named != "Latin":
                readings.clear()  # OSD sees another script: 'eng' read letters it is not
            if named is not None and named != "Latin":
                read_with(named, SCRIPT_PACKS.get(named, ()))
            # OSD cannot tell, or its script's packs read no text confidently (a
            # script it mistook: vertical Japanese as Han): the common scripts too.
            # Not where its script's pack is missing: that reading waits for the pack.
            if named is None or (named != "Latin" and not missing and (
                    best() is None or best().confidence < MIN_CONFIDENCE)):
                for script in COMMON_SCRIPTS:
                    read_with(script, SCRIPT_PACKS[script])
    except _TesseractFailed as exc:
        return PageText(page, problem=str(exc))
    chosen = best()
    if chosen is not None and chosen.confidence >= MIN_CONFIDENCE:
        return PageText(page, text=unspaced_cjk(chosen.text), reading=chosen.label)
    shown = f"best: {chosen.label}" if chosen is not None else "no pack read it"
    if missing:
        packages = " ".join(f"tesseract-ocr-{m.split(': ')[1].replace('_', '-')}"
                            for m in missing)
        return PageText(page, unavailable=True, problem=(
            f"no confident reading ({shown}); its script's language pack is not installed "
            f"({', '.join(missing)}; Debian: {packages})"))
    return PageText(page, problem=(
        f"no confident reading ({shown}, below {MIN_CONFIDENCE:g} %: the text of a "
        "script no installed pack reads, or no text): not indexed"))


@functools.cache
def installed_packs() -> frozenset[str]:
    """Tesseract's installed language packs (``tesseract --list-langs``)."""
    try:
        listed = subprocess.run(["tesseract", "--list-langs"], capture_output=True, text=True,
                                timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return frozenset()
    return frozenset(line.strip() for line in (listed.stdout + listed.stderr).splitlines()[1:]
                     if line.strip())


def detect_script(image: str, cpu_seconds: int, dpi: int | None = None) -> str | None:
    """The script Tesseract's OSD (``--psm 0``) names for a picture, or None when it
    cannot tell (too few characters) or fails."""
    return detect_orientation(image, cpu_seconds, dpi)[0]


def detect_orientation(image: str, cpu_seconds: int, dpi: int | None = None
                       ) -> tuple[str | None, int]:
    """What Tesseract's OSD (``--psm 0``) says of a picture: the script it names (None
    when it cannot tell, too few characters, or fails) and how many degrees clockwise
    the picture is to be turned to stand upright (0, 90, 180 or 270)."""
    argv = ["tesseract", image, "stdout", "--psm", "0", "-l", OSD_PACK]
    done = _run_limited(argv + (["--dpi", str(dpi)] if dpi else []), cpu_seconds)
    if done.returncode != 0:
        return None, 0
    out = done.stdout.decode("utf-8", "replace")
    script, turn = _OSD_SCRIPT.search(out), _OSD_ROTATE.search(out)
    return (script.group(1) if script else None,
            int(turn.group(1)) % 360 if turn and int(turn.group(1)) % 90 == 0 else 0)


def _turned(image: str, degrees: int, work_dir: str) -> str:
    """A copy of the picture turned ``degrees`` clockwise (OSD's ``Rotate``), beside it."""
    path = os.path.join(work_dir, f"turned-{threading.get_ident()}-{degrees}.png")
    with Image.open(image) as picture:
        picture.rotate(-degrees, expand=True).save(path)
    return path


def _read(image: str, packs: str, cpu_seconds: int, work_dir: str, dpi: int | None
          ) -> Reading:
    """One Tesseract run: the text (``txt``) and each word's confidence (``tsv``)."""
    base = os.path.join(work_dir, f"read-{threading.get_ident()}-{packs.replace('+', '_')}")
    argv = ["tesseract", image, base, "-l", packs] + (["--dpi", str(dpi)] if dpi else [])
    done = _run_limited([*argv, "txt", "tsv"], cpu_seconds)
    try:
        if done.returncode != 0:
            raise _TesseractFailed(_failure("tesseract", done))
        with open(base + ".txt", encoding="utf-8", errors="replace") as f:
            text = f.read()
        with open(base + ".tsv", encoding="utf-8", errors="replace") as f:
            confidence, words = word_confidence(f.read())
    finally:
        for suffix in (".txt", ".tsv"):
            with contextlib.suppress(OSError):
                os.unlink(base + suffix)
    return Reading(packs, text, confidence, words)


class _TesseractFailed(Exception):
    """Tesseract exited with an error (its message): the page's problem."""


def word_confidence(tsv: str) -> tuple[float, int]:
    """Tesseract's mean word confidence in a TSV result, weighted by each word's
    characters, and the number of words."""
    total = weighted = words = 0
    for line in tsv.splitlines()[1:]:
        fields = line.split("\t")
        if len(fields) < 12 or fields[0] != "5" or not fields[11].strip():
            continue
        try:
            confidence = float(fields[10])
        except ValueError:
            continue
        size = len(fields[11].strip())
        total += size
        weighted += max(confidence, 0.0) * size
        words += 1
    return (weighted / total if total else 0.0), words


def unspaced_cjk(text: str) -> str:
    """``text`` without the spaces Tesseract puts between characters of scripts written
    without them (Han, kana, their punctuation); Hangul's word spaces stay."""
    return _CJK_SPACE.sub("", text)


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
               read: Callable[..., PageText] = read_page,
               pictures: list[str] | None = None) -> list[PageText]:
    """OCR of ``pages`` of one document, ``workers`` at a time, in page order.

    ``deadline_s``: wall-clock seconds for the whole document; a page not started
    by then counts as timed out (``--ocr-timeout``). ``pictures``: the document is an
    office package and its pages are these pictures (``document_pictures``), read
    from its zip as picture files are."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ragbeam-ocr-") as work_dir:
        source = os.path.join(work_dir, "source" + _IMAGE_SUFFIXES.get(media_type, ".pdf"))
        with open(source, "wb") as f:
            f.write(data)

        def one(page: int) -> PageText:
            if deadline_s is not None and time.monotonic() - started > deadline_s:
                return PageText(page, timed_out=True)
            if pictures is None:
                return read(source, page, languages, page_cpu_seconds, work_dir)
            picture = os.path.join(work_dir, f"picture-{page}")
            if problem := write_picture(data, pictures[page - 1], picture):
                return PageText(page, problem=problem)
            return dataclasses.replace(read(picture, WHOLE_IMAGE, languages,
                                            page_cpu_seconds, work_dir), page=page)

        if workers <= 1 or len(pages) == 1:
            return [one(page) for page in pages]
        futures = [page_executor(workers).submit(one, page) for page in pages]
        return [future.result() for future in futures]


def document_pictures(xhtml: str) -> list[str]:
    """The pictures an office package's XHTML places (Tika's ``<img
    src="embedded:NAME">``), in order, each once."""
    return list(dict.fromkeys(html.unescape(name) for name in _EMBEDDED_IMG.findall(xhtml)))


def pictures_only(xhtml: str) -> list[str]:
    """An office package's pictures when they are all it has (no text of its own;
    the embedded resources' names Tika writes are not its text), else []."""
    pictures = document_pictures(xhtml)
    return pictures if pictures and not parse_tika_xhtml(xhtml).raw_text.strip() else []


def write_picture(package: bytes, name: str, path: str) -> str | None:
    """Write the picture ``name`` (a member path, or the file name Tika gave it) of an
    office package's zip to ``path``; or why it cannot be read."""
    try:
        with zipfile.ZipFile(io.BytesIO(package)) as archive:
            members = {info.filename: info for info in archive.infolist()}
            info = members.get(name) or next(
                (i for n, i in sorted(members.items()) if n.rsplit("/", 1)[-1] == name), None)
            if info is None:
                return f"picture {name!r} not found in the document"
            if info.file_size > MAX_PICTURE_BYTES:
                return f"picture {name!r} is over {MAX_PICTURE_BYTES:,} bytes: not read"
            data = archive.read(info)
    except (zipfile.BadZipFile, OSError, RuntimeError, ValueError, EOFError, zlib.error) as exc:
        return f"picture {name!r} unreadable: {type(exc).__name__}: {exc}"
    if picture_type(data) is None:
        return f"picture {name!r} is not in a format OCR reads (PNG, JPEG, TIFF, BMP, GIF)"
    with open(path, "wb") as f:
        f.write(data)
    return None


def ocr_div(text: str) -> etree._Element:
    div = etree.Element("{http://www.w3.org/1999/xhtml}div", {"class": "ocr"})
    div.text = text.translate(_XML_INVALID_TABLE)
    return div


def merge_ocr(xhtml: str, results: list[PageText], pictures: list[str] | None = None) -> str:
    """Tika's XHTML with each page's OCR text as a ``<div class="ocr">`` instead of the
    page's own text in its ``<div class="page">`` (for an image: at the end of the
    body; for an office package's picture: in the picture's place). Only pages without
    a usable text layer are OCR'd, so the layer goes: a copy beside it would index the
    page twice. A page OCR found nothing on keeps it."""
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
    places = {}
    if pictures is not None:
        for el in body.iter():
            if _local(el.tag) == "img" and (el.get("src") or "").startswith(_EMBEDDED_SRC):
                places.setdefault(el.get("src")[len(_EMBEDDED_SRC):], el)
    for result in results:
        if not result.text or not result.text.strip():
            continue
        if pictures is not None:
            place = places.get(pictures[result.page - 1])
            if place is None or place.getparent() is None:
                body.append(ocr_div(result.text))
                continue
            div = ocr_div(result.text)
            div.tail = place.tail
            place.getparent().replace(place, div)
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
    pictures = document_pictures(xhtml) if media_type in PICTURE_PACKAGE_TYPES else None
    results = read_pages(data, media_type, pages, languages, page_cpu_seconds, workers,
                         deadline_s, pictures=pictures)
    merged = merge_ocr(xhtml, results, pictures)
    metadata[OCR_PAGES_KEY] = [str(sum(1 for r in results if r.text is not None))]
    metadata[OCR_PAGE_LIST_KEY] = [",".join(str(r.page) for r in results
                                            if r.text and r.text.strip())]
    if readings := {str(r.page): r.reading for r in results if r.reading and r.text.strip()}:
        metadata[OCR_LANGUAGES_KEY] = [json.dumps(readings, ensure_ascii=False)]
    what = "picture" if pictures is not None else "page"
    notes = []
    timed_out = [r.page for r in results if r.timed_out]
    if timed_out:
        notes.append(f"{_pages(timed_out, what)} not read within the OCR time limit "
                     "(--ocr-page-timeout, --ocr-timeout): retried by the next incremental run")
        metadata[INCOMPLETE_KEY] = [OCR_TIME_LIMIT]
    elif any(r.unavailable for r in results):  # a machine with the pack reads them
        metadata[INCOMPLETE_KEY] = [OCR_UNAVAILABLE]
    notes += [f"{_pages([r.page], what)}: {r.problem}" for r in results if r.problem]
    if notes:
        metadata[OCR_NOTE_KEY] = ["; ".join(notes)]
    return merged, metadata


def reasons_value(candidates: dict[int, str]) -> list[str]:
    """``ocr_reasons``'s value: why each page was chosen for OCR, as JSON."""
    return [json.dumps({str(page): reason for page, reason in candidates.items()},
                       ensure_ascii=False)]


def _pages(pages: list[int], what: str = "page") -> str:
    if pages == [WHOLE_IMAGE]:
        return "the image"
    return f"{what}{'' if len(pages) == 1 else 's'} " + ", ".join(map(str, pages))


@functools.cache
def pack_words(pack: str) -> frozenset[str]:
    """The words Tesseract's ``pack`` knows (its LSTM word list), in lower case; empty
    where the pack or the tools that read it (``combine_tessdata``, ``dawg2wordlist``:
    Debian's tesseract-ocr) are missing. Read once per process (~0.3 s for ``eng``)."""
    _read_packs.add(pack)
    if pack not in installed_packs():
        return frozenset()
    prefix = os.environ.get("TESSDATA_PREFIX") or _tessdata_dir()
    if prefix is None:
        return frozenset()
    with tempfile.TemporaryDirectory(prefix="ragbeam-words-") as work_dir:
        base = os.path.join(work_dir, f"{pack}.")
        try:
            subprocess.run(["combine_tessdata", "-u", os.path.join(prefix, f"{pack}.traineddata"),
                            base], capture_output=True, timeout=60, check=True)
            subprocess.run(["dawg2wordlist", base + "lstm-unicharset", base + "lstm-word-dawg",
                            base + "words"], capture_output=True, timeout=60, check=True)
            with open(base + "words", encoding="utf-8", errors="replace") as f:
                return frozenset(line.strip().lower() for line in f if line.strip())
        except (OSError, subprocess.SubprocessError):
            return frozenset()


@functools.cache
def _tessdata_dir() -> str | None:
    """Where Tesseract's packs are (``tesseract --list-langs`` names it)."""
    try:
        listed = subprocess.run(["tesseract", "--list-langs"], capture_output=True, text=True,
                                timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.search(r'"([^"]+)"', listed.stdout + listed.stderr)
    return found.group(1) if found else None
