"""Issue 24: no function in bot/, db/, pipeline/ above cyclomatic complexity 15 or
longer than 80 lines.

Complexity comes from radon (``radon.complexity.cc_visit``, the issue's measure),
length from ``ast``: the ``def`` line to the function's last line (decorators not
counted). Offenders being reworked on other branches are allow-listed with the
branch; an allow-listed function that is back under both limits fails the test too,
so the list only shrinks."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from radon.complexity import cc_visit
from radon.visitors import Class, Function

REPO = Path(__file__).resolve().parents[1]
FOLDERS = ("bot", "db", "pipeline")
MAX_COMPLEXITY = 15
MAX_LINES = 80


#: "path:qualified name" -> why it is still over a limit. Empty: every function is
#: within the limits; an entry needs a reason, and the list only shrinks.
ALLOWED: dict[str, str] = {}


@dataclass(frozen=True)
class Shape:
    key: str  # "path:qualified name"
    line: int
    complexity: int
    lines: int

    @property
    def over(self) -> bool:
        return self.complexity > MAX_COMPLEXITY or self.lines > MAX_LINES

    def __str__(self) -> str:
        path, name = self.key.split(":", 1)
        return f"{path}:{self.line} {name}: complexity {self.complexity}, {self.lines} lines"


def _radon_functions(blocks: list[Function | Class]) -> Iterator[Function]:
    """Every function radon measured: top-level ones, methods, closures and the
    methods of nested classes (``cc_visit`` already lists the methods of top-level
    classes next to the classes)."""
    for block in blocks:
        if isinstance(block, Class):
            for inner in block.inner_classes:
                yield from _radon_functions([*inner.methods, *inner.inner_classes])
            continue
        yield block
        yield from _radon_functions(block.closures)


def _qualified_spans(tree: ast.Module) -> dict[int, tuple[str, int]]:
    """The ``def`` line of every function -> (qualified name, length in lines)."""
    spans: dict[int, tuple[str, int]] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = prefix + child.name
                end = child.end_lineno or child.lineno
                spans[child.lineno] = (name, end - child.lineno + 1)
                visit(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return spans


def _shapes(path: Path) -> Iterator[Shape]:
    source = path.read_text(encoding="utf-8")
    relative = path.relative_to(REPO).as_posix()
    spans = _qualified_spans(ast.parse(source, filename=relative))
    for function in _radon_functions(cc_visit(source)):
        name, lines = spans[function.lineno]
        yield Shape(f"{relative}:{name}", function.lineno, function.complexity, lines)


def _all_shapes() -> list[Shape]:
    return [
        shape
        for folder in FOLDERS
        for path in sorted((REPO / folder).rglob("*.py"))
        for shape in _shapes(path)
    ]


def test_no_function_is_too_long_or_too_complex() -> None:
    offenders = [str(shape) for shape in _all_shapes() if shape.over and shape.key not in ALLOWED]
    assert offenders == [], (
        f"over complexity {MAX_COMPLEXITY} or {MAX_LINES} lines (extract named helpers):\n"
        + "\n".join(offenders)
    )


def test_the_allow_list_only_holds_current_offenders() -> None:
    shapes = {shape.key: shape for shape in _all_shapes()}
    gone = [key for key in ALLOWED if key not in shapes]
    fixed = [str(shapes[key]) for key in ALLOWED if key in shapes and not shapes[key].over]
    assert gone == [], "allow-listed functions that no longer exist (drop them):\n" + "\n".join(
        gone
    )
    assert fixed == [], "allow-listed functions now within the limits (drop them):\n" + "\n".join(
        fixed
    )


def test_the_measure_sees_methods_closures_and_length() -> None:
    """The walk itself: a method, a closure and the def-to-end length are measured."""
    source = (
        "class Box:\n"
        "    def method(self, x):\n"
        "        if x:\n"
        "            return 1\n"
        "        return 2\n"
        "\n"
        "def outer():\n"
        "    def inner(y):\n"
        "        return y or 0\n"
        "    return inner\n"
    )
    spans = _qualified_spans(ast.parse(source))
    measured = {
        spans[function.lineno][0]: (function.complexity, spans[function.lineno][1])
        for function in _radon_functions(cc_visit(source))
    }
    assert measured == {"Box.method": (2, 4), "outer": (1, 4), "outer.inner": (2, 2)}
