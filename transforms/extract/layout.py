"""The layout of a PDF's pages (PDFium, through pypdfium2), aligned to Tika's text.

Tika stays the text source: its XHTML says what the text is, in reading order,
but not how it looks. This pass reads, per page, what Tika's XHTML does not
carry:

* per line: its bounding box (PDF points, origin bottom left), the font size
  and weight of its first character, and where it is in Tika's text of that
  page (``tika_start``/``tika_end``, or None when Tika has no such line), so
  every character keeps its page and exact offset;
* per page: its size, the share of it covered by images, and the share of its
  characters PDFium could not map to Unicode.

Why PDFium and not pdfminer.six (already a dependency, the PDF fallback): on
the same pages pdfminer.six's layout analysis cost several times Tika's own
extraction, PDFium a fraction of it (``benchmarks/layout_cost.py``; figures in
docs/cleaning.md). The cost is mostly PDFium building each page's text page in
C; the Python side makes a few calls per *line*, never per character: one call
takes the page's whole text, lines are split at PDFium's line breaks, and the
first and last character of a line give its box and font.

Pure functions over bytes; no Beam, no Tika. ``page_layouts`` is what the
extraction child calls.
"""

from __future__ import annotations

import ctypes
import re
import unicodedata
from dataclasses import dataclass

# FPDF_PAGEOBJ_IMAGE in PDFium's fpdf_edit.h.
_IMAGE_OBJECT = 3
# PDFium gives a glyph it cannot map to Unicode as U+FFFD or as a control.
_UNMAPPED = re.compile("[\ufffd\x00-\x08\x0b\x0c\x0e-\x1f]")
BOLD_WEIGHT = 600  # PDF font descriptors: 400 regular, 700 bold
_FORCE_BOLD = 1 << 18  # the ForceBold font flag (PDF 32000 table 123, bit 19)
_BOLD_NAME = re.compile(r"bold|black|heavy|semibold|demi")


@dataclass(frozen=True)
class LayoutLine:
    """One line of a page as PDFium sees it."""

    text: str
    x0: float
    y0: float  # bottom
    x1: float
    y1: float  # top
    font_size: float
    font_weight: int  # 0 when the font does not say
    tika_start: int | None = None  # offset in Tika's text of the page
    tika_end: int | None = None

    @property
    def bold(self) -> bool:
        return self.font_weight >= BOLD_WEIGHT


@dataclass(frozen=True)
class PageLayout:
    """One page: its size, its lines, how much of it is images and unmapped text."""

    page: int  # 1-based
    width: float
    height: float
    lines: tuple[LayoutLine, ...]
    image_share: float  # of the page's area covered by image objects (bounding boxes)
    chars: int
    unmapped_share: float


def page_layouts(data: bytes, tika_pages: list[str] | None = None) -> list[PageLayout]:
    """The layout of every page of a PDF; with ``tika_pages`` (Tika's text of each
    page) each line also gets its offsets in it (``align_lines``)."""
    import pypdfium2 as pdfium  # imported here: only the process that extracts pays

    document = pdfium.PdfDocument(data)
    try:
        layouts = []
        for index in range(len(document)):
            page = document[index]
            try:
                layout = _page_layout(pdfium, page, index + 1)
            finally:
                page.close()
            if tika_pages is not None and index < len(tika_pages):
                layout = PageLayout(layout.page, layout.width, layout.height,
                                    align_lines(layout.lines, tika_pages[index]),
                                    layout.image_share, layout.chars, layout.unmapped_share)
            layouts.append(layout)
        return layouts
    finally:
        document.close()


def _page_layout(pdfium, page, number: int) -> PageLayout:
    raw = pdfium.raw
    width, height = page.get_size()
    textpage = page.get_textpage()
    try:
        handle = textpage.raw
        count = raw.FPDFText_CountChars(handle)
        text = ""
        if count > 0:
            buffer = ctypes.create_string_buffer((count + 1) * 2)
            raw.FPDFText_GetText(handle, 0, count, ctypes.cast(
                buffer, ctypes.POINTER(ctypes.c_ushort)))
            text = buffer.raw[:count * 2].decode("utf-16-le", "replace")
        lines = []
        box = [ctypes.c_double() for _ in range(4)]
        start = 0
        for piece in text.split("\r\n") if text else ():
            end = start + len(piece)
            if piece.strip():
                lines.append(_line(raw, handle, piece, start, end, box))
            start = end + 2  # PDFium's generated "\r\n" counts as two characters
    finally:
        textpage.close()
    unmapped = len(_UNMAPPED.findall(text))
    visible = len(text) - text.count("\r\n") * 2
    return PageLayout(number, width, height, tuple(lines),
                      _image_share(raw, page, width * height), visible,
                      unmapped / visible if visible else 0.0)


def _line(raw, handle, piece: str, start: int, end: int,
          box: list[ctypes.c_double]) -> LayoutLine:
    first = start + (len(piece) - len(piece.lstrip()))
    last = end - 1 - (len(piece) - len(piece.rstrip()))
    left, right, bottom, top = box
    raw.FPDFText_GetCharBox(handle, first, left, right, bottom, top)
    x0, y0, y1 = left.value, bottom.value, top.value
    raw.FPDFText_GetCharBox(handle, last, left, right, bottom, top)
    x1 = right.value
    y0, y1 = min(y0, bottom.value), max(y1, top.value)
    size = raw.FPDFText_GetFontSize(handle, first)
    weight = raw.FPDFText_GetFontWeight(handle, first)
    if weight <= 0:  # no font descriptor (the standard 14 fonts): the font's name says
        weight = _weight_from_name(raw, handle, first)
    return LayoutLine(piece.strip(), x0, y0, x1, y1, round(size, 2), weight)


def _weight_from_name(raw, handle, index: int) -> int:
    flags = ctypes.c_int()
    name = ctypes.create_string_buffer(128)
    length = raw.FPDFText_GetFontInfo(handle, index, name, 128, ctypes.byref(flags))
    text = name.raw[:max(min(length, 128) - 1, 0)].decode("latin-1").lower()
    if flags.value & _FORCE_BOLD or _BOLD_NAME.search(text):
        return 700
    return 400 if text else 0


def _image_share(raw, page, area: float) -> float:
    if area <= 0:
        return 0.0
    covered = 0.0
    edges = [ctypes.c_float() for _ in range(4)]
    for index in range(raw.FPDFPage_CountObjects(page.raw)):
        obj = raw.FPDFPage_GetObject(page.raw, index)
        if raw.FPDFPageObj_GetType(obj) != _IMAGE_OBJECT:
            continue
        if raw.FPDFPageObj_GetBounds(obj, *edges):
            left, bottom, right, top = (e.value for e in edges)
            covered += max(right - left, 0.0) * max(top - bottom, 0.0)
    return min(covered / area, 1.0)


def _squeezed(text: str) -> tuple[str, list[int]]:
    """``text`` reduced to its letters and digits, case-folded and without accents
    (``ﬁ`` → ``fi``, ``ğ`` → ``g``), and for each of them its offset in ``text``:
    PDFium and Tika differ in spaces, ligatures, combined accents and punctuation."""
    out: list[str] = []
    offsets: list[int] = []
    for i, ch in enumerate(text):
        if ch.isascii():
            if ch.isalnum():
                out.append(ch.lower())
                offsets.append(i)
            continue
        for part in unicodedata.normalize("NFKD", ch):
            if part.isalnum():
                out.append(part.lower())
                offsets.append(i)
    return "".join(out), offsets


def align_lines(lines: tuple[LayoutLine, ...], tika_text: str) -> tuple[LayoutLine, ...]:
    """``lines`` with their offsets in ``tika_text`` (Tika's text of the same page).

    Only letters and digits are compared (``_squeezed``). Lines are looked for
    in order from where the previous one ended, so a repeated line maps to its
    own occurrence; a line Tika does not have (PDFium reads some text Tika
    skips) keeps None, and the search goes on from where it was."""
    squeezed, offsets = _squeezed(tika_text)
    cursor = 0
    aligned = []
    for line in lines:
        needle = _squeezed(line.text)[0]
        found = squeezed.find(needle, cursor) if needle else -1
        if found < 0:
            aligned.append(line)
            continue
        end = found + len(needle)
        start, stop = _widened(line.text, tika_text, offsets[found], offsets[end - 1] + 1)
        aligned.append(LayoutLine(line.text, line.x0, line.y0, line.x1, line.y1,
                                  line.font_size, line.font_weight, start, stop))
        cursor = end
    return tuple(aligned)


def _widened(line: str, tika_text: str, start: int, stop: int) -> tuple[int, int]:
    """The range ``[start, stop)`` of a line's letters and digits in Tika's text,
    widened over the punctuation before and after them that Tika has too
    (a line's closing full stop, an opening bracket)."""
    letters = [i for i, ch in enumerate(line) if ch.isalnum()]
    if not letters:
        return start, stop
    lead, tail = line[:letters[0]], line[letters[-1] + 1:]
    if lead and tika_text[max(start - len(lead), 0):start] == lead:
        start -= len(lead)
    if tail and tika_text[stop:stop + len(tail)] == tail:
        stop += len(tail)
    return start, stop
