"""A PDF's outline (bookmarks), as Tika writes it: where the author put the headings.

Tika writes a PDF's outline after its pages as nested ``<ul><li>`` lists, one
list level per outline level (a nested ``<ul>`` follows the ``<li>`` it belongs
to). ``pdf_outline`` reads it back as ``[(level, title), …]`` in outline
order; the Extract stage stores it as ``metadata.pdf_outline`` (JSON) and
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


def outline_value(entries: list[tuple[int, str]]) -> str:
    return json.dumps([[level, title] for level, title in entries], ensure_ascii=False)
