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
# headings marks the first ones (a title, a first section) early.
UNTITLED_PAGES = 2 * PAGES_PER_HEADING
MAX_TAGGED_HEADINGS = 2000
# A heading tag over more text than this is a tagging slip (a paragraph), not a title.
MAX_HEADING_CHARS = 300


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
    """Each heading's text: the page's characters, in text order, whose text object
    carries one of its marked-content ids (a space or line break PDFium adds between
    two of them, which has no object, goes with the character before)."""
    wanted = {mcid for _, ids in heads for mcid in ids}
    chars: dict[int, list[str]] = {}
    textpage = raw.FPDFText_LoadPage(page)
    if not textpage:
        return []
    try:
        ids: dict[int, int] = {}  # a text object's address → its marked-content id
        current = -1
        for index in range(raw.FPDFText_CountChars(textpage)):
            obj = raw.FPDFText_GetTextObject(textpage, index)
            if obj:
                address = ctypes.cast(obj, ctypes.c_void_p).value or 0
                if (mcid := ids.get(address)) is None:
                    mcid = ids[address] = raw.FPDFPageObj_GetMarkedContentID(obj)
                current = mcid
            if current in wanted:
                chars.setdefault(current, []).append(chr(raw.FPDFText_GetUnicode(textpage, index)))
    finally:
        raw.FPDFText_ClosePage(textpage)
    found: list[tuple[int, str]] = []
    for level, marked in heads:
        # PDFium gives UTF-16 code units: a character outside the BMP comes as two.
        text = " ".join("".join(chars.get(mcid, ())) for mcid in marked)
        text = " ".join(text.encode("utf-16-le", "surrogatepass")
                        .decode("utf-16-le", "replace").split())
        if text and len(text) <= MAX_HEADING_CHARS:
            found.append((level, text))
    return found
