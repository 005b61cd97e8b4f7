"""A Bot API that answers the unexpected (a proxy's HTML pages, fields this aiogram
does not know, a result of the wrong shape), served over real HTTP by a scripted
server: every reply still goes out, a garbled answer is retried like a 5xx, and the
bot token never reaches the logs."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiogram import Bot
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.exceptions import ClientDecodeError
from aiohttp import web

from bot.delivery.render import send_reply
from bot.delivery.retry import RetryMiddleware, RetryPolicy
from bot.log_secrets import SecretMaskFilter
from pipeline.types import Reply

TOKEN = "123456:QUIRKS-secret-token"
CHAT = 4242
HTML_502 = "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"


class ScriptedApi:
    """Answers each method from a script (status, content type, body), then as the
    real Bot API would, with a few fields no aiogram version knows."""

    def __init__(self) -> None:
        self.script: dict[str, list[tuple[int, str, str]]] = {}
        self.calls: list[str] = []
        self.sent: list[str] = []

    async def handle(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        self.calls.append(method)
        scripted = self.script.get(method)
        if scripted:
            status, kind, body = scripted.pop(0)
            return web.Response(status=status, text=body, content_type=kind)
        params = dict(await request.post())
        self.sent.append(str(params.get("text", "")))
        result: dict[str, Any] = {
            "message_id": len(self.sent),
            "date": int(time.time()),
            "chat": {"id": int(str(params.get("chat_id", CHAT))), "type": "private",
                     "future_chat_field": {"nested": [1, 2]}},
            "text": params.get("text", ""),
            "future_message_field": "from a newer Bot API",
        }  # fmt: skip
        return web.json_response({"ok": True, "result": result, "future_envelope": 1})


@pytest.fixture
async def api() -> AsyncIterator[tuple[ScriptedApi, str]]:
    scripted = ScriptedApi()
    app = web.Application()
    app.router.add_post("/bot{token}/{method}", scripted.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield scripted, f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


@pytest.fixture
async def bot(api: tuple[ScriptedApi, str]) -> AsyncIterator[Bot]:
    async def no_wait(seconds: float) -> None:
        return None

    server = TelegramAPIServer.from_base(api[1])
    client = Bot(TOKEN, session=AiohttpSession(api=server))
    client.session.middleware(RetryMiddleware(RetryPolicy(retries=3), sleep=no_wait))
    yield client
    await client.session.close()


async def test_a_proxys_html_error_pages_are_retried(
    api: tuple[ScriptedApi, str], bot: Bot, caplog: pytest.LogCaptureFixture
) -> None:
    scripted, _ = api
    scripted.script["sendMessage"] = [
        (502, "text/html", HTML_502),
        (200, "text/html", "<html>captive portal</html>"),  # a 200 that is no answer
    ]
    caplog.handler.addFilter(SecretMaskFilter())
    with caplog.at_level(logging.DEBUG):
        await send_reply(bot, CHAT, Reply("Полив записано."))
    assert scripted.calls == ["sendMessage"] * 3
    assert scripted.sent == ["Полив записано."]
    assert "QUIRKS-secret-token" not in caplog.text


async def test_fields_from_a_newer_bot_api_are_ignored(
    api: tuple[ScriptedApi, str], bot: Bot
) -> None:
    message = await bot.send_message(CHAT, "привіт")
    assert (message.message_id, message.text) == (1, "привіт")


@pytest.mark.parametrize(
    "body",
    [
        '{"ok": true, "result": true}',  # a result of the wrong shape
        "[]",
        '{"ok": "yes", "result": {}}',
    ],
)
async def test_a_garbled_answer_is_retried_then_reaches_the_caller(
    api: tuple[ScriptedApi, str], bot: Bot, body: str
) -> None:
    scripted, _ = api
    scripted.script["sendMessage"] = [(200, "application/json", body)] * 10
    with pytest.raises(ClientDecodeError):
        await bot.send_message(CHAT, "привіт")
    assert scripted.calls == ["sendMessage"] * 4  # the first try and three retries
