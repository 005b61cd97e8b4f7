"""What ``/readyz`` asks before an instance takes traffic (bot/http/webhook.py)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import text

from bot.http.webhook import Check
from db.schema import SchemaCheck
from db.store_health import StoreGone
from db.uow import Database


class SchemaBehind(RuntimeError):
    """The database is not at the migrations' head."""


def readiness_checks(db: Database, schema: SchemaCheck, redis: Any = None) -> list[Check]:
    """The database answers, its schema is at head (the revision question /status
    asks too, db/schema.py), and Redis answers (when used)."""

    async def database() -> None:
        if db.health.gone is not None:
            # The open connection still reads the unlinked file: not a database to serve.
            raise StoreGone(db.health.gone)
        async with db.read() as session:
            await session.execute(text("SELECT 1"))

    async def migrations() -> None:
        async with db.read() as session:
            problem = await schema.revision_problem(session)
        if problem is not None:
            raise SchemaBehind(problem)

    checks: list[Check] = [("database", database), ("migrations", migrations)]
    if redis is not None:
        ping = redis.ping

        async def redis_ping() -> None:
            await ping()

        checks.append(("redis", redis_ping))
    return checks
