"""50 concurrent recorded interactions of one user lose nothing: on SQLite (BEGIN
IMMEDIATE) and on PostgreSQL (row locked FOR UPDATE)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.engine import create_engine, create_session_factory
from db.models import FarmProfileRow, InteractionRow, OutboxRow, UserProfileRow
from db.uow import Database
from pipeline.memory import InteractionRecord, build_memory
from pipeline.memory.service.client import MemoryServiceClient
from pipeline.types import DepthDecision

CONCURRENT = 50
INTENTS = ["greeting", "planning", "recording", "iot", "analysis"]
T0 = datetime(2026, 3, 1, 8, 0, tzinfo=UTC)


@pytest.fixture
async def postgres_factory(
    migrated_postgres_url: str,
) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    engine = create_engine(migrated_postgres_url, pool_size=10, max_overflow=20)
    yield create_session_factory(engine)
    await engine.dispose()


def _record(n: int) -> InteractionRecord:
    intent = INTENTS[n % len(INTENTS)]
    return InteractionRecord(
        user_id="tg:77",
        chat_id=77,
        trace_id=uuid.uuid4().hex[:16],
        text=f"message {n}",
        decision=DepthDecision("deep", intent, (), 0.9, "test"),
        crew=(),
        latency_ms=1.0,
        at=T0 + timedelta(seconds=n),
        name="Оксана",
        language="uk",
    )


async def _hammer(factory: async_sessionmaker[AsyncSession]) -> None:
    async with httpx.AsyncClient() as http:
        memory = build_memory(Database(factory), MemoryServiceClient("http://127.0.0.1:9", http))

        async def one(n: int) -> None:
            await memory.interactions.record(_record(n))

        # The very first message races too: nobody has created the profile yet.
        await asyncio.gather(*(one(n) for n in range(CONCURRENT)))
        # Writers resumed in any order; the cache must hold the last commit, not
        # whichever task happened to finish last.
        cached = memory.cache.get("tg:77")
        assert cached is not None and cached.profile.interaction_count == CONCURRENT

    async with factory() as session:
        row = await session.get(UserProfileRow, "tg:77")
        assert row is not None
        assert row.interaction_count == CONCURRENT
        assert sorted(row.known_intents) == sorted(INTENTS)  # each once, none lost
        assert len(row.recent_topics) == 10
        interactions = await session.scalar(select(func.count()).select_from(InteractionRow))
        farms = await session.scalar(select(func.count()).select_from(FarmProfileRow))
        user_rows = (
            await session.execute(
                select(OutboxRow.payload).where(OutboxRow.fact_key.like("user_profile:%"))
            )
        ).scalars()
        counts = sorted(p["interaction_count"] for p in user_rows if p is not None)
        farm_rows = await session.scalar(
            select(func.count())
            .select_from(OutboxRow)
            .where(OutboxRow.fact_key.like("farm_profile:%"))
        )
    assert interactions == CONCURRENT and farms == 1
    assert farm_rows == 1  # only the transaction that created the farm announced it
    # One outbox row per transaction (concurrent interactions are group-committed),
    # each with the count that transaction produced; the last one has them all.
    assert counts == sorted(set(counts)) and counts[-1] == CONCURRENT


async def test_concurrent_updates_lose_nothing_sqlite(
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    await _hammer(session_factory)


@pytest.mark.postgres
async def test_concurrent_updates_lose_nothing_postgres(
    postgres_factory: async_sessionmaker[AsyncSession],
) -> None:
    await _hammer(postgres_factory)
