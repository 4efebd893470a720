"""Greedy context fill under a token budget — the only fair way to compare chunkings.

A fixed top-k rewards big chunks for buying more text; a token budget makes
every strategy pay for what it puts in front of the model (seed 004).

The rule: walk the ranking best first; each retrieved chunk contributes its
*context unit* — the chunk itself, or, for a parent-child child, its parent.
A unit already in the context costs nothing again (parents are deduplicated).
A child whose parent does not fit in what is left of the budget is sent on
its own instead (what a user with that budget would send: the small chunk
rather than nothing). The first unit that does not fit even so ends the
fill: the context is always a prefix of the ranking, as a real
top-of-ranking context would be.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ragbeam.evaluate.run_data import ChunkRecord


@dataclass(frozen=True)
class ContextUnit:
    chunk_id: str
    doc_id: str
    text: str
    tokens: int
    char_start: int = 0
    char_end: int = 0
    # For a child sent as its parent: the child itself, sent when the parent does not fit.
    fallback: ContextUnit | None = None


@dataclass(frozen=True)
class FilledContext:
    units: tuple[ContextUnit, ...]
    tokens: int
    retrieved: int  # ranked chunks consumed (children count one each)

    @property
    def text(self) -> str:
        return "\n".join(u.text for u in self.units)


class ContextUnits:
    """Maps an indexed chunk to what enters the context for it."""

    def __init__(self, indexed: Sequence[ChunkRecord], all_chunks: Iterable[ChunkRecord]) -> None:
        parents: Mapping[str, ChunkRecord] = {c.chunk_id: c for c in all_chunks if not c.indexed}
        self._units: list[ContextUnit] = []
        for c in indexed:
            own = ContextUnit(c.chunk_id, c.doc_id, c.text, c.token_count, c.char_start,
                              c.char_end)
            parent = parents.get(c.parent_id or "")
            self._units.append(own if parent is None else ContextUnit(
                parent.chunk_id, parent.doc_id, parent.text, parent.token_count,
                parent.char_start, parent.char_end, fallback=own))

    def __getitem__(self, index: int) -> ContextUnit:
        return self._units[index]

    def __len__(self) -> int:
        return len(self._units)


def fill_context(ranking: Iterable[int], units: ContextUnits | Sequence[ContextUnit],
                 budget: int) -> FilledContext:
    chosen: list[ContextUnit] = []
    seen: set[str] = set()
    used = retrieved = 0
    for index in ranking:
        unit = units[index]
        if unit.chunk_id in seen:
            retrieved += 1
            continue
        if used + unit.tokens > budget and unit.fallback is not None:
            unit = unit.fallback  # the parent does not fit: send the child
            if unit.chunk_id in seen:
                retrieved += 1
                continue
        if used + unit.tokens > budget:
            break
        chosen.append(unit)
        seen.add(unit.chunk_id)
        used += unit.tokens
        retrieved += 1
    return FilledContext(tuple(chosen), used, retrieved)
