"""Packing whole units — functions, log entries, Q/A pairs, table rows — into chunks.

Strategies that know what a unit is (``code``, ``log``, ``faq``, ``table``)
cut the document into units and hand them here: consecutive units are joined
while the joined span fits ``size`` (so a unit that fits is never cut), and a
unit over ``size`` on its own is split by the recursive strategy inside it,
which keeps the one hard cap and counts hard cuts the same way everywhere.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

from ragbeam.transforms.chunk.base import trim_span
from ragbeam.transforms.chunk.recursive import split_recursive
from ragbeam.transforms.chunk.sizing import Sizer

Span = tuple[int, int]


def units_between(text: str, cuts: Iterable[int], start: int, end: int) -> list[Span]:
    """``text[start:end]`` cut at ``cuts``, each piece trimmed, empty pieces dropped."""
    bounds = sorted({start, end, *(c for c in cuts if start < c < end)})
    units = (trim_span(text, a, b) for a, b in itertools.pairwise(bounds))
    return [(a, b) for a, b in units if a < b]


def pack_units(text: str, units: list[Span], size: int, sizer: Sizer, overlap: int = 0,
               merge: bool = True) -> tuple[list[Span], int]:
    """Spans of whole units up to ``size`` (joined only when ``merge``); units over
    ``size`` split recursively. Returns the spans and the number of hard cuts."""
    spans: list[Span] = []
    hard_cuts = 0
    current: Span | None = None
    for start, end in units:
        if sizer.span(text, start, end) > size:
            if current:
                spans.append(current)
                current = None
            result = split_recursive(text, size, sizer, overlap, start, end)
            spans.extend(result.spans)
            hard_cuts += result.hard_cuts
            continue
        if merge and current and sizer.span(text, current[0], end) <= size:
            current = (current[0], end)
            continue
        if current:
            spans.append(current)
        current = (start, end)
    if current:
        spans.append(current)
    return spans, hard_cuts
