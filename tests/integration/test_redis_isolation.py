"""Several instances on Redis: one user's updates are handled one at a time across
all of them (aiogram's RedisEventIsolation, wired in bot/factory.py)."""

from __future__ import annotations

import asyncio

from aiogram.fsm.storage.base import StorageKey
from aiogram.fsm.storage.redis import RedisEventIsolation
from redis.asyncio import Redis

from bot.config import AgxSettings, Settings, StepanSettings
from bot.dispatcher import build_dispatcher
from bot.factory import build_core
from bot.fsm_storage import FallbackIsolation
from tests.integration.test_throttle import REDIS_URL, redis  # noqa: F401 - the fixture

FARMER = 7101


async def test_two_instances_take_one_user_in_turn(sqlite_url: str, redis: Redis) -> None:  # noqa: F811
    settings = Settings(
        stepan=StepanSettings(_env_file=None, database_url=sqlite_url, redis_url=REDIS_URL),  # type: ignore[call-arg]
        agx=AgxSettings(_env_file=None),  # type: ignore[call-arg]
    )
    cores = [build_core(settings) for _ in range(2)]
    dispatchers = [build_dispatcher(core) for core in cores]
    try:
        isolations = [d.fsm.events_isolation for d in dispatchers]
        order: list[str] = []

        async def handle(name: str, isolation: object, chat: int) -> None:
            # Redis's lock, behind the fallback that keeps a lock while Redis is gone.
            assert isinstance(isolation, FallbackIsolation)
            assert isinstance(isolation.primary, RedisEventIsolation)
            async with isolation.lock(StorageKey(bot_id=1, chat_id=chat, user_id=chat)):
                order.append(f"{name} in")
                await asyncio.sleep(0.1)  # an update being handled
                order.append(f"{name} out")

        # The same user on two instances: one after the other.
        await asyncio.gather(handle("a", isolations[0], FARMER), handle("b", isolations[1], FARMER))
        assert order in (["a in", "a out", "b in", "b out"], ["b in", "b out", "a in", "a out"])
        # Two users: side by side.
        order.clear()
        await asyncio.gather(
            handle("a", isolations[0], FARMER), handle("c", isolations[1], FARMER + 1)
        )
        assert order[:2] in (["a in", "c in"], ["c in", "a in"])
    finally:
        for dispatcher in dispatchers:
            await dispatcher.fsm.storage.close()
        for core in cores:
            await core.close()
