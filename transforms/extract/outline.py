"""A PDF's outline (bookmarks), as Tika writes it: where the author put the headings.

Tika writes a PDF's outline after its pages as nested ``<ul><li>`` lists, one
list level per outline level (a nested ``<ul>`` follows the ``<li>`` it belongs
to). ``pdf_outline`` reads it back as ``[(level, title), …]`` in outline
order, ``with_pages`` adds the page each entry points at (PDFium resolves the
destinations; Tika's XHTML does not carry them); the Extract stage stores it as
``metadata.pdf_outline`` (JSON) and
cleaning (``transforms/clean/headings.py`` ``outline_headings``) makes the
paragraph each entry points at a heading of that level.
"""

from __future__ import annotations

import json

from lxml import etree

MAX_OUTLINE_ENTRIES = 2000


def _local(tag: object) -> str:
    return tag.rsplit("}", 1)[-1].lower() if isinstance(tag, str) else ""


def pdf_outline(xhtml: str) -> list[tuple[int, str]]:
    """``(level, title)`` of each outline entry of Tika's XHTML of a PDF (1: top)."""
    if "<ul" not in xhtml:
        return []
    parser = etree.XMLParser(recover=True, huge_tree=True, resolve_entities=False,
                             no_network=True)
    root = etree.fromstring(xhtml.encode("utf-8"), parser=parser)
    if root is None:
        return []
    body = next((el for el in root if _local(el.tag) == "body"), None)
    if body is None:
        return []
    children = list(body)
    pages = [i for i, el in enumerate(children) if _local(el.tag) == "div"
             and "page" in (el.get("class") or "").split()]
    if not pages:
        return []
    entries: list[tuple[int, str]] = []
    for el in children[pages[-1] + 1:]:  # the outline follows the last page
        if _local(el.tag) == "ul":
            _walk(el, 1, entries)
    return entries[:MAX_OUTLINE_ENTRIES]


def _walk(ul: etree._Element, level: int, entries: list[tuple[int, str]]) -> None:
    for child in ul:
        tag = _local(child.tag)
        if tag == "li":
            title = " ".join("".join(child.itertext()).split())
            if title:
                entries.append((level, title))
        elif tag == "ul":
            _walk(child, level + 1, entries)


def with_pages(entries: list[tuple[int, str]], data: bytes
               ) -> list[tuple[int, str]] | list[tuple[int, str, int]]:
    """Tika's outline entries with the page each points at, as PDFium resolves the
    outline of the same bytes; the entries alone where PDFium reads another outline
    (other titles, another count) or none, or cannot resolve a destination."""
    try:
        import pypdfium2 as pdfium  # imported here: only the process that extracts pays

        document = pdfium.PdfDocument(data)
    except Exception:  # PDFium refuses a file Tika read: its outline stands without pages
        return entries
    try:
        pages: list[int] = []
        for bookmark, (_, title) in zip(document.get_toc(), entries, strict=False):
            dest = bookmark.get_dest()
            index = dest.get_index() if dest is not None else None
            if (" ".join((bookmark.get_title() or "").split()) != title or index is None
                    or index < 0):
                return entries
            pages.append(index + 1)
    except Exception:
        return entries
    finally:
        document.close()
    if len(pages) != len(entries):
        return entries
    return [(level, title, page) for (level, title), page in zip(entries, pages, strict=True)]


def outline_value(entries: list[tuple[int, str]] | list[tuple[int, str, int]]) -> str:
    """``metadata.pdf_outline``: JSON ``[[level, title], …]``, or ``[[level, title, page],
    …]`` where the pages are known."""
    return json.dumps([list(entry) for entry in entries], ensure_ascii=False)
