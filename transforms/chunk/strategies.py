"""The registry of chunking strategies: every name ``--strategy``, a routing table
or ``ragbeam.chunk_text`` accepts, and the class that implements it. Filled here,
in one place; a new strategy is one line in ``STRATEGIES``."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from ragbeam.transforms.chunk.base import (
    ChunkingResult,
    ChunkOptions,
    SizedStrategy,
    Strategy,
    StrategyFactory,
    spans_to_chunks,
)
from ragbeam.transforms.chunk.code import CodeStrategy
from ragbeam.transforms.chunk.faq import FaqStrategy
from ragbeam.transforms.chunk.fixed import FixedStrategy
from ragbeam.transforms.chunk.log import LogStrategy
from ragbeam.transforms.chunk.parent_child import ParentChildStrategy
from ragbeam.transforms.chunk.semantic import SemanticStrategy
from ragbeam.transforms.chunk.similar_paragraphs import SimilarParagraphsStrategy
from ragbeam.transforms.chunk.sliding import SlidingStrategy
from ragbeam.transforms.chunk.structure import StructureStrategy
from ragbeam.transforms.chunk.table import (
    TableStrategy,
    split_keeping_tables,
    table_regions,
    table_titles,
)
from ragbeam.transforms.types import Document


class RecursiveStrategy(SizedStrategy):
    """Separator-ladder splitting (see ``recursive.py``) over the whole document, its
    tables cut between rows only."""

    name = "recursive"

    def chunk(self, doc: Document) -> ChunkingResult:
        # Tables are cut between rows only, each group under its header (``table.py``).
        tables = table_regions(doc)
        spans, hard_cuts = split_keeping_tables(doc.text, tables, self.size, self.overlap,
                                                self.sizer, titles=table_titles(doc, tables))
        return ChunkingResult(spans_to_chunks(doc, spans), {"hard_cuts": hard_cuts})


STRATEGIES: Mapping[str, StrategyFactory] = MappingProxyType({
    "recursive": RecursiveStrategy,
    "fixed": FixedStrategy,
    "sliding": SlidingStrategy,
    "structure": StructureStrategy,
    "parent_child": ParentChildStrategy,
    "code": CodeStrategy,
    "faq": FaqStrategy,
    "log": LogStrategy,
    "table": TableStrategy,
    "semantic": SemanticStrategy,
    "similar_paragraphs": SimilarParagraphsStrategy,
})


def strategy_names() -> list[str]:
    """Every registered strategy, sorted."""
    return sorted(STRATEGIES)


def needs_embeddings(name: str) -> bool:
    """Does strategy ``name`` cut by embeddings (the ``EmbeddingStrategy`` capability)?"""
    return bool(getattr(STRATEGIES[name], "needs_embeddings", False))


def run_options(name: str) -> frozenset[str]:
    """The run's option objects strategy ``name`` cuts by (``RUN_OPTIONS``:
    ``"embedding"``, ``"semantic"``); the embedding model for any strategy that cuts by
    embeddings, declared or not. What the config fingerprint takes of them."""
    declared = frozenset(getattr(STRATEGIES[name], "RUN_OPTIONS", ()))
    return declared | {"embedding"} if needs_embeddings(name) else declared


def build_strategy(name: str, options: ChunkOptions, params: Mapping[str, Any] | None = None
                   ) -> Strategy:
    try:
        factory = STRATEGIES[name]
    except KeyError:
        known = ", ".join(strategy_names())
        raise ValueError(f"unknown chunking strategy {name!r} (known: {known})") from None
    return factory(options, params or {})
