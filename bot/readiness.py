"""What ``/readyz`` asks before an instance takes traffic (bot/webhook.py)."""

from __future__ import annotations

from typing import Any

from alembic.script import ScriptDirectory
from sqlalchemy import text

from bot.webhook import Check
from db.migrate import alembic_config
from db.uow import Database


class SchemaBehind(RuntimeError):
    """The database is not at the migrations' head."""


def readiness_checks(db: Database, database_url: str, redis: Any = None) -> list[Check]:
    """The database answers, its schema is at head, and Redis answers (when used)."""
    head = ScriptDirectory.from_config(alembic_config(database_url)).get_current_head()

    async def database() -> None:
        async with db.read() as session:
            await session.execute(text("SELECT 1"))

    async def migrations() -> None:
        async with db.read() as session:
            current = (
                await session.execute(text("SELECT version_num FROM alembic_version"))
            ).scalar()
        if current != head:
            raise SchemaBehind(f"{current} != {head}")

    checks: list[Check] = [("database", database), ("migrations", migrations)]
    if redis is not None:
        ping = redis.ping

        async def redis_ping() -> None:
            await ping()

        checks.append(("redis", redis_ping))
    return checks
