"""The page template of a document: what its pages carry in the same place (pure).
Lines grouped by text with what varies abstracted, by place and by type, odd and even
pages apart, are template where they recur over enough of the pages they could appear
on (docs/cleaning.md, "Page furniture": the groups and what tells body text apart)."""

from __future__ import annotations

import bisect
import functools
import math
import operator
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence

from ragbeam.transforms.clean.furniture.lines import (
    DASHES,
    DIGITS,
    EXTREME_BAND,
    MIN_PAGE_SHARE,
    MIN_SEQUENCE_PAGES,
    RUNNING_TEXT_BAND,
    SAME_PLACE_POINTS,
    Box,
    Frame,
    Hit,
    PageLine,
    Pages,
    PageSizes,
    TemplateGroup,
    edge_lines,
    head_number,
    is_companion,
    is_data_row,
    line_shape,
    lines_by_page,
    members,
    outer_rows,
    page_number_value,
    page_size,
    row_beside,
    same_place,
    same_slot,
    set_larger,
    template_key,
)
from ragbeam.transforms.clean.headings import keyword_division
from ragbeam.transforms.clean.layout import sizes_differ

SECTION_RUN_PAGES = 3  # a head that changes with the section: pages in a row at the edge
# Body after all: the middle of the pages says it on one page for every this many that
# carry it at an edge (a cover's title does not save a head on 30 pages).
EDGE_PAGES_PER_MIDDLE_PAGE = 4
MAX_BLOCK_LINES = 12  # an edge read again past its template: up to this deep
MAX_CHANGING_NUMBERS = 2  # a head's: the page's, a chapter's; more is a table's rows
# A table's column heads, repeated atop each page the table runs over, stand in a row of
# cells: each copy has at least this many other lines beside it that no template text
# or page number is (a head's row holds its own parts and the page number).
MIN_HEADER_CELLS = 4
SLOT_PAGE_SHARE = 0.25  # of the pages (of its parity) template lines stand in a slot on
PLACE_DRIFT_POINTS = 6.0  # a repeated line drifting more moves with the text
MIN_REPEATED_BLOCK_LINES = 3  # drifting lines that stand as one block (a letterhead foot)
MIN_SIDE_GAP = 6.0  # points beside the text frame: the side margin
HEADING_SIZE_RATIO = 1.2  # of the text's size: set like a heading…
DISPLAY_SIZE_RATIO = 1.5  # …in display type
MIN_TITLE_LETTERS = 3  # a title a head ends with (``CHAPTER 2. RESULTS``), not a date
_NOT_IN_TITLE_FORM = re.compile(r"[^\w#]|_")  # spaces and punctuation
_WORDS = re.compile(r"[^\W\d_]{2,}")
_SPACED_NUMBER = re.compile(r"#{2,}")  # a key's numbers once its spaces are gone
_SPACED_LETTERS = re.compile(r"(?<![^\W\d_])([^\W\d_])\s+(?=[^\W\d_](?![^\W\d_]))")
# Is there one? The same search from the space (twice as fast: few positions are spaces).
_SPACED_LETTER_GAP = re.compile(r"\s(?<![^\W\d_][^\W\d_]\s)(?<=[^\W\d_]\s)\s*[^\W\d_](?![^\W\d_])")
_KEPT_WORDS = re.compile(r"[a-z]{2,}")  # of a lower-cased ASCII line
_PAGE_WORDS = frozenset({"page", "pg", "seite", "of", "von"})  # template_key's page number's
_NONE: frozenset[int] = frozenset()  # a page's lines that are none of a set's
_NO_HITS: frozenset[Hit] = frozenset()
_ONE_DASH = str.maketrans(dict.fromkeys(DASHES, "-"))
# A heading repeated on the next pages says it continues (``Holdings (continued)``,
# ``NOTES … (Continued)``, ``Résultats (suite)``): bracketed or after a dash, at its end.
_CONTINUED = re.compile(
    r"(?:[(\[（［]\s*(?:continued|cont(?:'d|’d|d|\.)?|fortsetzung|forts\.|suite|"
    r"continuación|continuação|continua|vervolg|续|續|続き)\s*[)\]）］]"
    r"|\s[—–-]\s*(?:continued|cont'd|cont’d|fortsetzung|suite))\s*$", re.IGNORECASE)
_CONTINUED_ENDS = ")]）］dge"  # the last characters of those marks, case-folded
_CONTINUED_KEY = "\x00continued "  # the text groups' key of such repeats, head or foot
_TITLE_KEY = "\x00title "  # of a head that says the current title, head or foot
# Of an edge line with numbers, as set (spaces and case aside): a text that recurs whole
# in its place is the template's whatever lines of its form say (``_exact_key``).
_EXACT_KEY = "\x00exact "
CONTINUED_SHOWN = "<a heading> (continued)"  # and the group's name in ``ragbeam viz``


def find_template(pages: Pages, numbers: set[Hit], page_sizes: PageSizes, frames: Sequence[Frame],
                  placed_elsewhere: Sequence[tuple[int, PageLine]], body: float
                 ) -> list[TemplateGroup]:
    """The template groups of a document's pages (lines in edge order; ``frames``: each
    page's text's left and right edge; ``placed_elsewhere``: slugs, whose places are slots)."""
    side, current = _page_surroundings(pages, frames, page_sizes, body)
    labels = _lone_division_labels(pages)
    # Each page's edge read again past the template found so far: a head block deeper
    # than the band, its next lines at the very edge.
    template = set(numbers)
    # Each page's text extents by the lines left out of it: a reading past more of the
    # template changes those of a few pages only, and the others are not worked out again.
    extents: _ExtentCache = {}
    rows: _RowCache = {}  # each page's outer rows by the lines left out, for every reading
    beside: dict[Hit, str | None] = {}  # an edge line's words beside the current title
    readings: _ReadingCache = {}  # each page's edge lines read, by the template on it
    for _ in range(MAX_BLOCK_LINES - RUNNING_TEXT_BAND + 1):
        groups = _text_groups(pages, side, page_sizes, numbers, body, template,
                              (extents, rows, readings), current, beside, labels)
        if (found := members(groups) | numbers) == template:
            break
        template = found
    groups = [group for group in groups if group.key.startswith(CONTINUED_SHOWN)
              or not heads_its_text(pages, group.members, body, found - group.members)]
    # A heading's repeats stand where its first page sets the heading: no slot of the
    # template's.
    repeats = members(group for group in groups if group.key.startswith(CONTINUED_SHOWN))
    groups += _slot_groups(pages, numbers, members(groups) | numbers, body, page_sizes,
                           placed_elsewhere, rows, repeats, labels)
    return groups


def _could_be_on(on_pages: Iterable[int], n: int) -> int:
    """Of a document's ``n`` pages, how many a group on ``on_pages`` could appear on:
    all, or its parity's when all of them are of one (a recto head's; page index 0 is
    page 1, odd)."""
    parities = {p % 2 for p in on_pages}
    return n if len(parities) != 1 else (n + 1 - min(parities)) // 2


# --- text groups -----------------------------------------------------------------


def _from_edges(pages: Pages, p: int, depth: int, known: set[Hit]
                ) -> tuple[set[int], list[int]]:
    """Page ``p``'s first and last ``depth`` lines (edge order), or the ``known``
    template at that edge and the row inward of it (a section's title and an account's
    label side by side under a statement's head are equally near the edge); lines
    PDFium did not place (figure labels Tika gives after the foot) come with them
    uncounted. And the first line past the ``known`` template at each edge where some
    stands there (an account owner's line under its label)."""
    lines = pages[p]
    placed = any(line.box is not None for line in lines)
    out: set[int] = set()
    past: list[int] = []
    for order in (range(len(lines)), range(len(lines) - 1, -1, -1)):
        left, outside, met = depth, True, False
        for i in order:
            if left <= 0:
                break
            out.add(i)
            counted = not placed or lines[i].box is not None
            if not outside:
                left -= counted
            elif (known_here := (p, i) in known) or _read_past(lines, p, i, known, placed):
                met = met or known_here
                left -= counted and left > 1  # the template leaves the band's last line
            else:  # the first line inward of the template at this edge
                outside = False
                if met:
                    past.append(i)
                left -= counted
                if left <= 0:
                    out.update(_beside(lines, i, order.step))
    return out, past


def _read_past(lines: Sequence[PageLine], p: int, i: int, known: set[Hit], placed: bool
               ) -> bool:
    """Is line ``i``, not template, read past as the template at the edge is? A line on a
    row with template (a section's title beside an account's label) is, and so is a
    line PDFium did not place on a placed page (a formula's pieces Tika gives first):
    uncounted, it ends nothing."""
    return (placed and lines[i].box is None) or any(
        (p, j) in known for step in (1, -1) for j in _beside(lines, i, step))


@functools.lru_cache(maxsize=1 << 16)  # each reading of the edges asks it again
def _says_continued(text: str) -> bool:
    """Does a line say that the heading it repeats continues (a title before the mark)?"""
    if text.rstrip()[-1:].casefold() not in _CONTINUED_ENDS:
        return False  # most lines: no mark's last character
    said = _CONTINUED.search(text)
    return said is not None and sum(map(str.isalpha, text[:said.start()])) >= MIN_TITLE_LETTERS


def _beside(lines: Sequence[PageLine], i: int, step: int) -> list[int]:
    """The placed level lines next to line ``i`` in edge order (``step``: 1 after it,
    -1 before it) that stand beside it: over half the smaller one's height level with
    it (a label set at the foot of a taller line is on its row)."""
    if lines[i].box is None or lines[i].rotated:
        return []
    top, bottom = lines[i].box[1], lines[i].box[3]
    out = []
    j = i + step
    while 0 <= j < len(lines):
        if (box := lines[j].box) is not None and not lines[j].rotated:
            level = min(bottom, box[3]) - max(top, box[1])
            if level <= 0.5 * min(bottom - top, box[3] - box[1]):
                break
            out.append(j)
        j += step
    return out


def _text_groups(pages: Pages, side_lines: list[set[int]], page_sizes: PageSizes, numbers: set[Hit],
                 body: float, template: set[Hit],
                 caches: tuple[_ExtentCache, _RowCache, _ReadingCache],
                 current: Sequence[list[tuple[int, str]]], beside: dict[Hit, str | None],
                 labels: frozenset[Hit] = frozenset()
                ) -> list[TemplateGroup]:
    """Lines of one abstracted text in the edge bands or side margins (read inward of
    the ``template`` found) that recur as template text does (``caches``: the pages'
    text extents, outer rows and edge readings from earlier calls on the same pages;
    ``current``: each page's current headings, whose title a head that changes with the
    chapter says; ``beside``: what edge lines say beside it, from earlier calls;
    ``labels``: ``_lone_division_labels``, never template)."""
    edge_pages: dict[str, set[int]] = defaultdict(set)
    hits_of: dict[str, list[Hit]] = defaultdict(list)
    extreme_pages: dict[str, set[int]] = defaultdict(set)  # on a page's first/last 2 lines
    side_keys: set[str] = set()
    bands: list[set[int]] = []
    extent_cache, row_cache, reading_cache = caches
    template_by_page = lines_by_page(template)
    for p in range(len(pages)):
        # A page's reading depends on the template only through its own lines: one
        # an earlier call read alike is not read again.
        reading_key = (p, template_by_page.get(p, _NONE))
        if (reading := reading_cache.get(reading_key)) is None:
            reading = reading_cache[reading_key] = _read_edges(
                pages, p, side_lines[p], page_size(page_sizes, p)[0], template, current[p],
                body, beside)
        edge, entries = reading
        bands.append(edge)
        for key, at_extreme, hit, side in entries:
            if side:
                side_keys.add(key)
            edge_pages[key].add(p)
            if at_extreme:
                extreme_pages[key].add(p)
            if hit is not None:
                hits_of[key].append(hit)
    for key, hits in hits_of.items() if labels else ():
        if named := labels.intersection(hits):
            hits_of[key] = [hit for hit in hits if hit not in named]
            for p in {p for p, _ in named} - {p for p, _ in hits_of[key]}:
                edge_pages[key].discard(p)
                extreme_pages[key].discard(p)
    n = len(pages)
    candidates: list[str] = []
    alternating: list[tuple[str, int]] = []  # (key, parity of the pages it is on)
    for key, on_pages in edge_pages.items():
        hits = hits_of[key]
        if key.startswith(_EXACT_KEY) and len(hits) == len(hits_of[
                form := key[len(_EXACT_KEY):key.index("\x00", len(_EXACT_KEY))]]) and len(
                on_pages) == len(edge_pages[form]):
            continue  # every line of its form says it: the form's group is the same lines
        # A heading's repeats say so: no slide's title carried over.
        repeat = key.startswith(_CONTINUED_KEY)
        if (len(on_pages) < 2
                or (not repeat and _slide_title(pages, hits, body, page_sizes, one_text=True,
                                                template=template))
                or (_numbers_vary_like_a_table(pages, hits)
                    and not _all_at_one_place(pages, hits))):
            continue
        if (len(on_pages) >= MIN_PAGE_SHARE * n
                or (key not in side_keys and _in_a_run(extreme_pages.get(key, set()))
                    and (repeat or not _carried_over(pages, hits, page_sizes, body)))):
            candidates.append(key)
        elif len(on_pages) >= MIN_PAGE_SHARE * _could_be_on(on_pages, n):
            alternating.append((key, min(on_pages) % 2))  # all of one parity
    # A head on every other page needs furniture on the facing pages (a body line that
    # opens two even pages has none).
    if alternating:
        furnished = {p for key in candidates for p in edge_pages[key]}
        furnished.update(p for p, _ in numbers)
        furnished.update(p for key, _ in alternating for p in edge_pages[key])
        candidates.extend(key for key, parity in alternating
                          if any(p % 2 != parity for p in furnished))
    if not candidates:
        return []
    middle_pages, unplaced_middle = _middle_pages(
        pages, [bands[p] | side_lines[p] for p in range(n)],
        {key: _usual_size(pages, hits_of[key]) for key in candidates if key not in side_keys},
        body)
    groups: list[TemplateGroup] = []
    moved: dict[str, list[Hit]] = {}  # repeated at the edges, but not at one place
    as_set: list[TemplateGroup] = []  # groups of a text as set (``_exact_key``)
    template_like = numbers | {hit for key in candidates for hit in hits_of[key]}
    extents = _text_extents(pages, template_like, extent_cache, row_cache)
    for key in candidates:
        if key not in side_keys and (len(middle_pages.get(key, ()))
                                     * EDGE_PAGES_PER_MIDDLE_PAGE
                                     >= len(edge_pages[key])):
            continue  # the body says it too
        hits = hits_of[key]
        if _heads_table_columns(pages, hits, template_like):
            continue  # the table's own heads: body
        if key.startswith((_TITLE_KEY, _CONTINUED_KEY)):
            # One place: a page merely opening with a title (a continued one) stays.
            # A copy PDFium did not place is at the place only as its page's outermost
            # line (a foot Tika gives after everything else on the other side's pages).
            tops = sorted(pages[p][i].box[1] for p, i in hits if pages[p][i].box is not None)
            hits = [(p, i) for p, i in hits if tops and (
                abs(pages[p][i].box[1] - tops[len(tops) // 2]) <= PLACE_DRIFT_POINTS
                if pages[p][i].box is not None else i in (0, len(pages[p]) - 1))]
        elif key in side_keys:
            hits = _at_held_heights(pages, hits)
        if (key not in side_keys and not key.startswith(_CONTINUED_KEY)
                and _where_text_stands(pages, hits, extents, page_sizes, body)):
            # Its place is the text's on other pages: placeholder text repeated (a
            # heading's repeats stand where the next sections open, at the text's top).
            continue
        if _keeps_its_place(pages, hits, page_sizes, key in side_keys):
            # A title set larger on its own page stays; a heading's repeats say they are.
            kept = hits if key.startswith(_CONTINUED_KEY) else _set_as_a_head(pages, hits, body)
            if kept:
                # Its unplaced copies in a page's middle: the head, where Tika gave it
                # after a line mid-page (one a page, on pages it has no other on).
                on_pages = {p for p, _ in hits}
                copies = [(p, i) for p, i in unplaced_middle.get(key, ())
                          if p not in on_pages and pages[p][i].removable]
                if len({p for p, _ in copies}) == len(copies):
                    kept = [*kept, *copies]
                (as_set if key.startswith(_EXACT_KEY) else groups).append(TemplateGroup(
                    "text", _shown(key, pages[kept[0][0]][kept[0][1]]), frozenset(kept)))
        elif not key.startswith(_EXACT_KEY):  # its lines drift in their form's group too
            moved[key] = hits
    groups.extend(_repeated_blocks(pages, moved))
    # A text as set whose lines its form's group holds already is that group.
    formed = members(groups)
    return groups + [group for group in as_set if not group.members <= formed]


_Entry = tuple[str, bool, Hit | None, bool]  # (key, at the very edge, the hit, side)
_ReadingCache = dict[tuple[int, frozenset[int]], tuple[set[int], list[_Entry]]]


def _read_edges(pages: Pages, p: int, side_lines: set[int], width: float, template: set[Hit],
                current: list[tuple[int, str]], body: float, beside: dict[Hit, str | None]
                ) -> tuple[set[int], list[_Entry]]:
    """Page ``p``'s edge band (read inward of the ``template``) and what its edge and
    side lines say, in order: each line's text group, whether it is on the page's first
    or last lines (or a side's), the hit where the line is removable, and whether it is
    in a side margin (``_text_groups``)."""
    lines = pages[p]
    edge = _from_edges(pages, p, RUNNING_TEXT_BAND, template)[0]
    extreme = _from_edges(pages, p, EXTREME_BAND, template)[0]
    entries: list[_Entry] = []
    for i in edge | side_lines:
        line = lines[i]
        if line.box is not None and (line.box[2] <= 0 or line.box[0] >= width):
            continue  # beyond the page's side: the unseen half of a spread
        side = i in side_lines
        keys = _edge_keys(line.text)
        key = keys[0 if side else 1]
        if key is None:
            continue
        if not side and i in extreme and line.removable:
            at = "head" if 2 * i < len(lines) else "foot"
            if _says_continued(line.text):
                # A heading repeated as continued: its first page is the heading's, the
                # next pages' repeats are the template's, whatever the heading.
                entries.append((f"{_CONTINUED_KEY}{at}", True, (p, i), False))
            if current:
                if (p, i) not in beside:  # once per document
                    beside[(p, i)] = _beside_current_title(line, i, current, body)
                if (rest := beside[(p, i)]) is not None:  # the current title, whatever it is
                    entries.append((f"{_TITLE_KEY}{at} {rest}", True, (p, i), False))
        entries.append((key, i in extreme or side, (p, i) if line.removable else None, side))
        if keys[2] is not None and not side:
            entries.append((keys[2], i in extreme, (p, i) if line.removable else None, False))
    return edge, entries


@functools.lru_cache(maxsize=1 << 16)  # each reading of the edges asks it again
def _edge_keys(text: str) -> tuple[str | None, str | None, str | None]:
    """The text group of a line (None: none) in a side margin and at an edge, and at an
    edge as set where its group's key abstracts numbers (``_exact_key``)."""
    key = _group_key(text)
    if not key:
        return None, None, None
    exact = None
    if is_data_row(text):
        edge = None  # a chart's axis or a row of figures, never a head
    elif page_number_value(text) is not None:
        # Numbers as set: the page number's own value is the sequence's to judge
        # (numbers.py); one that stays the same is template (a year atop pages).
        edge = "\x00number " + " ".join(text.split())
    else:
        edge = key
        exact = _exact_key(text, key) if "#" in key else None
    return "\x00side " + key, edge, exact  # its own group: a tab's number is no page number


def _exact_key(text: str, form: str) -> str:
    """A line's group as set, after its ``form``'s key (``_group_key``): without spaces
    (Tika spaces a repeated line's words its own way on each page) and case. Abstraction
    groups a head's lines of one form: TI's head sets its part numbers over three lines,
    the first two of one form
    (``MSP430F5529, MSP430F5528, …`` / ``MSP430F5525, MSP430F5524, …``), so their group
    stands at two heights with its numbers varying from line to line, as a table's rows
    do; each line, the same text at the same place on every page, is template."""
    return f"{_EXACT_KEY}{form}\x00{''.join(text.split()).casefold()}"


def _shown(key: str, first: PageLine) -> str:
    """A text group's key as ``ragbeam viz`` names the group: its first line abstracted
    (the key has no spaces), a number as set, a title's head with the title as ``…``."""
    if key.startswith(_TITLE_KEY):
        return key.removeprefix(_TITLE_KEY).replace("…", "<the current title>")
    if key.startswith(_CONTINUED_KEY):
        return f"{CONTINUED_SHOWN}, {key.removeprefix(_CONTINUED_KEY)}"
    if key.startswith(_EXACT_KEY):
        return " ".join(first.text.split())
    return key.removeprefix("\x00number ") if key.startswith("\x00number ") else (
        template_key(first.text))


@functools.lru_cache(maxsize=1 << 16)  # a heading's, asked again of each edge line
def _title_form(text: str) -> str:
    """A title as heads and headings both set it: abstracted, letters and ``#`` only
    (``第 1章`` ≡ ``第 1 章``, ``CHAPTER 2. RESULTS`` ≡ ``Chapter 2 Results``)."""
    return _NOT_IN_TITLE_FORM.sub("", template_key(text))


def _page_surroundings(pages: Pages, frames: Sequence[Frame], page_sizes: PageSizes, body: float
                      ) -> tuple[list[set[int]], list[list[tuple[int, str]]]]:
    """In one pass over the lines, each page's level lines wholly beside the text frame,
    on the page (chapter tabs), and its current headings as (line, title form): the
    headings on the page (lines set larger than the text, or marked) and the latest of
    each size opened before it (a book's verso head names the chapter, its recto head
    the section): all those of the last page that opened one of that size (a section's
    name under which the page opens a sub-section of the same size, ``Organe der
    Stiftung`` before ``Kuratorium``), a title set over two lines also whole."""
    latest: dict[float, list[str]] = {}
    side: list[set[int]] = []
    current: list[list[tuple[int, str]]] = []
    for p, lines in enumerate(pages):
        width = page_size(page_sizes, p)[0]
        # ``beside_frame(line, frame, width, MIN_SIDE_GAP)``, inline: it runs for every line.
        frame = frames[p]
        left, right = (frame[0] - MIN_SIDE_GAP, frame[1] + MIN_SIDE_GAP) if frame else (0.0, 0.0)
        side.append(set())
        own = []
        for i, line in enumerate(lines):
            if (frame is not None and (box := line.box) is not None and not line.rotated
                    and line.removable and box[2] > 0 and box[0] < width
                    and (box[2] <= left or box[0] >= right)):
                side[p].add(i)
            if ((line.is_heading or (line.size > body and set_larger(line.size, body)))
                    and any(map(str.isalpha, form := _title_form(line.text)))):
                if own and own[-1][0] == i - 1 and lines[i - 1].size == line.size:
                    own.append((i, own[-1][1] + form))  # the title's lines together
                own.append((i, form))
        current.append([*((-1, form) for forms in latest.values() for form in forms), *own])
        opened: dict[float, list[str]] = defaultdict(list)
        for i, form in own:
            opened[round(lines[i].size)].append(form)
        latest.update(opened)
    return side, current


def _beside_current_title(line: PageLine, i: int, current: list[tuple[int, str]],
                          body: float) -> str | None:
    """What an edge line set no larger than the text says beside a current heading's
    title at its end or start, the title as ``…`` (``chapter#…`` of ``CHAPTER 2.
    RESULTS`` under the heading ``Results``; ``…`` of a head that is the title); None
    where it says none. A heading itself says it at its own size, and stays."""
    if set_larger(line.size, body) or line.is_heading or not (head := _title_form(line.text)):
        return None
    rests = [head[:-len(form)] + "…" if head.endswith(form) else "…" + head[len(form):]
             for j, form in current
             if form in head and j != i  # most forms: not in the head at all
             and (form == head or ((head.endswith(form) or head.startswith(form))
                                             and sum(map(str.isalpha, form)) >= MIN_TITLE_LETTERS))]
    return min(rests, key=len) if rests else None


def _usual_size(pages: Pages, hits: list[Hit]) -> float:
    """The size most of the lines are set in (the lower median; 0: none measured)."""
    sizes = sorted(size for p, i in hits if (size := pages[p][i].size) > 0)
    return sizes[(len(sizes) - 1) // 2] if sizes else 0.0


def _middle_pages(pages: Pages, outside: Sequence[set[int]], keys: dict[str, float],
                  body: float) -> tuple[dict[str, set[int]], dict[str, list[Hit]]]:
    """The pages whose middle says one of ``keys`` (only lines whose length and ends
    could match are abstracted: abstracting every line costs; a page number at either
    end, which a key leaves out, may open or close any) set as its edge lines are
    (``keys``: their size, 0 where unmeasured) or as the ``body`` text is: a chart's
    legend in a size of its own, naming the product a data sheet heads its pages with in
    display type, says no head. Apart: the middle lines that say one with words unplaced
    on a placed page: where those stand is not known (edge order puts them after the
    line Tika gave before them, mid-page where that one is)."""
    if not keys:
        return {}, {}
    lengths = {len(key) for key in keys}
    low, high = min(lengths) // 2, max(lengths) * 4 + 16
    numerals = "0123456789ivxlcdm"
    exact = any(key.startswith(_EXACT_KEY) for key in keys)  # most documents: none
    # An exact key's text opens after its form's key (``_exact_key``).
    firsts = {key[key.index("\x00", len(_EXACT_KEY)) + 1 if key.startswith(_EXACT_KEY) else 0]
              for key in keys} | set(numerals + "p")
    if "-" in firsts:
        firsts.update(DASHES)  # a key's dashes are one
    lasts = {key[-1] for key in keys} | set(numerals)
    wanted = set(keys)
    # An ASCII line's words of two letters or more, not roman numerals, page words or
    # numbers: every one stands in its key (``_group_key`` keeps them whole), so a line
    # with one found in no wanted key is none of them (most lines: no key worked out).
    in_keys = "\n".join(keys)
    found: dict[str, set[int]] = defaultdict(set)
    unplaced: dict[str, list[Hit]] = defaultdict(list)
    for p, lines in enumerate(pages):
        placed = None  # worked out for the first page line that says a key
        edges = outside[p]
        for i, line in enumerate(lines):
            text = line.text
            if (low <= len(text) <= high
                    and text[:1].casefold()[:1] in firsts
                    and i not in edges
                    and (not text.isascii() or (text.rstrip()[-1:].casefold() in lasts  # NFKC
                                                and all(word in in_keys for word
                                                        in _KEPT_WORDS.findall(text.lower())
                                                        if word not in _PAGE_WORDS
                                                        and word.strip("ivxlcdm"))))
                    and (said := _keys_said(text, wanted, exact))):
                if placed is None:
                    placed = any(other.box is not None for other in lines)
                for key in said:
                    if placed and line.box is None and len(_WORDS.findall(text)) >= 2:
                        unplaced[key].append((p, i))  # words: a brace or a mark is code's
                    elif not (line.size and keys[key] and body
                              and sizes_differ(line.size, keys[key])
                              and sizes_differ(line.size, body)):
                        found[key].add(p)
    return found, unplaced


def _keys_said(text: str, wanted: set[str], exact: bool) -> list[str]:
    """The ``wanted`` keys a line says: its form's, and as set where ``exact`` keys are
    wanted."""
    form = _group_key(text)
    said = [form] if form in wanted else []
    if exact and (key := _exact_key(text, form)) in wanted:
        said.append(key)
    return said


@functools.lru_cache(maxsize=1 << 16)  # each reading of the edges asks it again
def _group_key(text: str) -> str:
    """A text group's key: ``template_key``, the page number at one end left out (the
    first page's ``<footer>`` ≡ ``2 / 4 <footer>``); a line with numbers at both ends
    keeps them (``7 Index 50`` is a contents line, no ``7 Index`` head). Without its
    spaces, a number spaced out one: an OCR layer spaces the letters of one head a new
    way on many pages (``ГОСТ 7.1-2003`` ≡ ``Г О С Т  7 .1 - 2 0 0 3``). Dashes are one:
    a statement's account pages date their head ``July 1 – July 31``, its notes' wider
    pages ``July 1 - July 31``."""
    if _SPACED_LETTER_GAP.search(text):  # rare: the search skips ``sub``'s template call
        text = _SPACED_LETTERS.sub(r"\1", text)  # ``I S O`` is no roman one
    shape = line_shape(text)
    # ``template_key`` inline where it is the shape (most lines: no number at either end).
    key = shape if (shape[:1] == shape[-1:] == "#" or not shape
                    or (shape[0] not in "#p" and shape[-1] != "#")) else template_key(text)
    key = "".join(key.split())
    key = _SPACED_NUMBER.sub("#", key) if "##" in key else key
    return key if key.isascii() else key.translate(_ONE_DASH)


def heads_its_text(pages: Pages, hits: Iterable[Hit], body: float, template: set[Hit]) -> bool:
    """A user's headings, repeated in form only (``Question 3`` atop each page): set as
    headings, words or numbers varying, alone between the text or in display type. A
    running head is no larger than the text, constant, or stands with the template: next
    to it in edge order, or stacked on it in its column (``_stacked_on``)."""
    hits = list(hits)
    smallest = min((pages[p][i].size for p, i in hits), default=0.0)
    # Words varying, not their case: a fund's name heads its report's pages in title
    # case and its accounts' pages in capitals, one running head.
    if (not body or len(hits) < 2 or smallest < HEADING_SIZE_RATIO * body
            or len({" ".join(pages[p][i].text.casefold().split()) for p, i in hits}) < 2):
        return False
    if smallest >= DISPLAY_SIZE_RATIO * body:
        return True  # display type: a chapter's opening, never a running head
    # Lines are in edge order: a line's neighbours are i ± 1.
    alone = sum((p, i - 1) not in template and (p, i + 1) not in template
                and not _stacked_on(pages[p], p, i, template) for p, i in hits)
    return 2 * alone > len(hits)


def _stacked_on(lines: Sequence[PageLine], p: int, i: int, template: set[Hit]) -> bool:
    """Is the line next above or below line ``i`` in its column (the placed level lines
    its box overlaps sideways) template? A side margin's head block stacks its lines
    (``INTR`` / ``32,2`` / the folio, set larger than the text) with the body's rows
    between them in edge order."""
    box = lines[i].box
    if box is None or lines[i].rotated:
        return False
    above = below = (math.inf, -1)  # (distance, line)
    for j, line in enumerate(lines):
        other = line.box
        if other is None or line.rotated or other[2] <= box[0] or other[0] >= box[2]:
            continue
        if other[3] <= box[1]:
            above = min(above, (box[1] - other[3], j))
        elif other[1] >= box[3]:
            below = min(below, (other[1] - box[3], j))
    return (p, above[1]) in template or (p, below[1]) in template


_Extent = tuple[list[tuple[float, float]], float]  # a page's text rows and lowest bottom
_ExtentCache = dict[tuple[int, frozenset[int]], _Extent]
_RowCache = dict[tuple[int, frozenset[int]], list[list[int]]]


def _outer_rows(pages: Pages, p: int, skip: frozenset[int], cache: _RowCache) -> list[list[int]]:
    """``outer_rows`` of page ``p`` less ``skip``, worked out once per document."""
    if (rows := cache.get((p, skip))) is None:
        rows = cache[(p, skip)] = outer_rows(pages[p], skip)
    return rows


def _text_extents(pages: Pages, outside: set[Hit],
                  cache: _ExtentCache, rows: _RowCache) -> list[_Extent]:
    """Each page's placed level lines but ``outside`` and its outermost rows (where
    furniture may stand): (top, bottom), by top, and the lowest bottom (``cache``: a
    page's, by the page and the lines left out of it, from an earlier call)."""
    extents = []
    outside_by_page = lines_by_page(outside)
    for p, lines in enumerate(pages):
        skip = outside_by_page.get(p, _NONE)
        known = cache.get((p, skip))
        if known is None:
            edges = {i for row in _outer_rows(pages, p, skip, rows) for i in row}
            text = sorted([(box[1], box[3]) for i, line in enumerate(lines)
                           if (box := line.box) is not None and not line.rotated
                           and i not in skip and i not in edges])
            known = cache[(p, skip)] = text, max((b for _, b in text), default=0.0)
        extents.append(known)
    return extents


def _where_text_stands(pages: Pages, hits: list[Hit], extents: list[_Extent],
                       page_sizes: PageSizes, body: float) -> bool:
    """Do the other pages of the lines' page size whose text (``extents``) reaches as
    far toward the edge set text where these lines stand, most of them? Template text
    stands outside the text block; the last line of one-page chapters of placeholder
    text stands inside it. Pages of another size are set to another template (a
    statement's notes on wider pages after its account pages), and a line in the lines'
    slot set apart from the text is the template's there, another text in its place (an
    account owner's line on another account's pages)."""
    boxes = [box for p, i in hits if (box := pages[p][i].box) is not None]
    if not boxes:
        return False
    anchor = next(pages[p][i] for p, i in hits if pages[p][i].box is not None)
    top = sorted(box[1] for box in boxes)[len(boxes) // 2]
    bottom = sorted(box[3] for box in boxes)[len(boxes) // 2]
    p, i = hits[0]
    at_top = i < len(pages[p]) / 2
    own = {p for p, _ in hits}
    sizes = {page_size(page_sizes, p) for p in own}
    reaching = covered = 0
    for q, (rows, lowest) in enumerate(extents):
        if q in own or not rows or page_size(page_sizes, q) not in sizes:
            continue
        if (rows[0][0] <= top) if at_top else (lowest >= bottom):
            k = bisect.bisect_left(rows, (bottom,))  # the rows starting above its bottom
            if not any(row_bottom > top for _, row_bottom in rows[max(0, k - 8):k]):
                reaching += 1
            elif not any(line.box is not None and not line.rotated and line.size
                         and same_slot(line, anchor.box, anchor.size)
                         and sizes_differ(line.size, body) for line in pages[q]):
                reaching += 1
                covered += 1
    # Not a cover alone, nor a few pages that all set another text in its place (a
    # foot naming another section) against the many that carry it: fewer than one in
    # ``EDGE_PAGES_PER_MIDDLE_PAGE``, as for the middle of the pages. A table's heads
    # atop its pages have text merely reaching past their place on some other pages.
    return (reaching >= MIN_SEQUENCE_PAGES and 2 * covered >= reaching
            and (covered < reaching or covered * EDGE_PAGES_PER_MIDDLE_PAGE >= len(own)))


def _at_held_heights(pages: Pages, hits: list[Hit]) -> list[Hit]:
    """Side-margin lines at a height their text holds on ``SECTION_RUN_PAGES`` pages or
    more: a margin head block's lines stand at one height (a chapter tab at one per
    chapter); a word of a caption set in the side margin (``classification`` closing
    ``Table 2.`` / ``… Fama–French 12``) stands where its table does."""
    tops = sorted((pages[p][i].box[1], p) for p, i in hits)
    heights = [top for top, _ in tops]

    def held(top: float) -> bool:
        return len({q for _, q in tops[bisect.bisect_left(heights, top - PLACE_DRIFT_POINTS):
                                       bisect.bisect_right(heights, top + PLACE_DRIFT_POINTS)]}
                   ) >= SECTION_RUN_PAGES
    return [(p, i) for p, i in hits if held(pages[p][i].box[1])]


def _in_a_run(on_pages: set[int]) -> bool:
    """On a run of pages, consecutive or every other one (a chapter's recto head)."""
    return any(all(p + k * step in on_pages for k in range(SECTION_RUN_PAGES))
               for p in on_pages for step in (1, 2))


def _set_as_a_head(pages: Pages, hits: list[Hit], body: float) -> list[Hit]:
    """The hits set as the head is, less a title it repeats: set larger than the body
    on its opening page, the next pages' head in small type (an EGC paper's title)."""
    usual = _usual_size(pages, hits)  # the lower median: the heads outnumber titles
    return [(p, i) for p, i in hits
            if not (set_larger(size := pages[p][i].size, usual) and set_larger(size, body))]


def _keeps_its_place(pages: Pages, hits: list[Hit], page_sizes: PageSizes, side: bool) -> bool:
    """Does a repeated line keep one distance from its page's edge on most pages? A
    table's note under each part of a table over pages moves with it, and stays."""
    distances = []
    for p, i in hits:
        box = pages[p][i].box
        if box is None:
            continue
        width, height = page_size(page_sizes, p)
        if side:
            distances.append(width - box[2] if width != math.inf and box[0] > width / 2
                             else box[0])
        else:
            distances.append(box[3] - height if height and box[1] > height / 2 else box[1])
    if len(distances) < 2:
        return True
    distances.sort()
    most = max(bisect.bisect_right(distances, d + PLACE_DRIFT_POINTS) - k
               for k, d in enumerate(distances))
    return 2 * most > len(distances)


def _repeated_blocks(pages: Pages, moved: dict[str, list[Hit]]) -> list[TemplateGroup]:
    """Repeated edge lines that drift but stand, on every page they are on, as one block
    of ``MIN_REPEATED_BLOCK_LINES`` or more in one order: a letterhead's foot set a line
    higher on one page. A table's note that moves with it is a line or two."""
    if not moved:
        return []
    key_of = {hit: key for key, hits in moved.items() for hit in hits}
    runs: dict[tuple[str, ...], list[list[Hit]]] = defaultdict(list)
    for p in sorted({p for p, _ in key_of}):
        run: list[Hit] = []
        for i in [*range(len(pages[p])), -1]:  # each page's lines are in edge order
            if (p, i) in key_of:
                run.append((p, i))
                continue
            if len(run) >= MIN_REPEATED_BLOCK_LINES:
                runs[tuple(key_of[hit] for hit in run)].append(run)
            run = []
    groups: list[TemplateGroup] = []
    for keys, blocks in runs.items():
        pages_with = {block[0][0] for block in blocks}
        if len(pages_with) == len(blocks) and all(
                pages_with == {p for p, _ in moved[key]} for key in keys):
            groups.append(TemplateGroup("text", " / ".join(keys),
                                        frozenset(hit for block in blocks for hit in block)))
    return groups


def _all_at_one_place(pages: Pages, hits: list[Hit]) -> bool:
    """Two or more lines, all placed at one place: a printer's slug whose numbers change
    ("VerDate … 14:29 … Frm 00011 …"); a table's rows move with the table."""
    boxes = [box for p, i in hits if (box := pages[p][i].box) is not None]
    return len(boxes) >= 2 and len(boxes) == len(hits) and all(
        same_place(box, boxes[0]) for box in boxes)


def _on_slides(pages: Pages, hits: list[Hit], page_sizes: PageSizes, body: float,
               larger: Callable[[float, float], bool] = set_larger) -> bool:
    """Lines on landscape pages (slides), set ``larger`` than the body, in a deck: half
    its pages landscape or more (a data sheet's few landscape pages of tables carry its
    template, their own head in display type among it)."""
    return bool(body and hits and page_sizes) and all(
        p < len(page_sizes) and page_sizes[p][0] > page_sizes[p][1]
        and larger(pages[p][i].size, body) for p, i in hits) and (
        2 * sum(width > height for width, height in page_sizes) >= len(page_sizes))


def _carried_over(pages: Pages, hits: list[Hit], page_sizes: PageSizes, body: float) -> bool:
    """A slide's title or section label carried over a run of slides, as a head that
    changes with the chapter is over a book's pages: on landscape pages, set no smaller
    than the text, on fewer than ``MIN_PAGE_SHARE`` of them. A deck's template (its
    foot, a landscape statement's head) stands on most of its pages, or in small print."""
    return (len({p for p, _ in hits}) < MIN_PAGE_SHARE * len(pages)
            and _on_slides(pages, hits, page_sizes, body, operator.ge))


def _slide_title(pages: Pages, hits: list[Hit], body: float, page_sizes: PageSizes,
                 one_text: bool = False, template: set[Hit] = _NO_HITS) -> bool:
    """A slide's title carried over to the next slides: landscape pages, set larger than
    the body (portrait documents do set heads larger than a small-print body). One text
    (``one_text``) is a title where other slides set another in its place; alone in its
    place on the pages it is the template's (a landscape statement's head), as is one
    that stands next to the ``template`` found, toward the edge, on most of its pages
    (an account owner's line under the account's label, another owner's on the other
    accounts' pages)."""
    if not _on_slides(pages, hits, page_sizes, body):
        return False
    anchor = pages[hits[0][0]][hits[0][1]]
    own = {p for p, _ in hits}
    # The line next to each toward its page's edge (lines in edge order).
    if one_text and template and 2 * sum(
            (p, i - 1 if 2 * i < len(pages[p]) else i + 1) in template
            for p, i in hits) > len(hits):
        return False
    return not one_text or anchor.box is None or any(
        line.box is not None and not line.rotated and same_slot(line, anchor.box, anchor.size)
        for q, lines in enumerate(pages) if q not in own for line in lines)


def _heads_table_columns(pages: Pages, hits: list[Hit], template_like: set[Hit]) -> bool:
    """Every copy stands in a row of table cells: placed, with at least
    ``MIN_HEADER_CELLS`` other lines of its row that are no template text or page number
    (``template_like``). A bids table's column heads (``Serial``, ``Contractor/Suppliers``
    … ``Remarks``), repeated atop each of its pages, went as a running head, page 1's
    copy too: the table lost its heads."""
    for p, i in hits:
        lines = pages[p]
        if lines[i].box is None or sum((p, j) not in template_like
                                       for j in row_beside(lines, i)) < MIN_HEADER_CELLS:
            return False
    return True


def _lone_division_labels(pages: Pages) -> frozenset[Hit]:
    """The lines that name a division of the document no other line names: keyword
    headings (``headings.keyword_division``: "Exhibit 31.1", "Appendix B", "Part II")
    alone in the document with their keyword and number. Such a line names what begins
    on its page and is never template: a filing's certifications, one a page, each carry
    their exhibit's number at the same place atop it, and removed as a varying head they
    left each certification under the exhibit before it. A head that names the current
    section is template, for another line names the section too: a long exhibit's name
    atop each of its pages, "Item 6" atop a one-page item over its heading "ITEM 6.
    EXHIBITS", a book's "CHAPTER 1. BETA PLANNING" atop a chapter's second page with
    "Chapter 1" opening the first. Worked out once per document (a search of every line
    for each candidate cost a 500-page filing seconds)."""
    named: dict[tuple[str, str], list[Hit]] = defaultdict(list)
    for p, lines in enumerate(pages):
        for i, line in enumerate(lines):
            if (division := keyword_division(line.text)) is not None:
                named[division].append((p, i))
    return frozenset(hits[0] for hits in named.values() if len(hits) == 1)


def _numbers_vary_like_a_table(pages: Pages, hits: list[Hit]) -> bool:
    """Numbers that change in more than two places: data rows ("Revenue 1,567 3,684")."""
    if len(hits) < 2 or len(DIGITS.findall(pages[hits[0][0]][hits[0][1]].text)) \
            <= MAX_CHANGING_NUMBERS:
        return False  # most groups: the other lines' numbers are not read
    runs = [DIGITS.findall(pages[p][i].text) for p, i in hits]
    if any(len(r) != len(runs[0]) for r in runs):
        return False
    changing = sum(1 for k in range(len(runs[0])) if len({r[k] for r in runs}) > 1)
    return changing > MAX_CHANGING_NUMBERS


# --- slot groups ------------------------------------------------------------------


def _slot_groups(pages: Pages, numbers: set[Hit], template: set[Hit], body: float,
                 page_sizes: PageSizes, placed_elsewhere: Sequence[tuple[int, PageLine]],
                 rows: _RowCache, repeats: set[Hit] = _NO_HITS,
                 labels: frozenset[Hit] = frozenset()) -> list[TemplateGroup]:
    """Short lines at a page's outermost row left (after the template) that stand where
    template lines stand on ``SLOT_PAGE_SHARE`` of the pages (of their parity), or beside
    the page number (not 1: a first page's notes stay), whatever their text; and such
    lines, alone on their row, sharing a place with their texts recurring in it (a
    section's heads), set off in size from the text below; never ``labels``
    (``_lone_division_labels``)."""
    outer: list[tuple[int, int, PageLine]] = []  # the outermost rows' candidate lines
    template_by_page = lines_by_page(template)
    for p, lines in enumerate(pages):
        # The outermost rows, and the line past the template at each edge (an account
        # owner's line under the label, where a taller line beside the label opens the
        # page's text).
        inward = (_from_edges(pages, p, RUNNING_TEXT_BAND, template)[1]
                  if p in template_by_page else [])
        edges = {i for edge in _outer_rows(pages, p, template_by_page.get(p, _NONE), rows)
                 for i in edge} | set(inward)
        outer.extend((p, i, lines[i]) for i in sorted(edges)
                     if (p, i) not in template and lines[i].box is not None
                     and is_companion(lines[i]))
    # A division's label on its own page stands where template lines stand on the
    # others (an exhibit's number atop it, a long exhibit's atop each of its pages):
    # it names the page (``_lone_division_labels``).
    if labels:
        outer = [(p, i, line) for p, i, line in outer if (p, i) not in labels]
    if not outer:
        return []
    # Beside the page number first: their places are slots too.
    def beside_the_number(p: int, i: int) -> bool:
        row = row_beside(pages[p], i)
        # Set as the text inward of it, a line is the text's last, reaching the number's
        # row (a slide's last bullet), not its companion.
        return any((p, j) in numbers and (page_number_value(pages[p][j].text)
                                          or head_number(pages[p][j].text) or (0, 1))[1] != 1
                   for j in row) and _set_apart(
            pages[p], i, lambda j: (p, j) in template or j in row)

    found = {(p, i) for p, i, _ in outer if beside_the_number(p, i)}
    # Each place once, with the pages it is on (a page number's stands on hundreds).
    slots: dict[int, dict[tuple[Box, float], set[int]]] = defaultdict(dict)
    for p, line in [*((p, pages[p][i]) for p, i in (template - repeats) | found),
                    *placed_elsewhere]:
        if line.box is not None and not line.rotated:
            slots[round(line.box[1])].setdefault((line.box, line.size), set()).add(p)
    groups: list[TemplateGroup] = []
    for p, i, line in outer:
        top = round(line.box[1])
        # Set apart in size from the text (and from the text inward of it: a slide's
        # last bullet reaches the number's row), a line on the template's row in its
        # type stands in its slot wherever along the row (a chapter's label at the
        # head's left, the spread's folio at its right on the facing pages).
        along = (line.size > 0 and bool(body) and sizes_differ(line.size, body)
                 and _set_apart(pages[p], i, lambda j, p=p: (p, j) in template))
        on_pages = {q for key in range(top - 2, top + 3)
                    for (box, size), there in slots.get(key, {}).items()
                    if same_slot(line, box, size, along) for q in there} - {p}
        # A slot of one parity's pages (a recto head's) needs its share of those pages.
        if len(on_pages) >= max(MIN_SEQUENCE_PAGES,
                                SLOT_PAGE_SHARE * _could_be_on(on_pages | {p}, len(pages))):
            found.add((p, i))
    if found:
        groups.append(TemplateGroup("slot", "where template lines stand", frozenset(found)))
    # Slots of their own: lines on a page's very first or last row (nothing of the page
    # beyond them) that share a place, each text recurring there on another page.
    # Alone on their row but for template lines (a table's top row has its cells).
    taken = lines_by_page(template | found)
    left = [(p, i, lines[i]) for p, lines in enumerate(pages)
            for edge in _outer_rows(pages, p, taken.get(p, _NONE), rows) for i in edge
            if (p, i) not in template and (p, i) not in found and lines[i].box is not None
            and is_companion(lines[i])
            and all((p, j) in template for j in row_beside(lines, i))]
    places: dict[int, list[tuple[int, int, PageLine]]] = defaultdict(list)
    for hit in left:
        places[round(hit[2].box[1] / (2 * SAME_PLACE_POINTS))].append(hit)
    for key in sorted(places):
        near = [hit for k in (key - 1, key, key + 1) for hit in places.get(k, ())]
        if len(near) < 2:
            continue
        anchor = places[key][0][2]
        slot = [(p, i, line) for p, i, line in near
                if (p, i) not in found and same_slot(line, anchor.box, anchor.size)]
        if len(slot) < 2 or len(slot) != len({p for p, _, _ in slot}):
            continue
        # Each text recurs (as set, not abstracted), set apart from the text it stands
        # over: a figure's label or a page of placeholder text repeated whole is not.
        texts = Counter(" ".join(line.text.casefold().split()) for p, i, line in slot
                        if _set_apart(pages[p], i, lambda j, p=p: (p, j) in template
                                      or (p, j) in found))
        recurring = sum(n for n in texts.values() if n >= 2)
        hits = [(p, i) for p, i, _ in slot]
        # A title in display type, a slide's title and a user's heading stay.
        if (2 * recurring >= len(slot) and not _slide_title(pages, hits, body, page_sizes)
                and not _carried_over(pages, hits, page_sizes, body)
                and all(line.size < DISPLAY_SIZE_RATIO * body for _, _, line in slot)
                and not heads_its_text(pages, hits, body, template)):
            found.update(hits)
            groups.append(TemplateGroup("slot", f"a slot at {anchor.box[1]:.0f} pt",
                                        frozenset(hits)))
    return groups


def _set_apart(lines: Sequence[PageLine], i: int, skip: Callable[[int], bool]) -> bool:
    """Is edge line ``i`` set in another size than the first line inward of it that
    ``skip`` does not skip (or is either unmeasured)?"""
    step = 1 if i < len(lines) / 2 else -1
    j = i + step
    while 0 <= j < len(lines) and skip(j):
        j += step
    inner = lines[j].size if 0 <= j < len(lines) else 0.0
    return not (lines[i].size and inner) or sizes_differ(lines[i].size, inner)


# --- groups over the pages as Tika cut them ------------------------------------------


def _without_end_number(text: str) -> list[str]:
    """The texts a head leaves without a page number at its start or its end."""
    tokens = text.split()
    out = []
    for token, rest in ((tokens[0], tokens[1:]), (tokens[-1], tokens[:-1])):
        if len(tokens) >= 2 and page_number_value(token) is not None:
            out.append(" ".join(rest).casefold())
    return out


def unnumbered_copies(pages: Pages, found: set[Hit]) -> set[Hit]:
    """A head that carries the page number, set without it on a page the template
    skips (a copyright page's, the back cover's foot): the very text the numbered copies
    leave without their number, alone at that page's edge where they stand, no larger."""
    copies: dict[str, list[PageLine]] = defaultdict(list)
    for p, i in found:
        line = pages[p][i]
        if line.box is not None:
            for text in _without_end_number(line.text):
                copies[text].append(line)
    heads = {text: lines for text, lines in copies.items()
             if len(lines) >= MIN_SEQUENCE_PAGES and len(text.split()) >= 2}
    if not heads:
        return set()
    on_pages = {p for p, _ in found}
    extra: set[Hit] = set()
    for p, i, line in edge_lines(pages, on_pages):
        numbered = heads.get(" ".join(line.text.split()).casefold())
        if numbered is None or line.box is None or not line.removable:
            continue
        tops = sorted(copy.box[1] for copy in numbered)
        if (abs(line.box[1] - tops[len(tops) // 2]) <= PLACE_DRIFT_POINTS
                and line.size <= max(copy.size for copy in numbered)):
            extra.add((p, i))
    return extra


def carried_titles(pages: Pages, template: set[Hit]) -> set[Hit]:
    """A head block carried over: the line next to the template's head, inward, where
    it and the line after it say what the page before said there (the same texts, the
    first placed alike under the same head and alone in its row): a statement's title
    on the pages its table runs on to, over the units line or column heads it repeats
    (those stay: the table's own). The run's first page keeps the title; one line alike
    is no block (a company's name over each statement's own title, a table's column
    heads over its rows)."""
    under: list[dict[str, tuple[str, str, float, float, Hit]]] = []
    for p, heads in enumerate(map(lines_by_page(template).get, range(len(pages)))):
        lines, below = pages[p], {}
        for i in sorted(heads or ()):
            j = i + 1
            if (i >= EXTREME_BAND or j + 1 >= len(lines) or j in heads
                    or not lines[j].removable or (head := lines[i].box) is None
                    or (box := lines[j].box) is None or box[1] <= head[1]
                    or row_beside(lines, j)):
                continue
            # Compared without their spaces: Tika spaces a repeated line's words its
            # own way on each page (``data)`` / ``data )``).
            below["".join(lines[i].text.split())] = (
                "".join(lines[j].text.split()), "".join(lines[j + 1].text.split()),
                box[1] - head[1], box[0] - head[0], (p, j))
        under.append(below)
    found: set[Hit] = set()
    for p in range(1, len(pages)):
        for head, (title, next_text, down, across, hit) in under[p].items():
            before = under[p - 1].get(head)
            if (before is not None and before[:2] == (title, next_text)
                    and abs(before[2] - down) <= SAME_PLACE_POINTS
                    and abs(before[3] - across) <= SAME_PLACE_POINTS):
                found.add(hit)
    return found
