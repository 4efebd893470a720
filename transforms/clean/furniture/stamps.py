"""Text laid over a page or cut apart by Tika, assembled before it is judged (pure):
rotated stamps in the margin and their pieces, stamps closing a page where nothing is
placed, printers' slugs, margin text and template text in pieces.
"""

from __future__ import annotations

import bisect
import math
import re
from collections import defaultdict
from collections.abc import Sequence

from ragbeam.transforms.clean.furniture.lines import (
    Hit,
    PageLine,
    letters,
    line_shape,
    page_number_value,
)
from ragbeam.transforms.clean.layout import sizes_differ

# A rotated stamp: at least this many one- or two-glyph lines closing a page.
MIN_STAMP_LINES = 8
MAX_FRAGMENT_CHARS = 3
# A rotated line in the margin is a stamp when the text of the page is at least this
# far from it (points), and at least half as far as the page edge.
MIN_STAMP_GAP = 6.0
# A line without a box between pieces of a stamp is one too when it is this short.
MAX_STAMP_PIECE_CHARS = 8
# Cut text: a head of at least this many letters, in at least this many pieces.
MIN_CUT_LETTERS = 12
MIN_CUT_PIECES = 2
_LETTER = re.compile(r"[^\W\d_]")
# A piece of margin text left alone: at least this many letters and digits.
MIN_VERTICAL_CHARS = 8


def _is_fragment(text: str) -> bool:
    """One glyph cluster of rotated text: short, no space inside."""
    return 0 < len(text) <= MAX_FRAGMENT_CHARS and " " not in text


def find_margin_stamps(pages: Sequence[Sequence[PageLine]],
                        frame: tuple[float, float] | None = None) -> set[tuple[int, int]]:
    """Runs of rotated-text fragments that close a page (rule 4). Where most of the
    run's placed lines (two or more) lie across the document's text ``frame`` (left
    and right), it is a figure's labels that Tika put last (an axis title, tick
    values): it stays."""
    found: set[tuple[int, int]] = set()
    for p, lines in enumerate(pages):
        end = len(lines)
        while end > 0 and lines[end - 1].link:
            end -= 1  # link targets Tika prints after the page
        start = end
        while (start > 0 and lines[start - 1].removable
               and _is_fragment(lines[start - 1].text.strip())):
            start -= 1
        run = [lines[i].text for i in range(start, end)]
        if len(run) >= MIN_STAMP_LINES and sum(ch.isalpha() for t in run for ch in t) >= 2:
            boxes = [box for i in range(start, end) if (box := lines[i].box)]
            if frame is not None and len(boxes) >= 2 and 2 * sum(
                    1 for box in boxes if box[2] > frame[0] and box[0] < frame[1]) > len(boxes):
                continue
            found.update((p, i) for i in range(start, end))
    return found


def find_rotated_stamps(pages: Sequence[Sequence[PageLine]],
                         page_sizes: Sequence[tuple[float, float]] | None,
                         frame: tuple[float, float] | None) -> set[tuple[int, int]]:
    """Text set at an angle in a page's margin: on the page, beside the document's
    horizontal text, and nearer the page's edge than any other text of the page
    (an identifier up the margin). A rotated label inside a figure lies within the
    text's width; the first column of a table set sideways has the next column
    beside it, nearer than the page edge: both stay."""
    if frame is None:
        return set()
    left, right = frame
    found: set[tuple[int, int]] = set()
    for p, lines in enumerate(pages):
        width = page_sizes[p][0] if page_sizes and p < len(page_sizes) else math.inf
        candidates = [i for i, line in enumerate(lines)
                      if line.rotated and line.box is not None and line.removable
                      and line.box[2] > 0 and line.box[0] < width  # on the page
                      and (line.box[2] <= left or line.box[0] >= right)]
        if not candidates:
            continue
        boxes = [line.box for line in lines if line.box is not None]
        starts = sorted(box[0] for box in boxes)
        ends = sorted(box[2] for box in boxes)
        for i in candidates:
            x0, _, x1, _ = lines[i].box
            if x1 <= left:  # left margin: the nearest text that starts right of it
                k = bisect.bisect_left(starts, x1)
                gap = starts[k] - x1 if k < len(starts) else math.inf
                edge = max(x0, 0.0)
            else:
                k = bisect.bisect_right(ends, x0)
                gap = x0 - ends[k - 1] if k > 0 else math.inf
                edge = max(width - x1, 0.0) if width != math.inf else 0.0
            if gap >= max(MIN_STAMP_GAP, edge / 2):
                found.add((p, i))
    return found


def unplaced_stamp_pieces(pages: Sequence[Sequence[PageLine]],
                           stamps: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """Pieces of a stamp that PDFium did not place ("P" between "END THIS" and "AGE W"):
    runs of short lines without a box between a stamp line and another stamp line or
    the end of the page, in Tika's order."""
    found: set[tuple[int, int]] = set()
    for p, lines in enumerate(pages):
        run: list[int] = []
        opened = False  # the run follows a stamp line
        for i, line in enumerate(lines):
            if (p, i) in stamps:
                if opened:
                    found.update((p, j) for j in run)
                run, opened = [], True
            elif line.link:
                continue  # a link target Tika prints after the page: no piece, no break
            elif (opened and line.box is None and line.removable
                  and len(line.text.strip()) <= MAX_STAMP_PIECE_CHARS):
                run.append(i)
            else:
                run, opened = [], False
        if opened:
            found.update((p, j) for j in run)
    return found


def find_slugs(pages: Sequence[Sequence[PageLine]],
                page_sizes: Sequence[tuple[float, float]] | None) -> set[tuple[int, int]]:
    """Lines set wholly above the page's top edge or below its bottom edge, whose
    shape recurs there on another page: the printer's slug
    (``file.indd 3 09/10/2013 5:49 PM``), which no reader sees. Text that ran off
    one page (a margin note too long for it) does not recur, and stays."""
    if not page_sizes:
        return set()
    beyond: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for p, lines in enumerate(pages):
        if p >= len(page_sizes):
            break
        height = page_sizes[p][1]
        for i, line in enumerate(lines):
            box = line.box
            if line.removable and box is not None and (box[3] <= 0 or box[1] >= height):
                beyond[line_shape(line.text)].append((p, i))
    return {hit for hits in beyond.values() if len({p for p, _ in hits}) >= 2 for hit in hits}


def find_cut_text(pages: Sequence[Sequence[PageLine]], heads: set[Hit], found: set[Hit],
                  body: float) -> set[Hit]:
    """A running head found on other pages, set turned on a landscape table's page and
    cut by Tika into a run of fragments ("W", "ebb", "etal.(2017),PeerJ", "C", "om",
    "put.Sci.,D", "O", "I10.7717/peerj-cs.118", "8/16"): the consecutive lines whose
    letters, joined, are exactly a head's letters (its numbers may differ, as a page
    number does), with a page number right after them."""
    keys = {key for p, i in heads
            if len(key := letters(pages[p][i].text)) >= MIN_CUT_LETTERS}
    if not keys:
        return set()
    prefixes = {key[:n] for key in keys for n in range(1, len(key) + 1)}
    firsts = {key[0] for key in keys}
    out: set[Hit] = set()
    for p, lines in enumerate(pages):
        cut: dict[int, str | None] = {}

        def letters_of(k: int, lines: Sequence[PageLine] = lines,
                       cut: dict[int, str | None] = cut) -> str | None:
            if k not in cut:
                cut[k] = letters(lines[k].text) if lines[k].removable else None
            return cut[k]

        i = 0
        while i < len(lines):
            first = _LETTER.search(lines[i].text)
            if first is None or first.group().casefold() not in firsts \
                    or letters_of(i) not in prefixes:
                i += 1  # most lines: cannot open a head's letters
                continue
            joined, j, end = "", i, -1
            while j < len(lines) and (piece := letters_of(j)) is not None and (
                    joined + piece) in prefixes:
                joined += piece
                j += 1
                if joined in keys:
                    end = j
            # A whole line is the template's to find; lines set larger than the body are
            # a title over two lines ("Cython Reference Guide" / "Release 0.29a0" under
            # the head "Cython Reference Guide, Release 0.29a0"), unless turned (a stamp).
            if end - i >= MIN_CUT_PIECES and not any(
                    not lines[k].rotated and lines[k].size > body
                    and sizes_differ(lines[k].size, body) for k in range(i, end)):
                if end < len(lines) and letters_of(end) == "" \
                        and page_number_value(lines[end].text) is not None:
                    end += 1
                out.update((p, k) for k in range(i, end) if (p, k) not in found)
                i = end
            else:
                i += 1
    return out


def _squeezed(text: str) -> str:
    """A piece's letters and digits, case-folded: what survives however Tika cut it."""
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def find_vertical_pieces(pages: Sequence[Sequence[PageLine]], stamps: set[Hit],
                         frame: tuple[float, float] | None) -> set[Hit]:
    """Margin text assembled before it is judged: on each page a run of pieces in Tika's
    order around a stamp piece (short, no space) is joined ("JC" "A" "P" "10(2008)003":
    ``jcap102008003``); a run whose text recurs on two other pages goes whole, and so
    does a piece left anywhere whose letters lie within such text (``MIN_VERTICAL_CHARS``,
    no space, not level in the text frame: "IST.SP.800-218")."""
    runs: list[tuple[int, list[int], str]] = []  # (page, its lines, their margin text)
    stamped = {p for p, _ in stamps}
    for p, lines in enumerate(pages):
        if p not in stamped:
            continue  # a run is around a stamp piece
        def piece(k: int, lines: Sequence[PageLine] = lines, p: int = p) -> bool:
            text = lines[k].text.strip()
            return (p, k) in stamps or (lines[k].removable and not lines[k].link
                                        and 0 < len(text) <= MAX_STAMP_PIECE_CHARS
                                        and " " not in text)

        i = 0
        while i < len(lines):
            j = i
            while j < len(lines) and piece(j):
                j += 1
            if any((p, k) in stamps for k in range(i, j)):
                runs.append((p, list(range(i, j)),
                             "".join(_squeezed(lines[k].text) for k in range(i, j))))
            i = max(j, i + 1)
    pages_of: dict[str, set[int]] = defaultdict(set)
    for p, _, text in runs:
        if len(text) >= MIN_CUT_LETTERS:
            pages_of[text].add(p)
    margin = {text: on for text, on in pages_of.items() if len(on) >= 3}
    if not margin:
        return set()
    found = {(p, k) for p, run, text in runs if text in margin for k in run} - stamps
    for p, lines in enumerate(pages):  # a piece alone, anywhere
        for i, line in enumerate(lines):
            if (p, i) in stamps or (p, i) in found or not line.removable or line.link \
                    or " " in line.text.strip():
                continue
            box = line.box
            if box is not None and not line.rotated and frame is not None \
                    and box[2] > frame[0] and box[0] < frame[1]:
                continue  # level, in the text frame: the body's
            piece = _squeezed(line.text)
            if len(piece) >= MIN_VERTICAL_CHARS and any(
                    piece in text and len(on - {p}) >= 2 for text, on in margin.items()):
                found.add((p, i))
    return found
