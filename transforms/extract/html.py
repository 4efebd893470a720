"""Web pages: main content and its headings, without the site around it.

Tika's XHTML for HTML input keeps the text of ``<nav>``, ``<header>``,
``<footer>`` and ``<aside>`` but drops the tags themselves, so menus, sidebars
and footers land in the body as anonymous text that nothing downstream can
tell from the article. This module therefore reads the original HTML bytes
(with the charset Tika detected) and

1. picks the main content: the single ``<main>`` or ``role="main"`` element,
   else the single ``<article>``, else ``<body>``;
2. drops boilerplate inside it: navigation, sidebars, footers, forms, scripts,
   hidden elements, elements whose role says so (``navigation``, ``banner``,
   ``contentinfo``, ``complementary``, ``search``) and elements with a class or
   id that common site generators use for chrome (``navbox``, ``catlinks``,
   ``noprint``, ``breadcrumb``, …); a ``<header>``
   is dropped only outside the main content (inside an article it holds the
   title);
3. walks what is left with the same block walker as Tika's XHTML.

Raw offsets of an HTML document point into the text nodes of that main
content, in document order.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping

import lxml.html
from lxml import etree

from ragbeam.transforms.extract.reader import Reader
from ragbeam.transforms.extract.xhtml import (
    ParsedXhtml,
    parse_body,
    parse_tika_xhtml,
    tika_charset,
)
from ragbeam.transforms.types import FetchedFile

HTML_MEDIA_TYPES = {"text/html", "application/xhtml+xml"}
_BOILERPLATE_TAGS = {"nav", "aside", "footer", "form", "script", "style", "noscript",
                     "template", "svg", "button", "select", "iframe", "dialog"}
# Class or id tokens that mark site chrome in common page generators
# (MediaWiki, Docusaurus, WordPress themes): navigation boxes, edit links,
# language and category lists, parts a site itself marks as not for print.
_BOILERPLATE_TOKENS = {"navbox", "sidebar", "breadcrumb", "breadcrumbs", "catlinks",
                       "mw-editsection", "mw-jump-link", "printfooter", "noprint",
                       "mw-portlet", "vector-dropdown", "vector-menu", "vector-page-toolbar",
                       "toc", "skip-link", "skip-to-content", "cookie-banner", "pagination-nav",
                       "theme-doc-footer", "theme-doc-toc-mobile", "table-of-contents"}
_BOILERPLATE_ROLES = {"navigation", "banner", "contentinfo", "complementary", "search",
                      "menu", "menubar", "dialog"}


def _is_boilerplate(el: etree._Element, in_main: bool) -> bool:
    tag = el.tag if isinstance(el.tag, str) else ""
    if tag in _BOILERPLATE_TAGS or (tag == "header" and not in_main):
        return True
    attributes = el.attrib
    if not attributes:  # most elements: nothing below can hold
        return False
    get = attributes.get
    if (get("role") or "").lower() in _BOILERPLATE_ROLES:
        return True
    if get("hidden") is not None or (get("aria-hidden") or "").lower() == "true":
        return True
    tokens = set((get("class") or "").lower().split()) | {(get("id") or "").lower()}
    if tokens & _BOILERPLATE_TOKENS:
        return True
    style = (get("style") or "").replace(" ", "").lower()
    return "display:none" in style


def _main_content(root: etree._Element) -> tuple[etree._Element | None, bool]:
    for query in ("//main", "//*[@role='main']", "//article"):
        found = root.xpath(query)
        if len(found) == 1:
            return found[0], True
    bodies = root.xpath("//body")
    return (bodies[0] if bodies else root), False


def parse_html_main(data: bytes, charset: str | None = None) -> ParsedXhtml:
    """Blocks of a web page's main content (see the module docstring)."""
    if not data.strip():
        return ParsedXhtml(raw_text="", blocks=[])
    source: bytes | str = data
    if charset:
        # A byte the charset does not define: libxml2, given the charset, stops at the
        # first one and drops the rest of the page (a UTF-8 page declared windows-1252
        # kept 34 characters of 2,600). Decoded here, it becomes U+FFFD instead.
        with contextlib.suppress(LookupError):
            try:
                data.decode(charset)
            except UnicodeDecodeError:
                source, charset = data.decode(charset, errors="replace"), None
    parser = lxml.html.HTMLParser(encoding=charset, remove_comments=True,
                                  remove_pis=True, no_network=True)
    try:
        root = lxml.html.document_fromstring(source, parser=parser)
    except (etree.ParserError, LookupError, ValueError):
        return ParsedXhtml(raw_text="", blocks=[])
    main, in_main = _main_content(root)
    if main is None:
        return ParsedXhtml(raw_text="", blocks=[])
    for el in list(main.iter()):
        if el is not main and el.getparent() is not None and _is_boilerplate(el, in_main):
            el.drop_tree()  # keeps the element's tail text in place
    titles = root.xpath("//title")
    parsed = parse_body(main, collapse_whitespace=True)
    parsed.title = (titles[0].text_content().strip() or None) if titles else None
    return parsed


def html_page(data: bytes, metadata: Mapping[str, list[str]]) -> ParsedXhtml:
    """A web page's main content, read from its own bytes (``parse_html_main``)."""
    try:
        return parse_html_main(data, tika_charset(metadata))
    except LookupError:  # a charset name Python does not know
        return parse_html_main(data)


class HtmlReader(Reader):
    """Web pages: the main content read from the page's own bytes, so that boilerplate
    can be told from content; of Tika's XHTML only the ``<head>``. A page without
    text of its own there: Tika's XHTML, by HTML's whitespace rule."""

    name = "html"
    media_types = frozenset(HTML_MEDIA_TYPES)

    def structure(self, fetched: FetchedFile, xhtml: str, media_type: str,
                  metadata: Mapping[str, list[str]]) -> ParsedXhtml:
        page = html_page(fetched.data, metadata)
        if page.raw_text.strip():  # of Tika's XHTML only its <head> is read: not walked
            head = parse_tika_xhtml(xhtml, body_text=False)
            page.head_metadata, page.title = head.head_metadata, page.title or head.title
            return page
        return parse_tika_xhtml(xhtml, collapse_whitespace=True)


class EpubReader(Reader):
    """E-books: XHTML inside, read by HTML's whitespace rule, without the navigation
    document's ``<nav>`` (the reading system's contents, not the book's text)."""

    name = "epub"
    media_types = frozenset({"application/epub+zip"})

    def structure(self, fetched: FetchedFile, xhtml: str, media_type: str,
                  metadata: Mapping[str, list[str]]) -> ParsedXhtml:
        return parse_tika_xhtml(xhtml, collapse_whitespace=True, skip_navigation=True)
