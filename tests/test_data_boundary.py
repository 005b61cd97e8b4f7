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


#: Modules still handed ORM rows by the repositories (issue 24 point 5: the data
#: boundary); each leaves this list when its repository returns plain data. The list
#: only shrinks: a module not in it may not start importing a row class.
ROW_IMPORTS_LEFT: set[str] = {
    "pipeline.crew.tools.journal_view",
    "pipeline.farm.journal.service",
    "pipeline.farm.journal.writing",
    "pipeline.farm.sensors.alerts",
    "pipeline.farm.terms",
    "pipeline.learning.corrections",
    "pipeline.learning.feedback",
    "pipeline.memory.habits.learner",
    "pipeline.memory.profiles.editing",
    "pipeline.memory.profiles.ensure",
    "pipeline.memory.profiles.loading",
    "pipeline.memory.profiles.rows",
    "pipeline.memory.service.outbox",
    "pipeline.memory.service.pulling",
    "pipeline.memory.service.syncing",
    "pipeline.recall.conversations",
}


def _is_model_module(name: str) -> bool:
    return name == "db.models" or (name.startswith("db.") and name.endswith("_models"))


def row_imports(tree: ast.AST) -> list[str]:
    """The ORM classes imported from db.models or a db.*_models module (their names
    end in ``Row``); constants such as ``DEFAULT_TIMEZONE`` may be imported. A whole
    module imported (``import db.models``) counts as a row import."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            if _is_model_module(node.module or ""):
                found += [a.name for a in node.names if a.name.endswith("Row") or a.name == "*"]
            elif node.module == "db":
                found += [a.name for a in node.names if _is_model_module(f"db.{a.name}")]
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if _is_model_module(a.name)]
    return found


def test_no_pipeline_module_touches_an_orm_row() -> None:
    offenders, cleared = [], []
    for path in sorted(PIPELINE.rglob("*.py")):
        name = module_name(path)
        rows = row_imports(ast.parse(path.read_text(encoding="utf-8")))
        if rows and name not in ROW_IMPORTS_LEFT:
            offenders.append(f"{name} ({', '.join(rows)})")
        if not rows and name in ROW_IMPORTS_LEFT:
            cleared.append(name)
    assert offenders == [], "pipeline modules importing ORM rows: " + "; ".join(offenders)
    assert cleared == [], f"no longer importing rows, remove from ROW_IMPORTS_LEFT: {cleared}"


def test_the_row_scan_sees_rows_and_not_constants() -> None:
    source = (
        "from db.models import DEFAULT_TIMEZONE, UserProfileRow\n"
        "from db.recall_models import AnswerCacheRow\n"
        "from db import learning_models\n"
        "import db.farm_models\n"
        "from db.repositories.recall import RememberedAnswer\n"
        "def f():\n"
        "    from db.models import AlertRow\n"
    )
    assert row_imports(ast.parse(source)) == [
        "UserProfileRow",
        "AnswerCacheRow",
        "learning_models",
        "db.farm_models",
        "AlertRow",
    ]
