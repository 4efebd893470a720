"""Structure-aware chunking: one chunk per heading section.

The rule, in the order it is applied:

1. The document is cut before every heading span (``BlockKind.HEADING``), and
   before and after every run of a contents page's or an index's lines
   (``BlockKind.CONTENTS``: navigation is chunked apart from what it lists);
   each piece is a *section* (its heading plus the body up to the next
   heading of any level) with the heading path at its start, e.g.
   ``("Guide", "Install", "Linux")``. Text before the first heading is a
   section with an empty path.
2. A section that is only a heading (no body before the next heading) goes
   forward into the next section, however large (the recursive split of rule
   3 then starts its first chunk with the heading); headings at the very end,
   with nothing after them, join the last section. A tiny section (under ``min_size``, default a
   quarter of ``size``) and its predecessor are merged when the tiny one
   belongs under the predecessor's parent heading and the two together fit
   ``size``; a merged chunk's heading path is what its sections have in common.
3. A section over ``size`` falls back to recursive splitting inside the
   section (``recursive.py``), so no chunk crosses a heading it does not start
   with, and every chunk honours the cap; a table in it is cut between rows
   only, each group under its header (``table.split_keeping_tables``). A
   first piece that is only the heading takes the start of the body with it
   (``keep_heading_with_body``).

A document without headings is one section: the result is the recursive
strategy's.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ragbeam.transforms.chunk.base import (
    ChunkingResult,
    ChunkOptions,
    HeadingIndex,
    SizedStrategy,
    contents_bounds,
    trim_span,
)
from ragbeam.transforms.chunk.recursive import split_recursive
from ragbeam.transforms.chunk.sizing import Sizer
from ragbeam.transforms.chunk.table import split_keeping_tables, table_regions, table_titles
from ragbeam.transforms.types import BlockKind, Chunk, Document

MIN_SIZE_RATIO = 0.25


@dataclass(frozen=True)
class Section:
    start: int
    end: int
    heading_path: tuple[str, ...]
    group_parent: tuple[str, ...]  # the heading every section merged into this one is under


def heading_sections(doc: Document, headings: HeadingIndex | None = None) -> list[Section]:
    """The document cut before every heading, trimmed, empty pieces dropped."""
    headings = headings or HeadingIndex(doc)
    cuts = [span.start for span in doc.spans if span.kind is BlockKind.HEADING]
    bounds = sorted({0, *cuts, *contents_bounds(doc), len(doc.text)})
    sections = []
    for a, b in itertools.pairwise(bounds):
        start, end = trim_span(doc.text, a, b)
        if start < end:
            path = headings.path_at(start)
            sections.append(Section(start, end, path, path[:-1]))
    return sections


def _common_prefix(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


def merge_tiny_sections(text: str, sections: list[Section], size: int, min_size: int,
                        sizer: Sizer, heading_only: set[int] | None = None) -> list[Section]:
    """Rule 2: a section that is only a heading goes forward into the next one;
    a tiny section joins the previous one under the same parent, if they fit."""
    heading_only = heading_only or set()
    merged: list[Section] = []
    pending: Section | None = None  # heading(s) without a body, waiting for their section
    for section in sections:
        if pending is not None:
            # Always forward: a section too large for the heading too is split
            # recursively, and its first piece starts with the heading.
            fits = sizer.span(text, pending.start, section.end) <= size
            section = Section(pending.start, section.end,
                              _common_prefix(pending.heading_path, section.heading_path)
                              if fits else section.heading_path, pending.group_parent)
            pending = None
        if section.end in heading_only:
            pending = section
            continue
        if merged:
            prev = merged[-1]
            parent = prev.group_parent
            same_parent = section.heading_path[:len(parent)] == parent
            tiny = (sizer.span(text, prev.start, prev.end) < min_size
                    or sizer.span(text, section.start, section.end) < min_size)
            if same_parent and tiny and sizer.span(text, prev.start, section.end) <= size:
                merged[-1] = Section(prev.start, section.end,
                                     _common_prefix(prev.heading_path, section.heading_path),
                                     parent)
                continue
        merged.append(section)
    if pending is not None:  # headings with nothing after them: back into the last section
        if merged:
            merged[-1] = Section(merged[-1].start, pending.end, merged[-1].heading_path,
                                 merged[-1].group_parent)
        else:
            merged.append(pending)
    return merged


def keep_heading_with_body(text: str, spans: list[tuple[int, int]], heading_ends: set[int],
                           size: int, sizer: Sizer) -> list[tuple[int, int]]:
    """Spans of a recursive split whose first piece is only heading(s): the piece after
    it is split again, with the heading's room kept free, and its first part joins the
    heading, so no chunk is a heading alone."""
    if len(spans) < 2 or spans[0][1] not in heading_ends:
        return spans
    head_start, (body_start, body_end) = spans[0][0], spans[1]
    budget = size - sizer.span(text, head_start, body_start)
    if budget <= 0:
        return spans
    pieces = split_recursive(text, budget, sizer, 0, body_start, body_end).spans
    if not pieces or sizer.span(text, head_start, pieces[0][1]) > size:
        return spans
    return [(head_start, pieces[0][1]), *pieces[1:], *spans[2:]]


def split_by_structure(doc: Document, size: int, overlap: int, sizer: Sizer, min_size: int,
                       headings: HeadingIndex | None = None) -> tuple[list[Chunk], int]:
    """Chunks per (merged) section, recursive inside oversized ones; and the hard cuts."""
    headings = headings or HeadingIndex(doc)
    heading_ends = {span.end for span in doc.spans if span.kind is BlockKind.HEADING}
    tables = table_regions(doc)
    titles = table_titles(doc, tables)
    sections = merge_tiny_sections(doc.text, heading_sections(doc, headings), size, min_size,
                                   sizer, heading_ends)
    chunks: list[Chunk] = []
    hard_cuts = 0
    for section in sections:
        if sizer.span(doc.text, section.start, section.end) <= size:
            spans = [(section.start, section.end)]
        else:
            # Tables inside it are cut between rows only, each group under its header.
            spans, cuts = split_keeping_tables(doc.text, tables, size, overlap, sizer,
                                               section.start, section.end, titles=titles)
            hard_cuts += cuts
            spans = keep_heading_with_body(doc.text, spans, heading_ends, size, sizer)
        chunks.extend(Chunk(start=s, end=e, text=doc.text[s:e], heading_path=section.heading_path)
                      for s, e in spans)
    return chunks, hard_cuts


class StructureStrategy(SizedStrategy):
    """One chunk per heading section; ``min_size`` sets what counts as tiny."""

    name = "structure"
    PARAMS = frozenset({"min_size"})

    def __init__(self, options: ChunkOptions, params: Mapping[str, Any]) -> None:
        super().__init__(options, params)
        self.min_size = int(params.get("min_size", self.size * MIN_SIZE_RATIO))

    def chunk(self, doc: Document) -> ChunkingResult:
        chunks, hard_cuts = split_by_structure(doc, self.size, self.overlap, self.sizer,
                                               self.min_size)
        return ChunkingResult(chunks, {"hard_cuts": hard_cuts})
