"""Page furniture: what a document's page template prints on its pages (pure). In
order: text laid over the page or cut apart (``stamps.py``), the page number by its value
(``numbers.py``), the page template (``template.py``: the model), template text in
pieces; pages read from edge to edge (``lines.edge_order``; docs/cleaning.md)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from ragbeam.transforms.clean.furniture.lines import (
    Hit,
    PageLine,
    Pages,
    PageSizes,
    TemplateGroup,
    body_size,
    edge_order,
    line_shape,
    members,
    page_frames,
    page_number_value,
    page_size,
    placed_lines,
    roman_value,
    template_key,
)
from ragbeam.transforms.clean.furniture.numbers import (
    find_page_numbers,
    find_set_apart_edges,
    fused_folios,
)
from ragbeam.transforms.clean.furniture.stamps import find_cut_text, find_laid_over
from ragbeam.transforms.clean.furniture.template import (
    carried_titles,
    find_template,
    heads_its_text,
    unnumbered_copies,
)
from ragbeam.transforms.clean.headings import is_prose

__all__ = ["FurnitureResult", "PageLine", "TemplateGroup", "edge_order", "find_page_furniture",
           "line_shape", "page_number_value", "roman_value"]


@dataclass(frozen=True)
class FurnitureResult:
    """Every furniture line by why; ``template``: the groups ``ragbeam viz`` marks."""

    page_numbers: frozenset[Hit]
    running_text: frozenset[Hit]
    companions: frozenset[Hit]
    stamps: frozenset[Hit] = frozenset()
    template: tuple[TemplateGroup, ...] = ()

    @property
    def lines(self) -> frozenset[Hit]:
        return self.page_numbers | self.running_text | self.companions | self.stamps


def find_page_furniture(pages: Pages, page_sizes: PageSizes = None) -> FurnitureResult:
    """Furniture lines of a paged document (``page_sizes``: each page's (width, height))."""
    if not pages:
        return FurnitureResult(frozenset(), frozenset(), frozenset())
    pages, frames = zip(*(placed_lines(lines, page_size(page_sizes, p)[0])
                          for p, lines in enumerate(pages)), strict=True)
    multi = len(pages) > 1
    # Text laid over the page first: no part of its edges' order.
    frames = page_frames(frames)
    stamps, rotated = find_laid_over(pages, page_sizes, frames)
    stamped = {p for p, _ in stamps}  # most pages: none (their order taken whole)
    kept = [[i for i in edge_order(lines) if (p, i) not in stamps] if p in stamped
            else edge_order(lines) for p, lines in enumerate(pages)]
    unstamped = [list(map(pages[p].__getitem__, kept[p])) for p in range(len(pages))]
    body = body_size(unstamped)
    if multi:
        numbers = _user_headings_kept(unstamped, find_page_numbers(unstamped), body)
        groups = find_template(unstamped, numbers, page_sizes, frames,
                               [(p, pages[p][i]) for p, i in stamps], body)
        template = members(groups) - numbers
        if unnumbered := unnumbered_copies(unstamped, numbers | template):
            groups.append(TemplateGroup("text", "a numbered head without its number",
                                        frozenset(unnumbered)))
            template |= unnumbered
        numbers |= fused_folios(unstamped, numbers)
        # Kept apart until the end: a title is no template text whose pieces are cut.
        if carried := carried_titles(unstamped, template):
            groups.append(TemplateGroup("text", "a head block carried over", frozenset(carried)))
    else:
        numbers = find_page_numbers(unstamped)
        groups, template, carried = [], set(), set()
    apart = find_set_apart_edges(unstamped, numbers, numbers | template) - numbers - template

    def original(found: Iterable[Hit]) -> set[Hit]:
        return {(p, kept[p][i]) for p, i in found}

    numbers, template, companions = original(numbers), original(template), original(apart)
    groups = [TemplateGroup(g.kind, g.key, frozenset(original(g.members)))
              for g in groups]
    if multi:
        cut = find_cut_text(pages, template | companions, numbers | template | companions
                            | stamps, body)
        if cut:
            groups.append(TemplateGroup("cut", "template text in pieces", frozenset(cut)))
        companions |= cut
    template |= original(carried)
    # Never remove a heading that occurs only once in the whole document (the pages are
    # read again only when a heading was found).
    found = {(p, i) for p, i in numbers | template | companions | stamps
             if pages[p][i].is_heading}
    named = {pages[p][i].text.strip() for p, i in found}
    counts = Counter(text for lines in pages for line in lines
                     if line.is_heading and (text := line.text.strip()) in named) if named else {}
    unique = {(p, i) for p, i in found if counts[pages[p][i].text.strip()] == 1}
    kept_whole = _repeated_pages(pages, (numbers | template | companions | stamps) - unique)
    return FurnitureResult(*(frozenset(hits - unique - kept_whole)
                             for hits in (numbers, template, companions, stamps)),
                           (*rotated, *groups))


# A page's frame holds at most one line of running text (a footer's notice).
MIN_REPEATED_PAGE_PROSE_LINES = 2


def _repeated_pages(pages: Pages, taken: set[Hit]) -> set[Hit]:
    """The lines of each page the template would take whole, with
    ``MIN_REPEATED_PAGE_PROSE_LINES`` lines of running text among them: such a page is
    printed again (a memo on two identical pages), not a frame around nothing, and it
    keeps its lines; else, all of its text would go."""
    if not taken:
        return set()
    whole: set[Hit] = set()
    for p in {p for p, _ in taken}:
        lines = pages[p]
        if (all((p, i) in taken for i in range(len(lines)))
                and sum(map(is_prose, (line.text for line in lines)))
                >= MIN_REPEATED_PAGE_PROSE_LINES):
            whole.update((p, i) for i in range(len(lines)))
    return whole


def _user_headings_kept(pages: Pages, numbers: set[Hit], body: float) -> set[Hit]:
    """The page numbers found, less heads set as the user's headings that number
    something else than the page (``Question 3`` atop page 3; ``Section 3: …`` on pages
    that print their number apart)."""
    heads: dict[str, list[Hit]] = defaultdict(list)
    for p, i in numbers:
        if page_number_value(pages[p][i].text) is None:
            heads[template_key(pages[p][i].text)].append((p, i))
    if not heads:
        return numbers
    kept = set(numbers)
    for key, hits in heads.items():
        label = len(key.split()) == 1
        # Pages whose number stands apart: alone, or in another head (a slide's foot).
        numbered = {p for p, i in numbers - set(hits)}
        if ((label or 2 * sum(p in numbered for p, _ in hits) > len(hits))
                and heads_its_text(pages, hits, body, numbers - set(hits))):
            kept -= set(hits)
    return kept
