"""Redis gone: FSM state degrades to memory with a warning, and nothing fails."""

from __future__ import annotations

import logging
import socket

import pytest
from aiogram.fsm.storage.base import StorageKey
from aiogram.fsm.storage.memory import MemoryStorage

from bot.config import AgxSettings, Settings, StepanSettings
from bot.wiring.dispatcher import build_storage
from bot.wiring.fsm_storage import FallbackStorage

KEY = StorageKey(bot_id=1, chat_id=7, user_id=7)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # nothing listens here once closed


async def test_redis_down_degrades_to_memory_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    settings = Settings(
        stepan=StepanSettings(  # type: ignore[call-arg]
            _env_file=None, redis_url=f"redis://127.0.0.1:{_closed_port()}/0"
        ),
        agx=AgxSettings(_env_file=None),  # type: ignore[call-arg]
    )
    storage = build_storage(settings)
    assert isinstance(storage, FallbackStorage)
    try:
        with caplog.at_level(logging.WARNING, logger="bot.wiring.fsm_storage"):
            assert await storage.get_state(KEY) is None
            await storage.set_state(KEY, "Onboarding:active")
            await storage.update_data(KEY, {"step": "farm"})
            assert await storage.get_state(KEY) == "Onboarding:active"
            assert await storage.get_data(KEY) == {"step": "farm"}
        assert storage.degraded
        warnings = [r for r in caplog.records if "unreachable" in r.getMessage()]
        assert len(warnings) == 1  # once per outage, not once per call
    finally:
        await storage.close()


class _Flaky(MemoryStorage):
    def __init__(self) -> None:
        super().__init__()
        self.down = True

    async def get_state(self, key: StorageKey) -> str | None:
        if self.down:
            raise ConnectionRefusedError("redis down")
        return await super().get_state(key)


async def test_the_primary_is_used_again_when_it_is_back(
    caplog: pytest.LogCaptureFixture,
) -> None:
    primary = _Flaky()
    storage = FallbackStorage(primary)
    await primary.set_state(KEY, "in-redis")
    with caplog.at_level(logging.WARNING, logger="bot.wiring.fsm_storage"):
        assert await storage.get_state(KEY) is None  # from memory, meanwhile
        primary.down = False
        assert await storage.get_state(KEY) == "in-redis"
    assert not storage.degraded
    assert "FSM storage is back" in caplog.text
