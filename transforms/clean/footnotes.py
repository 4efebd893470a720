"""Footnotes read into a sentence: a paragraph that runs on across a column or page
break has, in a PDF's reading order, the foot of its column between its halves:

    … When training with mul-          (the body, at the foot of the left column)
    8SQuAD is limited to a small …     (a footnote, smaller type, under it)
    tiple datasets, TREC, the …        (the body again, at the top of the next column)

Line joining would read the footnote into the sentence ("mul-8SQuAD is limited …").
``held_footnotes`` finds such a footnote block — set smaller than the body before it,
below the body's last line on its page and the last thing in its column (the reading
order goes up the page or on to the next page after it), or in a margin beside the
paragraph (a side note), opening with a note mark (a number, a superscript digit after
NFKC, "*", "†", "‡", "§", "¶", a letter) — where the body before it does not end a
sentence and the body after it, at the body's size, plainly continues it (it starts in
lower case). ``linejoin.assemble`` holds those lines back and places them, joined among
themselves as any lines are, after the paragraph they interrupted has ended; the
paragraph's halves meet as any wrap or hyphen would.

A figure or a table, and its caption, set at the top of the next column above where
the paragraph runs on, stand between the halves too: they are held with the footnote
(the first of them is not set at the body's size: body text there would be where the
paragraph ran on, or a new one). Numbered lines (a code listing's) are no notes.

Pure functions over the cleaned lines and their styles (``transforms.types.LineStyle``);
a line without a known size says nothing, and a document without a layout holds nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragbeam.transforms.charsets import CLAUSE_ENDS, CLOSERS, SENTENCE_ENDS
from ragbeam.transforms.clean.base import CleanLine
from ragbeam.transforms.clean.layout import sizes_differ
from ragbeam.transforms.types import BlockKind

# A note's mark at the start of its first line, fused to its text or a space before it:
# "8SQuAD is …", "12 See …", "* Equal contribution", "†Work done at …", "aMeasured …".
_NOTE_MARK = re.compile(
    r"^(?:\d{1,3}(?=\s?[^\d\s.,:;)%/-])|[*†‡§¶]{1,3}(?=\s?\S)|[a-z](?=\s?[A-Z][a-z]))")
# A word of two letters at least: prose, not a formula's label ("3x", "1}", "6=∅").
_WORDS = re.compile(r"[^\W\d_]{2}")
# Lines that each open with a number are numbered lines (a code listing), from this many.
_NUMBER_MARK = re.compile(r"^\d{1,4}\s")
MIN_NUMBERED_LINES = 3
_ENDS_SENTENCE = tuple(SENTENCE_ENDS + CLAUSE_ENDS + CLOSERS)
# At most this many lines of figure or caption skipped above the paragraph's resumption.
MAX_FLOAT_LINES = 40
# Sizes this close (points) are the body's own: rounding in the PDF's text matrices.
BODY_SIZE_SLACK = 0.3


def held_footnotes(lines: Sequence[CleanLine]) -> dict[int, int]:
    """Lines to hold back (indexes into ``lines``), each mapped to the index of the body
    line before them (the paragraph's first half ends there)."""
    held: dict[int, int] = {}
    note_mark = _NOTE_MARK.match
    i = 1
    while i < len(lines):
        # Most lines open with no note mark: the regular expression alone rules them out.
        end = _footnote_at(lines, i) if note_mark(lines[i].text) else None
        if end is None:
            i += 1
            continue
        for k in range(i, end):
            held[k] = i - 1
        i = end + 1  # the continuation's line itself is never a footnote's start
    return held


def _footnote_at(lines: Sequence[CleanLine], i: int) -> int | None:
    """Where the paragraph runs on (index) when a footnote block starting at ``i`` (its
    first line opens with a note mark) interrupts it; None when none does."""
    first = lines[i]
    if not _flowing(first) or not _WORDS.search(first.text):
        return None
    body = lines[i - 1]
    if (not _flowing(body) or body.text.endswith(_ENDS_SENTENCE)
            or not _WORDS.search(body.text)):
        return None
    body_size = _size_near(lines, i - 1)
    if not body_size:
        return None
    page, top = body.style.page, body.style.top
    sizes: list[float] = []
    j = i
    while j < len(lines):
        line = lines[j]
        style = line.style
        if (not _flowing(line) or style.page != page or style.top <= top
                or (style.size and not _smaller(style.size, body_size))):
            break
        if style.size:
            sizes.append(style.size)
        top = style.top
        j += 1
    notes = lines[i:j]
    if (not sizes or j >= len(lines)
            or (len(notes) >= MIN_NUMBERED_LINES
                and all(_NUMBER_MARK.match(note.text) for note in notes))):
        return None  # no smaller type, or numbered lines (a listing), not notes
    after = lines[j].style
    if after is not None and after.page == page and after.top > top:
        return None  # more below it on its page: not the foot of its column
    # A figure or a caption may stand at the top of the next column, above where the
    # paragraph runs on, in lower case, as body text of the body's size.
    for k in range(j, min(len(lines), j + MAX_FLOAT_LINES + 1)):
        line = lines[k]
        if not (line.text[:1].islower() and _WORDS.search(line.text)
                and _continues(lines, k, body_size)):
            continue
        floats = lines[j:k]
        if floats and (floats[-1].block == line.block or floats[-1].wrapped):
            continue  # a line inside a paragraph set there (a caption's)
        style = line.style
        if floats and (floats[0].style is None or not floats[0].style.size
                       or _body_sized(floats[0].style.size, body_size)):
            return None  # body text at the column's top: the paragraph ran on there
        if not all(f.style is None or (f.style.page == style.page and f.style.top < style.top)
                   for f in floats) or any(f.detached for f in floats):
            return None
        if not (style.page > page or style.top < body.style.top - body_size
                or _beside(notes, body, line)):
            return None  # the paragraph runs on beside its body line: no break there
        return k
    return None


def _beside(notes: Sequence[CleanLine], body: CleanLine, resumed: CleanLine) -> bool:
    """Do the notes stand in a margin beside the paragraph's column (a side note)?"""
    left = min(body.style.x0, resumed.style.x0)
    right = max(body.style.x1, resumed.style.x1)
    return all(note.style.x0 >= right or note.style.x1 <= left for note in notes)


def _flowing(line: CleanLine) -> bool:
    """A placed paragraph line in the reading flow."""
    return (line.kind is BlockKind.PARAGRAPH and line.style is not None and not line.detached
            and not line.table_row and bool(line.text))


def _continues(lines: Sequence[CleanLine], k: int, body_size: float) -> bool:
    """Can line ``k`` be the paragraph's second half: body text of the body's size?"""
    line = lines[k]
    if not _flowing(line):
        return False
    size = _size_near(lines, k)
    return bool(size) and not sizes_differ(size, body_size)


def _body_sized(size: float, body_size: float) -> bool:
    """Set in the body's very size (a caption is set apart by a size step less than
    ``layout.sizes_differ`` calls different: 10 pt under 10.9 pt text)."""
    return abs(size - body_size) < BODY_SIZE_SLACK


def _smaller(size: float, body_size: float) -> bool:
    return size < body_size and sizes_differ(size, body_size)


def _size_near(lines: Sequence[CleanLine], i: int) -> float:
    """Line ``i``'s font size, or where the layout pass measured none (0), that of the
    nearest line of its block that has one (0: none known)."""
    line = lines[i]
    if line.style is not None and line.style.size:
        return line.style.size
    for distance in range(1, len(lines)):
        for k in (i - distance, i + distance):
            if 0 <= k < len(lines) and lines[k].block == line.block:
                style = lines[k].style
                if style is not None and style.size:
                    return style.size
        if ((i - distance < 0 or lines[i - distance].block != line.block)
                and (i + distance >= len(lines) or lines[i + distance].block != line.block)):
            return 0.0
    return 0.0


# A note's mark that stands alone: "(1)", "(a)", "(iv)", "1", "*", "†".
_HANGING_MARK = re.compile(r"^(?:\(\d{1,2}\)|\([a-z]{1,3}\)|\d{1,2}|[*†‡§¶]{1,3})$")
# The mark ends at most this many of its line's font sizes left of the note's line.
MAX_MARK_GAP_SIZES = 3.0


def place_hanging_marks(blocks: list[list[tuple[str, CleanLine]]]) -> int:
    """Put each note's mark that a PDF sets apart, left of its note's first line (a
    10-K's "(1)" in the margin beside "On March 27, 2020, the CARES Act …"), back in
    front of that line; returns how many moved.

    Such a mark is a text object of its own, and Tika reads it after the page's text:
    a block of its own, "(1)" / "(2)" / "(1)" at the foot of a chunk, while the notes
    under a table lose their letters. A mark moves when it is a one-line paragraph
    block placed on its page, and a paragraph's line on that page shares its height
    and starts right of it, within ``MAX_MARK_GAP_SIZES`` of its font sizes (the
    nearest in height, where two lines do). The mark then opens that line, a space
    after it; a mark with no line beside it (a table's, beside a cell) stays where it
    is. Blocks are (separator before, line) lists, ``linejoin.assemble``'s."""
    marks = [k for k, pieces in enumerate(blocks)
             if len(pieces) == 1 and _placed_paragraph(pieces[0][1])
             and _HANGING_MARK.match(pieces[0][1].text.strip())]
    if not marks:
        return 0
    pages = {blocks[k][0][1].page for k in marks}
    mark_set = set(marks)
    lines_on: dict[int | None, list[tuple[int, int]]] = {}
    for b, pieces in enumerate(blocks):
        if b in mark_set:
            continue
        for n, (separator, line) in enumerate(pieces):
            if line.page in pages and _placed_paragraph(line, sized=False) and (
                    n == 0 or separator):
                lines_on.setdefault(line.page, []).append((b, n))
    inserts: dict[tuple[int, int], int] = {}  # (block, piece) → the mark's block
    for k in marks:
        mark = blocks[k][0][1].style
        middle = (mark.top + mark.bottom) / 2
        best: tuple[float, tuple[int, int]] | None = None
        for b, n in lines_on.get(blocks[k][0][1].page, ()):
            style = blocks[b][n][1].style
            gap = style.x0 - mark.x1
            if (mark.top < style.bottom and mark.bottom > style.top
                    and 0 <= gap <= MAX_MARK_GAP_SIZES * max(mark.size, style.size)
                    and not _HANGING_MARK.match(blocks[b][n][1].text.split(" ", 1)[0])):
                distance = abs((style.top + style.bottom) / 2 - middle)
                if best is None or distance < best[0]:
                    best = (distance, (b, n))
        if best is not None and best[1] not in inserts:
            inserts[best[1]] = k
    for (b, n), k in sorted(inserts.items(), reverse=True):
        separator, line = blocks[b][n]
        blocks[b][n:n + 1] = [(separator, blocks[k][0][1]), (" ", line)]
    moved = set(inserts.values())
    blocks[:] = [pieces for k, pieces in enumerate(blocks) if k not in moved]
    return len(moved)


def _placed_paragraph(line: CleanLine, sized: bool = True) -> bool:
    """A paragraph's line the layout pass placed (and measured, where ``sized``: a
    note's line may mix sizes, its mark's may not)."""
    return (line.kind is BlockKind.PARAGRAPH and not line.table_row and not line.detached
            and line.style is not None and (bool(line.style.size) or not sized))
