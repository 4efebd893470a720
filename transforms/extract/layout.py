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

**The same in C.** Where ``pip install`` could compile ``_pdfium_lines.c`` (it is
optional: no compiler, no extension), ``pdf_layout`` runs this pass there, one call per
document (``native_lines``): the loop over the pages, each page's frame, its lines
aligned, placed and styled, fonts named, table cells moved onto Tika's lines; the same
steps, the same bytes out (the tests and ``benchmarks/layout_cost.py`` compare the two
on real PDFs), at about half the Python's CPU. The Python here stays the definition and
the fallback: a rule changed here must be changed there, and a ``LineStyle`` field the
C pass does not fill turns it off (``NATIVE_FIELDS``). ``spaces`` is filled after it,
by this module's rule (``missing_spaces``, called back for the lines the C pass placed
on a page that sets no space glyphs: one definition).

Pure functions over bytes; no Beam, no Tika.
"""

from __future__ import annotations

import bisect
import ctypes
import dataclasses
import functools
import itertools
import math
import os
import re
import struct
import sys
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from ragbeam.transforms.charsets import is_cjk
from ragbeam.transforms.clean.layout import bold_font_name
from ragbeam.transforms.collector import cyclic_collector_paused
from ragbeam.transforms.extract.ocr import OCR_AUTO_MAX_CHARS
from ragbeam.transforms.types import Block, LineStyle, PdfLayout

try:  # the C pass (``native_lines``): optional, built by pip where there is a compiler
    from ragbeam.transforms.extract import _pdfium_lines
except ImportError:
    _pdfium_lines = None

# FPDF_PAGEOBJ_* in PDFium's fpdf_edit.h.
_PATH_OBJECT = 2
_IMAGE_OBJECT = 3
_FORM_OBJECT = 5
# A page without text is worth OCR when an image covers this share of it, or when it
# draws this many paths (text turned into outlines).
MIN_OCR_IMAGE_SHARE = 0.02
# A page is a scan when images cover this share of it: a scanner's page image covers
# all of it (0.97-1.0 on the scans of benchmarks/text_layer_quality.py); born-digital
# pages with a large picture reach 0.5-0.66 there (a slide, a register's map page).
MIN_SCAN_IMAGE_SHARE = 0.9
MIN_OCR_PATHS = 50
MAX_BLANK_GLYPHS = OCR_AUTO_MAX_CHARS  # the OCR trigger's own "no text layer" count
# PDFium gives a glyph it cannot map to Unicode as U+FFFD or as a control.
_UNMAPPED = re.compile("[\ufffd\x00-\x08\x0b\x0c\x0e-\x1f]")
BOLD_WEIGHT = 600  # PDF font descriptors: 400 regular, 700 bold
_FORCE_BOLD = 1 << 18  # the ForceBold font flag (PDF 32000 table 123, bit 19)
_SUBSET_PREFIX = re.compile(r"^[A-Z]{6}\+")
# A character set at more than this angle (radians) from the horizontal is rotated
# text: margin stamps run at 90 degrees, italics and slight skews stay near 0.
_ROTATED_ANGLE = 0.3
_TWO_PI = 6.283185307179586
# A PDFium line that matches no whole Tika line is looked for inside Tika's text
# only when it has this many letters and digits: shorter ones ("7", "a") match by
# chance.
MIN_SEARCH_KEY = 4
# Which of Tika's lines are styled in full (``_styles``): a page's first and last
# EDGE_LINES, every BODY_SAMPLE-th, and those that do not run to a right edge at least
# MIN_SHARED_EDGE lines of the page share.
EDGE_LINES = 6
BODY_SAMPLE = 8
MIN_SHARED_EDGE = 3
# Two words set apart (``missing_spaces``): their glyphs' gap exceeds the letter gaps
# around it by this share of the line's height (PDFium's loose boxes: about 1.15 em),
# and a third of its narrowest word gap (PDFBox misses gaps under about half a space,
# so a gap it missed is always under half the others). A line is measured
# (``run_together_lines``) when it holds a word of MIN_FUSED_WORD letters or more that
# is two frequent words of the document side by side, a word with a capital inside,
# or one of MIN_LONG_WORD letters.
MIN_WORD_GAP = 0.06
_LETTER_RUN = re.compile(r"[^\W\d_]+")
MIN_FUSED_WORD = 6
SPACE_SAMPLE = 3  # spaces of a page asked whether the PDF set them (``_sets_spaces``)
MIN_FREQUENT = 5
MIN_LONG_WORD = 20
SHORT_WORD = 4  # a run-together pair has a short word in it: "and|network", "layer|of"
MAX_MEAN_WORD = 7.0  # letters a word, on average: prose has five or six
# A lowercase letter (any letter but A-Z), then a capital; found from the capitals
# (``_CAPITALS``: a few in a hundred characters), the letter before each run of them
# tested, not by trying the pair at every character.
_CAMEL_LEAD = re.compile(r"[^\W\d_A-Z]")
_CAPITALS = re.compile(r"[A-Z]+")
_LETTER = re.compile(r"[^\W\d_]")  # a character of _LETTER_RUN
LETTER_WINDOW = 8  # letter gaps each side that tell a word gap from letter spacing
# Table cells (``_StyleReader.cells``): a line whose box is at least WIDE_LINE of its
# height per character wide (body text is about 0.6: letters are narrower than the
# line is tall) has wide gaps somewhere; only such a line's words are placed, and a
# gap of at least CELL_GAP line heights (several spaces' width) parts two cells.
WIDE_LINE = 1.0
CELL_GAP = 1.0
# A narrower line (down to SET_LINE: no body line is set tighter) is read only where
# it ends in a value with a gap before it: a row with a long label and a figure.
SET_LINE = 0.5
MIN_NEIGHBOUR_CELLS = 3  # a line next to one of this many cells is read in full
# So is a line up to this many lines above one: a table's header block over its first row
# of cells ("December 31, 2022   September 30, 2023" / "(unaudited)" / "ASSETS" /
# "Current assets:" over "Cash and cash equivalents $ 53,888 $ 49,605"), unless it ends
# like a sentence: the table's lead-in, justified wide ("The following table summarizes
# … we serve:"), is no header.
MAX_HEADER_REACH = 4
SENTENCE_ENDS = ".:;"
# A line's last word that may be a value: a figure, a dash, or a short unit ("V", "mA",
# "°C", "ns"; a short word of prose, "the", "of", is none).
_VALUE_TOKEN = re.compile(r"\S*\d\S*|[-–—]+|[a-zA-Z]?[A-Zµ°%/Ω][A-Za-z]?|ns|ms|us|mm|cm|kg|mg")
_WORD = re.compile(r"\S+")
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
    font: str = ""
    # Where Tika's line runs two words together that the glyphs set apart (``spaces_in``).
    spaces: tuple[int, ...] = ()
    # A line set wider than its letters need: its runs of words between wide gaps, each
    # as (first, last) offsets in ``text`` and its left and right edge (``cells``).
    cells: tuple[tuple[int, int, float, float], ...] = ()
    # The font of its first letter where it differs from its middle letter's: a run-in
    # label's ("Research and Development:" in bold, opening a paragraph in regular).
    lead_font: str = ""


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
                with_images: bool = False,
                suspects: Callable[[], frozenset[int]] = frozenset
                ) -> list[tuple[PageLayout, list[PdfLine | None]]]:
    """Each page's layout and, with ``tika`` (page → its lines' ``(raw_start, raw_end,
    text)``), the style of each of those lines on that page (None: not found);
    ``suspects``: gives the ``raw_start`` of Tika's lines that look run together (asked
    only once a page sets no space glyphs)."""
    import pypdfium2 as pdfium  # imported here: only the process that extracts pays

    document = pdfium.PdfDocument(data)
    try:
        pages = []
        for index in range(len(document)):
            page = document[index]
            try:
                pages.append(_page_layout(pdfium.raw, page, index + 1, with_images,
                                          None if tika is None else tika.get(index + 1, []),
                                          suspects))
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
                 tika: list[TikaLine] | None,
                 suspects: Callable[[], frozenset[int]] = frozenset
                 ) -> tuple[PageLayout, list[PdfLine | None]]:
    left, bottom, right, top = page.get_cropbox()
    frame = _Frame(left, bottom, right, top, raw.FPDFPage_GetRotation(page.raw))
    textpage = raw.FPDFText_LoadPage(page.raw)
    try:
        text = _page_text(raw, textpage)
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
            lines = tuple(line for first, last in ranges
                          if (line := reader.style(first, last)) is not None)
            styles: list[PdfLine | None] = []
        else:
            lines = ()
            found = _align(reader.text, ranges, tika)
            styles = _styles(reader, found)
            placed = [t for t, (span, style) in enumerate(zip(found, styles, strict=True))
                      if span is not None and style is not None]
            measured = _page_spaces(reader, [(tika[t].text, tika[t].raw_start, found[t])
                                             for t in placed], suspects)
            for t, spaces in zip(placed, measured, strict=False):  # none: spaces set
                if spaces:
                    styles[t] = replace(styles[t], spaces=spaces)
    finally:
        raw.FPDFText_ClosePage(textpage)
    unmapped = len(_UNMAPPED.findall(text))
    visible = len(text) - text.count("\r\n") * 2
    width, height = frame.size
    return (PageLayout(number, width, height, lines, visible,
                       unmapped / visible if visible else 0.0,
                       _image_share(raw, page, width * height) if with_images else None),
            styles)


def _page_spaces(reader: _StyleReader, lines: list[tuple[str, int, tuple[int, int]]],
                 suspects: Callable[[], frozenset[int]]) -> list[tuple[int, ...]]:
    """The spaces Tika missed (``missing_spaces``) in each of a page's placed lines, given
    as (Tika's text, its ``raw_start``, its ``[first, last]`` in ``reader``'s text); empty
    where the page sets its spaces. The one rule both passes run (the C pass leaves
    ``spaces`` to it)."""
    # Words run together only where the page leaves its spaces to be inferred: a space
    # glyph is a space to PDFBox whatever the gap.
    if not lines or reader.sets_spaces():
        return []
    measure = suspects()
    return [reader.missing_spaces(text, first, last, raw_start in measure)
            for text, raw_start, (first, last) in lines]


def _page_text(raw, textpage) -> str:
    """The page's text, one ``str`` character per UTF-16 unit of PDFium's text (its
    text indexes), so offsets in it are PDFium's."""
    count = raw.FPDFText_CountChars(textpage)
    if count <= 0:
        return ""
    buffer = ctypes.create_string_buffer((count + 1) * 2)
    written = raw.FPDFText_GetText(textpage, 0, count,
                                   ctypes.cast(buffer, ctypes.POINTER(ctypes.c_ushort)))
    units = buffer.raw[:max(written - 1, 0) * 2]  # without the closing NUL
    text = units.decode("utf-16-le", "replace")
    if len(text) * 2 != len(units):  # a surrogate pair became one character: split it
        text = "".join(map(chr, struct.unpack(f"<{len(units) // 2}H", units)))
    return text


class _Calls:
    """The per-character PDFium calls of the pass, called through plain function
    pointers (``ctypes.CFUNCTYPE`` over pypdfium2's own symbols) that take and return
    addresses as integers: pypdfium2's typed bindings convert every argument and
    wrap every pointer they return, which cost more than PDFium's work for these
    calls. Built once per process; everything else goes through pypdfium2."""

    _instance: _Calls | None = None

    def __init__(self, raw) -> None:
        def fast(function, restype, *argtypes):
            address = ctypes.cast(function, ctypes.c_void_p).value
            return ctypes.CFUNCTYPE(restype, *argtypes)(address)

        address, index = ctypes.c_void_p, ctypes.c_int
        self.char_box = fast(raw.FPDFText_GetCharBox, ctypes.c_int, address, index,
                             address, address, address, address)
        self.text_object = fast(raw.FPDFText_GetTextObject, address, address, index)
        self.char_index = fast(raw.FPDFText_GetCharIndexFromTextIndex, index, address, index)
        self.char_angle = fast(raw.FPDFText_GetCharAngle, ctypes.c_float, address, index)
        # Once per text object: its size, matrix and font (a page has dozens of objects).
        self.font_size = fast(raw.FPDFTextObj_GetFontSize, ctypes.c_int, address, address)
        self.matrix = fast(raw.FPDFPageObj_GetMatrix, ctypes.c_int, address, address)
        self.font = fast(raw.FPDFTextObj_GetFont, address, address)
        self.loose_box = fast(raw.FPDFText_GetLooseCharBox, ctypes.c_int, address, index,
                              address)

    @classmethod
    def get(cls, raw) -> _Calls:
        if cls._instance is None:
            cls._instance = cls(raw)
        return cls._instance


class _StyleReader:
    """Box, font size, weight and angle of a run of a page's characters, from its
    first, middle and last character (a few calls per line, none per character).

    Offsets are indexes into PDFium's text of the page; PDFium's own calls take
    character indexes, which are the same until a character without text (most
    pages have none): then each offset is translated (``FPDFText_GetCharIndexFromTextIndex``).
    """

    def __init__(self, raw, textpage, frame: _Frame, text: str) -> None:
        self.raw, self.textpage, self.frame, self.text = raw, textpage, frame, text
        self.calls = _Calls.get(raw)
        self.page = ctypes.cast(textpage, ctypes.c_void_p).value
        self.edges = (ctypes.c_double * 4)()
        base = ctypes.addressof(self.edges)
        self.edge_addresses = (base, base + 8, base + 16, base + 24)
        self.matrix = raw.FS_MATRIX()
        self.matrix_address = ctypes.addressof(self.matrix)
        self.size = ctypes.c_float()
        self.size_address = ctypes.addressof(self.size)
        self.name = ctypes.create_string_buffer(128)
        self.rect = raw.FS_RECTF()
        self.rect_address = ctypes.addressof(self.rect)
        # The C extension where the native pass runs: the glyph boxes of ``missing_spaces``
        # read there (``_fill_spaces`` sets it).
        self.native: Any = None
        self.objects: dict[int, tuple[str, int, float]] = {}
        self.fonts: dict[int, tuple[str, int]] = {}
        last = len(text) - 1
        self.same_indexes = last < 0 or self.calls.char_index(self.page, last) == last

    def _char(self, offset: int) -> int:
        if self.same_indexes:
            return offset
        return self.calls.char_index(self.page, offset)

    def style(self, first: int, last: int) -> PdfLine | None:
        """The line of the page's text ``[first, last]`` (offsets), placed and styled;
        None when PDFium has no character there."""
        box = self.box(first, last)
        return None if box is None else self.styled(first, last, box)

    def box(self, first: int, last: int) -> tuple[float, float, float, float] | None:
        """``(x0, top, x1, bottom)`` of the characters ``[first, last]`` on the displayed
        page, from the first and the last one's boxes."""
        at_first, at_last = self._char(first), self._char(last)
        if min(at_first, at_last) < 0:
            return None
        char_box, page, edges, addresses = (self.calls.char_box, self.page, self.edges,
                                            self.edge_addresses)
        char_box(page, at_first, *addresses)  # left, right, bottom, top
        x0, x1, y0, y1 = edges
        char_box(page, at_last, *addresses)
        left, right, bottom, top = edges
        return self.frame.box(min(x0, left), min(y0, bottom), max(x1, right), max(y1, top))

    def span(self, first: int, last: int) -> tuple[float, float] | None:
        """Left and right edge of the characters ``[first, last]`` on a page displayed
        as stored (no ``/Rotate``): the word loop's call, kept to two PDFium calls."""
        if self.same_indexes:
            at_first, at_last = first, last
        else:
            at_first, at_last = self._char(first), self._char(last)
            if min(at_first, at_last) < 0:
                return None
        char_box, page, edges, addresses = (self.calls.char_box, self.page, self.edges,
                                            self.edge_addresses)
        char_box(page, at_first, *addresses)
        left = edges[0]
        char_box(page, at_last, *addresses)
        return left - self.frame.left, edges[1] - self.frame.left

    def _span_turned(self, first: int, last: int) -> tuple[float, float] | None:
        box = self.box(first, last)
        return None if box is None else (box[0], box[2])

    def cells(self, first: int, last: int, box: tuple[float, float, float, float],
              force: bool = False) -> tuple[tuple[int, int, float, float], ...]:
        """The runs of words of the line ``[first, last]`` between gaps of ``CELL_GAP``
        line heights, each ``(first, last, x0, x1)`` with offsets from ``first``; empty
        when it has one run only or its words do not run left to right.

        Two calls into PDFium per word, so only for a line that may have such a gap: one
        set wider than its letters need (``WIDE_LINE``), one that ends in a value (a
        figure, a dash, a short unit) with a gap before it (two calls to see), or
        (``force``) a line next to one with cells (a table's header over its rows)."""
        x0, top, x1, bottom = box
        height = bottom - top
        if height <= 0 or last - first < 2:
            return ()
        text = self.text
        if not force and x1 - x0 < WIDE_LINE * height * (last - first + 1):
            if x1 - x0 < SET_LINE * height * (last - first + 1):
                return ()
            gap, end = text.rfind(" ", first, last), last + 1
            if gap > first and text[gap + 1:end] in (")", "%"):
                gap, end = text.rfind(" ", first, gap), gap  # "(40 )": the figure before it
            if gap <= first or not _VALUE_TOKEN.fullmatch(text, gap + 1, end):
                return ()
            lead, after = gap, gap
            while lead > first and text[lead].isspace():
                lead -= 1
            while after < last and text[after].isspace():
                after += 1
            span = self.span if self.frame.rotation == 0 else self._span_turned
            before_span, after_span = span(lead, lead), span(after, after)
            if (before_span is None or after_span is None
                    or after_span[0] - before_span[1] < CELL_GAP * height):
                return ()
        words = [(m.start(), m.end() - 1) for m in _WORD.finditer(text, first, last + 1)]
        if len(words) < 2:
            return ()
        runs: list[list] = []
        previous = -math.inf
        span = self.span if self.frame.rotation == 0 else self._span_turned
        for start, end in words:
            word = span(start, end)
            if word is None or word[0] < previous - 1:
                return ()  # not left to right: no columns to read
            if runs and word[0] - previous < CELL_GAP * height:
                runs[-1][1], runs[-1][3] = end, word[1]
            else:
                runs.append([start, end, word[0], word[1]])
            previous = word[1]
        if len(runs) < 2:
            return ()
        return tuple((a - first, b - first, round(left, 1), round(right, 1))
                     for a, b, left, right in runs)

    def styled(self, first: int, last: int, box: tuple[float, float, float, float]
               ) -> PdfLine:
        """The line placed at ``box``, with its font size, face and angle, from the text
        objects its first, middle and last letters belong to."""
        text = self.text
        middle = (first + last) // 2
        while middle < last and not text[middle].isalnum():
            middle += 1
        lead = first
        while lead < middle and not text[lead].isalnum():
            lead += 1
        tail = last
        while tail > middle and not text[tail].isalnum():
            tail -= 1
        face = self.face(middle)
        if face is None:
            return PdfLine(text[first:last + 1], *box, 0.0, False)
        font, weight, size = face
        middle_font = font
        lead_font = ""
        # A line is bold, and set in a font, when its first, middle and last letters
        # are: a bold run-in label opening a body line, or an italic word inside one,
        # leaves the line's face unknown ("") and not bold; the label's font is kept
        # apart (``lead_font``). Its size is the larger of its first and middle
        # letters' (one may be a superscript or a subscript).
        for other in {lead, tail} - {middle}:
            other_face = self.face(other)
            if other_face is None:
                continue
            weight = min(weight, other_face[1])
            if other_face[0] != font:
                font = ""
            if other == lead:
                size = max(size, other_face[2])
                if other_face[0] != middle_font:
                    lead_font = other_face[0]
        rotated = False
        x0, top, x1, bottom = box
        # Set at an angle: up a margin, or across the page as a diagonal stamp whose box
        # is about as tall as wide, or a glyph or two whatever their box?
        if x1 - x0 < 4 * (bottom - top) or last - first < 3:
            angle = self.calls.char_angle(self.page, self._char(middle))
            if angle >= 0:
                # The angle is in user space; a page displayed turned by /Rotate shows
                # level the text drawn turned the other way.
                angle = (angle + self.frame.rotation * _TWO_PI / 4) % _TWO_PI
                rotated = min(angle, _TWO_PI - angle) > _ROTATED_ANGLE
        return PdfLine(text[first:last + 1], *box, round(size, 1), weight >= BOLD_WEIGHT,
                       rotated, font, lead_font=lead_font)

    def sets_spaces(self) -> bool:
        """Does the page set space glyphs (its first ``SPACE_SAMPLE`` spaces are not all
        spaces PDFium generated from gaps)? TeX and some generators set none."""
        text = self.text
        at, seen = text.find(" "), 0
        while at >= 0 and seen < SPACE_SAMPLE:
            index = self._char(at)
            if index >= 0 and self.raw.FPDFText_IsGenerated(self.textpage, index) == 0:
                return True
            seen += 1
            at = text.find(" ", at + 1)
        return False

    def missing_spaces(self, tika: str, first: int, last: int, suspect: bool = False
                       ) -> tuple[int, ...]:
        """Where Tika's line ``tika`` runs two words together that the glyphs of the same
        line (``[first, last]`` of the page's text) set a word's gap apart: the offsets
        in ``tika`` before which a space belongs.

        A PDF that sets no space glyphs (most TeX output; generators that place each
        word) leaves the spaces to its reader, who finds them in the gaps between
        glyphs; PDFBox, under Tika, misses gaps narrower than half its font's space
        ("Transport layer andnetwork layer", "Testsystem topology" where a justified
        line squeezed its gaps), and PDFium's own guess at them both misses such gaps
        and splits letter-spaced capitals. So each line is read against itself: its
        gaps where Tika has a space are its word gaps, the others its letter gaps, and
        a gap between two letters or digits (not two digits, nor CJK) that is wider
        than most letter gaps around it (``LETTER_WINDOW`` each side) by
        ``MIN_WORD_GAP`` of the line's height, and at least a third of the narrowest
        word gap near it (a gap Tika missed is under half of those it found), is a
        space Tika missed. Only lines that look run
        together (``_run_together``: long words, or PDFium sees more spaces than Tika)
        are measured, glyph by glyph; on other lines this costs nothing."""
        pdfium = self.text[first:last + 1]
        if pdfium.count(" ") <= tika.count(" ") and not suspect:
            return ()
        pairs = _matched_glyphs(tika, pdfium)
        if len(pairs) < 3:
            return ()
        offsets = [first + j for _, j in pairs]
        boxes = ([self._loose(offset) for offset in offsets] if self.native is None
                 else self.native.loose_boxes(self.page, self.frame.left, self.frame.bottom,
                                              self.frame.right, self.frame.top,
                                              self.frame.rotation, self.same_indexes,
                                              offsets))
        # The gap after each matched glyph (None: not measured, or not on one baseline
        # with the next: a superscript, a subscript, another line).
        gaps: list[float | None] = []
        heights = []
        for left, right in itertools.pairwise(boxes):
            height = (0.0 if left is None or right is None
                      else max(left[3] - left[1], right[3] - right[1]))
            if height <= 0 or abs(left[3] - right[3]) > height / 4:
                gaps.append(None)
                continue
            heights.append(height)
            gaps.append(right[0] - left[2])
        if not heights:
            return ()
        height = sorted(heights)[len(heights) // 2]
        spaced = [gap if gap is not None and pairs[n + 1][0] > pairs[n][0] + 1 else None
                  for n, gap in enumerate(gaps)]
        letters = [gap if gap is not None and pairs[n + 1][0] == pairs[n][0] + 1 else None
                   for n, gap in enumerate(gaps)]
        found = []
        for n, gap in enumerate(gaps):
            (i, _), (k, _) = pairs[n], pairs[n + 1]
            if gap is None or k != i + 1:
                continue
            # At least a third of the narrowest word gap Tika found nearby (the words
            # of a heading set wide are further apart than the body's).
            words = [g for g in spaced[max(0, n - 4 * LETTER_WINDOW):n + 4 * LETTER_WINDOW]
                     if g is not None]
            if words and gap < min(words) / 3:
                continue
            a, b = tika[i], tika[k]
            if not (_spaced_letter(a) and _spaced_letter(b)) or (a.isdigit() and b.isdigit()):
                continue
            # The letter gaps around it, not the whole line's: a title set letter-spaced
            # in a line of tight body text has every gap wide ("T h e C o n t i n u o u s").
            near = sorted(g for g in letters[max(0, n - LETTER_WINDOW):n + LETTER_WINDOW + 1]
                          if g is not None)
            if len(near) > 1 and gap - max(near[(3 * (len(near) - 1)) // 4], 0.0) >= (
                    MIN_WORD_GAP * height):
                found.append(k)
        return tuple(found)

    def _loose(self, offset: int) -> tuple[float, float, float, float] | None:
        """A glyph's box from its advance and its font's ascent and descent (not its
        ink), on the displayed page: ``(x0, top, x1, bottom)``."""
        index = self._char(offset)
        if index < 0 or not self.calls.loose_box(self.page, index, self.rect_address):
            return None
        rect = self.rect
        return self.frame.box(rect.left, rect.bottom, rect.right, rect.top)

    def face(self, offset: int) -> tuple[str, int, float] | None:
        """``(font name, weight, size in points)`` of the text object the character at
        ``offset`` belongs to; one call per character, the rest once per text object
        and once per font (a page has a few dozen objects, a document a few fonts)."""
        index = self._char(offset)
        if index < 0:
            return None
        key = self.calls.text_object(self.page, index)
        if not key:
            return None
        face = self.objects.get(key)
        if face is None:
            face = self.objects[key] = self._object_face(key)
        return face

    def _object_face(self, obj: int) -> tuple[str, int, float]:
        calls, size, matrix = self.calls, self.size, self.matrix
        if not calls.font_size(obj, self.size_address):
            size.value = 0.0
        scale = math.hypot(matrix.c, matrix.d) if calls.matrix(obj, self.matrix_address) else 1.0
        key = calls.font(obj)
        named = self.fonts.get(key)
        if named is None:
            named = self.fonts[key] = _font_face(self.raw, self.name, key or 0)
        return (*named, size.value * scale)


def _font_face(raw, name, address: int) -> tuple[str, int]:
    """A font's name (without a subset's ``ABCDEF+`` prefix, which changes from page to
    page) and weight (from its descriptor; without one, as for the standard 14 fonts,
    from ForceBold or a bold name); ``name``: a buffer for the name."""
    font = ctypes.cast(address, raw.FPDF_FONT)
    length = raw.FPDFFont_GetBaseFontName(font, name, len(name))
    text = name.raw[:max(min(length, len(name)) - 1, 0)].decode("latin-1")
    text = sys.intern(_SUBSET_PREFIX.sub("", text))
    weight = raw.FPDFFont_GetWeight(font)
    if weight <= 0:
        flags = raw.FPDFFont_GetFlags(font)
        bold = (flags > 0 and flags & _FORCE_BOLD) or bold_font_name(text, demi=True)
        weight = 700 if bold else 400 if text else 0
    return text, weight


def _matched_glyphs(tika: str, pdfium: str) -> list[tuple[int, int]]:
    """The characters of Tika's line and of PDFium's text of it that are the same glyph:
    ``(offset in tika, offset in pdfium)`` for each non-space character, in order (each
    compared as NFKC, so a ligature is its letters). Empty where the two texts differ
    otherwise than in their spaces: no offset in one says where it is in the other."""
    pairs = []
    i = j = 0
    while i < len(tika) and j < len(pdfium):
        a, b = tika[i], pdfium[j]
        if a.isspace():
            i += 1
        elif b.isspace():
            j += 1
        elif a == b or unicodedata.normalize("NFKC", a) == unicodedata.normalize("NFKC", b):
            pairs.append((i, j))
            i += 1
            j += 1
        else:
            return []
    return pairs


def run_together_lines(raw_text: str, tika: dict[int, list[TikaLine]], native: Any = None
                       ) -> frozenset[int]:
    """The ``raw_start`` of Tika's lines that look like words run together, by the
    document's own vocabulary: a line holds a word that occurs once and is two of the
    document's frequent words (``MIN_FREQUENT`` times or more) side by side, one of them
    short (``SHORT_WORD`` letters: "andnetwork", "layerof", "Testsystem" in a document
    that writes "and", "network", "layer", "of", "test" and "system"), a word with a
    capital after a lowercase letter ("relatedCTCconfiguration") or a word of
    ``MIN_LONG_WORD`` letters; and in a text whose words average over ``MAX_MEAN_WORD``
    letters (run together throughout), each line whose own words do. A compound of
    German or Dutch can be flagged too: its glyphs then show no gap, and nothing changes
    but the cost of measuring them. Found in the whole text at once (regular
    expressions, then the line of each find), not line by line; ``native``: the C
    extension, whose scans of the text give the same runs, counts and finds
    (``letter_counts``, ``camel_leads``) at a fraction of the regular expressions' and
    the Counter's cost."""
    folded = raw_text.casefold()
    counts: dict[str, int]
    if native is None:
        runs = _LETTER_RUN.findall(folded)
        counts = Counter(runs)
    else:
        runs, counts = native.letter_counts(folded)
    frequent = {word for word, n in counts.items() if n >= MIN_FREQUENT}
    fused = {word for word, n in counts.items()
             if n == 1 and len(word) >= MIN_FUSED_WORD and not is_cjk(word[0])
             and any(word[:k] in frequent and word[k:] in frequent
                     for k in (*range(2, SHORT_WORD + 1),
                               *range(len(word) - SHORT_WORD, len(word) - 1)))}
    found = _camel_leads(raw_text) if native is None else native.camel_leads(raw_text)
    found += _run_starts(folded, runs, fused.union(
        word for word in counts if len(word) >= MIN_LONG_WORD))
    spans = sorted(itertools.chain.from_iterable(tika.values()))  # (start, end, text)
    starts = [line.raw_start for line in spans]
    suspects = set()
    if sum(len(word) * n for word, n in counts.items()) > MAX_MEAN_WORD * sum(counts.values()):
        # Words that long on average: the text is run together throughout, so each line
        # whose own words are that long is measured.
        suspects = {line.raw_start for lines in tika.values() for line in lines
                    if _mean_word(line.text) > MAX_MEAN_WORD}
    for at in found:
        k = bisect.bisect_right(starts, at) - 1
        if k >= 0 and at < spans[k][1]:
            suspects.add(spans[k][0])
    return frozenset(suspects)


def _camel_leads(text: str) -> list[int]:
    """The offset of each lowercase letter (``_CAMEL_LEAD``) before a capital A-Z in
    ``text``, in order: the letter before each run of capitals tested."""
    return [at - 1 for match in _CAPITALS.finditer(text, 1)
            if _CAMEL_LEAD.match(text, (at := match.start()) - 1)]


def _run_starts(folded: str, runs: list[str], wanted: set[str]) -> list[int]:
    """Where in ``folded`` the letter runs (``runs``: ``_LETTER_RUN``'s of ``folded``, in
    order) that are ``wanted`` words start. Each is the next whole run of its letters
    after the one found before it (no run between is a wanted word), so the text is
    searched once from left to right, not a match made for every word."""
    starts = []
    at = 0
    for word in (run for run in runs if run in wanted) if wanted else ():
        while True:
            at = folded.find(word, at)
            end = at + len(word)
            if ((at == 0 or not _LETTER.match(folded, at - 1))
                    and not _LETTER.match(folded, end)):
                break
            at += 1
        starts.append(at)
        at = end
    return starts


def _mean_word(line: str) -> float:
    words = _LETTER_RUN.findall(line)
    return sum(map(len, words)) / len(words) if words else 0.0


def _spaced_letter(ch: str) -> bool:
    """A letter or digit of a script written with spaces between words."""
    return ch.isalnum() and not is_cjk(ch)


def _align(text: str, ranges: list[tuple[int, int]], tika: list[TikaLine]
           ) -> list[tuple[int, int] | None]:
    """Where each of Tika's lines of a page is in PDFium's text of it: its first and
    last character (None: PDFium has no such text).

    A PDFium line whose letters and digits are those of a Tika line is that line:
    the first such PDFium line not taken at or after the last match, else the
    first not taken (PDFium and Tika order a page's text alike, mostly). A Tika
    line no PDFium line equals (PDFium joined it with the next, or cut it) is
    looked for in PDFium's text of the page, by its letters and digits; a short
    one (a page number fused into another PDFium line) only where it is a whole
    word of its own that occurs once on the page."""
    by_key: dict[str, list[int]] = defaultdict(list)
    for index, (first, last) in enumerate(ranges):
        key = squeeze(text[first:last + 1])
        if key:
            by_key[key].append(index)
    taken = [False] * len(ranges)
    found: list[tuple[int, int] | None] = [None] * len(tika)
    left: list[tuple[int, str]] = []
    cursor = 0
    for t, line in enumerate(tika):
        key = squeeze(line.text)
        if not key:
            continue
        free = [i for i in by_key.get(key, ()) if not taken[i]]
        if free:
            index = next((i for i in free if i >= cursor), free[0])
            taken[index] = True
            cursor = index + 1
            found[t] = ranges[index]
        else:
            left.append((t, key))
    if not left:
        return found
    words = _Words(text)
    # Characters found are one Tika line's: not those of a PDFium line matched whole
    # to another, nor the same characters found for two lines ("n" once on the page,
    # seven one-letter Tika lines "n" in a table).
    whole = sorted(ranges[i] for i in range(len(ranges)) if taken[i])
    firsts = [first for first, _ in whole]
    finders: dict[tuple[int, int], list[int]] = defaultdict(list)
    for t, key in left:
        span = words.find(key)
        if span is None:
            continue
        k = bisect.bisect_right(firsts, span[0]) - 1
        if k < 0 or whole[k][1] < span[0]:
            finders[span].append(t)
    for span, finding in finders.items():
        if len(finding) == 1:
            found[finding[0]] = span
    # Runs of consecutive lines still unplaced, each too short to be found alone
    # (Tika cuts a rotated stamp into "R" / "E" / "C" …, one glyph cluster a line):
    # their keys joined are looked for together, and each gets its own characters.
    run: list[tuple[int, str]] = []
    for t, key in left:
        if found[t] is not None:
            continue
        if run and t != run[-1][0] + 1:
            _place_run(words, run, found)
            run = []
        run.append((t, key))
    _place_run(words, run, found)
    return found


def _place_run(words: _Words, run: list[tuple[int, str]],
               found: list[tuple[int, int] | None]) -> None:
    if len(run) < 2:
        return
    position = words.locate("".join(key for _, key in run))
    if position is None:
        return
    for t, key in run:
        found[t] = words.span(position, position + len(key))
        position += len(key)


def _styles(reader: _StyleReader, ranges: list[tuple[int, int] | None]
            ) -> list[PdfLine | None]:
    """Each placed line, styled in full where it can be a heading, a heading's next
    line or furniture; a line that runs to a right edge shared by several lines of the
    page and is wide (a line inside a justified paragraph) is only placed (font size 0), but for
    every ``BODY_SAMPLE``-th, which tell the body's font. Styling is most of what the
    pass costs in Python: a few calls into PDFium per line."""
    boxes = [reader.box(*r) if r is not None else None for r in ranges]
    rights = [int(box[2]) if box is not None else -9 for box in boxes]
    edges = Counter(rights)
    shared = {edge + d for edge, count in edges.items() if count >= MIN_SHARED_EDGE
              for d in (-1, 0, 1)}
    # Only a wide line is inside a paragraph: a stamp up the margin, cut into glyphs
    # that share a right edge, has each of its pieces styled (and found rotated).
    reaches = [right in shared and box is not None and box[2] - box[0] >= 4 * (box[3] - box[1])
               for right, box in zip(rights, boxes, strict=True)]

    styles: list[PdfLine | None] = []
    last = len(boxes) - 1
    for t, (span, box) in enumerate(zip(ranges, boxes, strict=True)):
        if span is None or box is None:
            styles.append(None)
            continue
        if (t < EDGE_LINES or t > last - EDGE_LINES or t % BODY_SAMPLE == 0
                or not reaches[t] or (t and not reaches[t - 1])):
            line = reader.styled(*span, box)
        else:
            line = PdfLine(reader.text[span[0]:span[1] + 1], *box, 0.0, False)
        cells = reader.cells(*span, box)
        styles.append(dataclasses.replace(line, cells=cells) if cells else line)
    # A line next to a line of several cells, or a few lines above one, may be a row of
    # the same table without the gaps that give a row away cheaply (a header of dates
    # over the figures, set no wider than its letters need).
    with_cells = [line is not None and len(line.cells) >= MIN_NEIGHBOUR_CELLS
                  for line in styles]
    for t, line in enumerate(styles):
        if line is None or with_cells[t]:
            continue
        span, box = ranges[t], boxes[t]
        assert span is not None and box is not None
        if ((t and with_cells[t - 1]) or (t < last and with_cells[t + 1])
                or (any(with_cells[t + 2:t + 1 + MAX_HEADER_REACH])
                    and not _ends_like_a_sentence(reader.text[span[0]:span[1] + 1]))):
            cells = reader.cells(*span, box, force=True)
            if cells:
                styles[t] = dataclasses.replace(line, cells=cells)
    return styles


def _ends_like_a_sentence(line: str) -> bool:
    end = line.rstrip()
    return bool(end) and end[-1] in SENTENCE_ENDS


class _Words:
    """A page's text as its runs of letters and digits, to find a squeezed key and
    give back the character range it came from."""

    def __init__(self, text: str) -> None:
        self.starts: list[int] = []  # each run's offset in the squeezed text
        self.runs: list[tuple[int, int, str]] = []  # (start, end) in text, squeezed run
        position = 0
        for match in _ALNUM_RUN.finditer(text):
            run = match.group()  # an ASCII run of letters and digits is its own key, lower
            run = run.lower() if run.isascii() else squeeze(run)
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


def _pages_where(data: bytes, pages: Sequence[int],
                 test: Callable[[Any, Any, float], bool]) -> set[int]:
    """Which of ``pages`` (1-based; others ignored) pass ``test(raw, page, area)``
    (PDFium's raw API, the open page, its area), the document opened once."""
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(data)
    passed = set()
    try:
        for number in pages:
            if not 0 < number <= len(document):
                continue
            page = document[number - 1]
            try:
                width, height = page.get_size()
                if test(pdfium.raw, page, width * height):
                    passed.add(number)
            finally:
                page.close()
    finally:
        document.close()
    return passed


def blank_pages(data: bytes, pages: Sequence[int]) -> set[int]:
    """Which of ``pages`` (1-based) show nothing OCR could read: at most
    ``MAX_BLANK_GLYPHS`` glyphs (a page of glyphs without Unicode mapping is read by
    OCR), no image covering ``MIN_OCR_IMAGE_SHARE`` of the page, no form object (which
    may hold one), and fewer than ``MIN_OCR_PATHS`` vector paths (text converted to
    outlines is drawn with many).
    An empty page, or one with a rule and a logo, is not worth Tesseract's seconds."""
    def blank(raw: Any, page: Any, area: float) -> bool:
        kinds = Counter(raw.FPDFPageObj_GetType(raw.FPDFPage_GetObject(page.raw, i))
                        for i in range(raw.FPDFPage_CountObjects(page.raw)))
        textpage = raw.FPDFText_LoadPage(page.raw)
        glyphs = raw.FPDFText_CountChars(textpage)
        raw.FPDFText_ClosePage(textpage)
        return (glyphs <= MAX_BLANK_GLYPHS and not kinds[_FORM_OBJECT]
                and kinds[_PATH_OBJECT] < MIN_OCR_PATHS
                and _image_share(raw, page, area) < MIN_OCR_IMAGE_SHARE)

    return _pages_where(data, pages, blank)


def scanned_pages(data: bytes, pages: Sequence[int]) -> set[int]:
    """Which of ``pages`` (1-based) are scans: images cover ``MIN_SCAN_IMAGE_SHARE``
    of the page."""
    return _pages_where(data, pages, lambda raw, page, area:
                        _image_share(raw, page, area) >= MIN_SCAN_IMAGE_SHARE)


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


def tika_page_lines(raw_text: str, blocks: Sequence[Block]) -> dict[int, list[TikaLine]]:
    """Tika's lines of each page, in reading order."""
    pages: dict[int, list[TikaLine]] = defaultdict(list)
    for block in blocks:
        if not block.page or block.raw_start < 0 or block.detached:
            continue
        start = block.raw_start
        lines = pages[block.page]
        for piece in raw_text[block.raw_start:block.raw_end].split("\n"):
            stripped = piece.strip()
            if stripped:
                lead = start + piece.index(stripped[0])
                lines.append(TikaLine(lead, lead + len(stripped), stripped))
            start += len(piece) + 1
    return pages


def pdf_layout(data: bytes, raw_text: str, blocks: Sequence[Block]) -> PdfLayout:
    """The layout of a PDF, aligned to Tika's ``raw_text`` and ``blocks``: through the
    C extension where it is built (``native_lines``), else in Python; the two give the
    same bytes."""
    native = native_lines()
    with cyclic_collector_paused():
        if native is not None:
            return _native_pdf_layout(native, data, raw_text, blocks)
        return _python_pdf_layout(data, raw_text, blocks)


def _python_pdf_layout(data: bytes, raw_text: str, blocks: Sequence[Block]) -> PdfLayout:
    tika = tika_page_lines(raw_text, blocks)
    pages = _read_pages(data, tika,
                        suspects=functools.cache(lambda: run_together_lines(raw_text, tika)))
    styles: list[LineStyle] = []
    for layout, found in pages:
        for (start, end, text), pdf in zip(tika.get(layout.page, []), found, strict=True):
            if pdf is not None:
                cells = _tika_cells(text, start, pdf.text, pdf.cells) if pdf.cells else ()
                styles.append(LineStyle(start, end, layout.page, pdf.x0, pdf.top, pdf.x1,
                                        pdf.bottom, pdf.size, pdf.bold, pdf.rotated,
                                        pdf.font, pdf.spaces, cells, pdf.lead_font))
    styles.sort()
    return PdfLayout(tuple((round(layout.width, 1), round(layout.height, 1))
                           for layout, _ in pages), tuple(styles))


# --- the same pass through the C extension ---------------------------------------------

# Set to "0" to run the pure-Python pass where the extension is built (the tests compare
# the two; a benchmark can measure either).
NATIVE_ENV = "RAGBEAM_LAYOUT_NATIVE"
# The LineStyle the C pass fills, field for field ("spaces" left empty there and filled
# by ``_fill_spaces``, the Python pass's own rule). A LineStyle with other fields (a rule
# added to the Python pass and its output) turns the C pass off until it fills them: the
# output stays the Python pass's, only slower (tests/transforms/extract/test_layout.py
# says so where the extension is built).
NATIVE_FIELDS = ("raw_start", "raw_end", "page", "x0", "top", "x1", "bottom", "size",
                 "bold", "rotated", "font", "spaces", "cells", "lead_font")
_native_module: object = None  # the configured module, False when unavailable


def native_lines():
    """The configured C extension ``_pdfium_lines`` (``_pdfium_lines.c``: the per-line
    work of ``_page_layout``, ``_align`` and ``_styles``, one call per page), or None
    where it was not built (``pip install`` compiles it; a machine without a C compiler
    gets the pure-Python pass), where it does not fill today's ``LineStyle``
    (``NATIVE_FIELDS``), or with ``RAGBEAM_LAYOUT_NATIVE=0``."""
    global _native_module
    if os.environ.get(NATIVE_ENV, "1") == "0":
        return None
    if _native_module is None:
        _native_module = _configure_native() or False
    return _native_module or None


# The PDFium functions the C pass calls, in the order ``_pdfium_lines.configure`` takes them.
_PDFIUM_CALLS = (
    "FPDFText_CountChars", "FPDFText_GetText", "FPDFText_GetCharIndexFromTextIndex",
    "FPDFText_GetCharBox", "FPDFText_GetTextObject", "FPDFText_GetCharAngle",
    "FPDFTextObj_GetFontSize", "FPDFPageObj_GetMatrix", "FPDFTextObj_GetFont",
    "FPDFText_GetLooseCharBox", "FPDFText_IsGenerated", "FPDFFont_GetBaseFontName",
    "FPDFFont_GetWeight", "FPDFFont_GetFlags", "FPDF_LoadPage", "FPDF_ClosePage",
    "FPDFText_LoadPage", "FPDFText_ClosePage", "FPDFPage_GetCropBox", "FPDFPage_GetMediaBox",
    "FPDFPage_GetRotation")


def _configure_native():
    if _pdfium_lines is None or LineStyle._fields != NATIVE_FIELDS:
        return None
    if not hasattr(_pdfium_lines, "document_styles"):
        # An extension built from an older _pdfium_lines.c (an editable install not
        # rebuilt): the Python pass gives the same bytes until it is.
        return None
    import pypdfium2 as pdfium

    raw = pdfium.raw
    addresses = tuple(ctypes.cast(getattr(raw, name), ctypes.c_void_p).value
                      for name in _PDFIUM_CALLS)
    _pdfium_lines.configure(addresses, LineStyle, math.hypot)
    return _pdfium_lines


def _native_pdf_layout(native, data: bytes, raw_text: str, blocks: Sequence[Block]
                       ) -> PdfLayout:
    """``_python_pdf_layout`` through the C pass: its loop over the pages
    (``document_styles``: each page loaded, framed by its crop box as ``_page_layout``
    frames it, and its lines placed and styled as ``page_styles``) calls back here only
    for the pages whose ``spaces`` are measured (``_fill_spaces``), while the page is
    open."""
    import pypdfium2 as pdfium

    raw = pdfium.raw
    by_page: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for block in blocks:
        if block.page and block.raw_start >= 0 and not block.detached:
            by_page[block.page].append((block.raw_start, block.raw_end))
    suspects = functools.cache(
        lambda: run_together_lines(raw_text, tika_page_lines(raw_text, blocks), native))
    styles: list[LineStyle] = []

    def fill(textpage: int, left: float, bottom: float, right: float, top: float,
             rotation: int, text: str, spans: list[tuple[int, int]]) -> None:
        reader = _StyleReader(raw, ctypes.cast(textpage, raw.FPDF_TEXTPAGE),
                              _Frame(left, bottom, right, top, rotation), text)
        reader.native = native
        _fill_spaces(reader, spans, styles, raw_text, suspects)

    document = pdfium.PdfDocument(data)
    try:
        sizes = native.document_styles(ctypes.cast(document.raw, ctypes.c_void_p).value,
                                       len(document), raw_text, by_page, styles, fill,
                                       pdfium.PdfiumError)
    finally:
        document.close()
    styles.sort()
    return PdfLayout(tuple(sizes), tuple(styles))


def _fill_spaces(reader: _StyleReader, spans: list[tuple[int, int, bool]],
                 styles: list[LineStyle], raw_text: str,
                 suspects: Callable[[], frozenset[int]]) -> None:
    """``spaces`` of the last ``len(spans)`` lines of ``styles`` (the page's, as the C pass
    appended them, each placed at its ``[first, last]`` of ``reader``'s text), by the
    Python pass's own rule (``_page_spaces``'s ``missing_spaces``). The C pass has made
    the rule's cheap tests already: it hands over no lines of a page that sets its spaces
    (``sets_spaces``), and says of each line whether PDFium's text of it holds more
    spaces than Tika's (``wider``); a line that does not, and does not look run together
    (``suspects``), ``missing_spaces`` leaves as it is without measuring it."""
    base = len(styles) - len(spans)
    measure = suspects()
    for k, (first, last, wider) in enumerate(spans, base):
        style = styles[k]
        suspect = style.raw_start in measure
        if wider or suspect:
            spaces = reader.missing_spaces(raw_text[style.raw_start:style.raw_end], first,
                                           last, suspect)
            if spaces:
                styles[k] = style._replace(spaces=spaces)


def _tika_cells(text: str, raw_start: int, pdf_text: str,
                pdf_cells: tuple[tuple[int, int, float, float], ...]
                ) -> tuple[tuple[int, float, float], ...]:
    """The cells of the PDFium line ``pdf_text`` (``PdfLine.cells``) moved onto the Tika
    line ``text`` (at ``raw_start`` in the raw text): each cell as ``(raw offset where
    it starts, x0, x1)``. PDFium and Tika set a line's characters alike but not its
    spaces, so a cell's start is found by the characters before it that are not spaces
    (by its letters and digits where even those differ); empty where a cell's start
    falls inside one of Tika's words."""
    starts = _cell_starts(text, pdf_text, [first for first, _, _, _ in pdf_cells])
    if starts is None:
        return ()
    return tuple((raw_start + start, x0, x1)
                 for start, (_, _, x0, x1) in zip(starts, pdf_cells, strict=True))


def _cell_starts(tika: str, pdf: str, firsts: list[int]) -> list[int] | None:
    """Where in ``tika`` each of the cells of ``pdf`` starting at ``firsts`` starts."""
    same = "".join(tika.split()) == "".join(pdf.split())
    # Both measures add up piece by piece (squeeze works character by character), so
    # the characters before each word are counted once, not again from the start.
    measure = (lambda piece: len("".join(piece.split()))) if same \
        else (lambda piece: len(squeeze(piece)))
    tokens = [m.start() for m in _WORD.finditer(tika)]
    before = list(itertools.accumulate(
        measure(tika[a:b]) for a, b in zip([0, *tokens], tokens, strict=False)))
    starts: list[int] = []
    k = 0
    for first in firsts:
        wanted = measure(pdf[:first])
        while k < len(tokens) and (before[k] < wanted or (starts and tokens[k] <= starts[-1])):
            k += 1
        if k == len(tokens) or before[k] != wanted:
            return None
        starts.append(tokens[k])
    return starts
