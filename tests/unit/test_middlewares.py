"""Per-user ordering and trace ids, without Telegram."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from aiogram.types import TelegramObject, User

from bot.middlewares.trace import TraceMiddleware, trace_id_var
from bot.middlewares.user_order import UserOrderMiddleware


def _user(user_id: int) -> User:
    return User(id=user_id, is_bot=False, first_name="F")


async def test_one_users_updates_run_one_at_a_time_in_order() -> None:
    middleware = UserOrderMiddleware()
    running = 0
    peak = 0
    order: list[int] = []

    async def handler(event: TelegramObject, data: dict[str, Any]) -> None:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.001 * (5 - data["n"] % 5))  # later ones would finish first
        order.append(data["n"])
        running -= 1

    await asyncio.gather(
        *(
            middleware(handler, TelegramObject(), {"event_from_user": _user(1), "n": n})
            for n in range(20)
        )
    )
    assert peak == 1
    assert order == list(range(20))
    assert middleware.active_users == 0


async def test_different_users_do_not_wait_for_each_other() -> None:
    middleware = UserOrderMiddleware()
    gate = asyncio.Event()
    both_inside = asyncio.Event()
    inside = 0

    async def handler(event: TelegramObject, data: dict[str, Any]) -> None:
        nonlocal inside
        inside += 1
        if inside == 2:
            both_inside.set()
        await gate.wait()

    tasks = [
        asyncio.create_task(middleware(handler, TelegramObject(), {"event_from_user": _user(u)}))
        for u in (1, 2)
    ]
    await asyncio.wait_for(both_inside.wait(), timeout=5)
    gate.set()
    await asyncio.gather(*tasks)


async def test_failing_handler_releases_the_user() -> None:
    middleware = UserOrderMiddleware()

    async def handler(event: TelegramObject, data: dict[str, Any]) -> None:
        raise ValueError("boom")

    for _ in range(2):
        with contextlib.suppress(ValueError):
            await middleware(handler, TelegramObject(), {"event_from_user": _user(7)})
    assert middleware.active_users == 0


async def test_trace_id_is_set_for_the_handler_and_reset_after() -> None:
    seen: list[str] = []

    async def handler(event: TelegramObject, data: dict[str, Any]) -> None:
        seen.append(data["trace_id"])
        assert trace_id_var.get() == data["trace_id"]

    middleware = TraceMiddleware()
    await middleware(handler, TelegramObject(), {})
    await middleware(handler, TelegramObject(), {})
    assert len(seen) == 2 and seen[0] != seen[1] and len(seen[0]) == 16
    assert trace_id_var.get() == "-"
