"""Build the cleaned ``Document`` from extracted blocks (pure).

Cleaning works line by line, in this order (each step has a switch in
``CleanOptions`` and a counter in ``Document.metadata``):

1. every line: control characters out, Unicode NFKC (full-width CJK
   punctuation protected), whitespace collapsed;
2. machine residue (PDF dictionaries, XMP, hex/base64 blobs, binary
   remnants) removed (``residue.py``) → ``clean_residue_lines_removed``,
   ``clean_residue_chars_removed`` and, as JSON, the lines per rule in
   ``clean_residue_rules``;
3. PDFs: a repository's cover sheet in front of the document
   (``cover.py``) removed → ``clean_cover_page_removed`` (0 or 1) and its
   lines as JSON in ``clean_cover_page_lines``;
4. paged documents: repeated page furniture and page numbers removed
   (``furniture.py``) → ``clean_furniture_lines_removed``, and the lines
   themselves as JSON ``[[page, line], …]`` in ``clean_furniture_lines``;
5. table-of-contents leaders replaced by a space (``leaders.py``)
   → ``clean_leaders_removed``;
6. PDFs, and plain text written with a steady right margin (Gutenberg texts,
   RFCs, licences): words hyphenated across line breaks re-joined
   (``hyphenation.py``) → ``clean_hyphenations_joined``, and hard-wrapped
   lines joined into paragraphs (``linejoin.py``) → ``clean_lines_joined``;
   plain text that is not hard-wrapped (code, logs, poetry, lists) keeps its
   lines;
7. PDFs: one-line paragraphs that read like section headings ("2.1 Title",
   "IV. RESULTS") marked as headings with a level (``headings.py``)
   → ``clean_headings_detected``.

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
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, fields, replace
from itertools import pairwise

from ragbeam.transforms.charsets import SENTENCE_ENDS
from ragbeam.transforms.chunk.log import timestamped_line_share
from ragbeam.transforms.clean.contents import contents_lines, is_contents_title
from ragbeam.transforms.clean.cover import carries_identifier, is_cover_page
from ragbeam.transforms.clean.furniture import PageLine, find_page_furniture
from ragbeam.transforms.clean.headings import (
    MAX_TITLE_LINES,
    BodyStyle,
    HeadingBlock,
    OutlineEntry,
    body_style,
    division_title,
    division_without_title,
    find_styled_headings,
    is_prose,
    looks_like_heading,
    outline_headings,
    outline_of,
)
from ragbeam.transforms.clean.hyphenation import (
    HYPHENS,
    HyphenBreak,
    classify_hyphen_break,
    hyphen_lexicon,
    join_hyphenated,
)
from ragbeam.transforms.clean.layout import sizes_differ, style_changes
from ragbeam.transforms.clean.leaders import strip_leaders
from ragbeam.transforms.clean.linejoin import (
    FULL_LINE_SHARE,
    LineBreak,
    classify_line_break,
    plain_wrap_breaks,
    typical_line_length,
)
from ragbeam.transforms.clean.residue import find_residue
from ragbeam.transforms.clean.text import (
    REPLACEMENT_CHAR,
    collapse_spaces,
    normalize_code_whitespace,
    normalize_unicode,
    normalize_whitespace,
    remove_control_characters,
    replacement_char_is_space,
)
from ragbeam.transforms.clean.title import (
    DocumentName,
    TitleLine,
    name_document,
)
from ragbeam.transforms.types import (
    Block,
    BlockKind,
    Document,
    ExtractedDocument,
    LineStyle,
    PdfLayout,
    TextSpan,
)

BLOCK_SEPARATOR = "\n\n"
# Media types whose lines are printed lines (hard-wrapped, hyphenated).
_HARD_WRAPPED = {"application/pdf"}
# Media types whose lines are as their author wrote them: joined only where the
# text is hard-wrapped (``linejoin.plain_wrap_breaks``).
_PLAIN_TEXT = {"text/plain"}
# A plain text with this share of its lines starting with a timestamp is a log
# (below the router's own threshold, so nothing routed as a log is ever joined).
MAX_LOG_LINE_SHARE = 0.2
MAX_RUN_ON_HEADING_CHARS = 160  # a heading over two lines of a column
HANGING_INDENT_SIZES = 4  # its second line may start under its title, after the number
_ENDS_SENTENCE = tuple(SENTENCE_ENDS)
_WHOLE_BLOCKS = {BlockKind.TABLE, BlockKind.CODE}
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
MAX_RECORDED_FURNITURE_LINES = 2000
_SEPARATORS = {brk: brk.value for brk in LineBreak}
_NEVER_FULL = (math.inf, -math.inf)


@dataclass(frozen=True)
class CleanOptions:
    """Switches for each cleaning step (all part of the config fingerprint)."""

    unicode_nfkc: bool = True
    protect_cjk_punctuation: bool = True
    remove_residue: bool = True
    remove_cover_page: bool = True
    remove_furniture: bool = True
    strip_leaders: bool = True
    mark_contents: bool = True
    dehyphenate: bool = True
    join_lines: bool = True
    detect_headings: bool = True
    identify_language: bool = True
    # Across the documents of a run (boilerplate.py, applied by the clean stage's
    # RemoveCorpusBoilerplate, not by clean_document). Opt-in (--clean-corpus-boilerplate):
    # a document's text then depends on the other documents processed in the same run,
    # so an incremental run, which processes only what changed, can cut differently
    # from a full one.
    remove_boilerplate: bool = False

    @classmethod
    def without(cls, steps: Iterable[str]) -> CleanOptions:
        """Default options with the named steps switched off (``--no-clean STEP``)."""
        return cls(**dict.fromkeys(steps, False))


# What --no-clean switches off: every per-document step (corpus boilerplate is opt-in).
CLEAN_STEPS = tuple(f.name for f in fields(CleanOptions) if f.name != "remove_boilerplate")


@dataclass(slots=True)
class _Line:
    """One cleaned source line and where it came from (mutable: steps rewrite ``text``)."""

    text: str
    kind: BlockKind
    block: int  # index of the source block
    page: int | None
    level: int
    raw_start: int
    raw_end: int
    after_blank: bool = False  # a blank line separated it from the previous line
    detached: bool = False  # outside the reading flow (PDF link target)
    indent: int = 0  # leading whitespace of the source line, in characters
    # Plain text only: whether the break after this line is a wrap (None: not plain text).
    wraps: bool | None = None
    # PDFs: where the line sits on its page and how it is set (None: unknown).
    style: LineStyle | None = None


def clean_line_text(text: str, options: CleanOptions) -> str:
    """One line (no newline inside): controls out, NFKC, whitespace collapsed."""
    text = remove_control_characters(text)
    if options.unicode_nfkc:
        text = normalize_unicode(text, options.protect_cjk_punctuation)
    return collapse_spaces(text)


def clean_block_text(text: str, kind: BlockKind, options: CleanOptions) -> str:
    text = remove_control_characters(text)
    if options.unicode_nfkc:
        text = normalize_unicode(text, options.protect_cjk_punctuation)
    if kind is BlockKind.CODE:
        return normalize_code_whitespace(text)
    return normalize_whitespace(text)


def _split_lines(text: str) -> Iterator[tuple[int, str]]:
    """``(offset, line)`` for each line; CR LF, CR and LF all end a line."""
    if "\r" not in text:  # the usual case: plain split, same lines and offsets
        start = 0
        for line in text.split("\n"):
            yield start, line
            start += len(line) + 1
        return
    start = 0
    for match in _LINE_BREAK.finditer(text):
        yield start, text[start:match.start()]
        start = match.end()
    yield start, text[start:]


def _block_lines(block: Block, index: int, options: CleanOptions,
                 layout: PdfLayout | None = None) -> list[_Line]:
    """A block's non-empty lines, each with its exact raw range (and, with a PDF's
    ``layout``, its style)."""
    if block.kind in _WHOLE_BLOCKS:
        text = clean_block_text(block.text, block.kind, options)
        return [_Line(text, block.kind, index, block.page, block.level,
                      block.raw_start, block.raw_end, detached=block.detached)] if text else []
    traced = block.raw_start >= 0 and block.raw_end - block.raw_start == len(block.text)
    lines: list[_Line] = []
    after_blank = False
    for line_start, raw_line in _split_lines(block.text):
        if raw_line.isascii() and raw_line.isprintable() and "  " not in raw_line:
            # What clean_line_text does to such a line (nothing but the trim), without
            # its calls: most lines of most documents are plain ASCII.
            soft_hyphen, text = False, raw_line.strip()
        else:
            soft_hyphen = raw_line.rstrip().endswith("\u00ad")
            text = clean_line_text(raw_line, options)
        if not text:
            after_blank = bool(lines)
            continue
        if soft_hyphen:
            text += "\u00ad"  # kept as a break marker for de-hyphenation
        lead = len(raw_line) - len(raw_line.lstrip())
        raw_start = block.raw_start + line_start + lead if traced else block.raw_start
        raw_end = (block.raw_start + line_start + len(raw_line.rstrip())
                   if traced else block.raw_end)
        lines.append(_Line(text, block.kind, index, block.page, block.level, raw_start,
                           raw_end, after_blank, block.detached, lead,
                           style=layout.style_of(raw_start, raw_end)
                           if layout is not None and traced else None))
        after_blank = False
    return lines


def _remove_furniture(lines: list[_Line], layout: PdfLayout | None = None
                      ) -> tuple[list[_Line], list[_Line]]:
    """The lines that stay, and the furniture lines removed (``layout``: a PDF's, whose
    page sizes go with the lines' boxes)."""
    if not any(line.page for line in lines):
        return lines, []
    n_pages = max(line.page or 0 for line in lines)
    by_page: list[list[int]] = [[] for _ in range(n_pages)]
    for i, line in enumerate(lines):
        if line.page and not line.detached:  # link targets are neither body nor furniture
            by_page[line.page - 1].append(i)
    pages = [[_page_line(lines[i]) for i in members] for members in by_page]
    furniture = find_page_furniture(pages, layout.page_sizes if layout else None).lines
    removed = {by_page[p][i] for p, i in furniture}
    return ([line for i, line in enumerate(lines) if i not in removed],
            [lines[i] for i in sorted(removed)])


def _page_line(line: _Line) -> PageLine:
    style = line.style  # positional arguments: this runs once per line of a PDF
    if style is None:
        return PageLine(line.text, line.kind not in _WHOLE_BLOCKS, line.kind is BlockKind.HEADING)
    return PageLine(line.text, line.kind not in _WHOLE_BLOCKS, line.kind is BlockKind.HEADING,
                    (style.x0, style.top, style.x1, style.bottom), style.rotated, style.size)


def _remove_residue(lines: list[_Line]) -> tuple[list[_Line], list[_Line], dict[str, int]]:
    """The lines that stay, the residue lines removed, and how many each rule found."""
    residue = find_residue([line.text for line in lines], [line.block for line in lines],
                           [line.kind is BlockKind.CODE for line in lines])
    if not residue.lines:
        return lines, [], {}
    return ([line for i, line in enumerate(lines) if i not in residue.lines],
            [lines[i] for i in sorted(residue.lines)], residue.by_rule)


def _remove_cover_page(lines: list[_Line]) -> tuple[list[_Line], list[_Line]]:
    """The lines that stay, and page 1's lines if it is a repository's cover sheet."""
    if not lines or not any(line.page for line in lines):
        return lines, []
    pages: list[list[str]] = [[] for _ in range(max(line.page or 0 for line in lines))]
    for line in lines:
        if line.page:
            pages[line.page - 1].append(line.text)
    if not is_cover_page(pages):
        return lines, []
    kept = [line if line.page != 1 else replace(line, kind=BlockKind.PARAGRAPH, level=0)
            for line in lines if line.page != 1 or carries_identifier(line.text)]
    return kept, [line for line in lines if line.page == 1 and not carries_identifier(line.text)]


def _strip_leaders(lines: list[_Line]) -> tuple[list[_Line], int]:
    out: list[_Line] = []
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


def _mark_contents(lines: list[_Line], page_count: int | None) -> int:
    """Mark the lines of contents pages and indexes (``contents.py``) as
    ``BlockKind.CONTENTS``; how many."""
    by_page: dict[int, list[_Line]] = defaultdict(list)
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


class _LazyLexicon(Counter):
    """The document's word counts, built on the first hyphenated line break only."""

    def __init__(self, lines: list[_Line]) -> None:
        super().__init__()
        self._lines: list[_Line] | None = lines

    def __missing__(self, key: str) -> int:
        if self._lines is not None:
            lines, self._lines = self._lines, None
            self.update(hyphen_lexicon(line.text for line in lines))
            if key in self:
                return self[key]
        return 0

    def __bool__(self) -> bool:
        return True


@dataclass
class _Assembly:
    """Cleaned blocks under construction: lists of (separator before, line)."""

    blocks: list[list[tuple[str, _Line]]]
    hyphenations_joined: int = 0
    lines_joined: int = 0


def _assemble(lines: list[_Line], hard_wrapped: bool, options: CleanOptions) -> _Assembly:
    out = _Assembly(blocks=[])
    lexicon = _LazyLexicon(lines) if hard_wrapped else None
    page_lengths: dict[int | None, list[int]] = defaultdict(list)
    for line in lines:
        if line.kind is BlockKind.PARAGRAPH:
            page_lengths[line.page].append(len(line.text))
    # Per page: the length range of a line that runs to the right margin.
    full_line: dict[int | None, tuple[float, float]] = {}
    for page, lengths in page_lengths.items():
        typical = typical_line_length(lengths) * FULL_LINE_SHARE / FULL_LINE_SHARE
        full_line[page] = ((FULL_LINE_SHARE * typical, 1.5 * typical) if typical > 0
                           else (math.inf, -math.inf))
    prev: _Line | None = None
    # Detached lines wait until the paragraph they interrupt has ended.
    detached: list[_Line] = []

    def place_detached() -> None:
        if detached:
            out.blocks.append([("", detached[0]),
                               *((LineBreak.LINE.value, line) for line in detached[1:])])
            detached.clear()

    for line in lines:
        if hard_wrapped and line.detached:
            detached.append(line)
            continue
        brk = _break_before(prev, line, hard_wrapped, options, lexicon, full_line, out)
        if brk is LineBreak.PARAGRAPH:
            place_detached()
            out.blocks.append([("", line)])
        else:
            out.blocks[-1].append((_SEPARATORS[brk], line))
        prev = line
    place_detached()
    return out


def _break_before(prev: _Line | None, line: _Line, hard_wrapped: bool, options: CleanOptions,
                  lexicon, full_line: dict[int | None, tuple[float, float]], out: _Assembly
                  ) -> LineBreak:
    if prev is None or line.after_blank or line.kind in _WHOLE_BLOCKS or prev.kind != line.kind:
        return LineBreak.PARAGRAPH
    same_block = prev.block == line.block
    if not hard_wrapped or line.kind is not BlockKind.PARAGRAPH or prev.wraps is False:
        if not same_block:
            return LineBreak.PARAGRAPH
        return LineBreak.SPACE if line.kind is BlockKind.HEADING else LineBreak.LINE
    if prev.wraps is None and _heading_runs_on(prev, line):
        out.lines_joined += 1
        return LineBreak.SPACE
    if prev.wraps is None and style_changes(prev.style, line.style):
        return LineBreak.PARAGRAPH  # a heading set apart by its font, a footnote by its size
    if options.dehyphenate and prev.text[-1:] in HYPHENS:
        hyphen = classify_hyphen_break(prev.text, line.text, lexicon)
        if hyphen is not HyphenBreak.NONE:
            # Rewrite the previous line in place: its hyphen goes, the next line follows.
            prev.text = join_hyphenated(prev.text, "", hyphen)
            out.hyphenations_joined += 1
            return LineBreak.JOINED
    if not options.join_lines:
        return LineBreak.LINE if same_block else LineBreak.PARAGRAPH
    full_width = True if prev.wraps else _reaches_margin(prev, full_line)
    brk = classify_line_break(prev.text.rstrip("\u00ad"), line.text, same_block=same_block,
                              full_width=full_width)
    if brk in (LineBreak.SPACE, LineBreak.JOINED):
        out.lines_joined += 1
    return brk


def _heading_runs_on(prev: _Line, line: _Line) -> bool:
    """Does a numbered heading set in bold run on to ``line`` ("4 Vignette: Building an
    Attributed QA" / "System for Scientific Papers" in a column too narrow for it)?
    ``line`` sits right under it, set alike, not a heading of its own; or it starts in
    lower case and only its face is mixed (a word of the title in a code font:
    "visually-rich documents with magelib")."""
    before, after = prev.style, line.style
    if (before is None or after is None or not before.size or not after.size
            or not before.bold or before.page != after.page
            or sizes_differ(before.size, after.size)
            or not 0 <= after.top - before.bottom < before.size
            or not -before.size <= after.x0 - before.x0 <= HANGING_INDENT_SIZES * before.size):
        return False  # not right under it, or not where its title starts (a hanging indent)
    if (not looks_like_heading(prev.text) or prev.text.isupper()  # capitals: linejoin's
            or looks_like_heading(line.text)
            or prev.text.endswith(_ENDS_SENTENCE)
            or len(prev.text) + len(line.text) > MAX_RUN_ON_HEADING_CHARS):
        return False
    if after.bold and after.font == before.font:
        return True
    return not after.font and line.text[:1].islower()


def _reaches_margin(line: _Line, full_line: dict[int | None, tuple[float, float]]) -> bool:
    """Does a PDF line run to the right margin (its length that of the page's full lines)?"""
    low, high = full_line.get(line.page, _NEVER_FULL)
    return low <= len(line.text) <= high


def _mark_headings(assembly: _Assembly, outline: list[OutlineEntry],
                   layout: PdfLayout | None) -> int:
    """The one-line paragraphs a PDF's outline points at become headings of its levels;
    without an outline that describes the text, the paragraphs that read like section
    headings, and, where the lines carry their style, those set apart by their font
    (``headings.find_styled_headings``)."""
    blocks = [_heading_block(pieces) for pieces in assembly.blocks]
    found = (outline_headings([b.text if b.lines == 1 else None for b in blocks], outline,
                              [pieces[0][1].page for pieces in assembly.blocks])
             if outline else None)
    if found is None:
        body = body_style((line.style, len(line.text)) for pieces in assembly.blocks
                          for _, line in pieces
                          if line.style is not None and line.kind is BlockKind.PARAGRAPH)
        if body is not None and layout is not None:
            rows = _RowIndex(assembly, layout, body)
            blocks = [replace(block, in_row=rows.shares_row(block.style),
                              in_margin=rows.in_margin(block.style),
                              page_height=rows.height(block.style))
                      if block.text is not None and block.style is not None else block
                      for block in blocks]
        found = find_styled_headings(blocks, body)
        found = _join_division_titles(assembly, found)
    # "Table of Contents" heads a contents page; elsewhere (a link back to it at the top
    # of every page) it heads nothing.
    found = {i: level for i, level in found.items()
             if not is_contents_title(" ".join(line.text for _, line in assembly.blocks[i]))
             or (i + 1 < len(assembly.blocks)
                 and assembly.blocks[i + 1][0][1].kind is BlockKind.CONTENTS)}
    for index, level in found.items():
        for _, line in assembly.blocks[index]:
            line.kind, line.level = BlockKind.HEADING, level
    return len(found)


MAX_DIVISION_TITLE_WORDS = 12


def _join_division_titles(assembly: _Assembly, found: dict[int, int]) -> dict[int, int]:
    """A heading that is only a division's keyword and number ("Chapter 1", "ARTICLE
    IV", "PART II") takes the title printed on the next line of its page ("Template",
    "DEFINITIONS", "OTHER INFORMATION") into one heading, "Chapter 1 Template": the
    block after it joins its block (``headings.division_without_title``)."""
    joined: list[int] = []
    for index in sorted(found):
        nxt = index + 1
        if nxt >= len(assembly.blocks) or len(assembly.blocks[index]) != 1:
            continue
        head, title = assembly.blocks[index][0][1], assembly.blocks[nxt]
        line = title[0][1]
        if (not division_without_title(head.text) or len(title) != 1
                or line.kind is not BlockKind.PARAGRAPH or line.page != head.page
                or not division_title(line.text, MAX_DIVISION_TITLE_WORDS)):
            continue
        joined.append(index)
    for index in reversed(joined):
        assembly.blocks[index].append((LineBreak.SPACE.value, assembly.blocks[index + 1][0][1]))
        del assembly.blocks[index + 1]
    if not joined:
        return found
    return {i - sum(j < i for j in joined): level for i, level in found.items()
            if i - 1 not in joined}


def _heading_block(pieces: list[tuple[str, _Line]]) -> HeadingBlock:
    first = pieces[0][1]
    paragraph = first.kind is BlockKind.PARAGRAPH
    text = " ".join(line.text for _, line in pieces)
    candidate = (paragraph and not first.detached
                 and len(pieces) <= MAX_TITLE_LINES)
    styles = [line.style for _, line in pieces if line.style is not None and line.style.size]
    # Set alike: one size, and one face where a line's face is known (a line mixing faces,
    # a heading's second line with a word in a code font, says nothing of it).
    faces = {(s.bold, s.font) for s in styles if s.font}
    uniform = len({s.size for s in styles}) <= 1 and len(faces) <= 1
    return HeadingBlock(text if candidate else None, paragraph and is_prose(text), len(pieces),
                        first.style, uniform)


class _RowIndex:
    """The placed lines of each page, to tell a line alone in its row (a heading) from
    one among a table's cells, and a line in the margin from one in the text column."""

    # A neighbour in the same row is a cell when it is in the text column and wider
    # than this many of the line's font sizes (or to its right), and either in a block
    # that is no prose (numbers, codes) or a line of its own (a block of at most two
    # lines) narrower
    # than this share of the page: the other column's text beside a heading in a
    # two-column paper, a note in the margin, and a section number Tika left on a line
    # of its own before its title are not.
    MAX_CELL_WIDTH_SHARE = 0.3
    MIN_CELL_WIDTH_SIZES = 2.5
    # A page is set in two columns when at least this many body lines start at one
    # place in each half of it; a line in one column and one in the other are never
    # cells of one row (an "ABSTRACT" level with a "Keywords" across the gutter).
    MIN_COLUMN_LINES = 5

    def __init__(self, assembly: _Assembly, layout: PdfLayout, body: BodyStyle) -> None:
        # Per page: (style, any width) for lines that are no prose, (style, narrow
        # only) for the other lines of short blocks.
        self.cells: dict[int, list[tuple[LineStyle, bool]]] = defaultdict(list)
        column: dict[int, list[float]] = defaultdict(lambda: [math.inf, -math.inf])
        starts: dict[int, Counter[int]] = defaultdict(Counter)
        for pieces in assembly.blocks:
            prose = is_prose(" ".join(line.text for _, line in pieces))
            for _, line in pieces:
                style = line.style
                if style is None:
                    continue
                if not prose:
                    self.cells[style.page].append((style, True))
                elif len(pieces) <= 2:
                    self.cells[style.page].append((style, False))
                if style.size and style.size == body.size and style.font == body.font:
                    edges = column[style.page]
                    edges[0], edges[1] = min(edges[0], style.x0), max(edges[1], style.x1)
                    if prose:
                        starts[style.page][round(style.x0)] += 1
        self.columns = dict(column)
        self.sizes = layout.page_sizes
        # Per two-column page: where its left and right columns start.
        self.column_starts: dict[int, tuple[float, float]] = {}
        for page, counts in starts.items():
            if not 0 < page <= len(self.sizes):
                continue
            middle = self.sizes[page - 1][0] / 2
            left = max(((n, x) for x, n in counts.items() if x < middle), default=(0, 0))
            right = max(((n, x) for x, n in counts.items() if x >= middle), default=(0, 0))
            if min(left[0], right[0]) >= self.MIN_COLUMN_LINES:
                self.column_starts[page] = (left[1], right[1])

    def height(self, style: LineStyle | None) -> float:
        if style is None or not 0 < style.page <= len(self.sizes):
            return 0.0
        return self.sizes[style.page - 1][1]

    def in_margin(self, style: LineStyle | None) -> bool:
        """Beside the page's text column (left of its left edge or right of its right):
        a marginal note, a volume number, a stamp."""
        if style is None or style.page not in self.columns:
            return False
        left, right = self.columns[style.page]
        return style.x1 <= left or style.x0 >= right

    def shares_row(self, style: LineStyle | None) -> bool:
        if style is None or not 0 < style.page <= len(self.sizes):
            return False
        width = self.sizes[style.page - 1][0]
        height = style.bottom - style.top
        narrowest = self.MIN_CELL_WIDTH_SIZES * (style.size or height)
        starts = self.column_starts.get(style.page)
        for other, any_width in self.cells.get(style.page, ()):
            if other is style or (other.x0 < style.x1 and other.x1 > style.x0):
                continue  # itself, or above or below it
            if starts is not None and self._across_the_gutter(style, other, starts):
                continue  # the other column's line
            overlap = min(other.bottom, style.bottom) - max(other.top, style.top)
            cell_width = other.x1 - other.x0
            if (overlap > 0.5 * min(height, other.bottom - other.top)
                    and (any_width or cell_width < self.MAX_CELL_WIDTH_SHARE * width)
                    and (cell_width > narrowest or other.x0 > style.x1)
                    and not self.in_margin(other)):
                return True
        return False

    @staticmethod
    def _across_the_gutter(style: LineStyle, other: LineStyle,
                           starts: tuple[float, float]) -> bool:
        """Is ``other`` in the other column of a two-column page from ``style``, which
        starts at its own column's left edge (within a line height of it: an indent)?
        An author's name centred over a grid of authors starts elsewhere."""
        reach = style.bottom - style.top
        if starts[0] - 1 <= style.x0 <= starts[0] + reach:
            return style.x1 <= starts[1] <= other.x0 + 1
        if starts[1] - 1 <= style.x0 <= starts[1] + reach:
            return other.x1 <= starts[1]
        return False


def _mark_plain_wraps(lines: list[_Line]) -> bool:
    """Plain text: mark each line whose break is a wrap; whether the text is hard-wrapped."""
    if timestamped_line_share("\n".join(line.text for line in lines)) >= MAX_LOG_LINE_SHARE:
        return False
    follows = [a.kind is BlockKind.PARAGRAPH is b.kind and a.block == b.block
               and not b.after_blank for a, b in pairwise(lines)]
    wraps = plain_wrap_breaks([line.indent + len(line.text) for line in lines],
                              [line.text for line in lines], [*follows, False])
    if not any(wraps):
        return False
    for line, wrap in zip(lines, wraps, strict=True):
        line.wraps = wrap
    return True


def clean_document(extracted: ExtractedDocument, options: CleanOptions) -> Document:
    blocks = extracted.blocks
    spaces_restored = replacement_char_is_space(block.text for block in blocks)
    if spaces_restored:  # one character for one: every raw offset stays
        blocks = tuple(replace(block, text=block.text.replace(REPLACEMENT_CHAR, " "))
                       for block in blocks)
    lines = [line for i, block in enumerate(blocks)
             for line in _block_lines(block, i, options, extracted.layout)]
    furniture: list[_Line] = []
    residue: list[_Line] = []
    residue_rules: dict[str, int] = {}
    leaders_removed = 0
    if options.remove_residue:
        lines, residue, residue_rules = _remove_residue(lines)
    cover: list[_Line] = []
    if options.remove_cover_page and extracted.media_type in _HARD_WRAPPED:
        lines, cover = _remove_cover_page(lines)
    if options.remove_furniture:
        lines, furniture = _remove_furniture(lines, extracted.layout)
    if options.strip_leaders:
        lines, leaders_removed = _strip_leaders(lines)
    paged = extracted.media_type in _HARD_WRAPPED
    contents_lines_marked = (_mark_contents(lines, extracted.page_count)
                             if paged and options.mark_contents else 0)
    hard_wrapped = paged or (options.join_lines and extracted.media_type in _PLAIN_TEXT
                             and _mark_plain_wraps(lines))
    assembly = _assemble(lines, hard_wrapped, options)
    headings_detected = (_mark_headings(assembly, outline_of(extracted.metadata),
                                        extracted.layout)
                         if paged and options.detect_headings else 0)

    parts: list[str] = []
    spans: list[TextSpan] = []
    cursor = 0
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
            else:  # positional: this runs once per line of the document
                spans.append(TextSpan(cursor, cursor + len(text), line.kind, line.page,
                                      line.level, line.raw_start, line.raw_end, block_index))
            parts.append(text)
            cursor += len(text)
    text = "".join(parts)
    name = _name_document(extracted, lines, text)
    metadata = dict(extracted.metadata)
    metadata.update(name.metadata())
    metadata.update({
        "clean_replacement_chars_as_spaces": "1" if spaces_restored else "0",
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
        "clean_contents_lines": str(contents_lines_marked),
        "clean_hyphenations_joined": str(assembly.hyphenations_joined),
        "clean_lines_joined": str(assembly.lines_joined),
        "clean_headings_detected": str(headings_detected),
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


def _name_document(extracted: ExtractedDocument, lines: list[_Line], text: str
                   ) -> DocumentName:
    """The document's title, kind and period (``title.py``): from its cover where its
    lines carry their style, its outline's root, or its metadata title."""
    styled = [line for line in lines if line.style is not None and line.style.size]
    body = body_style((line.style, len(line.text)) for line in styled
                      if line.kind is BlockKind.PARAGRAPH)
    first_page = styled[0].style.page if styled else None
    cover = [TitleLine(line.text, line.style.page, line.style.size, line.style.top,
                       line.style.bottom, line.style.rotated)
             for line in styled if line.style.page == first_page
             and line.kind in (BlockKind.PARAGRAPH, BlockKind.HEADING)]
    return name_document(extracted.title, extracted.metadata, text, cover,
                         body.size if body is not None else 0.0,
                         outline_of(extracted.metadata),
                         require_printed=extracted.media_type in _HARD_WRAPPED)


def clean_or_refuse(extracted: ExtractedDocument, options: CleanOptions) -> Document:
    """``clean_document``, refusing a document with no text left (the Clean stage's rule)."""
    doc = clean_document(extracted, options)
    if not doc.text.strip():
        raise ValueError("no text left after cleaning")
    return doc
