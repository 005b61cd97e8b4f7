"""The data boundary (issue 24 point 5): every query lives in db/repositories, and no
module under pipeline/ imports SQLAlchemy, at the top or inside a function. Session
hints name ``db.uow.Session``; the errors pipeline catches come from ``db.errors``."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PIPELINE = REPO / "pipeline"

#: Modules allowed to import SQLAlchemy: none.
TEMPORARY_EXCEPTIONS: set[str] = set()


def _is_sqlalchemy(name: str) -> bool:
    return name == "sqlalchemy" or name.startswith("sqlalchemy.")


def sqlalchemy_imports(tree: ast.AST) -> list[int]:
    """Line numbers of every import of sqlalchemy (``import sqlalchemy``,
    ``import sqlalchemy.orm as orm``, ``from sqlalchemy[.x] import y``) anywhere in
    the tree, functions and ``TYPE_CHECKING`` blocks included."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        else:
            continue
        if any(_is_sqlalchemy(name) for name in names):
            lines.append(node.lineno)
    return sorted(lines)


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_no_pipeline_module_imports_sqlalchemy() -> None:
    offenders = []
    for path in sorted(PIPELINE.rglob("*.py")):
        name = module_name(path)
        if name in TEMPORARY_EXCEPTIONS:
            continue
        lines = sqlalchemy_imports(ast.parse(path.read_text(encoding="utf-8")))
        if lines:
            offenders.append(f"{name} (line {', '.join(map(str, lines))})")
    assert offenders == [], "pipeline modules importing sqlalchemy: " + "; ".join(offenders)


def test_the_scan_sees_every_form_of_import() -> None:
    source = (
        "import sqlalchemy\n"
        "import sqlalchemy.orm as orm\n"
        "from sqlalchemy.ext.asyncio import AsyncSession\n"
        "def f():\n"
        "    from sqlalchemy import select\n"
        "if TYPE_CHECKING:\n"
        "    from sqlalchemy import Row\n"
        "import sqlalchemyish\n"
        "from .sqlalchemy import x\n"
    )
    assert sqlalchemy_imports(ast.parse(source)) == [1, 2, 3, 5, 7]
