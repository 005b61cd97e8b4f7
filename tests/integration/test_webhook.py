"""Webhook mode over real HTTP (aiohttp's test server): the secret token on every
request, an update stored before 200 and handled once, /healthz, /readyz, /metrics."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy import func, select, text

from bot.http.readiness import readiness_checks
from bot.http.webhook import SECRET_HEADER, WebhookServer
from bot.local.session import LocalBot
from bot.transport.serving import build_inbox, build_metrics
from bot.wiring.dispatcher import build_dispatcher
from bot.wiring.factory import Core, build_core
from db.models import InteractionRow, UpdateInboxRow
from db.schema import SchemaCheck
from tests.conftest import make_settings

SECRET = "s3cret-Token_1"
PATH = "/telegram/webhook"
FARMER = 4242


@pytest.fixture
async def core(sqlite_url: str) -> AsyncIterator[Core]:
    core = build_core(make_settings(sqlite_url))
    try:
        yield core
    finally:
        await core.close()


@pytest.fixture
async def served(
    core: Core, sqlite_url: str
) -> AsyncIterator[tuple[TestClient, LocalBot, WebhookServer]]:
    dispatcher = build_dispatcher(core)
    metrics = build_metrics(core, "webhook")
    inbox = build_inbox(core, dispatcher, metrics)
    tg = LocalBot(dispatcher)
    server = WebhookServer(
        dispatcher=dispatcher,
        bot=tg.bot,
        inbox=inbox,
        secret=SECRET,
        path=PATH,
        checks=readiness_checks(core.db, SchemaCheck.load()),
        metrics=metrics,
    )
    async with TestClient(TestServer(server.app())) as client:
        yield client, tg, server
        await server.drain()


def update(tg: LocalBot, update_id: int, text_: str = "привіт") -> dict[str, Any]:
    raw = tg.telegram.message_update(FARMER, tg.telegram.text_fields(text_), first_name="Іра")
    return {"update_id": update_id, **raw}


async def count(core: Core, model: type[Any]) -> int:
    async with core.db.read() as session:
        return int(await session.scalar(select(func.count()).select_from(model)) or 0)


async def test_without_the_secret_token_nothing_is_read(
    served: tuple[TestClient, LocalBot, WebhookServer], core: Core
) -> None:
    client, tg, _ = served
    for headers in ({}, {SECRET_HEADER: "wrong"}, {SECRET_HEADER: SECRET + "x"}):
        response = await client.post(PATH, json=update(tg, 1), headers=headers)
        assert response.status == 401
    assert await count(core, UpdateInboxRow) == 0
    assert tg.session.calls == []


async def test_an_update_is_answered_once_however_often_it_comes(
    served: tuple[TestClient, LocalBot, WebhookServer], core: Core
) -> None:
    client, tg, server = served
    body = update(tg, 10)
    for _ in range(3):  # Telegram retrying a slow answer, or two balancer paths
        response = await client.post(PATH, json=body, headers={SECRET_HEADER: SECRET})
        assert response.status == 200
    await server.drain()
    assert [call.method for call in tg.session.calls] == ["sendMessage"]
    assert await count(core, InteractionRow) == 1
    for junk in (
        b"{not json",
        b"[1, 2]",
        b'{"update_id": "7"}',
        b"[" * 100_000 + b"]" * 100_000,
        b'{"update_id": 1180591620717411303424}',  # 2**70: no BIGINT holds it
        b'{"update_id": -1}',
    ):
        bad = await client.post(PATH, data=junk, headers={SECRET_HEADER: SECRET})
        assert bad.status == 400


async def test_health_readiness_and_metrics(
    served: tuple[TestClient, LocalBot, WebhookServer], core: Core
) -> None:
    client, tg, server = served
    assert (await client.get("/healthz")).status == 200
    ready = await client.get("/readyz")
    assert ready.status == 200
    assert (await ready.json())["checks"] == {"database": "ok", "migrations": "ok"}
    await client.post(PATH, json=update(tg, 20), headers={SECRET_HEADER: SECRET})
    await client.post(PATH, json=update(tg, 20), headers={SECRET_HEADER: SECRET})
    await server.drain()
    metrics = await (await client.get("/metrics")).text()
    assert 'stepan_updates_total{outcome="ok",type="message"} 1.0' in metrics
    assert 'stepan_updates_total{outcome="duplicate",type="message"} 1.0' in metrics
    assert "stepan_inbox_backlog 0.0" in metrics
    assert 'stepan_reply_latency_seconds_count{mode="light",transport="webhook"} 1.0' in metrics
    # A schema behind the code is not ready.
    async with core.db.write() as session:
        await session.execute(text("UPDATE alembic_version SET version_num = '0001_initial'"))
    broken = await client.get("/readyz")
    assert broken.status == 503
    assert (await broken.json())["checks"]["migrations"].startswith("failed")


async def test_an_update_this_aiogram_cannot_read_is_given_up_not_held(
    served: tuple[TestClient, LocalBot, WebhookServer], core: Core
) -> None:
    """Stored, then unreadable (a newer Bot API's shape): it used to stay held by
    the instance, its lease renewed forever, the inbox backlog never falling."""
    client, tg, server = served
    body = {"update_id": 20, "message": "привіт"}
    response = await client.post(PATH, json=body, headers={SECRET_HEADER: SECRET})
    assert response.status == 200  # taken: Telegram must not send it again and again
    await server.drain()
    async with core.db.read() as session:
        row = await session.get(UpdateInboxRow, 20)
    assert row is not None and (row.status, row.outcome) == ("done", "poison")
    assert tg.session.calls == []
    # The next update is handled as usual.
    response = await client.post(PATH, json=update(tg, 21), headers={SECRET_HEADER: SECRET})
    await server.drain()
    assert [call.method for call in tg.session.calls] == ["sendMessage"]


async def test_an_update_failing_before_the_inbox_is_given_back_for_a_replay(
    served: tuple[TestClient, LocalBot, WebhookServer],
    core: Core,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Readable, but something before the inbox middleware failed (a transient error):
    given back to the inbox for the next sweep, not held (and renewed) forever."""
    client, tg, server = served

    async def broken(*args: Any, **kwargs: Any) -> None:
        raise ConnectionError("a dependency blinked")

    monkeypatch.setattr(tg.dispatcher, "feed_update", broken)
    response = await client.post(PATH, json=update(tg, 30), headers={SECRET_HEADER: SECRET})
    assert response.status == 200
    await server.drain()
    async with core.db.read() as session:
        row = await session.get(UpdateInboxRow, 30)
    assert row is not None and (row.status, row.claimed_by) == ("handling", None)


async def test_a_lone_surrogate_is_stripped_and_the_message_answered(
    served: tuple[TestClient, LocalBot, WebhookServer], core: Core
) -> None:
    """JSON's "\\ud800" decodes to a lone surrogate that no database stores: the
    interaction was lost (and the inbox could not keep the update: 503 forever)."""
    client, tg, server = served
    body = update(tg, 22, "при\ud800віт")
    response = await client.post(PATH, json=body, headers={SECRET_HEADER: SECRET})
    assert response.status == 200
    await server.drain()
    assert [call.method for call in tg.session.calls] == ["sendMessage"]
    async with core.db.read() as session:
        texts = (await session.execute(select(InteractionRow.text))).scalars().all()
    assert texts == ["привіт"]
