"""Text laid over a page or cut apart by Tika, assembled before it is judged (pure):
rotated stamps in the margin, printers' slugs, margin text and template text in pieces."""

from __future__ import annotations

import bisect
import math
import re
from collections import Counter, defaultdict
from collections.abc import Sequence

from ragbeam.transforms.clean.furniture.lines import (
    DIGITS,
    MIN_FRAME_LINE_CHARS,
    MIN_PAGE_SHARE,
    MIN_SEQUENCE_PAGES,
    SAME_PLACE_POINTS,
    Box,
    Frame,
    Hit,
    PageLine,
    Pages,
    PageSizes,
    TemplateGroup,
    beside_frame,
    letters,
    line_shape,
    page_number_value,
    page_size,
    same_place,
    set_larger,
)

# A rotated line in the margin is a stamp when the page's text is at least this far
# from it (points), and at least half as far as the page edge.
MIN_STAMP_GAP = 6.0
MAX_STAMP_PIECE_CHARS = 8  # a piece of margin text: this short, no space
MIN_CUT_LETTERS = 12  # text in pieces: at least this many letters…
MIN_CUT_PIECES = 2  # …in at least this many pieces
_LETTER = re.compile(r"[^\W\d_]")
_ASCII_WORD = re.compile(r"[A-Za-z]+")
MIN_VERTICAL_CHARS = 8  # a piece of margin text left alone: letters and digits


def find_laid_over(pages: Pages, page_sizes: PageSizes, frames: Sequence[Frame]
                  ) -> tuple[set[Hit], list[TemplateGroup]]:
    """Text laid over the pages, in one pass over their lines: the stamps (every line
    found) and the rotated template groups. Found are rotated text recurring at one place
    on half the pages (a watermark, ``DO NOT SEND THIS PAGE`` across a form's pages, in
    pieces; a rotated label in one figure does not recur); rotated text beside the text
    frame (``frames``: each page's), nearer the page's edge than any other text (an
    identifier up the margin; a figure's rotated label lies within the frame, a sideways
    table's first column has the next beside it); lines wholly beyond the page's top or
    bottom edge whose shape
    recurs there (the printer's slug ``file.indd 3 09/10/2013 5:49 PM``; a note that ran
    off one page does not recur); and the margin text assembled around a stamp
    (``_vertical_pieces``)."""
    rotated_at: dict[str, list[tuple[int, int, Box]]] = defaultdict(list)
    beyond: dict[str, list[Hit]] = defaultdict(list)
    stamps: set[Hit] = set()
    for p, lines in enumerate(pages):
        width, height = page_size(page_sizes, p)
        frame = frames[p]
        measured = page_sizes is not None and p < len(page_sizes)
        margin: list[int] = []
        for i, line in enumerate(lines):
            box = line.box
            if not line.removable or box is None:
                continue
            if line.rotated:
                rotated_at[line_shape(line.text)].append((p, i, box))
                if beside_frame(line, frame, width):
                    margin.append(i)
            if measured and (box[3] <= 0 or box[1] >= height):
                beyond[line_shape(line.text)].append((p, i))
        if not margin:
            continue
        # A margin stamp: at least MIN_STAMP_GAP from the nearest text, half the edge's.
        starts = sorted(line.box[0] for line in lines if line.box is not None)
        ends = sorted(line.box[2] for line in lines if line.box is not None)
        for i in margin:
            x0, _, x1, _ = lines[i].box
            if x1 <= frame[0]:  # left margin: the nearest text that starts right of it
                k = bisect.bisect_left(starts, x1)
                gap = starts[k] - x1 if k < len(starts) else math.inf
                edge = max(x0, 0.0)
            else:
                k = bisect.bisect_right(ends, x0)
                gap = x0 - ends[k - 1] if k > 0 else math.inf
                edge = max(width - x1, 0.0) if width != math.inf else 0.0
            if gap >= max(MIN_STAMP_GAP, edge / 2):
                stamps.add((p, i))
    stamps.update(hit for hits in beyond.values() if len({p for p, _ in hits}) >= 2
                  for hit in hits)
    needed = max(MIN_SEQUENCE_PAGES, MIN_PAGE_SHARE * len(pages))
    groups: list[TemplateGroup] = []
    for key, hits in rotated_at.items():
        if len({p for p, _, _ in hits}) < needed:
            continue
        # The place most of them share (boxes rounded to a grid), and all hits near it.
        cells = [tuple(round(x / SAME_PLACE_POINTS) for x in box) for _, _, box in hits]
        anchor = hits[cells.index(Counter(cells).most_common(1)[0][0])][2]
        same = [(p, i) for p, i, box in hits if same_place(box, anchor)]
        if len({p for p, _ in same}) >= needed:
            groups.append(TemplateGroup("rotated", key, frozenset(same)))
    stamps.update(hit for group in groups for hit in group.members)
    return stamps | _vertical_pieces(pages, stamps, frames), groups


def find_cut_text(pages: Pages, heads: set[Hit], found: set[Hit], body: float) -> set[Hit]:
    """A head found on other pages that Tika cut into fragments (turned with a landscape
    table: "W", "ebb", "etal.(2017),PeerJ", …, "8/16"): consecutive lines whose letters
    join to exactly a head's and whose digits are in the head's order (a table's column
    of part numbers, ``MSP430F5529`` / ``MSP430F5527`` …, has a head's letters, not its
    order), with a page number right after them."""
    digits_of: dict[str, set[str]] = defaultdict(set)  # the heads' digits, by their letters
    for p, i in heads:
        if len(key := letters(text := pages[p][i].text)) >= MIN_CUT_LETTERS:
            digits_of[key].add("".join(DIGITS.findall(text)))
    keys = digits_of.keys()
    if not keys:
        return set()
    prefixes = {key[:n] for key in keys for n in range(1, len(key) + 1)}
    firsts = {key[0] for key in keys}
    # A piece without letters adds nothing to the letters joined: it belongs to a head
    # only where the head prints its numbers ("(2017)") or it is a page number ("Page",
    # "5", "of", "10"); a table's values between pieces of a shading glyph ("ÎÎÎÎ",
    # "2.0", "ÎÎÎ") are body.
    head_numbers = {number for p, i in heads for number in DIGITS.findall(pages[p][i].text)}
    out: set[Hit] = set()
    for p, lines in enumerate(pages):
        def letters_of(k: int, lines: Sequence[PageLine] = lines) -> str | None:
            if not lines[k].removable:
                return None
            found = letters(lines[k].text)
            if not found and page_number_value(lines[k].text) is None \
                    and not set(DIGITS.findall(lines[k].text)) <= head_numbers:
                return None
            return found

        # The lines that may open a head's letters, in order (most lines cannot).
        starts = [k for k, line in enumerate(lines)
                  if _may_open(line.text, firsts, prefixes) and letters_of(k) in prefixes]
        head_end = 0  # the end of the last head found on the page
        for i in starts:
            if i < head_end:
                continue  # within the pieces of a head found
            joined, j, end, head = "", i, -1, ""
            while j < len(lines) and (piece := letters_of(j)) is not None and (
                    joined + piece) in prefixes:
                joined += piece
                j += 1
                if joined in keys:
                    end, head = j, joined
            # The digits of the pieces with letters, in order, are a head's (a piece
            # without is the page's number or the head's).
            if end > i and (digits := "".join(
                    "".join(DIGITS.findall(lines[k].text)) for k in range(i, end)
                    if letters(lines[k].text))) and not any(
                    digits in own for own in digits_of[head]):
                continue
            # Level lines set larger than the text are a title over two lines
            # ("Cython Reference Guide" / "Release 0.29a0" under such a head).
            if end - i >= MIN_CUT_PIECES and not any(
                    not lines[k].rotated and set_larger(lines[k].size, body)
                    for k in range(i, end)):
                if end < len(lines) and lines[end].removable \
                        and letters(lines[end].text) == "" \
                        and page_number_value(lines[end].text) is not None:
                    end += 1
                out.update((p, k) for k in range(i, end) if (p, k) not in found)
                head_end = end
    return out


def _may_open(text: str, firsts: set[str], prefixes: set[str]) -> bool:
    """Could a line's letters open a head's (``firsts``: their first letters,
    ``prefixes``: their openings)? An ASCII line's first word opens its letters: it
    opens a head's too (a letter alone included)."""
    if text.isascii():
        first = _ASCII_WORD.search(text)
        return first is not None and first.group().lower() in prefixes
    first = _LETTER.search(text)
    return first is not None and first.group().casefold() in firsts


def _squeezed(text: str) -> str:
    """A piece's letters and digits, case-folded: what survives however Tika cut it."""
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def _in_frame(line: PageLine, frame: Frame) -> bool:
    """Placed level within the text frame's sides: where the body stands."""
    box = line.box
    return (box is not None and not line.rotated and frame is not None
            and box[2] > frame[0] and box[0] < frame[1])


def _vertical_pieces(pages: Pages, stamps: set[Hit], frames: Sequence[Frame]) -> set[Hit]:
    """Margin text assembled before it is judged: a run of pieces in Tika's order around
    a stamp piece is joined ("JC" "A" "P" "10(2008)003": ``jcap102008003``). Its pieces
    between two stamp pieces, and those PDFium did not place up to the page's end, are
    the stamp's; a run whose text recurs on two other pages goes whole, as does a piece
    anywhere (not level in the frame) whose letters lie within it ("IST.SP.800-218")."""
    runs: list[tuple[int, list[int], str]] = []  # (page, its lines, their margin text)
    found: set[Hit] = set()
    stamped = {p for p, _ in stamps}
    for p, lines in enumerate(pages):
        if p not in stamped:
            continue  # a run is around a stamp piece
        frame = frames[p]

        def piece(k: int, lines: Sequence[PageLine] = lines, p: int = p,
                  frame: Frame = frame) -> bool:
            text = lines[k].text.strip()
            # Short and unspaced, or unplaced and shorter than a line of text; never
            # the page's number level in the frame (Tika gives the folio beside it).
            return (p, k) in stamps or (lines[k].removable and bool(text) and (
                (len(text) <= MAX_STAMP_PIECE_CHARS and " " not in text)
                or (lines[k].box is None and len(text) < MIN_FRAME_LINE_CHARS))
                and not (_in_frame(lines[k], frame) and page_number_value(text)))

        i = 0
        while i < len(lines):
            j = i
            while j < len(lines) and piece(j):
                j += 1
            marks = [k for k in range(i, j) if (p, k) in stamps]
            if marks:
                runs.append((p, list(range(i, j)),
                             "".join(_squeezed(lines[k].text) for k in range(i, j))))
                # Between two of its pieces, wherever PDFium put it (it may match a
                # cluster to another spot: ":2" of arXiv's stamp at a footnote's).
                found.update((p, k) for k in range(marks[0] + 1, j) if k < marks[-1]
                             or (lines[k].box is None and j == len(lines)))
            i = max(j, i + 1)
    pages_of: dict[str, set[int]] = defaultdict(set)
    for p, _, text in runs:
        if len(text) >= MIN_CUT_LETTERS:
            pages_of[text].add(p)
    margin = {text: on for text, on in pages_of.items() if len(on) >= 3}
    if not margin:
        return found - stamps
    found |= {(p, k) for p, run, text in runs if text in margin for k in run}
    found -= stamps
    for p, lines in enumerate(pages):  # a piece alone, anywhere
        for i, line in enumerate(lines):
            if (p, i) in stamps or (p, i) in found or not line.removable \
                    or " " in line.text.strip():
                continue
            if _in_frame(line, frames[p]):
                continue  # level, in the text frame: the body's
            piece = _squeezed(line.text)
            if len(piece) >= MIN_VERTICAL_CHARS and any(
                    piece in text and len(on - {p}) >= 2 for text, on in margin.items()):
                found.add((p, i))
    return found
