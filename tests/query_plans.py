"""Capture the SQL a piece of code sends and ask the database how it would run it.

``StatementLog`` records every statement an engine executes (an SQLAlchemy
``before_cursor_execute`` listener), so whatever query a repository function builds
is the one checked, not a copy of it. ``full_scans`` explains one recorded statement
on the same connection (SQLite: ``EXPLAIN QUERY PLAN``; PostgreSQL: ``EXPLAIN
(FORMAT JSON)`` with sequential scans priced out, so one left means no index could
serve) and names the tables it would read whole: a ``SCAN`` (of the table or of one
of its indexes end to end), a ``Seq Scan``, or an index scan without a condition.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

#: Statements whose plan says something about reading tables.
EXPLAINED = ("SELECT", "UPDATE", "DELETE", "WITH")
_ALIAS = re.compile(r"\b(\w+) AS (\w+)\b")
_SQLITE_SCAN = re.compile(r"^SCAN (\w+)")


@dataclass(frozen=True, slots=True)
class Captured:
    statement: str
    parameters: Any


class StatementLog:
    """Statements run on ``engine`` while ``recording()`` is open."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._on = False
        self.captured: list[Captured] = []

    def _listen(self, _conn: Any, _cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        if self._on:
            self.captured.append(Captured(statement, parameters))

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
