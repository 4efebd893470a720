"""The import graph (``evaluate/imports.py``): no cycle between packages, none between
modules (function-level imports included), and the stages' documented direction
(docs/architecture.md, "Import direction"): route → chunk → embed, never back."""

from __future__ import annotations

import pathlib
import textwrap

from ragbeam.evaluate.imports import cycles, module_graph, package_graph

# The stages whose imports go one way only (docs/architecture.md): the router
# chooses among the registered strategies, the semantic strategy and model-token
# sizing need the embedding model; the Embed stage needs nothing of the Chunk stage.
STAGE_DIRECTION = ("route", "chunk", "embed")


def _stage(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "transforms" and len(parts) > 2 else None


def imports_against_the_direction(modules: dict[str, set[str]]) -> list[tuple[str, str]]:
    """``(importer, imported)`` for each import from a stage of ``STAGE_DIRECTION``
    to one before it."""
    order = {stage: i for i, stage in enumerate(STAGE_DIRECTION)}
    return sorted((a, b) for a, targets in modules.items() for b in targets
                  if _stage(a) in order and _stage(b) in order
                  and order[_stage(b)] < order[_stage(a)])


def test_no_cycle_between_packages():
    packages = package_graph(module_graph())
    assert {"pipeline", "evaluate", "transforms", "schemas", "api", "cli"} <= set(packages)
    assert cycles(packages) == []


def test_no_cycle_between_modules():
    """Every module, ``transforms/`` included (no allowance left: the stale one let a
    16-module chunk <-> route cycle pass). Mutation caught: an import of
    ``transforms.route.router`` inside a function of ``chunk/strategies.py`` (the
    cycle strategies <-> router)."""
    assert cycles(module_graph()) == []


def test_stages_import_in_the_documented_direction():
    """route → chunk → embed, never back. Mutations caught: ``embed/text.py``
    importing ``transforms.chunk.sizing``, and ``chunk/dofn.py`` importing
    ``transforms.route.router`` in a function (neither makes a cycle)."""
    assert imports_against_the_direction(module_graph()) == []


def test_the_direction_check_sees_an_import_back():
    modules = {"transforms.route.router": {"transforms.chunk.strategies"},
               "transforms.chunk.semantic": {"transforms.embed.model"},
               "transforms.embed.text": {"transforms.chunk.base"}}
    assert imports_against_the_direction(modules) == [
        ("transforms.embed.text", "transforms.chunk.base")]


def test_no_cycle_between_the_extract_stage_s_modules():
    """The backends <-> isolation cycle (available_cores) stays broken."""
    found = [c for c in cycles(module_graph())
             if any(m.startswith("transforms.extract.") for m in c)]
    assert found == []


def test_function_level_and_relative_imports_count(tmp_path: pathlib.Path):
    """The measurement can fail: a cycle made only by an import inside a function."""
    (tmp_path / "pipeline").mkdir()
    (tmp_path / "evaluate").mkdir()
    (tmp_path / "pipeline" / "__init__.py").write_text("")
    (tmp_path / "evaluate" / "__init__.py").write_text("")
    (tmp_path / "pipeline" / "run.py").write_text(textwrap.dedent("""\
        def run():
            from ragbeam.evaluate.report import render
        """))
    (tmp_path / "evaluate" / "report.py").write_text("from . import helpers\n"
                                                      "from ragbeam.pipeline import run\n")
    (tmp_path / "evaluate" / "helpers.py").write_text("")
    modules = module_graph(tmp_path)
    assert modules["pipeline.run"] == {"evaluate.report"}
    # ``from X import y``: X (a package's __init__) and, y being a module, X.y.
    assert modules["evaluate.report"] == {"evaluate", "evaluate.helpers", "pipeline",
                                          "pipeline.run"}
    assert cycles(modules) == [["evaluate.report", "pipeline.run"]]
    assert cycles(package_graph(modules)) == [["evaluate", "pipeline"]]
