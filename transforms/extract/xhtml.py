"""Tika XHTML → ordered blocks with pages and raw offsets.

Tika's XHTML output keeps what plain text loses: one ``<div class="page">`` per
PDF page (or slide), headings ``<h1>``…``<h6>``, paragraphs, list items, tables
and preformatted text. This module walks that tree once and returns

* ``raw_text``: every text node of ``<body>`` joined in document order (the
  same definition ``shared/corpus/headers_truth.json`` uses for its lines), and
* ``blocks``: the structural units in reading order, each with its page number
  and its ``[raw_start, raw_end)`` range in ``raw_text``.

Tables become one block whose rows are ``cell | cell | …`` lines, so a table is
never torn apart by later stages.

Embedded resources are left out, each recorded in ``embedded``: Tika parses a
document's attachments and embedded files (a PDF's attached job options, an
e-mail's attachments, an archive's members, a DOCX's images) and writes their
text into the parent's body, after a marker ``<div class="embedded" id=NAME/>``
(the resource's text follows it as siblings) or inside ``<div
class="package-entry"><h1>NAME</h1>…</div>``. Concatenated, a 3-page paper
got 104 chunks of Acrobat Distiller settings. An e-mail's own body parts are
package entries without a name, and stay. An RFC 822 message's attachments
are ``<div class="email-entry">`` parts exactly like its body: the caller
says which entries are attachments (``email_entries``, from the message's
MIME structure), and those are left out too.

A PDF page's annotations are not its text either: after each page's text Tika
writes every annotation it has as a ``<div class="annotation">`` (PDFBox's
``PDAnnotation``s: a link's URI as ``<a href=URI>URI</a>``, a comment's title,
subject and contents as ``<div class="annotationTitle">``…). As text they made
chunks of bare ``https://…/ExternalLink/EDGAR/…`` strings, and a data sheet's
template links sat in 41 chunks. They are kept apart, each with its page:
``links`` (every link's URI) and ``annotations`` (other annotation text), which
the document's metadata holds (``reader.annotation_metadata``), never its text.
A word processor's comments (DOCX: ``<div class="comment">`` after
the paragraph they remark on) are a reviewer's notes, not the document's words: kept
the same way, as annotations.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from lxml import etree

from ragbeam.transforms.extract.text_bytes import windows_1252_text
from ragbeam.transforms.types import Block, BlockKind

_HEADINGS = {f"h{i}": i for i in range(1, 7)}
_LIST_ITEMS = {"li", "dt", "dd"}
_PARAGRAPHS = {"p", "blockquote", "caption", "figcaption", "address", "title"}
_CODE = {"pre"}
_TABLE = "table"
_ROW = "tr"
_CELLS = {"td", "th"}
# Containers: flushing the current block at their edges keeps unrelated text
# apart, but they do not form blocks of their own.
_CONTAINERS = {"div", "section", "article", "main", "body", "ul", "ol", "dl", "form",
               "header", "footer", "nav", "aside", "fieldset", "figure", "tbody", "thead",
               "tfoot"}
_SKIPPED = {"script", "style", "head", "noscript", "template"}
# A web page laid out with a table (old sites put the whole page in one cell): a
# cell holding this much text is prose, not data. Data cells, infobox cells
# included, are far shorter.
LAYOUT_CELL_CHARS = 2000
_LAYOUT_PARTS = {_ROW, *_CELLS}
_NOTE = "note"  # Tika's class of a footnote's or an endnote's paragraph (OpenDocument)
_BREAKS = {"br"}
# HTML's whitespace rule (``collapse_whitespace``): in a web page or an e-book, a line
# break in the source is formatting, like a space; only <br> and <pre> break lines.
_SOURCE_LINE_BREAK = re.compile(r"[ \t\r\f\n]*\n[ \t\r\f\n]*")
# Tika wraps each PDF page in <div class="page"> and each PPTX slide in
# <div class="slide-content">: both become pages.
_PAGE_CLASSES = {"page", "slide-content"}
_EMBEDDED = "embedded"
_PACKAGE_ENTRY = "package-entry"
_EMAIL_ENTRY = "email-entry"
_ANNOTATION = "annotation"
_COMMENT = "comment"  # a DOCX's comment, after the paragraph it remarks on
# The parts of a markup annotation (a comment) Tika writes, each a <div class=…>.
_ANNOTATION_PARTS = ("annotationTitle", "annotationSubject", "annotationContents")
EMBEDDED_LEFT_OUT_REASON = ("embedded resource: not extracted as a document of its own, "
                            "left out of the parent's text")


# Local names by tag ({namespace}name), remembered: a document has few distinct tags
# and many elements (a bound keeps a hostile document from growing it without end).
_LOCAL_NAMES: dict[object, str] = {}
_LOCAL_NAMES_KEPT = 4096


def _local(tag: object) -> str:
    name = _LOCAL_NAMES.get(tag)
    if name is None:
        # comments and processing instructions (a function as tag): ""
        name = tag.rsplit("}", 1)[-1].lower() if isinstance(tag, str) else ""
        if len(_LOCAL_NAMES) < _LOCAL_NAMES_KEPT:
            _LOCAL_NAMES[tag] = name
    return name


def _classes(el: etree._Element) -> list[str]:
    return (el.get("class") or "").split() if isinstance(el.tag, str) else []


@dataclass
class EmbeddedResource:
    """An embedded resource left out of its parent's text."""

    name: str
    source: str  # Tika's ``source`` attribute ("attachment", "inline") or the marker kind
    chars: int = 0  # characters of text Tika had extracted from it

    def record(self) -> dict[str, str | int]:
        return {"name": self.name, "source": self.source, "chars": self.chars,
                "reason": EMBEDDED_LEFT_OUT_REASON}


def _embedded_resource(el: etree._Element) -> EmbeddedResource | None:
    """The resource an element opens, if it is an embedded-resource marker or a
    named package entry (an e-mail's body parts are unnamed entries: content).
    ``chars`` counts the text inside the element, its name heading aside."""
    if _local(el.tag) != "div":
        return None
    classes = _classes(el)
    if _EMBEDDED not in classes and _PACKAGE_ENTRY not in classes:
        return None
    name_heading = next((child for child in el.iter() if _local(child.tag) == "h1"), None)
    name = " ".join("".join(name_heading.itertext()).split()) if name_heading is not None \
        else ""
    if _EMBEDDED not in classes and not (name and _local(el[0].tag) == "h1"
                                         and not (el.text or "").strip()):
        return None
    chars = _text_length(el) - (_text_length(name_heading) if name_heading is not None else 0)
    return EmbeddedResource(el.get("id") or name, el.get("source") or classes[0], chars)


def _text_length(el: etree._Element) -> int:
    return sum(len(text) for text in el.itertext()) if isinstance(el.tag, str) else 0


@dataclass(frozen=True)
class Annotation:
    """A PDF annotation Tika wrote after its page's text: a link's URI, or a
    comment's title, subject and contents (whichever it has); or a DOCX's
    comment (its contents)."""

    page: int | None
    uri: str | None = None
    title: str | None = None
    subject: str | None = None
    contents: str | None = None

    def record(self) -> dict[str, str | int]:
        return {key: value for key, value in (
            ("page", self.page), ("uri", self.uri), ("title", self.title),
            ("subject", self.subject), ("contents", self.contents)) if value is not None}


def _annotations(el: etree._Element, page: int | None) -> list[Annotation]:
    """What one ``<div class="annotation">`` holds: its links and its markup text."""
    found = [Annotation(page, uri=href.strip()) for a in el.iter()
             if _local(a.tag) == "a" and (href := a.get("href") or "".join(a.itertext()))
             and href.strip()]
    parts = {name: " ".join("".join(part.itertext()).split()) or None
             for part in el.iter() for name in _ANNOTATION_PARTS if name in _classes(part)}
    if any(parts.values()):
        found.append(Annotation(page, title=parts.get("annotationTitle"),
                                subject=parts.get("annotationSubject"),
                                contents=parts.get("annotationContents")))
    return found


@dataclass
class ParsedXhtml:
    raw_text: str
    blocks: list[Block]
    head_metadata: dict[str, str] = field(default_factory=dict)
    page_count: int = 0
    title: str | None = None
    embedded: list[EmbeddedResource] = field(default_factory=list)
    # A PDF's annotations and an office file's comments, left out of the text
    # (the module's doc).
    annotations: list[Annotation] = field(default_factory=list)


@dataclass
class _Walker:
    parts: list[str] = field(default_factory=list)  # raw text pieces
    length: int = 0
    blocks: list[Block] = field(default_factory=list)
    page: int | None = None
    pages_seen: int = 0
    # current block being accumulated
    buf: list[str] = field(default_factory=list)
    buf_start: int = -1
    embedded: list[EmbeddedResource] = field(default_factory=list)
    annotations: list[Annotation] = field(default_factory=list)
    # Tika's markers of embedded resources count (not in a web page's own HTML,
    # where class="embedded" is just a class name).
    tika_markers: bool = False
    # Per e-mail entry, in order: an attachment's name, or None for the body.
    email_entries: list[str | None] | None = None
    email_entries_seen: int = 0
    # HTML semantics (web pages, e-books): source line breaks outside <pre> are spaces.
    collapse_whitespace: bool = False
    verbatim_depth: int = 0  # inside <pre>
    skip_navigation: bool = False  # an e-book's <nav> (``parse_tika_xhtml``)
    # Per open paragraph: the notes inside it, read after it (None: a container,
    # whose notes stay where they are).
    notes: list[list[etree._Element] | None] = field(default_factory=list)

    @property
    def tika_classes(self) -> bool:
        """Are a div's classes Tika's own (``annotation``, ``comment``)? In an HTML
        document (a web page, an e-book's chapters) Tika passes the author's class
        attributes through: a chapter's ``<div class="comment">`` is the book's text."""
        return self.tika_markers and not self.collapse_whitespace

    def text(self, value: str | None) -> None:
        if value and self.collapse_whitespace and not self.verbatim_depth:
            value = _SOURCE_LINE_BREAK.sub(" ", value)
            if self.buf and self.buf[-1].endswith("\n"):  # a line starts after <br>
                value = value.lstrip(" ")
        self._append(value)

    def _append(self, value: str | None) -> None:
        if not value:
            return
        if self.buf_start < 0:
            self.buf_start = self.length
        self.parts.append(value)
        self.buf.append(value)
        self.length += len(value)

    def flush(self, kind: BlockKind = BlockKind.PARAGRAPH, level: int = 0,
              detached: bool = False) -> None:
        if self.buf:
            text = "".join(self.buf)
            if text.strip():
                self.blocks.append(
                    Block(kind=kind, text=text, page=self.page, level=level,
                          raw_start=self.buf_start, raw_end=self.length, detached=detached)
                )
        self.buf = []
        self.buf_start = -1

    def walk(self, el: etree._Element) -> None:
        if not isinstance(el.tag, str):  # comment or processing instruction: no text
            self.text_tail(el)
            return
        name = _local(el.tag)
        if name in _SKIPPED or (name == "nav" and self.skip_navigation):
            self.text_tail(el)
            return
        classes = (el.get("class") or "").split() if name == "div" else ()
        if _ANNOTATION in classes and self.tika_classes:
            # A PDF annotation Tika wrote after the page's text: kept apart, with
            # its page, never as text (the module's doc).
            self.flush()
            self.annotations.extend(_annotations(el, self.page))
            self.text_tail(el)
            return
        if _COMMENT in classes and self.tika_classes:
            self.flush()
            if contents := " ".join(_own_text(el, []).split()):
                self.annotations.append(Annotation(self.page, contents=contents))
            self.text_tail(el)
            return
        if _PAGE_CLASSES.intersection(classes):
            self.flush()
            self.pages_seen += 1
            self.page = self.pages_seen
            self.children(el)
            self.flush()
            if "page" in classes:
                # What follows a PDF page (the outline, attachments) is on no page;
                # what follows a slide (its notes) belongs to that slide.
                self.page = None
        elif name == _TABLE and not (self.collapse_whitespace and _is_layout_table(el)):
            self.flush()
            self.table(el)
        elif name == _TABLE or name in _LAYOUT_PARTS:
            # A layout table (web pages): its rows and cells are containers of blocks.
            self.flush()
            self.children(el)
            self.flush()
        elif name in _HEADINGS:
            self.flush()
            self.children(el)
            self.flush(BlockKind.HEADING, _HEADINGS[name])
        elif name in _LIST_ITEMS:
            self.flush()
            self.children(el)
            self.flush(BlockKind.LIST_ITEM)
        elif name in _CODE:
            self.flush()
            self.verbatim_depth += 1
            self.children(el)
            self.verbatim_depth -= 1
            self.flush(BlockKind.CODE)
        elif (name == "p" and self.notes and self.notes[-1] is not None
              and _NOTE in (el.get("class") or "").split()):
            # A footnote Tika writes where its mark is, inside the paragraph (an
            # OpenDocument text's notes): it follows the paragraph, whose sentence
            # stays whole ("Some text with a footnote.", then "1 Footnote text").
            self.notes[-1].append(el)
            self.text_tail(el)
            return
        elif name in _PARAGRAPHS or name in _CONTAINERS:
            self.flush()
            self.notes.append([] if name in _PARAGRAPHS else None)
            self.children(el)
            self.flush()
            for note in self.notes.pop() or ():
                self.flush()
                self.children(note)
                self.flush()
        elif name in _BREAKS:
            self._append("\n")
        else:  # inline element: its text belongs to the current block
            self.children(el)
        self.text_tail(el)

    def children(self, el: etree._Element) -> None:
        self.text(el.text)
        # The resource whose text is running: an empty marker's resource lasts
        # until the next page, resource or the end of the parent.
        resource: EmbeddedResource | None = None
        for child in el:
            opened = (_embedded_resource(child) or self._email_attachment(child)
                      if self.tika_markers else None)
            if resource is not None and opened is None and not _PAGE_CLASSES.intersection(
                    _classes(child)):
                resource.chars += _text_length(child) + len(child.tail or "")
                continue
            if resource is not None and opened is not None and opened.name == resource.name:
                # An archive member: Tika writes a marker, then the member's entry.
                resource.chars += opened.chars + len(child.tail or "")
                continue
            resource = None
            if opened is None:
                self.walk(child)
                continue
            self.flush()
            self.embedded.append(opened)
            if len(child) or (child.text or "").strip():
                self.text_tail(child)  # a resource inside its element: the tail is the parent's
            else:
                resource = opened
                resource.chars += len(child.tail or "")

    def _email_attachment(self, el: etree._Element) -> EmbeddedResource | None:
        if self.email_entries is None or _EMAIL_ENTRY not in _classes(el):
            return None
        index = self.email_entries_seen
        self.email_entries_seen += 1
        name = self.email_entries[index] if index < len(self.email_entries) else None
        return EmbeddedResource(name, "email-attachment", _text_length(el)) if name else None

    def text_tail(self, el: etree._Element) -> None:
        # The tail is text *after* the element, inside its parent.
        self.text(el.tail)

    def table(self, el: etree._Element) -> None:
        """Render a table as one block of ``cell | cell`` rows.

        A table nested in a cell (an HTML e-mail's layout, a form in a word
        processor's table) is not the cell's text: the cell keeps its own text and
        each nested table becomes a table block of its own after this one, so no
        text is written twice (the outer cell's whole text, then the inner rows)."""
        start = self.length
        rows: list[str] = []
        nested: list[etree._Element] = []
        for row in el.iter():
            if _local(row.tag) != _ROW or _nearest_table(row) is not el:
                continue
            cells = []
            for cell in row:
                if _local(cell.tag) in _CELLS:
                    cell_text = _own_text(cell, nested)
                    self.parts.append(cell_text)
                    self.length += len(cell_text)
                    cells.append(" ".join(cell_text.split()))
            if any(cells):
                rows.append(" | ".join(cells))
        if rows:
            self.blocks.append(
                Block(kind=BlockKind.TABLE, text="\n".join(rows), page=self.page,
                      raw_start=start, raw_end=self.length)
            )
        for inner in nested:
            self.table(inner)


# What separates a cell's lines: a <br>, or a block inside the cell (a word processor
# writes each paragraph of a cell as <p>). Without it "Revenue<br>in million" reads
# "Revenuein million".
_CELL_LINE_BREAKS = (_BREAKS | _PARAGRAPHS | _CONTAINERS | _LIST_ITEMS | set(_HEADINGS)
                     | _CODE)


def _own_text(el: etree._Element, nested: list[etree._Element]) -> str:
    """The text of a table cell less the tables inside it (appended to ``nested``,
    outermost first; their tails are the cell's text); a line break or a block inside
    the cell starts a new line."""
    parts = [el.text or ""] if isinstance(el.tag, str) else []
    for child in el:
        name = _local(child.tag) if isinstance(child.tag, str) else ""
        if name == _TABLE:
            nested.append(child)
        elif name in _CELL_LINE_BREAKS:
            parts.extend(("\n", _own_text(child, nested), "\n"))
        elif name:
            parts.append(_own_text(child, nested))
        parts.append(child.tail or "")
    return "".join(parts)


def _is_layout_table(table: etree._Element) -> bool:
    """A table that lays out a page rather than holding data: a cell of its own (not
    of a table inside it) with ``LAYOUT_CELL_CHARS`` or more of text."""
    for row in table.iter():
        if _local(row.tag) != _ROW or _nearest_table(row) is not table:
            continue
        for cell in row:
            if _local(cell.tag) in _CELLS and _text_length(cell) >= LAYOUT_CELL_CHARS:
                return True
    return False


def _nearest_table(el: etree._Element) -> etree._Element | None:
    parent = el.getparent()
    while parent is not None and _local(parent.tag) != _TABLE:
        parent = parent.getparent()
    return parent


# Tika's XHTML of a plain text file: its head, then the whole text as one paragraph.
_ONE_PARAGRAPH = re.compile(r"(.*?<body>\s*<p>)(.*)(</p>\s*</body>.*)", re.DOTALL)
# What XML 1.0 cannot hold (Tika writes U+FFFD for them too); C1 characters it can.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def is_text_file_xhtml(xhtml: str) -> bool:
    """Whether Tika's XHTML is that of a text file (its whole text one paragraph), not
    of markup it parsed (a web page's elements)."""
    return _ONE_PARAGRAPH.fullmatch(xhtml) is not None


def with_file_text(xhtml: str, data: bytes, charset: str | None = None) -> str:
    """Tika's XHTML of a text file (plain text, Markdown) with its text replaced by the
    file's bytes decoded as UTF-8, where they are UTF-8 and Tika's text is not that; or
    as Windows-1252, where Tika read them as ISO-8859-1 (``charset``) and they hold the
    bytes 0x80–0x9F (``text_bytes.windows_1252_text``: "€", "“", "–" were U+FFFD).

    Two ways Tika's text of such a file loses characters: its charset detector takes a
    UTF-8 file with a few non-ASCII characters for ISO-8859-1 (a licence's "“Licensor.”"
    became "â��Licensor.â��"), and its XHTML writes U+FFFD for every C1 character, the
    very bytes a double-encoded file's "1986â\x80\x931990" needs to be decoded back
    (``clean/text.repair_mojibake``). Bytes that decode as UTF-8 are, with near
    certainty, UTF-8 (a Latin-1 or Windows-1252 text forms valid multi-byte sequences
    only by accident); anything else keeps Tika's reading.
    """
    if data.isascii():
        return xhtml
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = windows_1252_text(data, charset)
        if text is None:
            return xhtml
    match = _ONE_PARAGRAPH.fullmatch(xhtml)
    if match is None or "<p>" in match.group(2) or "</p>" in match.group(2):
        return xhtml
    return match.group(1) + _escaped(text) + match.group(3)


def text_file_xhtml(text: str, media_type: str) -> str:
    """XHTML as Tika writes it for a text file of ``media_type``: its whole text one
    paragraph (``is_text_file_xhtml``)."""
    return ('<html xmlns="http://www.w3.org/1999/xhtml">\n<head>\n'
            f'<meta name="Content-Type" content="{media_type}" />\n<title></title>\n'
            f'</head>\n<body><p>{_escaped(text)}</p>\n</body></html>')


def _escaped(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text).replace("&", "&amp;").replace("<", "&lt;").replace(
        ">", "&gt;")


def tika_charset(metadata: Mapping[str, list[str]]) -> str | None:
    """The charset Tika detected (``Content-Type``'s parameter, or ``Content-Encoding``)."""
    for param in (_first_value(metadata, "Content-Type") or "").split(";")[1:]:
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset" and value.strip():
            return value.strip().strip('"')
    return _first_value(metadata, "Content-Encoding")


def _first_value(metadata: Mapping[str, list[str]], key: str) -> str | None:
    return next((v.strip() for v in metadata.get(key, ()) if v and v.strip()), None)


def parse_tika_xhtml(xhtml: str, email_entries: list[str | None] | None = None,
                     collapse_whitespace: bool = False, body_text: bool = True,
                     skip_navigation: bool = False) -> ParsedXhtml:
    """Parse Tika's XHTML into raw text, blocks and ``<head>`` metadata.

    ``email_entries``: for an e-mail, which of Tika's ``email-entry`` parts are
    attachments (``mail.body_parts``); ignored unless it has one item per entry.
    ``collapse_whitespace``: the document was HTML (a web page, an e-book), whose
    source line breaks Tika keeps in the text: they become spaces, as a browser
    shows them. Not for PDFs, whose line breaks are the printed lines cleaning reads.
    ``body_text=False``: the ``<head>`` only (no text, no blocks), for a caller that
    reads the body from elsewhere (a web page's own HTML: ``html.HtmlReader``).
    ``skip_navigation``: ``<nav>`` elements are no text (an e-book's navigation
    document: the reading system's table of contents, landmarks and page list, whose
    "Table of Contents" heading would head every chapter after it).
    """
    parser = etree.XMLParser(recover=True, huge_tree=True, resolve_entities=False,
                             no_network=True)
    root = etree.fromstring(xhtml.encode("utf-8"), parser=parser) if xhtml.strip() else None
    if root is None:
        return ParsedXhtml(raw_text="", blocks=[])
    head_meta: dict[str, str] = {}
    title = None
    body = None
    for el in root:
        name = _local(el.tag)
        if name == "head":
            for meta in el:
                mname = _local(meta.tag)
                if mname == "meta" and meta.get("name"):
                    head_meta.setdefault(meta.get("name"), meta.get("content") or "")
                elif mname == "title" and (meta.text or "").strip():
                    title = meta.text.strip()
        elif name == "body":
            body = el
    if not body_text:
        return ParsedXhtml(raw_text="", blocks=[], head_metadata=head_meta, title=title)
    if email_entries is not None and body is not None and len(email_entries) != sum(
            1 for el in body.iter() if _EMAIL_ENTRY in _classes(el)):
        email_entries = None  # the message's structure and Tika's parts disagree: keep all
    parsed = parse_body(body, email_entries, tika_markers=True,
                        collapse_whitespace=collapse_whitespace,
                        skip_navigation=skip_navigation)
    parsed.head_metadata, parsed.title = head_meta, title
    return parsed


def parse_body(body: etree._Element | None,
               email_entries: list[str | None] | None = None, *,
               tika_markers: bool = False, collapse_whitespace: bool = False,
               skip_navigation: bool = False) -> ParsedXhtml:
    """Blocks and raw text of one (X)HTML element tree, Tika's or a web page's
    (``tika_markers``: Tika's embedded-resource markers are honoured;
    ``collapse_whitespace``: see ``parse_tika_xhtml``)."""
    walker = _Walker(tika_markers=tika_markers, email_entries=email_entries,
                     collapse_whitespace=collapse_whitespace,
                     skip_navigation=skip_navigation)
    if body is not None:
        walker.children(body)
        walker.flush()
    return ParsedXhtml(
        raw_text="".join(walker.parts),
        blocks=walker.blocks,
        page_count=walker.pages_seen,
        embedded=walker.embedded,
        annotations=walker.annotations,
    )
