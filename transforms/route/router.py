"""Choose a chunking strategy per document, and say why.

The order: ``--strategy NAME`` forces one strategy for every document; else
the first rule of the routing table (``table.py``) that matches the
document's media type, extension or path; else the table's ``fallback``.
A rule or fallback of ``auto`` decides by content (``detect.py``). Parameters
come from the table's per-strategy ``strategies`` entry, then the rule's
``params`` (a rule of ``auto`` takes no ``params``: it does not know which
strategy it will get).
"""

from __future__ import annotations

import mimetypes
from dataclasses import dataclass, field

from ragbeam.transforms.chunk.base import ChunkOptions
from ragbeam.transforms.chunk.strategies import STRATEGIES, build_strategy, strategy_names
from ragbeam.transforms.route.detect import detect_strategy
from ragbeam.transforms.route.table import AUTO, RoutingTable, default_table
from ragbeam.transforms.types import Document, RouteDecision

DEFAULT_STRATEGY = "recursive"


@dataclass(frozen=True)
class RouteOptions:
    """Routing configuration (part of the config fingerprint)."""

    forced_strategy: str | None = None  # --strategy NAME: one strategy for every document
    table: RoutingTable = field(default_factory=default_table)


def is_registered(name: str) -> bool:
    return name in STRATEGIES


def route_document(doc: Document, options: RouteOptions) -> RouteDecision:
    table = options.table
    if options.forced_strategy:
        return RouteDecision(options.forced_strategy, "forced by --strategy",
                             table.params_for(options.forced_strategy), "forced")
    for rule in table.rules:
        matched = rule.matches(doc.source.uri, doc.media_type)
        if matched is None:
            continue
        if rule.strategy != AUTO:
            return RouteDecision(rule.strategy, f"rule {rule.name!r}: {matched}",
                                 table.params_for(rule.strategy, rule), f"rule:{rule.name}")
        strategy, signal, reason = detect_strategy(doc, table.detection, is_registered)
        return RouteDecision(strategy, f"rule {rule.name!r}: {matched}; {reason}",
                             table.params_for(strategy), f"content:{signal}")
    if table.fallback != AUTO:
        return RouteDecision(table.fallback, "no rule matched: fallback",
                             table.params_for(table.fallback), "fallback")
    strategy, signal, reason = detect_strategy(doc, table.detection, is_registered)
    return RouteDecision(strategy, reason, table.params_for(strategy), f"content:{signal}")


BY_CONTENT = "(by content)"


def preview_route(uri: str, options: RouteOptions) -> tuple[str, str]:
    """``(strategy, reason)`` for a file before it is extracted (``--dry-run``): the
    media type is guessed from the name, and a choice that depends on the content
    (``auto``) is reported as ``BY_CONTENT`` with the signals that will decide."""
    table = options.table
    if options.forced_strategy:
        return options.forced_strategy, "forced by --strategy"
    media_type = mimetypes.guess_type(uri)[0] or "application/octet-stream"
    for rule in table.rules:
        matched = rule.matches(uri, media_type)
        if matched is None:
            continue
        if rule.strategy != AUTO:
            return rule.strategy, f"rule {rule.name!r}: {matched}"
        return BY_CONTENT, f"rule {rule.name!r}: {matched}; then by content"
    if table.fallback != AUTO:
        return table.fallback, "no rule matched: fallback"
    return BY_CONTENT, "no rule matched: decided by content after extraction"


def content_signals(options: RouteOptions) -> str:
    """What decides a ``BY_CONTENT`` route, in words (``detect.py``'s order)."""
    return ("Q/A pairs → faq, timestamped lines → log, tables → table, headings → structure, "
            f"OCR-like text → sliding, else {options.table.detection.default}")


def check_route_options(options: RouteOptions, chunk: ChunkOptions) -> None:
    """Fail before the run starts on a strategy name or parameter that cannot work:
    every strategy the table (or ``--strategy``) can choose is built once here.
    Errors name where the bad value is (``routing.rules[0].params``, ``--strategy``…)."""
    def build(name: str, params: dict, where: str) -> None:
        if not is_registered(name):
            known = ", ".join(strategy_names())
            raise ValueError(f"{where}: unknown chunking strategy {name!r} (known: {known})")
        try:
            build_strategy(name, chunk, params)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{where}: {exc}") from None

    if options.forced_strategy:
        build(options.forced_strategy, options.table.params_for(options.forced_strategy),
              "strategy")
        return
    table = options.table
    for index, rule in enumerate(table.rules):
        if rule.strategy != AUTO:
            build(rule.strategy, table.params_for(rule.strategy, rule),
                  f"routing.rules[{index}] ({rule.name})")
    for name in sorted(table.strategy_names()):
        where = (f"routing.strategies.{name}" if name in table.strategies
                 else "routing (fallback or detection)")
        build(name, table.params_for(name), where)
