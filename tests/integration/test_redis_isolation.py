"""Several instances on Redis: one user's updates are handled one at a time across
all of them (a Redis lock per user, bot/wiring/fsm_storage.py's RenewingRedisIsolation,
wired in bot/wiring/dispatcher.py); a live holder keeps its lock however long its update
runs, and a dead one's lock frees within the inbox lease."""

from __future__ import annotations

import asyncio

from aiogram.fsm.storage.base import DefaultKeyBuilder, StorageKey
from redis.asyncio import Redis

from bot.config import AgxSettings, Settings, StepanSettings
from bot.wiring.dispatcher import build_dispatcher
from bot.wiring.factory import build_core
from bot.wiring.fsm_storage import FallbackIsolation, RenewingRedisIsolation
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
            assert isinstance(isolation.primary, RenewingRedisIsolation)
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


async def test_a_live_holder_keeps_the_lock_past_its_ttl(redis: Redis) -> None:  # noqa: F811
    """A deep reply outlasting the lock's ttl: renewed, nobody else gets in."""
    key = StorageKey(bot_id=1, chat_id=FARMER + 2, user_id=FARMER + 2)
    first, second = (RenewingRedisIsolation(redis, ttl=0.6) for _ in range(2))
    order: list[str] = []
    inside = asyncio.Event()

    async def handle(name: str, isolation: RenewingRedisIsolation, hold: float) -> None:
        async with isolation.lock(key):
            order.append(f"{name} in")
            inside.set()
            await asyncio.sleep(hold)
            order.append(f"{name} out")

    long = asyncio.create_task(handle("long", first, 2.0))  # over three ttls
    await inside.wait()
    await handle("next", second, 0)
    await long
    assert order == ["long in", "long out", "next in", "next out"]


async def test_a_dead_holders_lock_frees_within_the_inbox_lease(
    sqlite_url: str,
    redis: Redis,  # noqa: F811
) -> None:
    """An instance SIGKILLed in the middle of an update never releases its lock; the
    user's next update (and the replay of the dead one's) used to wait out a fixed
    300 s timeout on every other instance."""
    settings = Settings(
        stepan=StepanSettings(  # type: ignore[call-arg]
            _env_file=None, database_url=sqlite_url, redis_url=REDIS_URL, inbox_lease_s=1.0
        ),
        agx=AgxSettings(_env_file=None),  # type: ignore[call-arg]
    )
    core = build_core(settings)
    dispatcher = build_dispatcher(core)
    try:
        isolation = dispatcher.fsm.events_isolation
        assert isinstance(isolation, FallbackIsolation)
        primary = isolation.primary
        assert isinstance(primary, RenewingRedisIsolation) and primary.ttl == 1.0
        key = StorageKey(bot_id=1, chat_id=FARMER + 3, user_id=FARMER + 3)
        name = DefaultKeyBuilder().build(key, "lock")
        await redis.delete(name)
        # As a killed instance leaves it: taken, never released, its renewals stopped.
        dead = redis.lock(name=name, timeout=primary.ttl)
        assert await dead.acquire(blocking=False)
        entered = asyncio.Event()

        async def handle() -> None:
            async with isolation.lock(key):
                entered.set()

        await asyncio.wait_for(handle(), timeout=30)  # the old lock held for 300 s
        assert entered.is_set()
    finally:
        await dispatcher.fsm.storage.close()
        await core.close()
