"""The page template of a document: what its pages carry in the same place (pure).

Lines are grouped by what they say with what may vary abstracted (``template_key``),
by where they stand (edge band, side margin, angle, outside the reading flow) and how
they are set, odd and even pages apart; a group that recurs over enough of the pages
it could appear on is template (docs/cleaning.md, "Page furniture": the groups, what
tells body text apart, and why a user's heading set like one is never template).
"""

from __future__ import annotations

import bisect
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ragbeam.transforms.clean.furniture.lines import (
    DIGITS,
    EXTREME_BAND,
    MIN_PAGE_SHARE,
    MIN_SEQUENCE_PAGES,
    RUNNING_TEXT_BAND,
    SAME_PLACE_POINTS,
    Box,
    Hit,
    PageLine,
    band,
    body_size,
    embedded_page_number,
    is_companion,
    is_data_row,
    line_shape,
    outer_rows,
    page_number_value,
    row_beside,
    same_place,
    same_slot,
    template_key,
)
from ragbeam.transforms.clean.layout import sizes_differ

# …or this many pages in a row (consecutive, or of one parity) at the very edge.
SECTION_RUN_PAGES = 3
# Template text is body after all when the middle of the pages uses it on at least one
# page for every this many pages that carry it at an edge (a title repeated once on a
# cover does not save a head on 30 pages; a line the body repeats as often stays).
EDGE_PAGES_PER_MIDDLE_PAGE = 4
# Bands that are all template grow inward, up to this many lines from the edge.
MAX_BLOCK_LINES = 12
# A head's numbers that change from page to page: the page number, at most also a
# chapter or section number. More is a table's rows.
MAX_CHANGING_NUMBERS = 2
# A slot is template's where template lines stand on this share of the pages (and
# MIN_SEQUENCE_PAGES).
SLOT_PAGE_SHARE = 0.25
# Repeated lines whose distance from their page's edge varies by more than this
# (points) on most of their pages move with the text: not template.
PLACE_DRIFT_POINTS = 6.0
# Repeated edge lines that drift form a template block when they stand, on every page
# they are on, as a block of at least this many lines in one order (a letterhead foot).
MIN_REPEATED_BLOCK_LINES = 3
# A line beside the text frame (points) is in the side margin.
MIN_SIDE_GAP = 6.0
# A line set at least this many times the body's size is set like a heading.
HEADING_SIZE_RATIO = 1.2
# …and at least this many times it, in display type, whatever stands beside it.
DISPLAY_SIZE_RATIO = 1.5


@dataclass(frozen=True)
class TemplateGroup:
    """Lines of the page template that belong together: what they share (``kind``:
    ``text``, ``slot``, ``row``, ``rotated``, ``link``) and how (``key``: the text
    with what varies abstracted, or the slot's place)."""

    kind: str
    key: str
    members: frozenset[Hit]


def _page_size(page_sizes: Sequence[tuple[float, float]] | None, p: int
               ) -> tuple[float, float]:
    """Page ``p``'s (width, height); (inf, 0) where unknown."""
    return page_sizes[p] if page_sizes and p < len(page_sizes) else (math.inf, 0.0)


def _side_lines(pages: Sequence[Sequence[PageLine]], frame: tuple[float, float] | None,
                page_sizes: Sequence[tuple[float, float]] | None) -> list[set[int]]:
    """Each page's level lines wholly beside the text frame, on the page: chapter tabs,
    margin heads (not the other half of a spread beyond the page's side)."""
    if frame is None:
        return [set() for _ in pages]
    return [{i for i, line in enumerate(lines)
             if line.box is not None and not line.rotated and line.removable
             and line.box[2] > 0 and line.box[0] < _page_size(page_sizes, p)[0]
             and (line.box[2] <= frame[0] - MIN_SIDE_GAP or line.box[0] >= frame[1] + MIN_SIDE_GAP)}
            for p, lines in enumerate(pages)]


def find_template(pages: Sequence[Sequence[PageLine]], numbers: set[Hit],
                  page_sizes: Sequence[tuple[float, float]] | None = None,
                  frame: tuple[float, float] | None = None,
                  placed_elsewhere: Sequence[tuple[int, PageLine]] = (),
                  body: float | None = None) -> list[TemplateGroup]:
    """The template groups of a document's pages (lines in edge order; ``numbers``: its
    page numbers; ``frame``: its text's left and right edge; ``placed_elsewhere``: slugs
    found before, whose places count as slots; ``body``: its text's font size)."""
    body = body_size(pages) if body is None else body
    side = _side_lines(pages, frame, page_sizes)
    groups = _text_groups_grown(pages, side, page_sizes, numbers, body)
    found = members(groups) | numbers
    groups = [group for group in groups
              if not heads_its_text(pages, group.members, body, found - group.members)]
    found = members(groups) | numbers
    groups += _variants(pages, groups, found)
    found = members(groups) | numbers
    groups += _row_groups(pages, numbers, found)
    groups += _slot_groups(pages, members(groups) | numbers, body, placed_elsewhere)
    return groups


def members(groups: Iterable[TemplateGroup]) -> set[Hit]:
    return {hit for group in groups for hit in group.members}


# --- text groups -----------------------------------------------------------------


def _text_groups_grown(pages: Sequence[Sequence[PageLine]], side: list[set[int]],
                       page_sizes: Sequence[tuple[float, float]] | None, numbers: set[Hit],
                       body: float) -> list[TemplateGroup]:
    """Text groups, with each page's edge band grown inward while it is all template."""
    depths = [[RUNNING_TEXT_BAND, RUNNING_TEXT_BAND] for _ in pages]
    groups = _text_groups(pages, side, page_sizes, depths, numbers, body)
    for _ in range(MAX_BLOCK_LINES - RUNNING_TEXT_BAND):
        template = members(groups) | numbers
        grown = False
        for p, lines in enumerate(pages):
            n = len(lines)
            top, bottom = depths[p]
            if top + bottom >= n:
                continue  # the band already covers the page
            if all((p, i) in template for i in range(top)):
                depths[p][0] += 1
                grown = True
            if all((p, i) in template for i in range(n - bottom, n)):
                depths[p][1] += 1
                grown = True
        if not grown:
            break
        groups = _text_groups(pages, side, page_sizes, depths, numbers, body)
    return groups


def _text_groups(pages: Sequence[Sequence[PageLine]], side_lines: list[set[int]],
                 page_sizes: Sequence[tuple[float, float]] | None,
                 depths: Sequence[Sequence[int]], numbers: set[Hit], body: float
                 ) -> list[TemplateGroup]:
    """Lines of one abstracted text in the pages' edge bands (``depths``: lines from the
    top and from the bottom) or side margins that recur as template text does."""
    edge_pages: dict[str, set[int]] = defaultdict(set)
    hits_of: dict[str, list[Hit]] = defaultdict(list)
    number_keys: set[str] = set()  # page-number lines: the sequence decides (numbers.py)
    extreme_pages: dict[str, set[int]] = defaultdict(set)  # on a page's first/last 2 lines
    side_keys: set[str] = set()
    bands: list[set[int]] = []
    for p, lines in enumerate(pages):
        top, bottom = depths[p]
        edge = {*range(min(top, len(lines))), *range(max(0, len(lines) - bottom), len(lines))}
        bands.append(edge)
        extreme = set(band(len(lines), EXTREME_BAND))
        width = _page_size(page_sizes, p)[0]
        for i in edge | side_lines[p]:
            line = lines[i]
            if line.box is not None and (line.box[2] <= 0 or line.box[0] >= width):
                continue  # beyond the page's side: the unseen half of a spread
            side = i in side_lines[p]
            key = line_shape(line.text)
            if not key:
                continue
            if side:
                key = "\x00side " + key  # its own group: a tab's number is no page number
                side_keys.add(key)
            elif page_number_value(line.text) is not None or is_data_row(line.text):
                number_keys.add(key)
            edge_pages[key].add(p)
            if i in extreme or side:
                extreme_pages[key].add(p)
            if line.removable:
                hits_of[key].append((p, i))
    n = len(pages)
    n_odd_pages, n_even_pages = (n + 1) // 2, n // 2  # page index 0 is page 1 (odd)
    candidates: list[str] = []
    alternating: list[tuple[str, int]] = []  # (key, parity of the pages it is on)
    for key, on_pages in edge_pages.items():
        hits = hits_of[key]
        if (len(on_pages) < 2 or key in number_keys
                or _slide_title(pages, hits, body, page_sizes)
                or (_numbers_vary_like_a_table(pages, hits)
                    and not _all_at_one_place(pages, hits))):
            continue
        odd = sum(1 for p in on_pages if p % 2 == 0)
        even = len(on_pages) - odd
        if (len(on_pages) >= MIN_PAGE_SHARE * n
                or (key not in side_keys and _in_a_run(extreme_pages.get(key, set())))):
            candidates.append(key)
        elif n_odd_pages and odd >= 2 and odd >= MIN_PAGE_SHARE * n_odd_pages and even == 0:
            alternating.append((key, 0))
        elif n_even_pages and even >= 2 and even >= MIN_PAGE_SHARE * n_even_pages and odd == 0:
            alternating.append((key, 1))
    # A head on every other page only is a verso or recto head when the facing
    # pages carry furniture too (their own head or the page numbers); a body line
    # that happens to open two even pages has no such partner.
    if alternating:
        furnished = {p for key in candidates for p in edge_pages[key]}
        furnished.update(p for p, _ in numbers)
        furnished.update(p for key, _ in alternating for p in edge_pages[key])
        candidates.extend(key for key, parity in alternating
                          if any(p % 2 != parity for p in furnished))
    if not candidates:
        return []
    middle_pages = _middle_pages(pages, [bands[p] | side_lines[p] for p in range(n)],
                                 [key for key in candidates if key not in side_keys])
    groups: list[TemplateGroup] = []
    moved: dict[str, list[Hit]] = {}  # repeated at the edges, but not at one place
    for key in candidates:
        if key not in side_keys and (len(middle_pages.get(key, ())) * EDGE_PAGES_PER_MIDDLE_PAGE
                                     >= len(edge_pages[key])):
            continue  # the body says it too
        hits = hits_of[key]
        if _keeps_its_place(pages, hits, page_sizes, key in side_keys):
            kept = _set_as_a_head(pages, hits, body)
            if kept:
                groups.append(TemplateGroup("text", key.replace("\x00side ", ""),
                                            frozenset(kept)))
        else:
            moved[key] = hits
    groups.extend(_repeated_blocks(pages, moved))
    return groups


def _middle_pages(pages: Sequence[Sequence[PageLine]], outside: Sequence[set[int]],
                  keys: list[str]) -> dict[str, set[int]]:
    """The pages whose middle (not the edge band, not a side margin) says one of
    ``keys``: only lines of a plausible length whose first and last character can
    start and end one are abstracted, since abstracting every line costs."""
    if not keys:
        return {}
    lengths = {len(key) for key in keys}
    low, high = min(lengths) // 2, max(lengths) * 4 + 16
    # A key's first character is the line's (case-folded) first one, or "#" for a
    # digit or a roman numeral, or anything where a page number opens the line.
    firsts = {key[0] for key in keys}
    if "#" in firsts:
        firsts.update("0123456789ivxlcdm")
    # Likewise the last character, for ASCII lines (NFKC cannot change it there).
    lasts = {key[-1] for key in keys}
    if "#" in lasts:
        lasts.update("0123456789ivxlcdm")
    wanted = set(keys)
    found: dict[str, set[int]] = defaultdict(set)
    for p, lines in enumerate(pages):
        for i, line in enumerate(lines):
            text = line.text
            if (i not in outside[p] and low <= len(text) <= high
                    and text[:1].casefold()[:1] in firsts
                    and (not text.isascii() or text.rstrip()[-1:].casefold() in lasts)
                    and (key := line_shape(text)) in wanted):
                found[key].add(p)
    return found


def heads_its_text(pages: Sequence[Sequence[PageLine]], hits: Iterable[Hit], body: float,
                    template: set[Hit]) -> bool:
    """A user's headings, repeated in form only: set at least ``HEADING_SIZE_RATIO`` of
    the text, words or numbers varying from page to page, standing alone between the
    page's text or set in display type (``Question 3`` atop each page). A running head
    is no larger than the text, says the same on every page, or stands with the template."""
    hits = list(hits)
    if not body or len(hits) < 2:
        return False
    if len({pages[p][i].text.strip() for p, i in hits}) < 2:
        return False
    if not all(pages[p][i].size >= HEADING_SIZE_RATIO * body for p, i in hits):
        return False
    if all(pages[p][i].size >= DISPLAY_SIZE_RATIO * body for p, i in hits):
        return True  # display type: a chapter's opening, never a running head
    alone = 0
    for p, i in hits:  # each page's lines are in edge order: its neighbours are i ± 1
        alone += (p, i - 1) not in template and (p, i + 1) not in template
    return 2 * alone > len(hits)


def _in_a_run(on_pages: set[int]) -> bool:
    """A head that changes with the section: at a page's very edge on a run of pages,
    consecutive or every other page (a recto head of the current chapter)."""
    return any(all(p + k * step in on_pages for k in range(SECTION_RUN_PAGES))
               for p in on_pages for step in (1, 2))


def _set_as_a_head(pages: Sequence[Sequence[PageLine]], hits: list[Hit],
                   body: float) -> list[Hit]:
    """The hits set as the running head is, leaving out a title it repeats: a paper's
    or a chapter's title, set larger than the body on its opening page, that the next
    pages carry as their running head in small type (an EGC paper's title, a book's
    chapter) is the title there, not furniture."""
    sizes = sorted(size for p, i in hits if (size := pages[p][i].size) > 0)
    if not body or len(sizes) < 2:
        return hits
    usual = sizes[(len(sizes) - 1) // 2]  # the lower median: the heads outnumber titles
    return [(p, i) for p, i in hits
            if not ((size := pages[p][i].size) > usual and sizes_differ(size, usual)
                    and size > body and sizes_differ(size, body))]


def _keeps_its_place(pages: Sequence[Sequence[PageLine]], hits: list[Hit],
                     page_sizes: Sequence[tuple[float, float]] | None, side: bool) -> bool:
    """Does a repeated line sit at one distance from its page's edge on most pages
    where it is placed (the top or bottom edge; the left or right edge in a side
    margin)? Furniture is set at a fixed place; a table's note repeated under each
    part of a table over pages ("See notes at end of table.") moves with the table's
    length, and stays."""
    distances = []
    for p, i in hits:
        box = pages[p][i].box
        if box is None:
            continue
        width, height = _page_size(page_sizes, p)
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


def _repeated_blocks(pages: Sequence[Sequence[PageLine]],
                     moved: dict[str, list[Hit]]) -> list[TemplateGroup]:
    """Repeated edge lines that do not keep one place but form, on every page they are
    on, a block of at least ``MIN_REPEATED_BLOCK_LINES`` such lines one under the other
    in the same order: a letterhead's foot (department, address, contact, notice) set a
    line higher on one page than on the other. A table's note that moves with the table
    is a line or two."""
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


def _all_at_one_place(pages: Sequence[Sequence[PageLine]], hits: list[Hit]) -> bool:
    """Are two or more of these lines placed, all at one place? A printer's slug
    whose sheet, time and job numbers change ("VerDate … 14:29 … Frm 00011 …") is
    set where the last page had it; a table's rows move with the table."""
    boxes = [box for p, i in hits if (box := pages[p][i].box) is not None]
    return len(boxes) >= 2 and len(boxes) == len(hits) and all(
        same_place(box, boxes[0]) for box in boxes)


def _slide_title(pages: Sequence[Sequence[PageLine]], hits: list[Hit], body: float,
                 page_sizes: Sequence[tuple[float, float]] | None) -> bool:
    """A slide's title carried over to the next slides ("Cichelli's Method" over three):
    landscape pages, each measured and set larger than the body (portrait documents do
    set running heads larger than a small-print body)."""
    if not body or not hits or not page_sizes:
        return False
    return all(p < len(page_sizes) and page_sizes[p][0] > page_sizes[p][1]
               and (size := pages[p][i].size) > body and sizes_differ(size, body)
               for p, i in hits)


def _numbers_vary_like_a_table(pages: Sequence[Sequence[PageLine]], hits: list[Hit]) -> bool:
    """Lines of one shape whose numbers change in more than two places are data rows
    ("Revenue 1,567 3,684 5,056"), not a head whose page (and chapter) number changes."""
    runs = [DIGITS.findall(pages[p][i].text) for p, i in hits]
    if len(runs) < 2 or len(runs[0]) <= MAX_CHANGING_NUMBERS:
        return False
    if any(len(r) != len(runs[0]) for r in runs):
        return False
    changing = sum(1 for k in range(len(runs[0])) if len({r[k] for r in runs}) > 1)
    return changing > MAX_CHANGING_NUMBERS


def _variants(pages: Sequence[Sequence[PageLine]], groups: list[TemplateGroup],
              template: set[Hit]) -> list[TemplateGroup]:
    """A page's outermost line that says what a template group says on at least half the
    other pages, less the page number they carry (``template_key``): the first page's
    footer without the "1 / 4" of "2 / 4 <footer>". Inside the page the same words are
    the text's own."""
    pages_of: dict[str, set[int]] = defaultdict(set)
    for group in groups:
        for p, i in group.members:
            text = pages[p][i].text
            if (key := template_key(text)) != line_shape(text):
                pages_of[key].add(p)
    if not pages_of:
        return []
    found: set[Hit] = set()
    for p, lines in enumerate(pages):
        left = [i for i in range(len(lines)) if (p, i) not in template]
        for i in {*left[:1], *left[-1:]}:
            on_pages = pages_of.get(template_key(lines[i].text), set()) - {p}
            if lines[i].removable and len(on_pages) >= max(2, MIN_PAGE_SHARE * (len(pages) - 1)):
                found.add((p, i))
    return [TemplateGroup("text", "less its page number", frozenset(found))] if found else []


# --- slot groups ------------------------------------------------------------------


def _slot_groups(pages: Sequence[Sequence[PageLine]], template: set[Hit], body: float,
                 placed_elsewhere: Sequence[tuple[int, PageLine]] = ()
                 ) -> list[TemplateGroup]:
    """Lines at a page's outermost row left that stand where template lines stand on
    ``SLOT_PAGE_SHARE`` of the pages (top, left/right/centre, size), whatever their text;
    and lines on a page's very first or last row, alone there, that share a place with
    their text recurring in it (chapter heads). Short lines that are no sentence only."""
    needed = max(MIN_SEQUENCE_PAGES, SLOT_PAGE_SHARE * len(pages))
    outer: list[tuple[int, int, PageLine]] = []  # the outermost rows' candidate lines
    for p, lines in enumerate(pages):
        for edge in outer_rows(lines, p, template):
            outer.extend((p, i, lines[i]) for i in edge
                         if (p, i) not in template and lines[i].box is not None
                         and is_companion(lines[i]))
    if not outer:
        return []
    slots: dict[int, list[tuple[int, Box, float]]] = defaultdict(list)
    for p, line in [*((p, pages[p][i]) for p, i in template), *placed_elsewhere]:
        if line.box is not None and not line.rotated:
            slots[round(line.box[1])].append((p, line.box, line.size))
    groups: list[TemplateGroup] = []
    found: set[Hit] = set()
    for p, i, line in outer:
        top = round(line.box[1])
        on_pages = {q for key in range(top - 2, top + 3) for q, box, size in slots.get(key, ())
                    if q != p and same_slot(line, box, size)}
        if len(on_pages) >= needed:
            found.add((p, i))
    if found:
        groups.append(TemplateGroup("slot", "where template lines stand", frozenset(found)))
    # Slots of their own: lines on a page's very first or last row (nothing of the page
    # beyond them) that share a place, each text recurring there on another page.
    # Alone on their row but for template lines (a table's top row has its cells).
    left = [(p, i, lines[i]) for p, lines in enumerate(pages)
            for edge in outer_rows(lines, p, set()) for i in edge
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
        texts = Counter(line_shape(line.text) for _, _, line in slot)
        recurring = sum(n for n in texts.values() if n >= 2)
        hits = [(p, i) for p, i, _ in slot]
        # Set no larger than the text: a slide's title and a user's heading are larger.
        if (2 * recurring >= len(slot)
                and all(not (line.size > body and sizes_differ(line.size, body))
                        for _, _, line in slot)):
            found.update(hits)
            groups.append(TemplateGroup("slot", f"a slot at {anchor.box[1]:.0f} pt",
                                        frozenset(hits)))
    return groups


def _row_groups(pages: Sequence[Sequence[PageLine]], numbers: set[Hit],
                template: set[Hit]) -> list[TemplateGroup]:
    """Lines on the page number's own row, where that row is a page edge: the head
    or footer the number belongs to ("Journal of X" left of "173"), whatever its
    text, since position says it. Lines of a sentence stay (a first-page licence
    note beside the number), as does everything beside page number 1."""
    found: set[Hit] = set()
    for p, i in numbers:
        lines = pages[p]
        parsed = page_number_value(lines[i].text) or embedded_page_number(lines[i].text)
        if lines[i].box is None or parsed is None or parsed[1] == 1:
            continue
        row = row_beside(lines, i)
        if not row:
            continue
        first, last = min(*row, i), max(*row, i)
        at_top = all((p, j) in template for j in range(first))
        at_bottom = all((p, j) in template for j in range(last + 1, len(lines)))
        if at_top or at_bottom:
            found.update((p, j) for j in row if (p, j) not in template
                         and is_companion(lines[j]))
    return [TemplateGroup("row", "beside the page number", frozenset(found))] if found else []


# --- groups over the pages as Tika cut them ------------------------------------------


def rotated_groups(pages: Sequence[Sequence[PageLine]]) -> list[TemplateGroup]:
    """Text set at an angle that recurs at the same place on many pages: a stamp or
    watermark laid over each page ("DO NOT SEND THIS PAGE" across a form's pages,
    in pieces), wherever it lies. A rotated label in one figure does not recur."""
    places: dict[str, list[tuple[int, int, Box]]] = defaultdict(list)
    for p, lines in enumerate(pages):
        for i, line in enumerate(lines):
            if line.rotated and line.box is not None and line.removable:
                places[line_shape(line.text)].append((p, i, line.box))
    needed = max(MIN_SEQUENCE_PAGES, MIN_PAGE_SHARE * len(pages))
    groups: list[TemplateGroup] = []
    for key, hits in places.items():
        if len({p for p, _, _ in hits}) < needed:
            continue
        # The place most of them share (boxes rounded to a grid), and all hits near it.
        grid = Counter(tuple(round(x / SAME_PLACE_POINTS) for x in box) for _, _, box in hits)
        cell = grid.most_common(1)[0][0]
        anchor = next(box for _, _, box in hits
                      if tuple(round(x / SAME_PLACE_POINTS) for x in box) == cell)
        same = [(p, i) for p, i, box in hits if same_place(box, anchor)]
        if len({p for p, _ in same}) >= needed:
            groups.append(TemplateGroup("rotated", key, frozenset(same)))
    return groups


def link_groups(pages: Sequence[Sequence[PageLine]]) -> list[TemplateGroup]:
    """A PDF link's target (``PageLine.link``) that recurs on at least half the pages
    (and ``MIN_SEQUENCE_PAGES``): the page template's links, whose URIs Tika prints
    after every page of a data sheet. A link the text cites once stays."""
    pages_of: dict[str, list[Hit]] = defaultdict(list)
    for p, lines in enumerate(pages):
        for i, line in enumerate(lines):
            if line.link and line.removable:
                pages_of[line.text.strip()].append((p, i))
    needed = max(MIN_SEQUENCE_PAGES, MIN_PAGE_SHARE * len(pages))
    return [TemplateGroup("link", text, frozenset(hits)) for text, hits in pages_of.items()
            if len({p for p, _ in hits}) >= needed]
