"""The routing table: which strategy, with which parameters, for which documents.

Loaded from YAML (``defaults.yaml`` beside this module, overridden by the
``routing:`` section of ``--config FILE``), validated by ``RoutingSettings`` (the
routing part of the one config schema, ``pipeline/settings.py``), into frozen
dataclasses, which are part of the run's config fingerprint: changing a rule or
a parameter changes ``config_hash``.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import functools
import pathlib
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

import yaml
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
)

from ragbeam.transforms.validation import validation_message

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


# What a strategy parameter may be (each strategy checks its own names and values).
ParamValue = StrictInt | StrictFloat | StrictBool | StrictStr | None
_STRICT = ConfigDict(strict=True, extra="forbid")


def _string_list(value: Any) -> Any:
    return [value] if isinstance(value, str) else value


class RuleSettings(BaseModel):
    """One rule of ``routing.rules`` as written in a config file."""

    model_config = _STRICT
    name: str | None = None
    strategy: str
    media_types: Annotated[list[str], BeforeValidator(_string_list)] = []
    extensions: Annotated[list[str], BeforeValidator(_string_list)] = []
    paths: Annotated[list[str], BeforeValidator(_string_list)] = []
    params: dict[str, ParamValue] = {}


class LongProseSettings(BaseModel):
    model_config = _STRICT
    strategy: str | None = None
    min_chars: Annotated[int, Field(ge=0)] | None = None
    enabled: bool | None = None


class DetectionSettings(BaseModel):
    """``routing.detection``: each key given replaces the base table's value."""

    model_config = _STRICT
    faq_min_pairs: Annotated[int, Field(ge=1)] | None = None
    faq_max_chars_per_pair: Annotated[int, Field(ge=1)] | None = None
    log_min_share: Annotated[float, Field(ge=0, le=1)] | None = None
    log_min_lines: Annotated[int, Field(ge=1)] | None = None
    structure_min_headings: Annotated[int, Field(ge=1)] | None = None
    table_min_share: Annotated[float, Field(ge=0, le=1)] | None = None
    ocr_min_chars: Annotated[int, Field(ge=0)] | None = None
    ocr_max_boundaries_per_1000: Annotated[float, Field(ge=0)] | None = None
    long_prose: LongProseSettings | None = None
    default: str | None = None


class RoutingSettings(BaseModel):
    """The ``routing:`` section of a config file (and of ``defaults.yaml``)."""

    model_config = _STRICT
    default_rules: bool = True
    rules: list[RuleSettings] | None = None
    fallback: str | None = None
    strategies: dict[str, dict[str, ParamValue]] = {}
    detection: DetectionSettings | None = None


def _given(model: BaseModel) -> dict[str, Any]:
    return {k: v for k, v in model.model_dump(exclude_unset=True).items() if v is not None}


def table_from_settings(routing: RoutingSettings, base: RoutingTable | None = None
                        ) -> RoutingTable:
    """A table from a validated ``routing:`` section, over ``base``: its ``rules`` go
    before the base rules (``default_rules: false`` drops those), ``detection`` and
    ``strategies`` entries replace the base's entry by entry."""
    base = base or RoutingTable()
    rules = base.rules if routing.default_rules else ()
    if routing.rules is not None:
        for index, rule in enumerate(routing.rules):
            if rule.strategy == AUTO and rule.params:
                raise RoutingConfigError(
                    f"routing.rules[{index}].params: a rule with strategy 'auto' takes no "
                    "params (set them per strategy under routing.strategies)")
        # New rules go first (first match wins); the base rules stay as the fallback.
        rules = tuple(
            RouteRule(
                name=rule.name or f"rule {index + 1}",
                strategy=rule.strategy,
                media_types=tuple(rule.media_types),
                extensions=tuple(e.lower() if e.startswith(".") else f".{e.lower()}"
                                 for e in rule.extensions),
                paths=tuple(rule.paths),
                params=dict(rule.params),
            )
            for index, rule in enumerate(routing.rules)
        ) + rules
    strategies = {**base.strategies, **{name: dict(params)
                                        for name, params in routing.strategies.items()}}
    detection = base.detection
    if routing.detection is not None:
        given = _given(routing.detection)
        long_prose = detection.long_prose
        if routing.detection.long_prose is not None:
            long_prose = dataclasses.replace(long_prose, **_given(routing.detection.long_prose))
        given.pop("long_prose", None)
        detection = dataclasses.replace(detection, **given, long_prose=long_prose)
    return RoutingTable(
        rules=rules,
        fallback=routing.fallback or base.fallback,
        strategies=strategies,
        detection=detection,
    )


def table_from_mapping(routing: Mapping[str, Any] | None, base: RoutingTable | None = None
                       ) -> RoutingTable:
    """``table_from_settings`` of an unvalidated mapping (validation errors raise
    ``RoutingConfigError`` with the key path, e.g. ``routing.rules[0].params.size``)."""
    try:
        settings = RoutingSettings.model_validate(routing or {})
    except ValidationError as exc:
        raise RoutingConfigError(validation_message(exc, "routing")) from None
    return table_from_settings(settings, base)


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

