"""The page number by its value (pure): the page sequence (index plus an offset several
pages agree on) tells it from body numbers, anchors heads wherever Tika puts them, and
finds what no page repeats (a single page's number, a head set apart with its number)."""

from __future__ import annotations

import itertools
import re
from collections import Counter, defaultdict

from ragbeam.transforms.clean.furniture.lines import (
    DIGITS,
    EXTREME_BAND,
    MAX_COMPANION_CHARS,
    MAX_PAGE_NUMBER,
    MIN_FRAME_LINE_CHARS,
    MIN_FRAME_LINES,
    MIN_PAGE_SHARE,
    MIN_SEQUENCE_PAGES,
    SAME_PLACE_POINTS,
    SENTENCE_END,
    SHORT_DOCUMENT_PAGES,
    SLOT_POINTS,
    Box,
    Hit,
    PageLine,
    Pages,
    band,
    edge_lines,
    head_number,
    is_companion,
    is_lone_number,
    line_shape,
    page_number_value,
    page_rows,
    roman_value,
    same_place,
)
from ragbeam.transforms.clean.residue import BINARY_CHAR

# Deeper than the template band (Tika emits some after a masthead): the sequence
# protects body numbers.
PAGE_NUMBER_BAND = 8
# A head anchored anywhere on its page follows the sequence on this many pages and this
# share of all (a long table's numbers match some offset on a few pages by chance).
MIN_ANCHORED_PAGES = 3
ANCHORED_PAGE_SHARE = 0.25
SMALLER_FONT = 0.95  # a head set apart: at most this share of the text's size
_LIST_MARKS = ("•", "·", "-", "–", "—", "*", "▪", "◦", "●", "‣")


def find_page_numbers(pages: Pages) -> set[Hit]:
    """The lines that carry their page's number, in one pass over the pages' lines: on
    a single page a lone number at its edge; else the lines at a page's edge that are,
    or open or close with, its number in the sequence (``_sequence_numbers``) and the
    heads anywhere on their page that carry it (``_anchored_heads``)."""
    if len(pages) == 1:  # no sequence: a lone number at the edge of a page with some body
        lines = pages[0]
        edge = band(len(lines), EXTREME_BAND) if len(lines) > 2 * EXTREME_BAND else []
        return next(({(0, i)} for i in edge
                     if lines[i].removable and is_lone_number(lines, i)), set())
    votes: dict[tuple[str, int], set[int]] = defaultdict(set)
    outermost: dict[tuple[str, int], set[int]] = defaultdict(set)  # voters on line 0 or n-1
    candidates: list[tuple[int, int, str, int]] = []
    embedded: dict[str, list[tuple[int, int, str, int]]] = defaultdict(list)
    numbered: list[tuple[int, int, int, str]] = []  # (page, line, offset, text without it)
    fused: list[tuple[int, int, str]] = []  # ends in a digit that is no token of its own
    # Lone numbers whose digits read backwards are another number (``01`` for 10).
    reversed_numbers: list[tuple[int, int, int]] = []
    for p, lines in enumerate(pages):
        # A page's lines as counted from its edges: all of them, less any unplaced
        # formula glyphs (``_is_unplaced_formula``) where the page has some.
        counted = (None if all(line.box is not None or line.text.isascii() for line in lines)
                   else [i for i, line in enumerate(lines) if not _is_unplaced_formula(line)])
        n = len(lines) if counted is None else len(counted)
        # The edge band's lines first, then the lines with a number at either end: each
        # list below is filled by one of the two, in line order, as by one pass.
        for k in band(n, PAGE_NUMBER_BAND):
            i = k if counted is None else counted[k]
            line = lines[i]
            if line.removable:
                parsed = page_number_value(line.text)
                if parsed is not None:
                    system, value = parsed
                    candidates.append((p, i, system, value - p))
                    votes[(system, value - p)].add(p)
                    if k in (0, n - 1):
                        outermost[(system, value - p)].add(p)
                    if system == "arabic" and (turned := _digits_turned(line.text)):
                        reversed_numbers.append((p, i, turned - p))
                elif (k < EXTREME_BAND or k >= n - EXTREME_BAND) and (
                        inner := head_number(line.text)):
                    # Grouped by the text beside the number, which may open one page's
                    # head and close the next one's ("1032 JFMS …" / "JFMS … 1033").
                    system, value, rest = inner
                    embedded[line_shape(rest)].append((p, i, system, value - p))
        # Most lines: no number at either end (checked before splitting).
        for i, text in [(i, text) for i, line in enumerate(lines)
                        if line.removable and ((text := line.text.strip())[:1].isdigit()
                                               or text[-1:].isdigit())]:
            tokens = text.split()
            if len(text) > 2 * MAX_COMPANION_CHARS or len(tokens) < 3:
                continue
            outer = _outer_number(tokens)
            rest = outer[1] if outer else text
            if rest.endswith(SENTENCE_END) or sum(map(str.isalpha, rest.split())) < 2:
                continue
            if outer:
                numbered.append((p, i, outer[0] - p, rest))
            else:
                fused.append((p, i, text))
    found = _sequence_numbers(pages, candidates, votes, outermost, embedded)
    found |= _turned_folios(pages, found, reversed_numbers) | _anchored_heads(
        len(pages), numbered, fused)
    if found:
        return found
    # A line that counts the pages says its number where nothing else can: no sequence
    # found, and no other page to repeat it (more copies: a text group of the template).
    counted = {(p, i) for p, i, line in edge_lines(pages)
               if line.removable and _counts_the_pages(line.text, p, len(pages))}
    return counted if len(counted) == 1 else found


# A line's opening up to a digit that runs into a letter (``08 | 09Software-…``).
_RUN_INTO_WORD = re.compile(r"^(.*?\d)(?=[^\W\d_])")


def fused_folios(pages: Pages, numbers: set[Hit]) -> set[Hit]:
    """A folio Tika ran into the template text beside it on its row, neither placed
    (``08 | 09Software-Entwicklung``: the spread's folio and the chapter's label): on
    a page with no number found, an edge line that opens with a folio as the
    sequence's pages set it (its form, the page's numbers at their offsets, on
    ``MIN_SEQUENCE_PAGES`` pages) and goes on, without a space, with a short text that
    is no sentence (the label: its own text, once in the document)."""
    forms: Counter[tuple[str, tuple[int, ...]]] = Counter()
    for p, i in numbers:
        text = pages[p][i].text
        forms[(line_shape(text), tuple(int(v) - p for v in DIGITS.findall(text)))] += 1
    wanted = {form for form, n in forms.items() if n >= MIN_SEQUENCE_PAGES}
    if not wanted:
        return set()
    found: set[Hit] = set()
    for p, i, line in edge_lines(pages, {p for p, _ in numbers}):
        if (line.removable and (run := _RUN_INTO_WORD.match(line.text)) is not None
                and (line_shape(folio := run[1]),
                     tuple(int(v) - p for v in DIGITS.findall(folio))) in wanted
                and is_companion(line._replace(text=line.text[run.end():]))):
            found.add((p, i))
    return found


# A head closing with its page's number out of the document's count: ``… 2 / 2``.
_OF_COUNT = re.compile(r"\s(\d{1,4})\s*(?:/|of|von|de|sur|di)\s*(\d{1,4})\s*$", re.IGNORECASE)


def _counts_the_pages(text: str, p: int, n_pages: int) -> bool:
    """Does a line with words close with page ``p``'s number out of the document's
    ``n_pages`` (a slide deck's footline ``Author  Short title  Date  2 / 2``)? That says
    it is the page number where nothing recurs (a deck of two slides, the first of them
    a title slide without its footline)."""
    if n_pages < 2 or not text[-1:].isdigit():
        return False  # most lines
    said = _OF_COUNT.search(text)
    return (said is not None and int(said[1]) == p + 1 and int(said[2]) == n_pages
            and any(map(str.isalpha, text[:said.start()])))


def _digits_turned(text: str) -> int | None:
    """The value of a lone number of two digits or more read backwards, where that is
    another number (``01`` → 10; not ``11``, not ``10`` → ``01``)."""
    digits = text.strip()
    if len(digits) < 2 or not digits.isdigit() or digits[-1] == "0" or digits == digits[::-1]:
        return None
    return int(digits[::-1])


def _turned_folios(pages: Pages, found: set[Hit],
                   reversed_numbers: list[tuple[int, int, int]]) -> set[Hit]:
    """Folios whose glyphs the PDF writes right to left, so that Tika reads a two-digit
    folio backwards (``01``, ``11``, ``21`` for 10-12; one digit reads the same): on a
    page with no folio found, a lone number at the line the sequence's folios hold on
    other pages (counted from the same edge) whose digits, turned, are the page's
    number in an arabic sequence found on several pages."""
    if not reversed_numbers:
        return set()
    slots: dict[int, set[tuple[bool, int]]] = defaultdict(set)  # offset → (at the end, line)
    pages_of: Counter[int] = Counter()
    for p, i in found:
        parsed = page_number_value(pages[p][i].text)
        if parsed is not None and parsed[0] == "arabic":
            n = len(pages[p])
            slots[parsed[1] - p].add((i >= n - i - 1, min(i, n - 1 - i)))
            pages_of[parsed[1] - p] += 1
    numbered = {p for p, _ in found}
    turned: set[Hit] = set()
    for p, i, offset in reversed_numbers:
        n = len(pages[p])
        if (p not in numbered and pages_of[offset] >= MIN_SEQUENCE_PAGES
                and (i >= n - i - 1, min(i, n - 1 - i)) in slots[offset]
                and is_lone_number(pages[p], i)):
            turned.add((p, i))
            numbered.add(p)
    return turned


def _is_unplaced_formula(line: PageLine) -> bool:
    """A line PDFium did not place that holds characters nothing reads (private use,
    U+FFFD) and no letter: the glyphs of a display formula set in a font without a
    Unicode map, broken by Tika into short lines. Tika emits them after the line before
    them, which may be the page's folio (a Korean thesis sets ``- 10 -`` first on a
    page of formulas), and ``edge_order`` keeps them after it: they would push the
    folio out of the edge band, though they stand at no edge and carry no word."""
    return (line.box is None and BINARY_CHAR.search(line.text) is not None
            and not any(map(str.isalpha, line.text)))


def _sequence_numbers(pages: Pages, candidates: list[tuple[int, int, str, int]],
                      votes: dict[tuple[str, int], set[int]],
                      outermost: dict[tuple[str, int], set[int]],
                      embedded: dict[str, list[tuple[int, int, str, int]]]) -> set[Hit]:
    """Lines at a page's edge that are (``candidates``: page, line, system, offset), or
    open or close with (``embedded``, by the text beside the number), its number in the
    sequence: at most one per page and sequence."""
    # A head that carries the page number repeats (a numbered heading atop one page
    # does not).
    single: list[tuple[int, int, str, int]] = []
    for rest, hits in embedded.items():
        if len({p for p, *_ in hits}) >= 2:
            candidates.extend(hits)
            for p, i, system, offset in hits:
                votes[(system, offset)].add(p)
                # The outermost line, with words: two consecutive pages suffice.
                if i in (0, len(pages[p]) - 1) and len(rest.split()) >= 2:
                    outermost[(system, offset)].add(p)
        else:
            single.extend(hits)
    needed = 2 if len(pages) <= SHORT_DOCUMENT_PAGES else MIN_SEQUENCE_PAGES
    accepted = {key for key, voters in votes.items() if len(voters) >= needed or (
        len(pair := outermost[key]) == 2 and max(pair) - min(pair) == 1)}
    # A head seen once goes when its number is the sequence's and it stands at one place
    # with such heads (a book's heads, each its own section's), or when it *ends* in it
    # ("Chapter 6: Tobogganing 53"; headings begin with their numbers) or opens a last
    # line with it ("2 Contents": a numbered heading does not close a page).
    places = Counter((system, offset, round(box[1] / (2 * SLOT_POINTS)))
                     for p, i, system, offset in single if (box := pages[p][i].box))
    in_place = {(system, offset) for (system, offset, _), n in places.items()
                if n >= MIN_SEQUENCE_PAGES}
    candidates.extend(hit for hit in single
                      if (hit[2], hit[3]) in in_place or ((hit[2], hit[3]) in accepted
                      and _is_single_head(pages[hit[0]][hit[1]].text,
                                          last_line=hit[1] == len(pages[hit[0]]) - 1)))
    accepted |= in_place
    found: set[Hit] = set()
    numbered: set[tuple[int, str, int]] = set()
    # Closest to an edge first, a lone number before a head's (a review copy's head
    # numbers the pages its own way: another sequence).
    for p, i, system, offset in sorted(candidates, key=lambda c: (
            min(c[1], len(pages[c[0]]) - 1 - c[1]),
            page_number_value(pages[c[0]][c[1]].text) is None, c[0], c[1])):
        if (system, offset) in accepted and (p, system, offset) not in numbered:
            found.add((p, i))
            numbered.add((p, system, offset))
    return found | _numbers_at_folio_place(pages, found)


def _numbers_at_folio_place(pages: Pages, found: set[Hit]) -> set[Hit]:
    """A lone number at a page's edge where the sequence's lone numbers stand on other
    pages (the same box on at least two), on a page with none found, is its folio
    whatever its offset: front matter numbered apart (``i`` before ``1``; ``2`` before a
    count that restarts after the contents), in order with the folios around it."""
    folios = [(p, pages[p][i].box, value) for p, i in found
              if pages[p][i].box is not None
              and (value := page_number_value(pages[p][i].text)) is not None]
    if len(folios) < 2:
        return set()
    at_height: dict[int, list[Box]] = defaultdict(list)  # the folios' boxes by their top
    for _, box, _ in folios:
        at_height[round(box[1] / SAME_PLACE_POINTS)].append(box)
    numbered = {p for p, _ in found}
    extra: set[Hit] = set()
    for p, i, line in edge_lines(pages, numbered):
        if any(q == p for q, _ in extra):
            continue  # one folio a page: the first edge line that is one
        if (not line.removable or line.box is None or not is_lone_number(pages[p], i)
                or (value := page_number_value(line.text)) is None):
            continue
        height = round(line.box[1] / SAME_PLACE_POINTS)
        there = sum(same_place(box, line.box) for k in (height - 1, height, height + 1)
                    for box in at_height.get(k, ()))
        if there >= 2 and all(_in_order((p, value), (q, v)) for q, _, v in folios):
            extra.add((p, i))
    return extra


def _in_order(number: tuple[int, tuple[str, int]], folio: tuple[int, tuple[str, int]]) -> bool:
    """Page ``number[0]``'s number and another page's folio in reading order: a larger
    value on a later page in one system; roman front matter before arabic pages."""
    (p, (system, value)), (q, (other, folio_value)) = number, folio
    if system == other:
        return (value < folio_value) == (p < q) and value != folio_value
    return (system == "roman") == (p < q)


def _is_single_head(line: str, last_line: bool) -> bool:
    """A head seen once: ends in its number (or opens a last line with it), and is no
    list item nor a sentence with a number fused to its end."""
    tokens = line.split()
    if not tokens or tokens[0].startswith(_LIST_MARKS):
        return False
    if tokens[-1].isdigit() or roman_value(tokens[-1]) is not None:
        return not " ".join(tokens[:-1]).endswith(SENTENCE_END)
    return last_line and (tokens[0].isdigit() or roman_value(tokens[0]) is not None)


def _outer_number(tokens: list[str]) -> tuple[int, str] | None:
    """(value, the rest) when a line opens or closes with an arabic number."""
    for value, rest in ((tokens[-1], tokens[:-1]), (tokens[0], tokens[1:])):
        if value.isdigit() and 0 < int(value) <= MAX_PAGE_NUMBER:
            return int(value), " ".join(rest)
    return None


def _anchored_heads(n_pages: int, numbered: list[tuple[int, int, int, str]],
                    fused: list[tuple[int, int, str]]) -> set[Hit]:
    """Heads anywhere on their page (Tika's order puts some after the floats, unplaced):
    a text that recurs on half the pages with the page number at one end (``numbered``:
    page, line, offset, the rest) or fused to its last word (``fused``) following the
    sequence; never a one-word label nor a sentence."""
    # Shape only lines whose offset several pages share (a long table's would cost).
    pages_of_offset: dict[int, set[int]] = defaultdict(set)
    for p, _, offset, _ in numbered:
        pages_of_offset[offset].add(p)
    needed = max(MIN_ANCHORED_PAGES, ANCHORED_PAGE_SHARE * n_pages)
    viable = {offset for offset, on in pages_of_offset.items() if len(on) >= needed}
    if not viable:
        return set()
    members: dict[str, list[tuple[int, int, int | None]]] = defaultdict(list)
    for p, i, offset, rest in numbered:
        if offset in viable:
            members[line_shape(rest)].append((p, i, offset))
    firsts = {shape[:1] for shape in members}  # a shape starts as its line does, or "#"
    for p, i, text in fused:
        first = text[:1].casefold()
        if first in firsts or ("#" in firsts and (first.isdigit() or first in "ivxlcdm")):
            members[line_shape(text)].append((p, i, None))
    found: set[Hit] = set()
    for hits in members.values():
        on_pages = {p for p, _, _ in hits}
        if len(on_pages) < MIN_PAGE_SHARE * n_pages or len(on_pages) != len(hits):
            continue  # not on most pages, or more than once on a page: not a head
        offsets = Counter(offset for _, _, offset in hits if offset is not None)
        if offsets and offsets.most_common(1)[0][1] >= needed:
            anchor = offsets.most_common(1)[0][0]
            found.update((p, i) for p, i, offset in hits if offset in (anchor, None))
    return found


def find_set_apart_edges(pages: Pages, numbers: set[Hit],
                         found_already: set[Hit] | frozenset[Hit] = frozenset()) -> set[Hit]:
    """Heads where nothing repeats: a page's top or bottom row set apart (a line pitch)
    in a smaller font, short, carrying its page's number in the sequence (not 1; on a
    single page also opposite a number other than 1). A title is larger and stays."""
    offsets = {0}
    for p, i in numbers:
        parsed = page_number_value(pages[p][i].text) or head_number(pages[p][i].text)
        if parsed is not None:
            offsets.add(parsed[1] - p - 1)
    found: set[Hit] = set()
    for p, lines in enumerate(pages):
        if len(pages) > 1 and not any((p, i) not in found_already
                                      and head_number(lines[i].text)
                                      for i in band(len(lines), EXTREME_BAND + 1)):
            continue  # most pages: no number left at an edge line
        rows = page_rows(lines)
        sized = [line for line in lines
                 if line.size > 0 and len(line.text) >= MIN_FRAME_LINE_CHARS]
        if len(rows) < 3 or len(sized) < MIN_FRAME_LINES:
            continue
        body_size = Counter(round(line.size) for line in sized).most_common(1)[0][0]
        tops = [min(lines[i].box[1] for i in row) for row in rows]
        pitch = sorted(b - a for a, b in itertools.pairwise(tops))[len(tops) // 2 - 1]
        paged = len(pages) == 1 and any(
            page_number_value(lines[i].text) not in (None, ("arabic", 1), ("roman", 1))
            for q, i in numbers if q == p)
        for edge, inner in ((rows[0], rows[1]), (rows[-1], rows[-2])):
            top, bottom = min(lines[i].box[1] for i in edge), max(lines[i].box[3] for i in edge)
            gap = (min(lines[i].box[1] for i in inner) - bottom if edge is rows[0]
                   else top - max(lines[i].box[3] for i in inner))
            texts = [lines[i] for i in edge if (p, i) not in numbers]
            if (not texts or gap < pitch
                    or not all(0 < line.size < SMALLER_FONT * body_size and is_companion(line)
                               for line in texts)):
                continue
            numbered = any(number[1] != 1 and (len(pages) == 1 or number[1] - p - 1 in offsets)
                           for line in texts
                           if (number := head_number(line.text)) is not None)
            if paged or numbered:
                found.update((p, i) for i in edge if (p, i) not in numbers)
    return found


