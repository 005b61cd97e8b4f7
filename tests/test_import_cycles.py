"""Issue 24: no import cycle between the modules of bot/, db/ and pipeline/.

The graph comes from ``ast``: every ``import`` and ``from ... import`` of a module,
at module level, inside functions and under ``if TYPE_CHECKING:`` alike (a
function-level import is the usual way to hide a cycle, an annotation-only import the
other: both still tie the two modules together). ``from pkg
import name`` is an edge to ``pkg.name`` when that is a module, else to ``pkg``.
Importing ``a.b.c`` runs ``a/__init__.py`` and ``a/b/__init__.py`` too, so an edge
also goes to every package on the way. Each strongly connected component of more
than one module is a cycle.

A module's own parent packages are not edges when it imports a sibling (they are
initialised before it runs). The two cycles issue 24 named were annotation-only
(``pipeline.types`` <-> ``pipeline.actions`` <-> ``pipeline.profiles``, and
``bot.delivery.retry`` <-> ``bot.delivery.deferred``); they are gone, not hidden:
``Language`` lives in ``pipeline.language.codes`` and the retry's failure kinds in
``bot.delivery.failures``."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("bot", "db", "pipeline")

Graph = dict[str, set[str]]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {
        _module_name(path): path
        for package in PACKAGES
        for path in sorted((REPO / package).rglob("*.py"))
    }


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement, at any depth, ``if TYPE_CHECKING:`` bodies included."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _ancestors(module: str) -> set[str]:
    parts = module.split(".")
    return {".".join(parts[:end]) for end in range(1, len(parts))}


def _with_parents(name: str, importer: str, modules: dict[str, Path]) -> set[str]:
    """``name`` and the packages importing it initialises, except the importer's own
    ancestors: those are initialised before the importer runs, whatever it imports."""
    parts = name.split(".")
    on_the_way = {".".join(parts[:end]) for end in range(1, len(parts))}
    return {name, *on_the_way - _ancestors(importer)} & modules.keys()


def _targets(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    targets: set[str] = set()
    for node in _imports(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                targets |= _with_parents(alias.name, module, modules)
            continue
        source = _resolve(module, is_package, node)
        targets |= _with_parents(source, module, modules) - _ancestors(module)
        for alias in node.names:
            submodule = f"{source}.{alias.name}"
            # ``from pkg import name`` needs pkg's own code unless name is a module.
            targets.add(submodule if submodule in modules else source)
    targets &= modules.keys()
    targets.discard(module)
    return targets


def import_graph() -> Graph:
    modules = _modules()
    return {module: _targets(module, path, modules) for module, path in modules.items()}


def _strongly_connected(graph: Graph) -> list[list[str]]:
    """Tarjan's algorithm, iterative (the graph is a few hundred modules deep)."""
    index: dict[str, int] = {}
    lowlink: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = lowlink[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = lowlink[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    break
                if successor in on_stack:
                    lowlink[node] = min(lowlink[node], index[successor])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    lowlink[parent] = min(lowlink[parent], lowlink[node])
                if lowlink[node] == index[node]:
                    component: list[str] = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    components.append(sorted(component))
    return components


def cycles(graph: Graph) -> list[list[str]]:
    return sorted(component for component in _strongly_connected(graph) if len(component) > 1)


def _describe(component: list[str], graph: Graph) -> str:
    members = set(component)
    edges = [
        f"    {source} -> {target}"
        for source in component
        for target in sorted(graph[source] & members)
    ]
    return " <-> ".join(component) + "\n" + "\n".join(edges)


def test_no_import_cycle() -> None:
    graph = import_graph()
    found = cycles(graph)
    assert found == [], "import cycles (move what both need to a module of its own):\n" + (
        "\n".join(_describe(component, graph) for component in found)
    )


def test_the_graph_finds_a_cycle_and_counts_every_import() -> None:
    graph: Graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    import hidden\n"
        "else:\n"
        "    import shown\n"
        "def late():\n"
        "    import inside\n"
    )
    names = [alias.name for node in _imports(tree) for alias in node.names]
    assert sorted(names) == ["TYPE_CHECKING", "hidden", "inside", "shown"]
