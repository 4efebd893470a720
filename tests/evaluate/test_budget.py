"""Greedy context fill: a prefix of the ranking; parents deduplicated and charged."""

from __future__ import annotations

from ragbeam.evaluate.budget import ContextUnit, ContextUnits, fill_context
from ragbeam.evaluate.run_data import ChunkRecord


def row(chunk_id: str, tokens: int, level: str = "chunk", parent_id: str | None = None
        ) -> ChunkRecord:
    return ChunkRecord(chunk_id=chunk_id, doc_id="d", parent_id=parent_id, chunk_index=0,
                    level=level, strategy="s", text=chunk_id, context="", char_start=0,
                    char_end=1, page_start=None, page_end=None, heading_path=(),
                    token_count=tokens, char_count=1, source_uri="/d", media_type="text/plain")


def units(*tokens: int) -> list[ContextUnit]:
    return [ContextUnit(f"c{i}", "d", f"c{i}", t) for i, t in enumerate(tokens)]


def test_fill_stops_at_first_chunk_that_does_not_fit():
    ctx = fill_context([0, 1, 2, 3], units(200, 300, 200, 50), budget=600)
    # 200 + 300 fit; the next 200 would overflow 600, so the fill ends there even
    # though the 50-token chunk after it would fit: the context is a ranking prefix.
    assert [u.chunk_id for u in ctx.units] == ["c0", "c1"]
    assert ctx.tokens == 500 and ctx.retrieved == 2


def test_a_top_chunk_over_budget_gives_an_empty_context():
    ctx = fill_context([0, 1], units(700, 10), budget=600)
    assert ctx.units == () and ctx.tokens == 0


def test_parent_child_brings_parents_once_and_charges_their_tokens():
    parent_a, parent_b = row("A", 250, "parent"), row("B", 300, "parent")
    children = [row("a1", 40, "child", "A"), row("a2", 40, "child", "A"),
                row("b1", 40, "child", "B"), row("x", 60)]
    context_units = ContextUnits(children, [parent_a, parent_b, *children])
    ctx = fill_context([0, 1, 2, 3], context_units, budget=600)
    # a1 → parent A (250), a2 → A again (free), b1 → parent B (300): 550 tokens.
    # x (60) would overflow 600: stop.
    assert [u.chunk_id for u in ctx.units] == ["A", "B"]
    assert ctx.tokens == 550 and ctx.retrieved == 3
    # Plain chunks (no parent) stand for themselves.
    assert context_units[3].chunk_id == "x" and context_units[3].tokens == 60


def test_a_child_whose_parent_does_not_fit_is_sent_on_its_own():
    big, small = row("P", 800, "parent"), row("Q", 100, "parent")
    children = [row("p1", 50, "child", "P"), row("q1", 40, "child", "Q"),
                row("p2", 60, "child", "P"), row("y", 500)]
    context_units = ContextUnits(children, [big, small, *children])
    ctx = fill_context([0, 1, 2, 3], context_units, budget=600)
    # P (800) never fits a 600-token budget: p1 and p2 go in as themselves;
    # Q (100) fits and is sent instead of q1; y (500) would overflow: stop.
    assert [u.chunk_id for u in ctx.units] == ["p1", "Q", "p2"]
    assert ctx.tokens == 50 + 100 + 60 and ctx.retrieved == 3
