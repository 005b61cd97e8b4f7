"""Is the database's schema the one this code needs? For /status (and a readiness
check): ``SELECT 1`` answers on a database whose tables are gone, and then every
command fails or, worse, shows defaults as if they were a user's data.

Checked: the Alembic revision is the head of ``migrations/``, and every table and
column the models declare exists. The head is read from the migration scripts once
(``SchemaCheck.load()``, in the factory), not per check.
"""

from __future__ import annotations

from dataclasses import dataclass

from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncSession

from db.migrate import alembic_config
from db.models import Base


@dataclass(frozen=True, slots=True)
class SchemaCheck:
    head: str | None

    @classmethod
    def load(cls) -> SchemaCheck:
        script = ScriptDirectory.from_config(alembic_config(""))
        try:
            return cls(head=script.get_current_head())
        except CommandError:  # two heads (a merge in progress): tables still checked
            return cls(head=None)

    async def revision_problem(self, session: AsyncSession) -> str | None:
        """None when the database's Alembic revision is the head; else what is wrong
        (also the readiness check's question, bot/http/readiness.py)."""
        try:
            revision = (
                await session.execute(text("SELECT version_num FROM alembic_version"))
            ).scalar()
        except Exception as exc:  # no alembic_version: never migrated, or dropped
            await session.rollback()
            return f"no migration revision ({type(exc).__name__})"
        if self.head is not None and revision != self.head:
            return f"revision {revision}, code needs {self.head}"
        return None

    async def problems(self, session: AsyncSession) -> list[str]:
        """What is wrong, in a few words each; empty when the schema is whole."""
        revision = await self.revision_problem(session)
        problems = [revision] if revision is not None else []
        connection = await session.connection()
        problems.extend(await connection.run_sync(_missing))
        return problems


def _missing(connection: Connection) -> list[str]:
    inspector = inspect(connection)
    present = set(inspector.get_table_names())
    problems: list[str] = []
    for table in Base.metadata.sorted_tables:
        if table.name not in present:
            problems.append(f"table {table.name} missing")
            continue
        columns = {column["name"] for column in inspector.get_columns(table.name)}
        lost = [column.name for column in table.columns if column.name not in columns]
        if lost:
            problems.append(f"{table.name}: columns {', '.join(lost)} missing")
    return problems
