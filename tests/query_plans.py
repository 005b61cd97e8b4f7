"""Capture the SQL a piece of code sends and ask the database how it would run it.

``StatementLog`` records every statement an engine executes (an SQLAlchemy
``before_cursor_execute`` listener), so whatever query a repository function builds
is the one checked, not a copy of it, with where in the project it came from
(``origin``: the innermost frame of the project's code that sent it, found through
the greenlet SQLAlchemy's asyncio layer runs the driver call in). ``full_scans``
explains one recorded statement on the same connection (SQLite: ``EXPLAIN QUERY
PLAN``; PostgreSQL: ``EXPLAIN (FORMAT JSON)`` with sequential scans priced out, so
one left means no index could serve) and names the tables it would read whole: a
``SCAN`` (of the table or of one of its indexes end to end), a ``Seq Scan``, or an
index scan without a condition.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

import greenlet
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

#: Statements whose plan says something about reading tables.
EXPLAINED = ("SELECT", "UPDATE", "DELETE", "WITH")
_ALIAS = re.compile(r"\b(\w+) AS (\w+)\b")
_SQLITE_SCAN = re.compile(r"^SCAN (\w+)")
REPO = Path(__file__).resolve().parent.parent
#: The project's code that sends SQL; db's plumbing (sessions, turns, the engine's
#: hooks) is not an origin: the code that called it is.
ORIGIN_ROOTS = ("bot", "db", "pipeline")
PLUMBING = {"db.uow", "db.turns", "db.engine"}
REPOSITORIES = "db.repositories."


@dataclass(frozen=True, slots=True)
class Captured:
    statement: str
    parameters: Any
    #: ``module:qualname`` of the project function that sent it ("" if none).
    origin: str = ""

    @property
    def module(self) -> str:
        return self.origin.split(":", 1)[0]

    @property
    def function(self) -> str:
        """The origin as the allow-lists name it: ``learning.corrections`` for a
        repository function, ``pipeline.learning.nightly.NightlyJob.run`` otherwise."""
        module, _, qualname = self.origin.partition(":")
        return f"{module.removeprefix(REPOSITORIES)}.{qualname}"


def origin_of(frame: FrameType | None) -> str:
    """``module:qualname`` of the innermost project frame at or under ``frame``."""
    while frame is not None:
        path = Path(frame.f_code.co_filename)
        if path.is_relative_to(REPO) and path.suffix == ".py":
            parts = path.relative_to(REPO).with_suffix("").parts
            module = ".".join(parts)
            if parts[0] in ORIGIN_ROOTS and module not in PLUMBING:
                return f"{module}:{frame.f_code.co_qualname}"
        frame = frame.f_back
    return ""


def calling_frame() -> FrameType | None:
    """The frame that awaited the statement: SQLAlchemy's asyncio layer runs the
    driver call in a child greenlet, whose parent waits inside the caller's await."""
    parent = greenlet.getcurrent().parent
    return parent.gr_frame if parent is not None else None


class StatementLog:
    """Statements run on ``engine`` while ``recording()`` is open."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._on = False
        self.captured: list[Captured] = []

    def _listen(
        self,
        _conn: Any,
        _cursor: Any,
        statement: str,
        parameters: Any,
        _context: Any,
        executemany: bool,
    ) -> None:
        if self._on:
            # One row of an executemany is enough to explain its plan (an insert of
            # many VALUES in one statement has its parameters flat, as one row).
            rows = executemany and isinstance(parameters, list | tuple) and parameters
            first = (
                parameters[0]
                if rows and isinstance(parameters[0], tuple | list | dict)
                else parameters
            )
            self.captured.append(Captured(statement, first, origin_of(calling_frame())))

    @contextmanager
    def attached(self) -> Iterator[StatementLog]:
        event.listen(self._engine.sync_engine, "before_cursor_execute", self._listen)
        try:
            yield self
        finally:
            event.remove(self._engine.sync_engine, "before_cursor_execute", self._listen)

    @contextmanager
    def recording(self) -> Iterator[list[Captured]]:
        """The statements run inside the block (and only those)."""
        self.captured = []
        self._on = True
        try:
            yield self.captured
        finally:
            self._on = False


def explained(captured: Captured) -> bool:
    """Reads and changes of existing rows, and an INSERT ... SELECT (its SELECT)."""
    statement = captured.statement.lstrip().upper()
    return statement.startswith(EXPLAINED) or (
        statement.startswith("INSERT") and "SELECT" in statement
    )


async def full_scans(connection: AsyncConnection, captured: Captured, tables: set[str]) -> set[str]:
    """The tables of ``tables`` that ``captured`` would read whole."""
    if connection.dialect.name == "sqlite":
        return await _sqlite_scans(connection, captured, tables)
    return await _postgres_scans(connection, captured, tables)


async def _sqlite_scans(
    connection: AsyncConnection, captured: Captured, tables: set[str]
) -> set[str]:
    plan = await connection.exec_driver_sql(
        f"EXPLAIN QUERY PLAN {captured.statement}", captured.parameters
    )
    # The plan names a table by its alias when the statement gave it one.
    names: dict[str, str] = {alias: table for table, alias in _ALIAS.findall(captured.statement)}
    scanned: set[str] = set()
    for row in plan:
        found = _SQLITE_SCAN.match(str(row._mapping["detail"]))
        if found is not None:
            scanned.add(names.get(found.group(1), found.group(1)))
    return scanned & tables


async def _postgres_scans(
    connection: AsyncConnection, captured: Captured, tables: set[str]
) -> set[str]:
    await connection.exec_driver_sql("SET LOCAL enable_seqscan = off")
    plan = await connection.exec_driver_sql(
        f"EXPLAIN (FORMAT JSON) {captured.statement}", captured.parameters
    )
    document = plan.scalar_one()
    return {name for name in _postgres_nodes(document[0]["Plan"]) if name in tables}


def _postgres_nodes(node: dict[str, Any]) -> Iterator[str]:
    kind = node.get("Node Type", "")
    whole = kind == "Seq Scan" or (
        kind in ("Index Scan", "Index Only Scan") and "Index Cond" not in node
    )
    if whole and "Relation Name" in node:
        yield node["Relation Name"]
    for child in node.get("Plans", ()):
        yield from _postgres_nodes(child)
