"""Choose a chunking strategy per document, and say why."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ragbeam.transforms.types import Document

DEFAULT_STRATEGY = "recursive"


@dataclass(frozen=True)
class RouteOptions:
    """Routing configuration (part of the config fingerprint)."""

    forced_strategy: str | None = None  # --strategy NAME: one strategy for every document


@dataclass(frozen=True)
class RouteDecision:
    strategy: str
    reason: str
    params: Mapping[str, Any] = field(default_factory=dict)


def route_document(doc: Document, options: RouteOptions) -> RouteDecision:
    if options.forced_strategy:
        return RouteDecision(options.forced_strategy, "forced by --strategy")
    return RouteDecision(DEFAULT_STRATEGY, "default strategy")
