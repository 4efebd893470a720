"""The routing table: which strategy, with which parameters, for which documents.

Loaded from YAML (``defaults.yaml`` beside this module, overridden by the
``routing:`` section of ``--config FILE``) into frozen dataclasses, which are
part of the run's config fingerprint: changing a rule or a parameter changes
``config_hash``.
"""

from __future__ import annotations

import fnmatch
import functools
import pathlib
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

import yaml

AUTO = "auto"  # a rule's strategy meaning: decide by content
DEFAULTS_PATH = pathlib.Path(__file__).with_name("defaults.yaml")


class RoutingConfigError(ValueError):
    """The routing table in a config file is malformed."""


@dataclass(frozen=True)
class RouteRule:
    """Documents matching any of the patterns go to ``strategy`` with ``params``."""

    name: str
    strategy: str
    media_types: tuple[str, ...] = ()  # globs on the detected media type, e.g. "text/x-*"
    extensions: tuple[str, ...] = ()  # of the source path, lower case, with the dot
    paths: tuple[str, ...] = ()  # globs on the source URI, e.g. "*/faq/*"
    params: Mapping[str, Any] = field(default_factory=dict)

    def matches(self, uri: str, media_type: str) -> str | None:
        """What matched, in words (for the route reason), or None."""
        media_type = media_type.lower()
        for pattern in self.media_types:
            if fnmatch.fnmatchcase(media_type, pattern.lower()):
                return f"media type {media_type}"
        extension = posixpath.splitext(uri)[1].lower()
        if extension and extension in self.extensions:
            return f"extension {extension}"
        for pattern in self.paths:
            if fnmatch.fnmatchcase(uri, pattern):
                return f"path matches {pattern}"
        return None


@dataclass(frozen=True)
class LongProse:
    strategy: str = "semantic"
    min_chars: int = 20_000
    enabled: bool = False


@dataclass(frozen=True)
class Detection:
    """Thresholds of the content-based choice (``detect.py``)."""

    faq_min_pairs: int = 3
    faq_max_chars_per_pair: int = 2000
    log_min_share: float = 0.5
    log_min_lines: int = 5
    structure_min_headings: int = 2
    table_min_share: float = 0.5
    ocr_min_chars: int = 2000
    ocr_max_boundaries_per_1000: float = 1.0
    long_prose: LongProse = field(default_factory=LongProse)
    default: str = "recursive"


@dataclass(frozen=True)
class RoutingTable:
    rules: tuple[RouteRule, ...] = ()
    fallback: str = AUTO
    strategies: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    detection: Detection = field(default_factory=Detection)

    def params_for(self, strategy: str, rule: RouteRule | None = None) -> dict[str, Any]:
        params = dict(self.strategies.get(strategy, {}))
        if rule is not None:
            params.update(rule.params)
        return params

    def strategy_names(self) -> set[str]:
        """Every strategy the table can choose (long-prose one only if enabled)."""
        names = {rule.strategy for rule in self.rules} | {self.fallback,
                                                            self.detection.default}
        names |= set(self.strategies)
        if self.detection.long_prose.enabled:
            names.add(self.detection.long_prose.strategy)
        return names - {AUTO}


def _mapping(data: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise RoutingConfigError(f"{where}: expected a mapping, got {type(data).__name__}")
    return data


def _build(cls: type, data: Any, where: str) -> Mapping[str, Any]:
    """``data`` checked to be a mapping with only ``cls``'s field names as keys."""
    data = _mapping(data, where)
    known = {f.name for f in fields(cls)}
    unknown = set(data) - known
    if unknown:
        raise RoutingConfigError(f"{where}: unknown key(s) {', '.join(sorted(unknown))} "
                                 f"(known: {', '.join(sorted(known))})")
    return data


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RoutingConfigError(f"{where}: expected a list of strings")
    return tuple(value)


def _rule(data: Any, index: int) -> RouteRule:
    where = f"routing.rules[{index}]"
    data = _build(RouteRule, data, where)
    if "strategy" not in data:
        raise RoutingConfigError(f"{where}: 'strategy' is required")
    if data["strategy"] == AUTO and data.get("params"):
        raise RoutingConfigError(f"{where}: a rule with strategy 'auto' takes no params "
                                 "(set them per strategy under routing.strategies)")
    params = _mapping(data.get("params") or {}, f"{where}.params")
    return RouteRule(
        name=str(data.get("name") or f"rule {index + 1}"),
        strategy=str(data["strategy"]),
        media_types=_strings(data.get("media_types", []), f"{where}.media_types"),
        extensions=tuple(e.lower() if e.startswith(".") else f".{e.lower()}"
                         for e in _strings(data.get("extensions", []), f"{where}.extensions")),
        paths=_strings(data.get("paths", []), f"{where}.paths"),
        params=dict(params),
    )


def _detection(data: Mapping[str, Any], base: Detection) -> Detection:
    data = dict(_build(Detection, data, "routing.detection"))
    long_prose = base.long_prose
    if "long_prose" in data:
        values = _build(LongProse, data.pop("long_prose") or {}, "routing.detection.long_prose")
        long_prose = LongProse(**{**long_prose.__dict__, **values})
    merged = {**base.__dict__, **data}
    try:
        values = {k: type(getattr(base, k))(v) for k, v in merged.items() if k != "long_prose"}
        return Detection(**values, long_prose=long_prose)
    except (TypeError, ValueError) as exc:
        raise RoutingConfigError(f"routing.detection: {exc}") from None


def table_from_mapping(routing: Mapping[str, Any], base: RoutingTable | None = None
                       ) -> RoutingTable:
    """A table from a ``routing:`` mapping, over ``base``: its ``rules`` go before
    the base rules (``default_rules: false`` drops those), ``detection`` and
    ``strategies`` entries replace the base's entry by entry."""
    base = base or RoutingTable()
    routing = dict(_mapping(routing or {}, "routing"))
    keep_base_rules = routing.pop("default_rules", True)
    if not isinstance(keep_base_rules, bool):
        raise RoutingConfigError("routing.default_rules: expected true or false")
    routing = _build(RoutingTable, routing, "routing")
    rules = base.rules if keep_base_rules else ()
    if "rules" in routing:
        if not isinstance(routing["rules"], list):
            raise RoutingConfigError("routing.rules: expected a list")
        # New rules go first (first match wins); the base rules stay as the fallback.
        rules = tuple(_rule(r, i) for i, r in enumerate(routing["rules"])) + rules
    strategies = dict(base.strategies)
    for name, params in _mapping(routing.get("strategies") or {}, "routing.strategies").items():
        strategies[str(name)] = dict(_mapping(params or {}, f"routing.strategies.{name}"))
    return RoutingTable(
        rules=rules,
        fallback=str(routing.get("fallback", base.fallback)),
        strategies=strategies,
        detection=_detection(routing.get("detection") or {}, base.detection),
    )


def load_yaml(path: str | pathlib.Path) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as f:
            data = yaml.safe_load(f) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise RoutingConfigError(f"cannot read config {str(path)!r}: {exc}") from None
    if not isinstance(data, dict):
        raise RoutingConfigError(f"config {str(path)!r}: expected a mapping at the top level")
    return data


@functools.cache
def default_table() -> RoutingTable:
    return table_from_mapping(load_yaml(DEFAULTS_PATH).get("routing") or {})


def load_routing_table(config_path: str | pathlib.Path | None) -> RoutingTable:
    """The default table, overridden by the ``routing:`` section of ``config_path``."""
    table = default_table()
    if config_path is None:
        return table
    return table_from_mapping(load_yaml(config_path).get("routing") or {}, table)
