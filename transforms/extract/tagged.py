"""A tagged PDF's headings: the structure tree's ``H``, ``H1`` … ``H6`` elements.

Word and LibreOffice exports, a browser's "print to PDF" and many filings are tagged:
their structure tree says which marked content is a heading, and of which level.
``tagged_headings`` reads those elements with PDFium (their marked-content ids, the
text of the page's text objects that carry them) as ``(level, text, page)`` entries,
the shape of an outline with its pages (``outline.py``), so that cleaning matches them
to paragraphs as it matches an outline's entries (``headings.outline_headings``).
An untagged PDF costs one catalog look-up; a tagged one, one load of each page (up to
``UNTITLED_PAGES`` where none has a heading).
"""

from __future__ import annotations

import ctypes
from typing import Any

# Element types that are headings (ISO 32000-1 14.8.4.3.2); plain ``H`` has no level
# of its own and counts as the top one.
_LEVELS = {"H": 1, "H1": 1, "H2": 2, "H3": 3, "H4": 4, "H5": 5, "H6": 6}
# A tree that tags fewer headings than one per this many pages does not mark a
# document's sections (a cover's title tagged H1 over a hundred pages of text): the
# type decides there, as it does for an untagged PDF.
PAGES_PER_HEADING = 10
# A tree whose first pages tag no heading is not read further: a tagger that marks
# headings marks the first ones (a title, a first section) early. PDFium finds a page's
# elements by walking the whole tree, so each page costs in proportion to the tree (a
# 10-Q tagged word by word: ~25 ms a page).
UNTITLED_PAGES = PAGES_PER_HEADING
MAX_TAGGED_HEADINGS = 2000
# A heading tag over more text than this is a tagging slip (a paragraph), not a title.
MAX_HEADING_CHARS = 300
_TEXT_OBJECT = 1  # FPDF_PAGEOBJ_TEXT


def _utf16(call: Any, *args: Any, wide: bool = False) -> str:
    """The text a PDFium call writes as UTF-16LE into a buffer it sizes first (``wide``:
    a call whose buffer is typed ``FPDF_WCHAR*``)."""
    size = call(*args, None, 0)
    if size <= 2:
        return ""
    buffer = ctypes.create_string_buffer(size)
    call(*args, ctypes.cast(buffer, ctypes.POINTER(ctypes.c_ushort)) if wide else buffer, size)
    return buffer.raw[:size - 2].decode("utf-16-le", errors="replace")


def tagged_headings(data: bytes) -> list[tuple[int, str, int]]:
    """``(level, text, page)`` of each heading element of a tagged PDF's structure tree,
    in tree order page by page (pages 1-based); [] for an untagged PDF, one whose tree
    tags fewer headings than ``PAGES_PER_HEADING`` allows, or one PDFium cannot read."""
    try:
        import pypdfium2 as pdfium  # imported here: only the process that extracts pays
        import pypdfium2.raw as raw

        document = pdfium.PdfDocument(data)
    except Exception:
        return []
    try:
        if not raw.FPDFCatalog_IsTagged(document.raw):
            return []
        entries: list[tuple[int, str, int]] = []
        for index in range(len(document)):
            if not entries and index >= UNTITLED_PAGES:
                return []  # tagged without headings (a filing's Div and NonStruct)
            entries.extend((level, text, index + 1)
                           for level, text in _page_headings(raw, document, index))
            if len(entries) >= MAX_TAGGED_HEADINGS:
                break
        if len(entries) * PAGES_PER_HEADING < len(document):
            return []
        return entries[:MAX_TAGGED_HEADINGS]
    except Exception:  # a tree PDFium cannot walk: the other heading sources decide
        return []
    finally:
        document.close()


def _page_headings(raw: Any, document: Any, index: int) -> list[tuple[int, str]]:
    page = raw.FPDF_LoadPage(document.raw, index)
    if not page:
        return []
    try:
        tree = raw.FPDF_StructTree_GetForPage(page)
        if not tree:
            return []
        try:
            heads: list[tuple[int, list[int]]] = []
            for k in range(raw.FPDF_StructTree_CountChildren(tree)):
                if element := raw.FPDF_StructTree_GetChildAtIndex(tree, k):
                    _collect(raw, element, heads)
        finally:
            raw.FPDF_StructTree_Close(tree)
        if not heads:
            return []
        return _heading_texts(raw, page, heads)
    finally:
        raw.FPDF_ClosePage(page)


def _collect(raw: Any, element: Any, heads: list[tuple[int, list[int]]], depth: int = 0
             ) -> None:
    """The heading elements under ``element`` with the marked-content ids they cover."""
    level = _LEVELS.get(_utf16(raw.FPDF_StructElement_GetType, element))
    if level is not None:
        ids: list[int] = []
        _marked_ids(raw, element, ids)
        heads.append((level, ids))
        return
    if depth > 64:  # a cyclic or absurdly deep tree
        return
    for i in range(raw.FPDF_StructElement_CountChildren(element)):
        if child := raw.FPDF_StructElement_GetChildAtIndex(element, i):
            _collect(raw, child, heads, depth + 1)


def _marked_ids(raw: Any, element: Any, ids: list[int], depth: int = 0) -> None:
    for i in range(raw.FPDF_StructElement_GetMarkedContentIdCount(element)):
        if (mcid := raw.FPDF_StructElement_GetMarkedContentIdAtIndex(element, i)) >= 0:
            ids.append(mcid)
    if depth > 16:
        return
    for i in range(raw.FPDF_StructElement_CountChildren(element)):
        if child := raw.FPDF_StructElement_GetChildAtIndex(element, i):
            _marked_ids(raw, child, ids, depth + 1)


def _heading_texts(raw: Any, page: Any, heads: list[tuple[int, list[int]]]
                   ) -> list[tuple[int, str]]:
    """Each heading's text: what PDFium's text page reads in the boxes of the text
    objects that carry its marked-content ids, one box per line (PDFium puts the spaces
    between glyphs drawn one object each, as a browser draws a heading)."""
    wanted = {mcid for _, ids in heads for mcid in ids}
    boxes: dict[int, list[tuple[float, float, float, float]]] = {}
    left, bottom, right, top = (ctypes.c_float() for _ in range(4))
    for index in range(raw.FPDFPage_CountObjects(page)):
        obj = raw.FPDFPage_GetObject(page, index)
        # Only text objects carry a heading's words; a form's are not looked into.
        if (raw.FPDFPageObj_GetMarkedContentID(obj) in wanted
                and raw.FPDFPageObj_GetType(obj) == _TEXT_OBJECT
                and raw.FPDFPageObj_GetBounds(obj, left, bottom, right, top)):
            boxes.setdefault(raw.FPDFPageObj_GetMarkedContentID(obj), []).append(
                (left.value, bottom.value, right.value, top.value))
    if not boxes:
        return []
    textpage = raw.FPDFText_LoadPage(page)
    if not textpage:
        return []
    try:
        found: list[tuple[int, str]] = []
        for level, marked in heads:
            lines = _lines([box for mcid in marked for box in boxes.get(mcid, ())])
            text = " ".join(" ".join(_utf16_bounded(raw, textpage, line) for line in lines)
                            .split())
            if text and len(text) <= MAX_HEADING_CHARS:
                found.append((level, text))
        return found
    finally:
        raw.FPDFText_ClosePage(textpage)


Box = tuple[float, float, float, float]  # left, bottom, right, top (PDF units, y up)


def _lines(boxes: list[Box]) -> list[Box]:
    """The boxes of a heading's objects merged line by line (a box that overlaps the
    line's vertical span by half its height joins it), top line first."""
    lines: list[list[float]] = []
    for l0, b0, r0, t0 in sorted(boxes, key=lambda box: (-box[3], box[0])):
        for line in lines:
            overlap = min(t0, line[3]) - max(b0, line[1])
            if overlap >= 0.5 * min(t0 - b0, line[3] - line[1]):
                line[:] = [min(l0, line[0]), min(b0, line[1]), max(r0, line[2]),
                           max(t0, line[3])]
                break
        else:
            lines.append([l0, b0, r0, t0])
    return [(a, b, c, d) for a, b, c, d in lines]


def _utf16_bounded(raw: Any, textpage: Any, box: Box) -> str:
    """The text page's characters inside ``box`` (a hair wider: glyph boxes round)."""
    l0, b0, r0, t0 = box[0] - 0.5, box[1] - 0.5, box[2] + 0.5, box[3] + 0.5
    size = raw.FPDFText_GetBoundedText(textpage, l0, t0, r0, b0, None, 0)
    if size <= 0:
        return ""
    buffer = (ctypes.c_ushort * (size + 1))()
    written = raw.FPDFText_GetBoundedText(textpage, l0, t0, r0, b0, buffer, size + 1)
    return (bytes(buffer)[:2 * max(written, 0)].decode("utf-16-le", "replace")
            .replace("\x00", ""))
