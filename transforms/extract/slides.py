"""PowerPoint decks (.pptx): each slide's title a heading.

Tika writes each slide as ``<div class="slide-content">`` and every shape's paragraphs
as ``<p>``, the title's among them, unmarked: a deck read through Tika has no
headings, and its chunks no heading path. The title is the slide's shape in the
title placeholder (``<p:ph type="title"/>``, ``ctrTitle`` on a title slide), which the
file itself says (Office Open XML, ECMA-376 part 1, 19.3.1.36): this reader reads the
titles from the package and makes the slide's paragraphs that hold its title one
``<h1>`` at the head of its slide (the level the PDF slide rule gives a slide's title,
``clean/headings.py``). A slide without a title placeholder, or whose title Tika
did not write, keeps its paragraphs as they are.
"""

from __future__ import annotations

import io
import posixpath
import zipfile
from collections.abc import Sequence

from lxml import etree

from ragbeam.transforms.extract.reader import Reader, TikaMetadata
from ragbeam.transforms.extract.xhtml import ParsedXhtml, parse_tika_xhtml
from ragbeam.transforms.types import FetchedFile

PPTX_MEDIA_TYPES = frozenset({
    "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "application/vnd.ms-powerpoint.presentation.macroenabled.12",
})
_P = "http://schemas.openxmlformats.org/presentationml/2006/main"
_A = "http://schemas.openxmlformats.org/drawingml/2006/main"
_R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_RELS = "http://schemas.openxmlformats.org/package/2006/relationships"
_XHTML = "http://www.w3.org/1999/xhtml"
TITLE_PLACEHOLDERS = frozenset({"title", "ctrTitle"})
# A title longer than this is no title (a placeholder misused for a paragraph).
MAX_TITLE_CHARS = 200
# Parts read from a package, at most (a deck's slide XML is kilobytes).
MAX_PART_BYTES = 8 << 20


def _collapsed(text: str) -> str:
    return " ".join(text.split())


def _xml(package: zipfile.ZipFile, name: str) -> etree._Element | None:
    try:
        info = package.getinfo(name)
    except KeyError:
        return None
    if info.file_size > MAX_PART_BYTES:
        return None
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
    try:
        return etree.fromstring(package.read(info), parser=parser)
    except etree.XMLSyntaxError:
        return None


def slide_titles(data: bytes) -> list[list[str]]:
    """Each slide's title, in the deck's order, as its paragraphs' texts (``[]``: a
    slide without a title placeholder, or an empty one). ``[]`` for a package that is
    not a readable deck."""
    try:
        package = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError):
        return []
    with package:
        presentation = _xml(package, "ppt/presentation.xml")
        rels = _xml(package, "ppt/_rels/presentation.xml.rels")
        if presentation is None or rels is None:
            return []
        targets = {rel.get("Id"): rel.get("Target")
                   for rel in rels.iter(f"{{{_RELS}}}Relationship")}
        titles = []
        for slide_id in presentation.iter(f"{{{_P}}}sldId"):
            target = targets.get(slide_id.get(f"{{{_R}}}id"))
            slide = (_xml(package, posixpath.normpath(posixpath.join("ppt", target)))
                     if target else None)
            titles.append(_title_of(slide) if slide is not None else [])
        return titles


def _title_of(slide: etree._Element) -> list[str]:
    for shape in slide.iter(f"{{{_P}}}sp"):
        placeholder = shape.find(f"{{{_P}}}nvSpPr/{{{_P}}}nvPr/{{{_P}}}ph")
        if placeholder is None or placeholder.get("type") not in TITLE_PLACEHOLDERS:
            continue
        paragraphs = [_collapsed("".join(t.text or "" for t in p.iter(f"{{{_A}}}t")))
                      for p in shape.iter(f"{{{_A}}}p")]
        paragraphs = [p for p in paragraphs if p]
        if paragraphs and sum(map(len, paragraphs)) <= MAX_TITLE_CHARS:
            return paragraphs
    return []


def with_title_headings(xhtml: str, titles: Sequence[Sequence[str]]) -> str:
    """Tika's XHTML of a deck with each slide's title (``titles``, one list of
    paragraphs per ``slide-content`` div, in order) as one ``<h1>`` at the head of its
    slide: the slide's first run of ``<p>`` whose texts are the title's paragraphs, in
    order. A slide whose title is not found so is left as it is; so is the whole
    XHTML where the slides and the titles do not pair up one to one."""
    if not any(titles) or not xhtml.strip():
        return xhtml
    parser = etree.XMLParser(recover=True, huge_tree=True, resolve_entities=False,
                             no_network=True)
    root = etree.fromstring(xhtml.encode("utf-8"), parser=parser)
    if root is None:
        return xhtml
    slides = [el for el in root.iter() if isinstance(el.tag, str)
              and "slide-content" in (el.get("class") or "").split()]
    if len(slides) != len(titles):
        return xhtml
    changed = False
    for slide, title in zip(slides, titles, strict=True):
        changed |= _mark_title(slide, title)
    return etree.tostring(root, encoding="unicode") if changed else xhtml


def _mark_title(slide: etree._Element, title: Sequence[str]) -> bool:
    if not title:
        return False
    paragraphs = [el for el in slide.iter() if isinstance(el.tag, str)
                  and etree.QName(el).localname == "p"]
    texts = [_collapsed("".join(el.itertext())) for el in paragraphs]
    wanted = list(title)
    for start in range(len(paragraphs) - len(wanted) + 1):
        run = paragraphs[start:start + len(wanted)]
        if texts[start:start + len(wanted)] != wanted or any(
                el.getparent() is not run[0].getparent() for el in run):
            continue
        namespace = etree.QName(slide).namespace
        heading = etree.Element(f"{{{namespace}}}h1" if namespace else "h1")
        heading.text = " ".join(wanted)
        heading.tail = "\n"
        for el in run:
            _remove_keeping_tail(el)
        slide.insert(0, heading)
        if slide.text and slide.text.strip() == "":
            slide.text = None
        return True
    return False


def _remove_keeping_tail(el: etree._Element) -> None:
    parent = el.getparent()
    tail = el.tail
    previous = el.getprevious()
    if tail and tail.strip():
        if previous is not None:
            previous.tail = (previous.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    parent.remove(el)


class PptxReader(Reader):
    """PowerPoint decks: Tika's XHTML, each slide's title (its title placeholder's
    text, read from the package) a level-1 heading at the head of its slide."""

    name = "pptx"
    media_types = PPTX_MEDIA_TYPES

    def structure(self, fetched: FetchedFile, xhtml: str, media_type: str,
                  metadata: TikaMetadata) -> ParsedXhtml:
        return parse_tika_xhtml(with_title_headings(xhtml, slide_titles(fetched.data)))
