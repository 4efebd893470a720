"""ragbeam's import graph, read from the source with ``ast`` (nothing is imported), and
its cycles: between modules and between top-level packages.

Every import counts, wherever it stands: at module level, inside a function (the
lazy imports that keep Beam and torch out of ``import ragbeam``) and under
``if TYPE_CHECKING``. A cycle among those is a cycle a reader has to hold in mind,
whether or not Python ever trips over it::

    python -m ragbeam.evaluate.imports          # cycles, package edges
    python -m ragbeam.evaluate.imports --edges  # also every module edge

Nodes: a module is its dotted name under ``ragbeam`` (``pipeline.graph``; ``api``; the
package ``__init__`` files as the package). A module's package is its first component
(``pipeline``, ``transforms``, ``evaluate``, ``schemas``, ``api``; ``ragbeam`` for the
top-level ``__init__``); ``deploy`` and ``benchmarks`` are scripts outside the
package and count as packages of their own. One module is a package of its own too:
the ``ragbeam`` command (``pipeline/cli.py``, ``ENTRY_POINTS``), which puts every
subcommand together (``run`` and ``peek`` from ``pipeline``, ``eval``, ``compare`` and
``viz`` from ``evaluate``) and which nothing imports. Counted inside ``pipeline`` it
would make ``evaluate`` (whose ``compare`` runs pipelines through the run library)
and ``pipeline`` one cycle only because the command that offers both lives in one
of them.
"""

from __future__ import annotations

import argparse
import ast
import pathlib
from collections.abc import Iterable, Mapping

ROOT = pathlib.Path(__file__).resolve().parent.parent
# Folders of the repository that are not code of the package or its scripts.
NOT_CODE = {"tests", "docs", "samples", ".venv", "build", "dist", "out"}
# Modules that are programs putting packages together: a node of their own.
ENTRY_POINTS = {"pipeline.cli": "cli"}

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


def _imported_names(tree: ast.AST, module: str, is_package: bool) -> Iterable[str]:
    """Every absolute module name an import statement anywhere in ``tree`` names,
    ``from X import y`` as both ``X`` and ``X.y`` (which of them is a module is
    decided against the files)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[:len(base) - node.level + 1]
                prefix = ".".join(["ragbeam", *filter(None, base)])
                target = f"{prefix}.{node.module}" if node.module else prefix
            else:
                target = node.module or ""
            yield target
            yield from (f"{target}.{alias.name}" for alias in node.names)


def module_graph(root: pathlib.Path = ROOT) -> Graph:
    """Module → the ragbeam modules it imports (names as in ``module_files``)."""
    files = module_files(root)
    graph: Graph = {}
    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        targets = set()
        for name in _imported_names(tree, module, is_package):
            if name == "ragbeam":
                targets.add("")
            elif name.startswith("ragbeam."):
                inner = name[len("ragbeam."):]
                if inner in files:
                    targets.add(inner)
        targets.discard(module)
        graph[module] = targets
    return graph


def package_of(module: str) -> str:
    if module in ENTRY_POINTS:
        return ENTRY_POINTS[module]
    return module.split(".")[0] if module else "ragbeam"


def package_graph(modules: Mapping[str, set[str]]) -> Graph:
    """Package → the packages its modules import (itself left out)."""
    graph: Graph = {package_of(m): set() for m in modules}
    for module, targets in modules.items():
        source = package_of(module)
        graph[source].update(package_of(t) for t in targets if package_of(t) != source)
    return graph


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edges", action="store_true", help="also list every module edge")
    args = parser.parse_args(argv)
    modules = module_graph()
    packages = package_graph(modules)
    package_cycles, module_cycles = cycles(packages), cycles(modules)
    print(f"{len(modules)} modules, {sum(map(len, modules.values()))} module edges")
    print(f"package cycles: {len(package_cycles)}")
    for component in package_cycles:
        print("  " + " <-> ".join(component))
    print(f"module cycles: {len(module_cycles)}")
    for component in module_cycles:
        print("  " + " <-> ".join(component))
    print("package edges:")
    for package in sorted(packages):
        print(f"  {package} -> {', '.join(sorted(packages[package])) or '-'}")
    if args.edges:
        for module in sorted(modules):
            print(f"  {module or 'ragbeam'} -> {', '.join(sorted(modules[module]))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
