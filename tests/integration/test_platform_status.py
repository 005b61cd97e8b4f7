"""Platform status against real local HTTP endpoints."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import httpx
import pytest
from aiohttp import web
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.uow import Database
from pipeline.admin.platform import LlmHealth, PlatformStatus
from pipeline.memory import build_memory


@pytest.fixture
async def integration_url() -> AsyncIterator[str]:
    async def ok(request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    async def broken(request: web.Request) -> web.Response:
        return web.Response(status=503)

    app = web.Application()
    app.router.add_get("/ok", ok)
    app.router.add_get("/broken", broken)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    yield f"http://127.0.0.1:{port}"
    await runner.cleanup()


async def test_collects_every_dependency(
    session_factory: async_sessionmaker[AsyncSession], integration_url: str
) -> None:
    llm = LlmHealth(configured=True)
    async with httpx.AsyncClient() as http:
        db = Database(session_factory)
        status = PlatformStatus(
            db=db,
            sync=build_memory(db).sync,
            llm=llm,
            http=http,
            integrations={
                "farmOS": f"{integration_url}/ok",
                "ThingsBoard": f"{integration_url}/broken",
                "Legacy": "http://127.0.0.1:9/never",  # nothing listens on the discard port
            },
        )
        checks = {check.name: check for check in await status.collect()}
        assert checks["database"].state == "ok"
        assert checks["memory-service"].state == "off"
        assert checks["llm"].state == "ok" and "not called" in checks["llm"].detail
        assert checks["farmOS"].state == "ok" and "HTTP 200" in checks["farmOS"].detail
        assert checks["ThingsBoard"].state == "down" and "503" in checks["ThingsBoard"].detail
        assert checks["Legacy"].state == "down"
        llm.record(False, datetime.now(UTC), "timeout")
        checks = {check.name: check for check in await status.collect()}
        assert checks["llm"].state == "down" and "timeout" in checks["llm"].detail
