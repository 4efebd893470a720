"""Build the cleaned ``Document`` from extracted blocks (pure).

Cleaning works line by line, in this order (each step has a switch in
``CleanOptions`` and a counter in ``Document.metadata``):

1. every line: control characters out, Unicode NFKC (full-width CJK
   punctuation protected), whitespace collapsed; in PDFs, first, a space where the
   layout pass found two words the glyphs set apart and Tika ran together
   (``LineStyle.spaces``) → ``clean_spaces_restored``;
2. machine residue (PDF dictionaries, XMP, hex/base64 blobs, binary
   remnants) removed (``residue.py``) → ``clean_residue_lines_removed``,
   ``clean_residue_chars_removed`` and, as JSON, the lines per rule in
   ``clean_residue_rules``;
3. PDFs: a repository's cover sheet in front of the document
   (``cover.py``) removed → ``clean_cover_page_removed`` (0 or 1) and its
   lines as JSON in ``clean_cover_page_lines``;
4. paged documents: repeated page furniture and page numbers removed
   (``furniture/``: the page template) → ``clean_furniture_lines_removed``, and the lines
   themselves as JSON ``[[page, line], …]`` in ``clean_furniture_lines``;
5. table-of-contents leaders replaced by a space (``leaders.py``)
   → ``clean_leaders_removed``;
6. PDFs, and plain text written with a steady right margin (Gutenberg texts,
   RFCs, licences): words hyphenated across line breaks re-joined
   (``hyphenation.py``) → ``clean_hyphenations_joined``, and hard-wrapped
   lines joined into paragraphs (``linejoin.assemble``, wrap detection
   ``linejoin.mark_plain_wraps``; for PDFs whether a line runs to its column's edge is
   read from where the layout pass placed it, ``linejoin.wraps_by_position``)
   → ``clean_lines_joined``;
   plain text that is not hard-wrapped (code, logs, poetry, lists) keeps its
   lines;
7. PDFs: contents pages and indexes (page references going up, entries out of
   order) marked ``BlockKind.CONTENTS`` (``contents.py``), never headings or tables
   → ``clean_contents_lines``;
8. PDFs: tables found from where their lines and cells sit (``tables.py``)
   become one ``BlockKind.TABLE`` block each, a ``cell | cell`` line (and span)
   per row, header first → ``clean_tables_detected``, ``clean_table_rows``;
9. PDFs: one-line paragraphs that read like section headings ("2.1 Title",
   "IV. RESULTS") marked as headings with a level (``headings.mark_headings``,
   with the heading geometry of ``headings.RowIndex``) → ``clean_headings_detected``;
10. the document's title, kind and period (``title.py``) → ``Document.title`` and
   ``title_source``, ``document_kind``, ``document_period`` in its metadata.

This module orders the steps and keeps each source line's place; what each step
decides lives in its own module.

The cleaned text is the cleaned blocks joined by blank lines. Its language is
identified afterwards, by the Clean stage in the worker (``language.py``,
switch ``identify_language``), where the model is loaded once, outside any
document's time limit. Every surviving
source line becomes one ``TextSpan`` with its page and its exact range in the
raw text, so a paragraph joined across a page break still maps each of its
characters to the right page; spans of one cleaned block share ``block``.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, fields, replace

from ragbeam.transforms.clean import _line_passes
from ragbeam.transforms.clean.base import CleanLine, CleanOptions
from ragbeam.transforms.clean.contents import contents_lines
from ragbeam.transforms.clean.cover import carries_identifier, is_cover_page, links_somewhere
from ragbeam.transforms.clean.footnotes import held_footnotes, place_hanging_marks
from ragbeam.transforms.clean.furniture import (
    FurnitureResult,
    PageLine,
    find_page_furniture,
)
from ragbeam.transforms.clean.headings import (
    body_style,
    mark_headings,
    mark_typed_headings,
    names_nothing,
    outline_of,
)
from ragbeam.transforms.clean.leaders import strip_leaders
from ragbeam.transforms.clean.linejoin import (
    assemble,
    mark_plain_wraps,
    mark_wraps_by_position,
)
from ragbeam.transforms.clean.links import (
    LINKS_KEY,
    markdown_link_words,
    printed_targets_in_text,
    strip_link_targets,
    strip_print_footer,
)
from ragbeam.transforms.clean.residue import citation_errors, find_residue
from ragbeam.transforms.clean.tables import Piece, Table, find_tables
from ragbeam.transforms.clean.text import (
    REPLACEMENT_CHAR,
    collapse_spaces,
    normalize_code_whitespace,
    normalize_unicode,
    normalize_whitespace,
    remove_control_characters,
    repair_mojibake,
    replacement_char_is_space,
    with_spaces_at,
)
from ragbeam.transforms.clean.title import DocumentName, TitleLine, fallback_name, name_document
from ragbeam.transforms.collector import cyclic_collector_paused
from ragbeam.transforms.types import (
    TABLE_HEADER_LEVEL,
    Block,
    BlockKind,
    Document,
    ExtractedDocument,
    LineKind,
    LineStyle,
    PdfLayout,
    TextSpan,
)

BLOCK_SEPARATOR = "\n\n"
# TextSpan's fields as ``_clean_document`` sets them (by its __dict__, no __init__ to run).
_SPAN_FIELDS = ("start", "end", "kind", "page", "level", "raw_start", "raw_end", "block")
assert (tuple(f.name for f in fields(TextSpan)) == _SPAN_FIELDS
        and not hasattr(TextSpan, "__slots__") and not hasattr(TextSpan, "__post_init__"))
_WHOLE_BLOCKS = {BlockKind.TABLE, BlockKind.CODE}
MAX_RECORDED_FURNITURE_LINES = 2000
# A named tuple made from a tuple of all its fields, as its ``_make`` makes it, without
# the call of ``_make`` or of its ``__new__``: once per line for the furniture, the
# wraps and the tables.
_new_tuple = tuple.__new__


def clean_line_text(text: str, options: CleanOptions) -> str:
    """One line (no newline inside): mojibake decoded, controls out, NFKC, whitespace
    collapsed."""
    if options.repair_mojibake:
        text = repair_mojibake(text)
    text = remove_control_characters(text)
    if options.unicode_nfkc:
        text = normalize_unicode(text, options.protect_cjk_punctuation)
    return collapse_spaces(text)


def clean_block_text(text: str, kind: BlockKind, options: CleanOptions) -> str:
    if options.repair_mojibake:
        text = repair_mojibake(text)
    text = remove_control_characters(text)
    if options.unicode_nfkc:
        text = normalize_unicode(text, options.protect_cjk_punctuation)
    if kind is BlockKind.CODE:
        return normalize_code_whitespace(text)
    return normalize_whitespace(text)


def _block_lines(block: Block, index: int, options: CleanOptions,
                 layout: PdfLayout | None = None) -> list[CleanLine]:
    """A block's non-empty lines, each with its exact raw range (and, with a PDF's
    ``layout``, its style).

    CR LF, CR and LF each end a line. A line of printable ASCII (most lines of most
    documents) keeps its words with one space between them: that is all
    ``clean_line_text`` would do to it; any other line is cleaned by
    ``_irregular_line``. A line's style is ``layout.style_of`` its trimmed range. Where
    the layout pass found words set apart by position only (``LineStyle.spaces``), the
    line is cleaned again with them spaced (``_spaced_line``). The loop is C
    (``_line_passes.c``'s ``block_lines``, its only implementation), calling these for
    what is not printable ASCII."""
    if block.kind in _WHOLE_BLOCKS:
        text = clean_block_text(block.text, block.kind, options)
        return [CleanLine(text, block.kind, index, block.page, block.level,
                          block.raw_start, block.raw_end, detached=block.detached)] if text else []
    return _line_passes.block_lines(
        block.text, block.kind, index, block.page, block.level, block.raw_start,
        block.raw_end, block.detached, options,
        layout._starts if layout is not None else None, layout.lines if layout is not None
        else None, _irregular_line, _spaced_line, CleanLine)


def _irregular_line(raw_line: str, options: CleanOptions
                    ) -> tuple[str, int, int, bool] | None:
    """A line that is not plain ASCII, cleaned: (its text, where its trimmed raw line
    starts and ends in it, whether it ends in a soft hyphen: kept as a break marker for
    de-hyphenation); None where nothing is left of it."""
    text = clean_line_text(raw_line, options)
    if not text:
        return None
    trimmed = raw_line.rstrip()
    return (text, len(raw_line) - len(raw_line.lstrip()), len(trimmed),
            trimmed.endswith("\u00ad"))


def _spaced_line(raw_line: str, lead: int, style: LineStyle, raw_start: int,
                 options: CleanOptions, soft_hyphen: bool) -> str | None:
    """A line's text with the words the PDF set apart by position only (run together by
    Tika) spaced before it is cleaned (``style.spaces``: offsets in the trimmed line);
    None where its style does not start with it or spaces are not restored."""
    if not options.restore_spaces or style.raw_start != raw_start:
        return None
    text = clean_line_text(with_spaces_at(raw_line, (lead + offset for offset
                                                     in style.spaces)), options)
    return text + "\u00ad" if soft_hyphen else text


def _furniture(lines: list[CleanLine], layout: PdfLayout | None = None
               ) -> tuple[list[list[int]], FurnitureResult] | None:
    """Each page's lines (indexes into ``lines``) and the furniture found among them
    (``layout``: a PDF's, whose page sizes go with the lines' boxes); None without pages."""
    if not any(line.page for line in lines):
        return None
    n_pages = max(line.page or 0 for line in lines)
    by_page: list[list[int]] = [[] for _ in range(n_pages)]
    for i, line in enumerate(lines):
        if line.page:
            by_page[line.page - 1].append(i)
    pages = [[_page_line(lines[i]) for i in members] for members in by_page]
    return by_page, find_page_furniture(pages, layout.page_sizes if layout else None)


def _remove_furniture(lines: list[CleanLine], layout: PdfLayout | None = None
                      ) -> tuple[list[CleanLine], list[CleanLine]]:
    """The lines that stay, and the furniture lines removed."""
    found = _furniture(lines, layout)
    if found is None:
        return lines, []
    by_page, furniture = found
    removed = {by_page[p][i] for p, i in furniture.lines}
    return ([line for i, line in enumerate(lines) if i not in removed],
            [lines[i] for i in sorted(removed)])


@dataclass(frozen=True)
class TemplateLine:
    """A line of a page as the page-template model sees it: its page (1-based), text,
    box on the displayed page (None: not placed) and, where it is furniture, the
    template group it belongs to (``kind: key``; ``page number``, ``stamp`` for what the
    other rules found)."""

    page: int
    text: str
    box: tuple[float, float, float, float] | None
    group: str | None


def page_template(extracted: ExtractedDocument, options: CleanOptions | None = None
                  ) -> tuple[tuple[tuple[float, float], ...], list[TemplateLine]]:
    """The pages' sizes and every line of a paged document, each with the template group
    it belongs to: what ``ragbeam viz`` draws. Cleaned as ``clean_document`` cleans it,
    up to furniture removal."""
    options = options or CleanOptions()
    lines = [line for i, block in enumerate(extracted.blocks)
             for line in _block_lines(block, i, options, extracted.layout)]
    if options.remove_residue:
        lines, _, _ = _remove_residue(lines)
    found = _furniture(lines, extracted.layout)
    sizes = extracted.layout.page_sizes if extracted.layout else ()
    if found is None:
        return sizes, []
    by_page, furniture = found
    group_of: dict[tuple[int, int], str] = {}
    for hit in furniture.page_numbers:
        group_of[hit] = "page number"
    for hit in furniture.stamps | furniture.companions | furniture.running_text:
        group_of.setdefault(hit, "stamp" if hit in furniture.stamps else "template")
    for group in furniture.template:
        for hit in group.members & furniture.lines:
            group_of[hit] = f"{group.kind}: {group.key}"
    out = []
    for p, members in enumerate(by_page):
        for i, index in enumerate(members):
            line = lines[index]
            style = line.style
            box = (style.x0, style.top, style.x1, style.bottom) if style is not None else None
            out.append(TemplateLine(p + 1, line.text, box, group_of.get((p, i))))
    return sizes, out


def _page_line(line: CleanLine) -> PageLine:
    # Made from a tuple (every field given): this runs once per line of a PDF.
    style, removable = line.style, line.kind not in _WHOLE_BLOCKS
    if style is None:
        return _new_tuple(PageLine, (line.text, removable, line.kind is BlockKind.HEADING,
                                     None, False, 0.0))
    return _new_tuple(PageLine, (line.text, removable, line.kind is BlockKind.HEADING,
                                 (style.x0, style.top, style.x1, style.bottom), style.rotated,
                                 style.size))


def _remove_residue(lines: list[CleanLine]
                    ) -> tuple[list[CleanLine], list[CleanLine], dict[str, int]]:
    """The lines that stay, the residue lines removed, and how many each rule found (a
    wiki citation template's messages: the lines they were taken out of)."""
    code = [line.kind is BlockKind.CODE for line in lines]
    messages = citation_errors([line.text for line in lines], [line.block for line in lines],
                               code)
    removed: list[CleanLine] = []
    if messages:  # the messages go; the rest of their lines stays
        removed = [lines[i] for i in sorted(messages) if not messages[i]]
        lines = [replace(line, text=messages[i]) if i in messages else line
                 for i, line in enumerate(lines) if messages.get(i, True)]
        code = [line.kind is BlockKind.CODE for line in lines]
    residue = find_residue([line.text for line in lines], [line.block for line in lines], code)
    by_rule = dict(residue.by_rule)
    if messages:
        by_rule["citation-error"] = len(messages)
    if not residue.lines:
        return lines, removed, by_rule
    for i, text in residue.kept.items():  # an inline formula's readable symbols stay
        lines[i] = replace(lines[i], text=text)
    return ([line for i, line in enumerate(lines) if i not in residue.lines or i in residue.kept],
            removed + [lines[i] for i in sorted(residue.lines) if i not in residue.kept],
            by_rule)


def _remove_cover_page(lines: list[CleanLine]) -> tuple[list[CleanLine], list[CleanLine]]:
    """The lines that stay, and page 1's lines if it is a repository's cover sheet."""
    if not lines or not any(line.page for line in lines):
        return lines, []
    if not links_somewhere([line.text for line in lines if line.page == 1]):
        return lines, []  # no cover sheet (``is_cover_page``): most documents, asked cheaply
    pages: list[list[str]] = [[] for _ in range(max(line.page or 0 for line in lines))]
    for line in lines:
        if line.page:
            pages[line.page - 1].append(line.text)
    if not is_cover_page(pages):
        return lines, []
    kept = [line if line.page != 1 else replace(line, kind=BlockKind.PARAGRAPH, level=0)
            for line in lines if line.page != 1 or carries_identifier(line.text)]
    return kept, [line for line in lines if line.page == 1 and not carries_identifier(line.text)]


def _strip_leaders(lines: list[CleanLine]) -> tuple[list[CleanLine], int]:
    out: list[CleanLine] = []
    count = 0
    for line in lines:
        if line.kind not in _WHOLE_BLOCKS:
            text, n = strip_leaders(line.text)
            if n:
                count += n
                line.text = text
        if line.text:
            out.append(line)
    return out, count


def _strip_link_targets(lines: list[CleanLine], strip=strip_link_targets
                        ) -> tuple[list[CleanLine], int]:
    """The printed targets of links (``links.py``: ``strip``, by default
    ``strip_link_targets``) out of the text lines."""
    texts, count = strip(
        [line.text if line.kind not in _WHOLE_BLOCKS else "" for line in lines])
    if not count:
        return lines, 0
    out: list[CleanLine] = []
    for line, text in zip(lines, texts, strict=True):
        if line.kind not in _WHOLE_BLOCKS and text != line.text:
            line.text = text.strip() if text.strip() else ""
        if line.text:
            out.append(line)
        elif out:
            # A line that was all target: the line before breaks as it did (a wrap, a
            # paragraph's end), not as at a gap of one line.
            out[-1].wrapped = line.wrapped
    return out, count


def _strip_links(lines: list[CleanLine], extracted: ExtractedDocument
                 ) -> tuple[list[CleanLine], int]:
    """Link syntax and printed link targets out of the text lines (``links.py``): a
    Markdown document's links as their words (in a plain text, those to absolute URIs),
    a PDF's printed targets where it has link annotations, a plain text's where it is a
    print (``printed_targets_in_text``), and a wiki's print footer from any document;
    how many were removed."""
    removed = 0
    if extracted.media_type == MARKDOWN_MEDIA_TYPE:
        lines, removed = _strip_link_targets(lines, _markdown_link_words)
    elif extracted.lines is LineKind.TYPED:
        # Before the printed targets: "[words](https://…)" is no print's.
        lines, removed = _strip_link_targets(lines, _absolute_markdown_link_words)
    if extracted.lines is LineKind.PRINTED and extracted.metadata.get(LINKS_KEY):
        lines, count = _strip_link_targets(lines)
        removed += count
    elif extracted.lines is LineKind.TYPED:
        lines, count = _strip_link_targets(lines, printed_targets_in_text)
        removed += count
    lines, count = _strip_link_targets(lines, strip_print_footer)
    return lines, removed + count


# What the Markdown reader calls its documents (``extract/markdown.py``).
MARKDOWN_MEDIA_TYPE = "text/markdown"


def _markdown_link_words(texts: list[str], absolute_only: bool = False
                         ) -> tuple[list[str], int]:
    """Each Markdown link as its words (``links.markdown_link_words``)."""
    out, count = [], 0
    for text in texts:
        text, n = markdown_link_words(text, absolute_only)
        out.append(text)
        count += n
    return out, count


def _absolute_markdown_link_words(texts: list[str]) -> tuple[list[str], int]:
    """Each Markdown link to an absolute URI as its words."""
    return _markdown_link_words(texts, absolute_only=True)


def _mark_contents(lines: list[CleanLine], page_count: int | None) -> int:
    """Mark the lines of contents pages and indexes (``contents.py``) as
    ``BlockKind.CONTENTS``; how many."""
    by_page: dict[int, list[CleanLine]] = defaultdict(list)
    for line in lines:
        if line.page and not line.detached and line.kind is BlockKind.PARAGRAPH:
            by_page[line.page].append(line)
    if not by_page:
        return 0
    pages = sorted(by_page)
    found = contents_lines([[line.text for line in by_page[page]] for page in pages],
                           page_count or pages[-1])
    marked = 0
    for page, members in zip(pages, found, strict=True):
        for i in members:
            by_page[page][i].kind = BlockKind.CONTENTS
            marked += 1
    return marked


# Kinds of lines a PDF table is found among (Tika writes a PDF's text as paragraphs).
_TABLE_SOURCES = {BlockKind.PARAGRAPH, BlockKind.LIST_ITEM}


def _mark_tables(lines: list[CleanLine], raw_text: str, options: CleanOptions
                 ) -> tuple[list[CleanLine], list[Table]]:
    """The lines with each table found on a PDF page (``tables.py``) in place of its
    lines: one ``TABLE`` line per row, at the place of the table's first line; and
    the tables. A table that opens a page with the columns of one that closed the
    page before and no header of its own goes on in that table's block."""
    by_page: dict[int, list[int]] = defaultdict(list)
    for i, line in enumerate(lines):
        style = line.style
        if (style is not None and line.page and line.kind in _TABLE_SOURCES
                and not line.detached and not style.rotated):
            by_page[line.page].append(i)
    replaced: dict[int, list[CleanLine]] = {}  # first line of a table → its rows
    consumed: set[int] = set()
    tables: list[Table] = []
    previous: tuple[Table, int, int] | None = None  # the last table, its page and block
    next_block = max((line.block for line in lines), default=0) + 1
    for page in sorted(by_page):
        members = by_page[page]
        pieces = [piece for i in members for piece in _pieces(i, lines[i], raw_text, options)]
        first_on_page = True
        for table in find_tables(pieces):
            if not table.row_lines or any(n in consumed for n in table.lines):
                continue
            if (first_on_page and previous is not None and previous[1] == page - 1
                    and table.header_rows == 0
                    and min(members, key=lambda i: lines[i].raw_start) in table.lines):
                # A headless table that opens the page after one on the page before
                # goes on under that one's columns where its own line up with them (one
                # of them empty or two run together on this page): its cells stay under
                # their header.
                table = table.on_columns(previous[0].columns) or table
            first_on_page = False
            block = next_block
            if (previous is not None and previous[1] == page - 1 and table.header_rows == 0
                    and _continues(previous[0], table, lines, members, by_page[page - 1])):
                block = previous[2]
            else:
                next_block += 1
            rows = []
            for n, (text, row_lines) in enumerate(zip(table.rendered(), table.row_lines,
                                                      strict=True)):
                first = lines[row_lines[0]]
                level = TABLE_HEADER_LEVEL if n < table.header_rows else 0
                rows.append(CleanLine(text, BlockKind.TABLE, block, page, level,
                                  min(lines[n].raw_start for n in row_lines),
                                  max(lines[n].raw_end for n in row_lines),
                                  style=first.style, table_row=True))
            replaced[min(table.lines)] = rows
            consumed.update(table.lines)
            tables.append(table)
            previous = (table, page, block)
    if not tables:
        return lines, []
    out: list[CleanLine] = []
    for i, line in enumerate(lines):
        if i in replaced:
            out.extend(replaced[i])
        elif i not in consumed:
            out.append(line)
    return out, tables


def _pieces(index: int, line: CleanLine, raw_text: str, options: CleanOptions) -> list[Piece]:
    """A line as placed pieces: its cells where the layout pass found wide gaps in it."""
    style = line.style
    assert style is not None
    if not style.cells:
        return [_new_tuple(Piece, (index, line.text, style.x0, style.x1, style.top,
                                   style.bottom, style.size))]
    bounds = [start for start, _, _ in style.cells] + [line.raw_end]
    pieces = []
    for (start, x0, x1), end in zip(style.cells, bounds[1:], strict=True):
        raw = raw_text[start:end]
        if raw.isascii() and raw.isprintable() and "  " not in raw:
            text = raw.strip()  # what clean_line_text leaves of it (as in _block_lines)
        else:
            text = clean_line_text(raw, options)
        text = strip_leaders(text)[0]
        if text:
            pieces.append(_new_tuple(Piece, (index, text, x0, x1, style.top, style.bottom,
                                             style.size)))
    return pieces


def _continues(before: Table, table: Table, lines: list[CleanLine], page: list[int],
               page_before: list[int]) -> bool:
    """Does ``table`` go on with ``before``: the last body lines of the page before
    are ``before``'s, the first of this page ``table``'s, and their columns match?"""
    if len(before.columns) != len(table.columns):
        return False
    if any(abs(a[1] - b[1]) > 0.5 * max(a[1] - a[0], b[1] - b[0], 1.0)
           for a, b in zip(before.columns[1:], table.columns[1:], strict=True)):
        return False
    last_before = max(page_before, key=lambda i: lines[i].raw_end)
    first_here = min(page, key=lambda i: lines[i].raw_start)
    return last_before in before.lines and first_here in table.lines


def _mark_wraps_by_position(lines: list[CleanLine]) -> None:
    """PDF lines the layout pass placed: whether each one's break is a wrap, by where the
    next line's first word would have had to go (link targets are outside the flow)."""
    mark_wraps_by_position(lines)


def _hold_footnotes(lines: list[CleanLine]) -> dict[int, int]:
    """The footnote lines to place after the paragraph they interrupt
    (``footnotes.held_footnotes``). Whether the break after the paragraph's first half
    is a wrap was judged against the footnote under it: that judgement goes, and the
    line's length decides, as for a line not placed (the second half starts in lower
    case, so it matters only to a URL cut there)."""
    held = held_footnotes(lines)
    for i in set(held.values()):
        lines[i].wrapped = None
    return held


def clean_document(extracted: ExtractedDocument, options: CleanOptions) -> Document:
    with cyclic_collector_paused():
        return _clean_document(extracted, options)


def _clean_document(extracted: ExtractedDocument, options: CleanOptions) -> Document:
    # A heading the format marks that names nothing (a UUID a generator set in a
    # heading style) heads no section: it would stand in the path of all below it.
    blocks = tuple(replace(block, kind=BlockKind.PARAGRAPH, level=0)
                   if block.kind is BlockKind.HEADING and names_nothing(block.text) else block
                   for block in extracted.blocks)
    spaces_restored = replacement_char_is_space(block.text for block in blocks)
    if spaces_restored:  # one character for one: every raw offset stays
        blocks = tuple(replace(block, text=block.text.replace(REPLACEMENT_CHAR, " "))
                       for block in blocks)
    lines = [line for i, block in enumerate(blocks)
             for line in _block_lines(block, i, options, extracted.layout)]
    gaps_spaced = (sum(len(line.style.spaces) for line in lines if line.style is not None
                       and line.style.raw_start == line.raw_start)
                   if options.restore_spaces and extracted.layout is not None else 0)
    furniture: list[CleanLine] = []
    residue: list[CleanLine] = []
    residue_rules: dict[str, int] = {}
    leaders_removed = 0
    if options.remove_residue:
        lines, residue, residue_rules = _remove_residue(lines)
    cover: list[CleanLine] = []
    # How the format's lines were written, as its reader declares (extract/readers.py):
    # printed lines are hard-wrapped and hyphenated; typed ones joined only where the
    # text is hard-wrapped (``linejoin.plain_wrap_breaks``).
    paged = extracted.lines is LineKind.PRINTED
    if options.remove_cover_page and paged:
        lines, cover = _remove_cover_page(lines)
    if options.remove_furniture:
        lines, furniture = _remove_furniture(lines, extracted.layout)
    if options.strip_leaders:
        lines, leaders_removed = _strip_leaders(lines)
    if paged and extracted.layout is not None and options.join_lines:
        _mark_wraps_by_position(lines)
    link_targets_removed = 0
    if paged:
        # After the wraps are judged by position (a target's lines are in the flow).
        lines, link_targets_removed = _strip_links(lines, extracted)
    # Contents before tables: a contents page's entries and page numbers stand in two
    # columns, but they are navigation, not a table.
    contents_lines_marked = (_mark_contents(lines, extracted.page_count)
                             if paged and options.mark_contents else 0)
    tables: list[Table] = []
    if paged and options.detect_tables and extracted.layout is not None:
        lines, tables = _mark_tables(lines, extracted.raw_text, options)
    held = (_hold_footnotes(lines) if paged and extracted.layout is not None
            and options.join_lines else {})
    hard_wrapped = paged or (options.join_lines and extracted.lines is LineKind.TYPED
                             and mark_plain_wraps(lines))
    if not paged:
        # After a plain text's wraps are judged (by its lines' lengths, which the
        # targets' removal would change).
        lines, link_targets_removed = _strip_links(lines, extracted)
    assembly = assemble(lines, hard_wrapped, options, held)
    # Before headings: a mark alone in its block would stand among them.
    note_marks_placed = (place_hanging_marks(assembly.blocks)
                         if paged and extracted.layout is not None and options.join_lines
                         else 0)
    headings_detected = 0
    if paged and options.detect_headings:
        headings_detected = mark_headings(assembly, outline_of(extracted.metadata),
                                          extracted.layout)
    elif options.detect_headings and extracted.lines is LineKind.TYPED:
        headings_detected = mark_typed_headings(assembly)

    parts: list[str] = []
    spans: list[TextSpan] = []
    cursor = 0
    # A frozen dataclass's __init__ sets each field by a call to object.__setattr__;
    # a span's fields are set here as its __dict__ in one (the same object: equal,
    # same repr and pickle; ``_SPAN_FIELDS`` checks the fields at import).
    new_object, set_field = object.__new__, object.__setattr__
    for block_index, pieces in enumerate(assembly.blocks):
        if parts:
            parts.append(BLOCK_SEPARATOR)
            cursor += len(BLOCK_SEPARATOR)
        for n, (separator, line) in enumerate(pieces):
            text = line.text.replace("\u00ad", "")
            parts.append(separator)
            cursor += len(separator)
            if n and line.kind is BlockKind.HEADING:
                # A heading is one span however many lines it had: heading
                # paths are built from heading spans.
                spans[-1] = replace(spans[-1], end=cursor + len(text),
                                    raw_end=max(spans[-1].raw_end, line.raw_end))
            else:  # this runs once per line of the document: the span made at once
                span = new_object(TextSpan)
                set_field(span, "__dict__", {
                    "start": cursor, "end": cursor + len(text), "kind": line.kind,
                    "page": line.page, "level": line.level, "raw_start": line.raw_start,
                    "raw_end": line.raw_end, "block": block_index})
                spans.append(span)
            parts.append(text)
            cursor += len(text)
    text = "".join(parts)
    name = _name_document(extracted, lines, text)
    metadata = dict(extracted.metadata)
    metadata.update(name.metadata())
    metadata.update({
        "clean_replacement_chars_as_spaces": "1" if spaces_restored else "0",
        "clean_spaces_restored": str(gaps_spaced),
        "clean_residue_lines_removed": str(len(residue)),
        "clean_residue_chars_removed": str(sum(len(line.text) for line in residue)),
        "clean_residue_rules": json.dumps(residue_rules, sort_keys=True),
        "clean_cover_page_removed": "1" if cover else "0",
        "clean_cover_page_lines": json.dumps([line.text for line in cover], ensure_ascii=False),
        "clean_furniture_lines_removed": str(len(furniture)),
        # What was removed, as JSON [[page, line], …], so a reader can audit it.
        "clean_furniture_lines": json.dumps(
            [[line.page, line.text] for line in furniture[:MAX_RECORDED_FURNITURE_LINES]],
            ensure_ascii=False),
        "clean_leaders_removed": str(leaders_removed),
        "clean_link_targets_removed": str(link_targets_removed),
        "clean_contents_lines": str(contents_lines_marked),
        "clean_hyphenations_joined": str(assembly.hyphenations_joined),
        "clean_lines_joined": str(assembly.lines_joined),
        "clean_note_marks_placed": str(note_marks_placed),
        "clean_headings_detected": str(headings_detected),
        "clean_tables_detected": str(len(tables)),
        "clean_table_rows": str(sum(len(table.rows) for table in tables)),
    })
    return Document(
        source=extracted.source,
        content_hash=extracted.content_hash,
        media_type=extracted.media_type,
        text=text,
        spans=tuple(spans),
        metadata=metadata,
        title=name.title,
        language=extracted.language,
        page_count=extracted.page_count,
    )


def _name_document(extracted: ExtractedDocument, lines: list[CleanLine], text: str
                   ) -> DocumentName:
    """The document's title, kind and period (``title.py``): from its cover where its
    lines carry their style, its outline's root or its metadata title, or its opening
    heading, or, for a format with no title of its own, its file's name."""
    styled = [line for line in lines if line.style is not None and line.style.size]
    body = body_style((line.style, len(line.text)) for line in styled
                      if line.kind is BlockKind.PARAGRAPH)
    # The first page with a line set at least as large as the body: what a removed cover
    # sheet leaves on its page (an identifier in small print) is not the cover.
    first_page = next((line.style.page for line in styled if body is None
                       or line.style.size >= body.size), None)
    cover = [TitleLine(line.text, line.style.page, line.style.size, line.style.top,
                       line.style.bottom, line.style.rotated)
             for line in styled if line.style.page == first_page
             and line.kind in (BlockKind.PARAGRAPH, BlockKind.HEADING)]
    name = name_document(extracted.title, extracted.metadata, text, cover,
                         body.size if body is not None else 0.0,
                         outline_of(extracted.metadata),
                         require_printed=extracted.lines is LineKind.PRINTED)
    first = next((line for line in lines if line.text.strip() and not line.detached), None)
    opening_heading = (first.text if first is not None and first.kind is BlockKind.HEADING
                       and extracted.lines is not LineKind.PRINTED else None)
    return fallback_name(name, opening_heading, extracted.source.uri, extracted.media_type)


def clean_or_refuse(extracted: ExtractedDocument, options: CleanOptions) -> Document:
    """``clean_document``, refusing a document with no text left (the Clean stage's rule)."""
    doc = clean_document(extracted, options)
    if not doc.text.strip():
        raise ValueError("no text left after cleaning")
    return doc
