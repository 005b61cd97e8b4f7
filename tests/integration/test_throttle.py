"""Per-user throttling (bot/transport/throttle.py): a flood of 50 messages from one user gets
one polite slow-down and the rest is dropped; other users are not affected. The
Redis bucket is shared by instances: a flood spread over two is counted once."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator

import pytest
from aiogram.fsm.storage.redis import RedisStorage
from redis.asyncio import Redis
from sqlalchemy import func, select

from bot.config import AgxSettings, Settings, StepanSettings
from bot.local.session import LocalBot
from bot.transport.serving import build_inbox
from bot.transport.throttle import MemoryBucket, RedisBucket
from bot.wiring.dispatcher import build_dispatcher
from bot.wiring.factory import build_core
from db.models import UpdateInboxRow

REDIS_URL = os.environ.get("STEPAN_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
FLOODER, NEIGHBOUR = 7001, 7002


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def redis() -> AsyncIterator[Redis]:
    client = Redis.from_url(REDIS_URL)
    try:
        await client.ping()
    except Exception as exc:
        await client.aclose()
        if os.environ.get("CI"):
            pytest.fail(f"Redis is required in CI: {exc}")
        pytest.skip(reason=f"Redis not reachable at {REDIS_URL}: {exc}")
    try:
        yield client
    finally:
        await client.aclose()


async def test_a_flood_gets_one_warning_and_others_are_untouched() -> None:
    clock = Clock()
    bucket = MemoryBucket(capacity=30, rate=1.0, clock=clock)
    verdicts = [await bucket.take(FLOODER) for _ in range(50)]
    assert sum(v.allowed for v in verdicts) == 30
    assert sum(v.warn for v in verdicts) == 1
    assert verdicts[30].warn  # the first refused one
    assert (await bucket.take(NEIGHBOUR)).allowed
    clock.now += 1.0  # a token back: let through, and the warning re-armed
    assert (await bucket.take(FLOODER)).allowed
    refused = await bucket.take(FLOODER)
    assert not refused.allowed and refused.warn


async def test_the_redis_bucket_is_shared_by_instances(redis: Redis) -> None:
    prefix = f"stepan-test:{uuid.uuid4().hex}"
    other = Redis.from_url(REDIS_URL)
    try:
        a = RedisBucket(redis, capacity=30, rate=0.001, prefix=prefix)
        b = RedisBucket(other, capacity=30, rate=0.001, prefix=prefix)
        verdicts = await asyncio.gather(*((a if n % 2 else b).take(FLOODER) for n in range(50)))
        assert sum(v.allowed for v in verdicts) == 30
        assert sum(v.warn for v in verdicts) == 1
        assert (await a.take(NEIGHBOUR)).allowed
        assert 0 < await redis.ttl(f"{prefix}:{FLOODER}") <= 30_001
    finally:
        await other.aclose()


@pytest.mark.parametrize("shared", [False, True], ids=["memory", "redis"])
async def test_a_flood_through_the_bot(sqlite_url: str, shared: bool, redis: Redis) -> None:
    if shared:
        await redis.flushdb()
    bucket_key = f"stepan:throttle:{FLOODER}"
    await redis.delete(bucket_key)
    settings = Settings(
        stepan=StepanSettings(  # type: ignore[call-arg]
            _env_file=None,
            database_url=sqlite_url,
            throttle_burst=30,
            throttle_rate=0.001,
            redis_url=REDIS_URL if shared else None,
        ),
        agx=AgxSettings(_env_file=None),  # type: ignore[call-arg]
    )
    core = build_core(settings)
    try:
        dispatcher = build_dispatcher(core)
        storage = dispatcher.fsm.storage
        assert isinstance(getattr(storage, "primary", storage), RedisStorage) is shared
        build_inbox(core, dispatcher)
        tg = LocalBot(dispatcher)
        await tg.say(FLOODER, "привіт")
        since = len(tg.session.calls)
        for _ in range(50):
            await tg.say(FLOODER, "дякую")
        replies = [call.text for call in tg.session.since(since)]
        note = core.pipeline.catalog.text("uk", "throttle.slow_down")
        assert replies.count(note) == 1
        assert len(replies) == 29 + 1  # the burst's remaining 29, then one note
        assert [call.method for call in await tg.say(NEIGHBOUR, "привіт")] == ["sendMessage"]
        # Several instances count a flood in Redis, not each in its own memory.
        assert bool(await redis.exists(bucket_key)) is shared
        async with core.db.read() as session:
            pending = await session.scalar(
                select(func.count())
                .select_from(UpdateInboxRow)
                .where(UpdateInboxRow.status != "done")
            )
        assert pending == 0  # the dropped updates are done, not replayed
        if shared:
            await dispatcher.fsm.storage.close()
    finally:
        await core.close()
