"""Redis dropping in the middle of a run (a restart, a partition): through a TCP
proxy the test cuts, every message is still answered while Redis is gone (FSM state
and the throttle's bucket degrade to memory, one user's updates still in order),
and once Redis is back the bot uses it again. Nothing waits on a dead connection."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

import pytest
from redis.asyncio import Redis
from sqlalchemy import select

from bot.config import AgxSettings, Settings, StepanSettings
from bot.local.session import LocalBot
from bot.transport.serving import build_inbox
from bot.wiring.dispatcher import build_dispatcher
from bot.wiring.factory import build_core
from bot.wiring.fsm_storage import FallbackStorage
from db.models import UserProfileRow
from tests.integration.test_throttle import REDIS_URL, redis  # noqa: F401 - the fixture

FARMER = 7301


class CuttableProxy:
    """Forwards TCP to Redis until ``cut``: then every open connection is closed and
    new ones are refused, until ``restore``."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.server: asyncio.Server | None = None
        self.port = 0
        self._writers: set[asyncio.StreamWriter] = set()

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        self.port = self.server.sockets[0].getsockname()[1]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(*self.target)
        self._writers |= {writer, up_writer}

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            with contextlib.suppress(ConnectionError, OSError):
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            sink.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    async def cut(self) -> None:
        assert self.server is not None
        self.server.close()
        for writer in self._writers:
            writer.close()
        self._writers.clear()
        await self.server.wait_closed()

    async def restore(self) -> None:
        await self.start()  # the same port again


@pytest.fixture
async def proxy() -> AsyncIterator[CuttableProxy]:
    target = urlsplit(REDIS_URL)
    proxy = CuttableProxy(target.hostname or "127.0.0.1", target.port or 6379)
    await proxy.start()
    try:
        yield proxy
    finally:
        with contextlib.suppress(Exception):
            await proxy.cut()


async def test_redis_dropping_mid_run_costs_no_message(
    sqlite_url: str,
    redis: Redis,  # noqa: F811 - Redis must be there to begin with
    proxy: CuttableProxy,
) -> None:
    db = urlsplit(REDIS_URL).path or "/15"
    settings = Settings(
        stepan=StepanSettings(  # type: ignore[call-arg]
            _env_file=None,
            database_url=sqlite_url,
            redis_url=f"redis://127.0.0.1:{proxy.port}{db}",
        ),
        agx=AgxSettings(_env_file=None),  # type: ignore[call-arg]
    )
    core = build_core(settings)
    dispatcher = build_dispatcher(core)
    storage = dispatcher.fsm.storage
    assert isinstance(storage, FallbackStorage)
    build_inbox(core, dispatcher)
    tg = LocalBot(dispatcher)
    try:
        assert [c.method for c in await tg.say(FARMER, "привіт")] == ["sendMessage"]
        assert not storage.degraded
        await proxy.cut()
        started = time.monotonic()
        # Three messages while Redis is gone: all answered, in order, none hanging
        # on the dead connection (timeouts of 2 s at most).
        for text in ("дякую", "ок", "добрий ранок"):
            calls = await asyncio.wait_for(tg.say(FARMER, text), timeout=30)
            assert [c.method for c in calls] == ["sendMessage"] and calls[0].ok
        assert storage.degraded
        assert time.monotonic() - started < 30
        await proxy.restore()
        calls = await tg.say(FARMER, "привіт")
        assert [c.method for c in calls] == ["sendMessage"]
        assert not storage.degraded  # Redis is used again
        async with core.db.read() as session:
            row = await session.scalar(
                select(UserProfileRow).where(UserProfileRow.user_id == f"tg:{FARMER}")
            )
        assert row is not None and row.interaction_count == 5
    finally:
        await storage.close()
        await core.close()
