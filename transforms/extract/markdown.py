"""Markdown → blocks, from markdown-it-py's token stream.

Tika reads Markdown as plain text, so its headings, lists, code fences and
tables would be lost. This module parses the text Tika returned (its raw
text, so raw offsets keep one meaning across formats) and turns block tokens
into ``Block``s: ``token.map`` gives each block's source line range, which
becomes its ``[raw_start, raw_end)``.

* headings → HEADING with their level and the heading's words (no ``#``, inline markup
  or attribute block ``{#id .class}``);
* paragraphs → PARAGRAPH (LIST_ITEM inside a list), their source lines as
  written, inline markup included;
* fenced and indented code → CODE (the code only, fences dropped);
* tables → one TABLE block of ``cell | cell`` rows, a link in a cell as its words
  (``clean/links.markdown_link_words``; cleaning does the same for the other blocks);
* links' targets → ``extract_links`` metadata (``markdown_links``), as a PDF's link
  annotations are: the document's links, not its text;
* MkDocs admonitions (``??? question "…"`` / ``!!! note``) and content tabs (``=== "…"``)
  are read with their indented body dedented, so the headings and paragraphs inside them
  count (and the blocks nested in them); the opening line is markup, its quoted title
  a paragraph (none where the body's first heading says the same);
* raw HTML blocks are their text (a ``<table>`` a TABLE block of its rows, an ``<h1>`` …
  ``<h6>`` holding all of it a HEADING); one with no
  text (``<div align="center">``, a page-break ``<div>``, an image, a comment) is
  left out: markup, not words;
* plain text is read as Markdown when it is written so (``reads_as_markdown``: ATX
  headings set apart by blank lines, at least ``MIN_MARKDOWN_HEADINGS`` of them and
  most of the text's ``#`` lines; a script's or a configuration's ``#`` comments sit
  on their code);
* a YAML front-matter block (``---`` … ``---`` at the top) or a Pandoc title block
  (``% Title``, ``% Author``, ``% Date``) is metadata, not text: its scalar fields are
  returned by ``markdown_front_matter``.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate

import lxml.html
import yaml
from lxml import etree
from markdown_it import MarkdownIt
from markdown_it.token import Token

from ragbeam.transforms.clean.links import LINKS_KEY, markdown_link_words
from ragbeam.transforms.extract.reader import Reader, TikaMetadata
from ragbeam.transforms.extract.text_bytes import decoded
from ragbeam.transforms.extract.xhtml import (
    ParsedXhtml,
    is_text_file_xhtml,
    parse_tika_xhtml,
    tika_charset,
    with_file_text,
)
from ragbeam.transforms.types import Block, BlockKind, FetchedFile

MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdown", ".mkd")
MARKDOWN_MEDIA_TYPES = {"text/markdown", "text/x-markdown", "text/x-web-markdown"}
# An MkDocs admonition's opening line: its marker, type, modifiers and optional quoted title
# ('??? question "Is Python 3.14 supported?"', '!!! note inline end', '???+ tip ""'); a
# content tab's ('=== "Debian-based"'). Each opens a block of lines indented one level.
_ADMONITION = re.compile(r'^(?:\?\?\?\+?|!!!)\s+\w[\w-]*(?:\s+[\w-]+)*(?:\s+"(?P<title>[^"]*)")?')
_CONTENT_TAB = re.compile(r'^===\+?\s+"(?P<title>[^"]*)"\s*$')
# The words of an ATX heading line, without its closing hashes.
_ATX_HEADING_WORDS = re.compile(r"^ {0,3}#{1,6}\s+(?P<words>.*?)(?:\s+#+)?\s*$")
_INDENT = "    "
MAX_FRONT_MATTER_LINES = 200


def is_markdown(uri: str, media_type: str) -> bool:
    """Markdown by media type, or by extension when Tika saw text.

    Content wins over the name where the content is no text: a PDF called
    ``notes.md`` stays a PDF. A text type is Tika's guess from the first bytes, and
    Markdown often opens with what it mistakes for another language: a Pandoc
    title block's ``%`` (MATLAB to Tika), an HTML block (``<h1 align="center">``,
    ``<div align="center">``: an HTML page to Tika) above a README's Markdown.
    """
    if media_type in MARKDOWN_MEDIA_TYPES:
        return True
    return media_type.startswith("text/") and uri.lower().endswith(MARKDOWN_SUFFIXES)


# An ATX heading line ("## Results"); "#!/bin/sh" and "#include" are no headings.
_ATX_HEADING = re.compile(r"^#{1,6}[ \t]+\S.*$", re.MULTILINE)
_HASH_LINE = re.compile(r"^#", re.MULTILINE)
MIN_MARKDOWN_HEADINGS = 3


def reads_as_markdown(text: str) -> bool:
    """Is this plain text written in Markdown? At least ``MIN_MARKDOWN_HEADINGS`` ATX
    headings standing alone (a blank line, or the text's edge, before and after), and
    those at least half the lines that start with ``#``: Markdown sets its headings
    apart, where a script's or a configuration's ``#`` comments run on into their code."""
    hash_lines = len(_HASH_LINE.findall(text))
    if hash_lines < MIN_MARKDOWN_HEADINGS:
        return False
    standing = 0
    for match in _ATX_HEADING.finditer(text):
        start = match.start()
        before = text[text.rfind("\n", 0, start - 1) + 1:start - 1] if start else ""
        after_start = text.find("\n", match.end()) + 1
        after_end = text.find("\n", after_start) if after_start else -1
        after = text[after_start:after_end if after_end >= 0 else len(text)] if after_start else ""
        standing += not before.strip() and not after.strip()
    return standing >= MIN_MARKDOWN_HEADINGS and 2 * standing >= hash_lines


def _html_block(html: str, span: tuple[int, int]) -> Block | None:
    """A raw HTML block as the words it shows: a table's rows, else its text; None for
    markup alone (no text)."""
    try:
        root = lxml.html.fragment_fromstring(html, create_parent="div")
    except (etree.ParserError, ValueError):
        return None
    etree.strip_elements(root, etree.Comment, "script", "style", with_tail=False)
    rows = [" | ".join(" ".join(cell.text_content().split()) for cell in row.iter("td", "th"))
            for row in root.iter("tr")]
    if rows := [row for row in rows if row.strip(" |")]:
        return Block(BlockKind.TABLE, "\n".join(rows), raw_start=span[0], raw_end=span[1])
    words = " ".join(root.text_content().split())
    if not words:
        return None
    # A README's centred banner heading (<h1 align="center">…</h1>) is a heading.
    headings = [el for el in root.iter("h1", "h2", "h3", "h4", "h5", "h6")
                if " ".join(el.text_content().split()) == words]
    if headings:
        return Block(BlockKind.HEADING, words, level=int(headings[0].tag[1]),
                     raw_start=span[0], raw_end=span[1])
    return Block(BlockKind.PARAGRAPH, words, raw_start=span[0], raw_end=span[1])


def _read_admonitions(lines: list[str]) -> tuple[list[str], dict[int, str]]:
    """The lines as the parser reads them, and the admonition titles that are words.

    An admonition's (or a content tab's) body is dedented by one level, so the headings,
    paragraphs and code inside it count, and read again for the blocks nested in it. Its
    opening line is markup, blanked, except its quoted title, which a reader sees as the
    box's caption (the tab's label): returned by line number, to stand as a paragraph at
    the head of its body, unless the body opens with a heading that says the same (an
    FAQ's '??? question "Q"' over '### Q'). Left as text, the line would close the
    section before it with the next box's title. The line count never changes."""
    out: list[str] = []
    titles: dict[int, str] = {}
    n = 0
    while n < len(lines):
        match = _ADMONITION.match(lines[n]) or _CONTENT_TAB.match(lines[n])
        if match is None:
            out.append(lines[n])
            n += 1
            continue
        end = n + 1
        while end < len(lines) and (lines[end].startswith(_INDENT) or not lines[end].strip()):
            end += 1
        body, inner = _read_admonitions([line[len(_INDENT):] if line.startswith(_INDENT)
                                         else line for line in lines[n + 1:end]])
        out += ["", *body]
        titles.update({n + 1 + k: title for k, title in inner.items()})
        title = " ".join((match["title"] or "").split())
        first = next((line for line in body if line.strip()), "")
        heading = _ATX_HEADING_WORDS.match(first)
        if title and not (heading and " ".join(heading["words"].split()).casefold()
                          == title.casefold()):
            titles[n] = title
        n = end
    return out, titles


# A Pandoc title block: up to three leading ``%`` lines (title, authors, date), each
# going on over lines that start with a space.
_TITLE_BLOCK_FIELDS = ("title", "author", "date")


def _title_block(lines: list[str]) -> tuple[int, dict[str, str]]:
    """How many leading lines are a Pandoc title block, and its fields."""
    fields: list[list[str]] = []
    n = 0
    for line in lines:
        if line.startswith("%") and len(fields) < len(_TITLE_BLOCK_FIELDS):
            fields.append([line[1:]])
        elif fields and line[:1] in (" ", "\t") and line.strip():
            fields[-1].append(line)
        else:
            break
        n += 1
    values = {name: " ".join(" ".join(parts).split())
              for name, parts in zip(_TITLE_BLOCK_FIELDS, fields, strict=False)}
    return n, {k: v for k, v in values.items() if v}


def _front_matter_lines(lines: list[str]) -> int:
    """How many leading lines are a YAML front-matter block (``---`` … ``---``) or a
    Pandoc title block (``% Title`` / ``% Author`` / ``% Date``)."""
    if lines and lines[0].startswith("%"):
        return _title_block(lines)[0]
    if not lines or lines[0].strip() != "---":
        return 0
    for i, line in enumerate(lines[1:MAX_FRONT_MATTER_LINES], start=1):
        if line.strip() in ("---", "..."):
            return i + 1
    return 0


def markdown_front_matter(text: str) -> dict[str, str]:
    """Scalar fields of a YAML front-matter block (``title``, ``author`` …), or a Pandoc
    title block's ``title``, ``author`` and ``date``, if any."""
    lines = text.split("\n")
    if lines and lines[0].startswith("%"):
        return _title_block(lines)[1]
    n = _front_matter_lines(lines)
    if not n:
        return {}
    try:
        data = yaml.safe_load("\n".join(lines[1:n - 1]))
    except yaml.YAMLError:
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): str(v) for k, v in data.items()
            if isinstance(v, str | int | float | bool) and str(v).strip()}


MAX_RECORDED_LINKS = 2000


def markdown_links(text: str) -> list[str]:
    """The targets of a Markdown text's links, as the parser reads them (code is no
    link), each once, in order."""
    lines = text.split("\n")
    skipped = _front_matter_lines(lines)
    parsed_lines, _ = _read_admonitions(lines[skipped:])
    tokens = _parser().parse("\n".join([""] * skipped + parsed_lines))
    found = [child.attrs["href"] for token in tokens if token.type == "inline"
             for child in token.children or () if child.type == "link_open"
             and isinstance(child.attrs.get("href"), str) and child.attrs["href"]]
    # A target written in quotes ('[words]("https://…")') is read with them, encoded.
    return list(dict.fromkeys(uri[3:-3] if uri.startswith("%22") and uri.endswith("%22")
                              and len(uri) > 6 else uri for uri in found))


def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table")


def parse_markdown_blocks(text: str) -> list[Block]:
    lines = text.split("\n")
    # Offset of the start of each line; one past the end for the final line.
    starts = [0, *accumulate(len(line) + 1 for line in lines)]
    # Front matter is metadata (see ``markdown_front_matter``), not text: its
    # lines are blanked for the parser, which keeps every line number.
    skipped = _front_matter_lines(lines)
    parsed_lines, titles = _read_admonitions(lines[skipped:])
    tokens = _parser().parse("\n".join([""] * skipped + parsed_lines))
    # Admonition titles stand as paragraphs where their line is, in document order.
    pending = [Block(BlockKind.PARAGRAPH, title, raw_start=starts[skipped + n],
                     raw_end=starts[skipped + n] + len(lines[skipped + n]))
               for n, title in sorted(titles.items())]

    def raw_range(token: Token) -> tuple[int, int]:
        first, last = token.map or (0, 0)
        start = starts[min(first, len(lines))]
        end = max(start, starts[min(last, len(lines))] - 1)  # without the final newline
        return start, min(end, len(text))

    blocks: list[Block] = []
    list_depth = 0
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.type in ("bullet_list_open", "ordered_list_open"):
            list_depth += 1
        elif token.type in ("bullet_list_close", "ordered_list_close"):
            list_depth -= 1
        elif token.type == "heading_open":
            start, end = raw_range(token)
            blocks.append(Block(BlockKind.HEADING, _heading_words(tokens[i + 1]),
                                level=int(token.tag[1]), raw_start=start, raw_end=end))
            i += 2
        elif token.type == "paragraph_open":
            start, end = raw_range(token)
            kind = BlockKind.LIST_ITEM if list_depth else BlockKind.PARAGRAPH
            blocks.append(Block(kind, text[start:end], raw_start=start, raw_end=end))
        elif token.type in ("fence", "code_block"):
            start, end = raw_range(token)
            blocks.append(Block(BlockKind.CODE, token.content, raw_start=start, raw_end=end))
        elif token.type == "html_block":
            if (block := _html_block(token.content, raw_range(token))) is not None:
                blocks.append(block)
        elif token.type == "table_open":
            i = _table(tokens, i, raw_range(token), blocks)
        i += 1
    if pending:
        blocks = sorted(blocks + pending, key=lambda block: block.raw_start)
    return blocks


# A heading's attribute block (Pandoc, kramdown, Markdown Extra, MkDocs attr_list):
# "## Options {#options .unnumbered}", "# Appendix {-}".
_HEADING_ATTRIBUTES = re.compile(
    r"[^\S\n]*\{(?:[^\S\n]*(?:[#.][\w:.-]+|-|[\w-]+=(?:\"[^\"]*\"|'[^']*'|[^\s}]+)))+"
    r"[^\S\n]*\}[^\S\n]*$")


def _heading_words(inline: Token) -> str:
    """A heading as a reader writes it: its words, without inline markup (``code``
    ticks, emphasis marks, a link's target) or an attribute block."""
    parts = []
    for child in inline.children or ():
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    words = "".join(parts) if inline.children else inline.content
    return _HEADING_ATTRIBUTES.sub("", words).strip() or inline.content


def _table(tokens: list[Token], i: int, span: tuple[int, int], blocks: list[Block]) -> int:
    """Collect one table's rows into a block; returns the index of ``table_close``."""
    rows: list[str] = []
    cells: list[str] = []
    while tokens[i].type != "table_close":
        token = tokens[i]
        if token.type == "tr_open":
            cells = []
        elif token.type == "inline":
            cells.append(" ".join(markdown_link_words(token.content)[0].split()))
        elif token.type == "tr_close" and any(cells):
            rows.append(" | ".join(cells))
        i += 1
    if rows:
        blocks.append(Block(BlockKind.TABLE, "\n".join(rows), raw_start=span[0],
                            raw_end=span[1]))
    return i


class MarkdownReader(Reader):
    """Markdown, by media type, or by name where Tika saw plain text: Tika's text
    parsed by markdown-it (``parse_markdown_blocks``); the front matter's title, and
    its fields as ``markdown:…`` metadata."""

    name = "markdown"
    media_types = frozenset(MARKDOWN_MEDIA_TYPES)

    def claims(self, uri: str, media_type: str, metadata: TikaMetadata) -> bool:
        return is_markdown(uri, media_type)

    def file_type(self, media_type: str) -> str:
        return "text/markdown"  # what the file is; Tika may have seen plain text

    def structure(self, fetched: FetchedFile, xhtml: str, media_type: str,
                  metadata: TikaMetadata) -> ParsedXhtml:
        parsed = parse_tika_xhtml(with_file_text(xhtml, fetched.data, tika_charset(metadata)))
        if fetched.data and not is_text_file_xhtml(xhtml):
            # Tika read the file as markup (an HTML page: it opens with an HTML
            # block), so its text lost the Markdown's lines: the file's own text.
            parsed = ParsedXhtml(raw_text=decoded(fetched.data)[0], blocks=[],
                                 head_metadata=parsed.head_metadata)
        if parsed.raw_text.strip():
            parsed.blocks = parse_markdown_blocks(parsed.raw_text)
            parsed.title = markdown_front_matter(parsed.raw_text).get("title") or parsed.title
        return parsed

    def metadata(self, fetched: FetchedFile, xhtml: str, media_type: str,
                 parsed: ParsedXhtml, metadata: TikaMetadata) -> dict[str, str]:
        found = super().metadata(fetched, xhtml, media_type, parsed, metadata)
        found.update({f"markdown:{k}": v
                      for k, v in markdown_front_matter(parsed.raw_text).items()})
        if links := markdown_links(parsed.raw_text)[:MAX_RECORDED_LINKS]:
            found[LINKS_KEY] = json.dumps([{"uri": uri} for uri in links], ensure_ascii=False)
        return found
