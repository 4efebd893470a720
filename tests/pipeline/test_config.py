"""The config fingerprint (``pipeline/config.py``) from the registries' declarations:
whatever a strategy the run can route to takes from the run (``RUN_OPTIONS``; the
model, for any strategy that cuts by embeddings) is in the chunk layer's key."""

from __future__ import annotations

import dataclasses

import pytest

from ragbeam.pipeline.config import MatchOptions, RunConfig
from ragbeam.transforms.chunk.semantic import SemanticOptions
from ragbeam.transforms.chunk.strategies import needs_embeddings, run_options, strategy_names
from ragbeam.transforms.embed.model import EmbeddingOptions
from ragbeam.transforms.route.router import RouteOptions
from ragbeam.transforms.route.table import RoutingSettings, default_table, table_from_settings

EMBEDDING_STRATEGIES = [name for name in strategy_names() if needs_embeddings(name)]
# Two values of each run option object a strategy may take (``RUN_OPTIONS``): a new
# option name fails the test below until it is given two here. (The default
# precision, ``auto``, is one of the two on some machines: both are explicit.)
TWO_VALUES = {"embedding": (EmbeddingOptions(precision="fp32"), EmbeddingOptions(precision="bf16")),
              "semantic": (SemanticOptions(), SemanticOptions(threshold="gradient"))}


def _config(**fields) -> RunConfig:
    return RunConfig(match=MatchOptions(inputs=("x",)), output="o", **fields)


def _routed_by_table(strategy: str) -> RouteOptions:
    """The default table with one rule sending Markdown to ``strategy``; its fallback
    and detection choose no embedding strategy."""
    settings = RoutingSettings.model_validate(
        {"rules": [{"name": "md", "strategy": strategy, "extensions": [".md"]}]})
    return RouteOptions(table=table_from_settings(settings, default_table()))


def test_the_registry_has_embedding_strategies():
    assert {"semantic", "similar_paragraphs"} <= set(EMBEDDING_STRATEGIES)


@pytest.mark.parametrize("strategy", EMBEDDING_STRATEGIES)
@pytest.mark.parametrize("how", ["forced", "routed"])
def test_every_embedding_strategy_s_chunk_key_moves_with_the_model(strategy, how):
    """The bug this guards: ``similar_paragraphs`` cut by another model kept the
    default model's ``config_hash``, so its chunk ids did not change with its cuts."""
    route = (RouteOptions(forced_strategy=strategy) if how == "forced"
             else _routed_by_table(strategy))
    assert not any(needs_embeddings(name) for name in default_table().strategy_names())
    one = _config(route=route, embedding=EmbeddingOptions(precision="fp32"))
    other = _config(route=route, embedding=EmbeddingOptions(precision="bf16"))
    assert one.config_hash != other.config_hash
    assert one.layer_keys["chunks"] != other.layer_keys["chunks"]
    # The extraction is not cut by the model: kept.
    assert one.layer_keys["extraction"] == other.layer_keys["extraction"]


@pytest.mark.parametrize("strategy", strategy_names())
def test_each_run_option_a_strategy_takes_moves_its_key_and_no_other(strategy):
    route = RouteOptions(forced_strategy=strategy)
    taken = run_options(strategy)
    assert taken <= set(TWO_VALUES), "give the new run option two values above"
    for name, (one, other) in TWO_VALUES.items():
        moved = (_config(route=route, **{name: one}).config_hash
                 != _config(route=route, **{name: other}).config_hash)
        assert moved == (name in taken), name


def test_a_run_without_embedding_strategies_keeps_its_key_whatever_the_model():
    base = _config()
    assert _config(embedding=EmbeddingOptions(precision="bf16")).config_hash == base.config_hash
    assert _config(semantic=dataclasses.replace(SemanticOptions(), window=2)
                   ).config_hash == base.config_hash
