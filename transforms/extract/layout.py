"""The layout of a PDF's pages (PDFium, through pypdfium2), aligned to Tika's text.

Tika stays the text source: its XHTML says what the text is, in reading order,
but not how it looks. This pass reads, per page, what Tika's XHTML does not
carry: per line its box (where on the page it sits), the font size of its middle
character and whether it is set in bold, and whether it runs at an angle (a
rotated margin stamp). Each line is then aligned to the Tika line it is
(``align_page``), so its style belongs to an exact ``[raw_start, raw_end)`` of
the raw text that cleaning maps to pages and chunk offsets
(``transforms.types.PdfLayout``). Cleaning uses it for page furniture (position)
and headings (font size and weight).

**Why PDFium.** On the same pages pdfminer.six's layout analysis costs several
times Tika's own extraction (6.5× on 21 PDFs) and pdf_oxide more than PDFium
(5.2 s against 2.2 s for a 619-page manual); PDFium is what Chrome renders
PDFs with. Its cost is mostly PDFium itself: loading each page (parsing its
content stream) and building the page's text (``FPDFText_LoadPage``), about a
quarter to half of Tika's time on the same page, which no Python-side change
removes (``benchmarks/layout_cost.py``; figures in docs/cleaning.md). The
Python side makes a few calls per *line*, never per character: one call takes
the page's whole text, lines are split at PDFium's line breaks, the first,
middle and last character of a line give its box and font, and lines are
matched to Tika's by their letters and digits (``squeeze``), by whole lines
where they are the same and by search where PDFium cut or joined them
differently.

Pure functions over bytes; no Beam, no Tika.
"""

from __future__ import annotations

import bisect
import ctypes
import math
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from ragbeam.transforms.types import Block, LineStyle, PdfLayout

# FPDF_PAGEOBJ_IMAGE in PDFium's fpdf_edit.h.
_IMAGE_OBJECT = 3
# PDFium gives a glyph it cannot map to Unicode as U+FFFD or as a control.
_UNMAPPED = re.compile("[\ufffd\x00-\x08\x0b\x0c\x0e-\x1f]")
BOLD_WEIGHT = 600  # PDF font descriptors: 400 regular, 700 bold
_FORCE_BOLD = 1 << 18  # the ForceBold font flag (PDF 32000 table 123, bit 19)
_BOLD_NAME = re.compile(r"bold|black|heavy|semibold|demi")
# A character set at more than this angle (radians) from the horizontal is rotated
# text: margin stamps run at 90 degrees, italics and slight skews stay near 0.
_ROTATED_ANGLE = 0.3
_TWO_PI = 6.283185307179586
# A PDFium line that matches no whole Tika line is looked for inside Tika's text
# only when it has this many letters and digits: shorter ones ("7", "a") match by
# chance.
MIN_SEARCH_KEY = 4
# Which of Tika's lines are styled in full (``tika_page_lines``).
SHORT_BLOCK_LINES = 3
EDGE_LINES = 6
BODY_SAMPLE = 8
_NOT_ALNUM = re.compile(r"[\W_]+")
_ALNUM_RUN = re.compile(r"[^\W_]+")
_ASCII_NOT_ALNUM = bytes(c for c in range(128) if not chr(c).isalnum())


@dataclass(frozen=True)
class PdfLine:
    """One line of a page as PDFium sees it (positions from the displayed page's
    top-left corner, in points)."""

    text: str
    x0: float
    top: float
    x1: float
    bottom: float
    size: float
    bold: bool
    rotated: bool = False


@dataclass(frozen=True)
class PageLayout:
    """One page: its displayed size, its lines, how much of it is images, and the
    share of its characters PDFium could not map to Unicode."""

    page: int  # 1-based
    width: float
    height: float
    lines: tuple[PdfLine, ...]
    chars: int
    unmapped_share: float
    image_share: float | None = None  # measured only when asked (``with_images``)


def squeeze(text: str) -> str:
    """``text`` reduced to its letters and digits, lower-cased and without accents
    (``ﬁ`` → ``fi``, ``ğ`` → ``g``): what PDFium and Tika agree on, whatever their
    spaces, ligatures, combining accents and punctuation."""
    if text.isascii():  # most lines: bytes.translate is ten times the regex's speed
        return text.encode().translate(None, _ASCII_NOT_ALNUM).lower().decode()
    return _NOT_ALNUM.sub("", unicodedata.normalize("NFKD", text)).lower()


def page_layouts(data: bytes, with_images: bool = False) -> list[PageLayout]:
    """The layout of every page of a PDF, one ``PdfLine`` per line PDFium finds
    (``with_images``: also the share of each page covered by images, which walks
    every page object and costs)."""
    return [layout for layout, _ in _read_pages(data, None, with_images)]


def _read_pages(data: bytes, tika: dict[int, list[TikaLine]] | None,
                with_images: bool = False
                ) -> list[tuple[PageLayout, list[PdfLine | None]]]:
    """Each page's layout and, with ``tika`` (page → its lines' ``(raw_start, raw_end,
    text)``), the style of each of those lines on that page (None: not found)."""
    import pypdfium2 as pdfium  # imported here: only the process that extracts pays

    document = pdfium.PdfDocument(data)
    try:
        pages = []
        for index in range(len(document)):
            page = document[index]
            try:
                pages.append(_page_layout(pdfium.raw, page, index + 1, with_images,
                                          None if tika is None else tika.get(index + 1, [])))
            finally:
                page.close()
        return pages
    finally:
        document.close()


class _Frame:
    """PDF user space → the displayed page: origin top-left, rotation applied."""

    def __init__(self, left: float, bottom: float, right: float, top: float,
                 rotation: int) -> None:
        self.left, self.bottom, self.right, self.top = left, bottom, right, top
        self.rotation = rotation % 4
        width, height = right - left, top - bottom
        self.size = (height, width) if self.rotation % 2 else (width, height)

    def box(self, x0: float, y0: float, x1: float, y1: float
            ) -> tuple[float, float, float, float]:
        """``(x0, top, x1, bottom)`` on the displayed page of a user-space box."""
        lo, b, r, t = self.left, self.bottom, self.right, self.top
        if self.rotation == 0:
            return x0 - lo, t - y1, x1 - lo, t - y0
        if self.rotation == 1:  # displayed turned 90 degrees clockwise
            return y0 - b, x0 - lo, y1 - b, x1 - lo
        if self.rotation == 2:
            return r - x1, y0 - b, r - x0, y1 - b
        return t - y1, r - x1, t - y0, r - x0


def _page_layout(raw, page, number: int, with_images: bool,
                 tika: list[TikaLine] | None
                 ) -> tuple[PageLayout, list[PdfLine | None]]:
    left, bottom, right, top = page.get_cropbox()
    frame = _Frame(left, bottom, right, top, raw.FPDFPage_GetRotation(page.raw))
    textpage = raw.FPDFText_LoadPage(page.raw)
    try:
        count = raw.FPDFText_CountChars(textpage)
        text = ""
        if count > 0:
            buffer = ctypes.create_string_buffer((count + 1) * 2)
            raw.FPDFText_GetText(textpage, 0, count,
                                 ctypes.cast(buffer, ctypes.POINTER(ctypes.c_ushort)))
            text = buffer.raw[:count * 2].decode("utf-16-le", "replace")
        reader = _StyleReader(raw, textpage, frame, text)
        # (first, last) character of each of PDFium's lines; its "\r\n" counts as two.
        ranges = []
        start = 0
        for piece in text.split("\r\n") if text else ():
            stripped = piece.strip()
            if stripped:
                first = start + piece.index(stripped[0])
                ranges.append((first, first + len(stripped) - 1))
            start += len(piece) + 2
        if tika is None:
            lines = tuple(reader.style(first, last) for first, last in ranges)
            styles: list[PdfLine | None] = []
        else:
            lines = ()
            styles = _align(reader, ranges, tika)
    finally:
        raw.FPDFText_ClosePage(textpage)
    unmapped = len(_UNMAPPED.findall(text))
    visible = len(text) - text.count("\r\n") * 2
    width, height = frame.size
    return (PageLayout(number, width, height, lines, visible,
                       unmapped / visible if visible else 0.0,
                       _image_share(raw, page, width * height) if with_images else None),
            styles)


class _StyleReader:
    """Box, font size, weight and angle of a run of a page's characters, from its
    first, middle and last character (a few calls per line, none per character)."""

    def __init__(self, raw, textpage, frame: _Frame, text: str) -> None:
        self.raw, self.textpage, self.frame, self.text = raw, textpage, frame, text
        self.edges = [ctypes.c_double() for _ in range(4)]
        self.matrix = raw.FS_MATRIX()

    def style(self, first: int, last: int, full: bool = True) -> PdfLine:
        """``full``: also the font (size, weight) and the angle; without it only the
        box, and the font size is 0 (unknown)."""
        raw, textpage, text = self.raw, self.textpage, self.text
        middle = (first + last) // 2
        while middle < last and not text[middle].isalnum():
            middle += 1
        left, right, low, high = self.edges
        raw.FPDFText_GetCharBox(textpage, first, left, right, low, high)
        x0, x1, y0, y1 = left.value, right.value, low.value, high.value
        raw.FPDFText_GetCharBox(textpage, last, left, right, low, high)
        x0, x1 = min(x0, left.value), max(x1, right.value)
        y0, y1 = min(y0, low.value), max(y1, high.value)
        box = self.frame.box(x0, y0, x1, y1)
        if not full:
            return PdfLine(text[first:last + 1], *box, 0.0, False)
        # The font size as set (Tf) times the scale of the character's matrix: many
        # producers set every font at 1 pt and scale it with the text matrix.
        raw.FPDFText_GetMatrix(textpage, middle, self.matrix)
        m = self.matrix
        size = raw.FPDFText_GetFontSize(textpage, middle) * math.sqrt(abs(m.a * m.d - m.b * m.c))
        rotated = False
        # Set at an angle (up a margin, or across the page as a diagonal stamp whose
        # box is as tall as wide)? The angle is in user space; a page displayed turned
        # by /Rotate shows text drawn turned the other way as horizontal.
        if box[2] - box[0] < 4 * (box[3] - box[1]) or last - first < 3:
            angle = raw.FPDFText_GetCharAngle(textpage, middle)
            if angle >= 0:
                angle = (angle + self.frame.rotation * _TWO_PI / 4) % _TWO_PI
                rotated = min(angle, _TWO_PI - angle) > _ROTATED_ANGLE
        bold = self.weight(middle) >= BOLD_WEIGHT
        if bold and middle != first:  # a bold run-in label opening a body line is not
            lead = first
            while lead < middle and not text[lead].isalnum():
                lead += 1
            bold = self.weight(lead) >= BOLD_WEIGHT
        return PdfLine(text[first:last + 1], *box, round(size, 1), bold, rotated)

    def weight(self, index: int) -> int:
        weight = self.raw.FPDFText_GetFontWeight(self.textpage, index)
        if weight > 0:
            return weight
        # No font descriptor (the standard 14 fonts): the font's name and flags say.
        flags = ctypes.c_int()
        name = ctypes.create_string_buffer(128)
        length = self.raw.FPDFText_GetFontInfo(self.textpage, index, name, 128,
                                               ctypes.byref(flags))
        text = name.raw[:max(min(length, 128) - 1, 0)].decode("latin-1").lower()
        if flags.value & _FORCE_BOLD or _BOLD_NAME.search(text):
            return 700
        return 400 if text else 0


def _align(reader: _StyleReader, ranges: list[tuple[int, int]],
           tika: list[TikaLine]) -> list[PdfLine | None]:
    """The style of each of Tika's lines of a page (None: PDFium has no such text).

    A PDFium line whose letters and digits are those of a Tika line is that line:
    the first such PDFium line not taken at or after the last match, else the
    first not taken (PDFium and Tika order a page's text alike, mostly). A Tika
    line no PDFium line equals (PDFium joined it with the next, or cut it) is
    looked for in PDFium's text of the page, by its letters and digits, and
    styled from exactly its own characters there; a short one (a page number
    fused into another PDFium line) only where it is a whole word of its own that
    occurs once on the page."""
    text = reader.text
    by_key: dict[str, list[int]] = defaultdict(list)
    for index, (first, last) in enumerate(ranges):
        key = squeeze(text[first:last + 1])
        if key:
            by_key[key].append(index)
    taken = [False] * len(ranges)
    styles: list[PdfLine | None] = [None] * len(tika)
    left: list[tuple[int, str]] = []
    cursor = 0
    for t, (_, _, line, _) in enumerate(tika):
        key = squeeze(line)
        if not key:
            continue
        free = [i for i in by_key.get(key, ()) if not taken[i]]
        if free:
            index = next((i for i in free if i >= cursor), free[0])
            taken[index] = True
            cursor = index + 1
            styles[t] = reader.style(*ranges[index], tika[t].full)
        else:
            left.append((t, key))
    if not left:
        return styles
    words = _Words(text)
    # Characters found are one Tika line's: not those of a PDFium line matched whole
    # to another, nor the same characters found for two lines ("n" once on the page,
    # seven one-letter Tika lines "n" in a table).
    whole = sorted(ranges[i] for i in range(len(ranges)) if taken[i])
    firsts = [first for first, _ in whole]
    finders: dict[tuple[int, int], list[int]] = defaultdict(list)
    for t, key in left:
        found = words.find(key)
        if found is None:
            continue
        k = bisect.bisect_right(firsts, found[0]) - 1
        if k < 0 or whole[k][1] < found[0]:
            finders[found].append(t)
    for found, finding in finders.items():
        if len(finding) == 1:
            styles[finding[0]] = reader.style(*found, tika[finding[0]].full)
    # Runs of consecutive lines still unplaced, each too short to be found alone
    # (Tika cuts a rotated stamp into "R" / "E" / "C" …, one glyph cluster a line):
    # their keys joined are looked for together, and each gets its own characters.
    run: list[tuple[int, str]] = []
    for t, key in left:
        if styles[t] is not None:
            continue
        if run and t != run[-1][0] + 1:
            _place_run(reader, words, run, styles, tika)
            run = []
        run.append((t, key))
    _place_run(reader, words, run, styles, tika)
    return styles


def _place_run(reader: _StyleReader, words: _Words, run: list[tuple[int, str]],
               styles: list[PdfLine | None], tika: list[TikaLine]) -> None:
    if len(run) < 2:
        return
    joined = "".join(key for _, key in run)
    found = words.locate(joined)
    if found is None:
        return
    position = found
    for t, key in run:
        styles[t] = reader.style(*words.span(position, position + len(key)), tika[t].full)
        position += len(key)


class _Words:
    """A page's text as its runs of letters and digits, to find a squeezed key and
    give back the character range it came from."""

    def __init__(self, text: str) -> None:
        self.starts: list[int] = []  # each run's offset in the squeezed text
        self.runs: list[tuple[int, int, str]] = []  # (start, end) in text, squeezed run
        position = 0
        for match in _ALNUM_RUN.finditer(text):
            run = squeeze(match.group())
            if not run:
                continue
            self.starts.append(position)
            self.runs.append((match.start(), match.end(), run))
            position += len(run)
        self.joined = "".join(run for _, _, run in self.runs)
        self.counts = Counter(run for _, _, run in self.runs)

    def find(self, key: str) -> tuple[int, int] | None:
        """The first and last character of ``key``'s one occurrence on the page."""
        if len(key) < MIN_SEARCH_KEY:
            if self.counts.get(key) != 1:
                return None
            index = next(i for i, (_, _, run) in enumerate(self.runs) if run == key)
            return self.runs[index][0], self.runs[index][1] - 1
        found = self.locate(key)
        return None if found is None else self.span(found, found + len(key))

    def locate(self, key: str) -> int | None:
        """Where ``key`` is in the squeezed page, if there exactly once."""
        found = self.joined.find(key)
        if found < 0 or self.joined.find(key, found + 1) >= 0:
            return None  # not there, or there twice: which one is unknown
        return found

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The first and last character of the page behind squeezed ``[start, end)``."""
        first = bisect.bisect_right(self.starts, start) - 1
        last = bisect.bisect_right(self.starts, end - 1) - 1
        begin, stop, run = self.runs[first]
        # Inside a run of ASCII letters the offsets are the squeezed ones; otherwise
        # (accents folded, ligatures) the run's own start and end are near enough.
        first_char = begin + start - self.starts[first] if len(run) == stop - begin else begin
        begin, stop, run = self.runs[last]
        last_char = (begin + end - 1 - self.starts[last] if len(run) == stop - begin
                     else stop - 1)
        return first_char, last_char


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


# --- alignment with Tika's text -------------------------------------------------------


class TikaLine(NamedTuple):
    """One of Tika's lines of a page, as cleaning cuts them (stripped)."""

    raw_start: int
    raw_end: int
    text: str
    # Style it in full (font size, weight, angle), or only place it: the font of a
    # line inside a long paragraph says nothing a sample of them does not.
    full: bool = True


def tika_page_lines(raw_text: str, blocks: Sequence[Block]) -> dict[int, list[TikaLine]]:
    """Tika's lines of each page, in reading order. Lines that can be a heading or
    furniture are styled in full: those of short blocks (up to ``SHORT_BLOCK_LINES``),
    a block's first and last line, a page's first and last ``EDGE_LINES``; of the
    other lines every ``BODY_SAMPLE``-th, for the body's font."""
    pages: dict[int, list[TikaLine]] = defaultdict(list)
    for block in blocks:
        if not block.page or block.raw_start < 0 or block.detached:
            continue
        start = block.raw_start
        lines = pages[block.page]
        first = len(lines)
        for piece in raw_text[block.raw_start:block.raw_end].split("\n"):
            stripped = piece.strip()
            if stripped:
                lead = start + piece.index(stripped[0])
                lines.append(TikaLine(lead, lead + len(stripped), stripped))
            start += len(piece) + 1
        if len(lines) - first > SHORT_BLOCK_LINES:
            for index in range(first + 1, len(lines) - 1):
                if (index - first) % BODY_SAMPLE:
                    lines[index] = lines[index]._replace(full=False)
    for lines in pages.values():
        for index in (*range(min(EDGE_LINES, len(lines))),
                      *range(max(len(lines) - EDGE_LINES, 0), len(lines))):
            lines[index] = lines[index]._replace(full=True)
    return pages


def pdf_layout(data: bytes, raw_text: str, blocks: Sequence[Block]) -> PdfLayout:
    """The layout of a PDF, aligned to Tika's ``raw_text`` and ``blocks``."""
    tika = tika_page_lines(raw_text, blocks)
    pages = _read_pages(data, tika)
    styles: list[LineStyle] = []
    for layout, found in pages:
        for (start, end, _, _), pdf in zip(tika.get(layout.page, []), found, strict=True):
            if pdf is not None:
                styles.append(LineStyle(start, end, layout.page, round(pdf.x0, 1),
                                        round(pdf.top, 1), round(pdf.x1, 1),
                                        round(pdf.bottom, 1), pdf.size, pdf.bold,
                                        pdf.rotated))
    styles.sort()
    return PdfLayout(tuple((round(layout.width, 1), round(layout.height, 1))
                           for layout, _ in pages), tuple(styles))
