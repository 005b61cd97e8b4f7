"""Telegram's transient failures, each injected by the fake Bot API over real HTTP:
every call is retried (bot/delivery/retry.py) and start-up survives them all
(bot/wiring/startup.py)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import pytest
from aiogram import Bot
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.exceptions import TelegramBadRequest, TelegramServerError

from bot.delivery.render import send_reply
from bot.delivery.retry import RetryMiddleware, RetryPolicy
from bot.handlers._common import deliver
from bot.wiring.startup import StartupCalls
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.memory import Memory
from pipeline.types import Attachment, Incoming, Reply
from tests.fakes.bot_api import FakeBotAPI

TOKEN = "123456:TEST-faults-token"
CHAT = 5151
BAD_GATEWAY = "Bad Gateway"


class Waits:
    """Sleeps asked for, answered at once."""

    def __init__(self) -> None:
        self.seconds: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.seconds.append(seconds)


@pytest.fixture
async def api() -> AsyncIterator[FakeBotAPI]:
    async with FakeBotAPI() as fake:
        yield fake


@pytest.fixture
def waits() -> Waits:
    return Waits()


def _bot(api: FakeBotAPI, waits: Waits) -> Bot:
    bot = Bot(TOKEN, session=AiohttpSession(api=TelegramAPIServer.from_base(api.base_url)))
    bot.session.middleware(RetryMiddleware(RetryPolicy(retries=3), sleep=waits))
    return bot


@pytest.fixture
async def bot(api: FakeBotAPI, waits: Waits) -> AsyncIterator[Bot]:
    client = _bot(api, waits)
    yield client
    await client.session.close()


def _codes(api: FakeBotAPI, method: str) -> list[int | None]:
    return [call.error_code for call in api.sent if call.method == method]


@pytest.mark.parametrize("status", [500, 502, 503, 504])
async def test_a_server_error_on_send_message_is_retried(
    api: FakeBotAPI, bot: Bot, waits: Waits, status: int
) -> None:
    api.fail_next("sendMessage", error_code=status, description=BAD_GATEWAY, times=2)

    await send_reply(bot, CHAT, Reply("Полив записано."))

    assert _codes(api, "sendMessage") == [status, status, None]
    assert len(waits.seconds) == 2 and waits.seconds[1] > waits.seconds[0] > 0


async def test_a_dropped_connection_is_retried(api: FakeBotAPI, bot: Bot) -> None:
    api.drop_next("sendMessage", times=2)

    await send_reply(bot, CHAT, Reply("Полив записано."))

    assert _codes(api, "sendMessage") == [0, 0, None]  # 0: the fake closed the connection
    assert [c.params["text"] for c in api.calls("sendMessage")] == ["Полив записано."]


async def test_every_call_is_retried_not_only_replies(api: FakeBotAPI, bot: Bot) -> None:
    api.fail_next("getMe", error_code=502, description=BAD_GATEWAY)
    api.drop_next("answerCallbackQuery")
    api.fail_next("editMessageText", error_code=500, description="Internal Server Error")
    sent = await bot.send_message(CHAT, "картка")

    me = await bot.get_me()
    with pytest.raises(TelegramBadRequest):  # retried, then Telegram's real answer
        await bot.answer_callback_query("no-such-query")
    await bot.edit_message_text("оновлено", chat_id=CHAT, message_id=sent.message_id)

    assert me.username == "stepan_test_bot"
    assert _codes(api, "getMe") == [502, None]
    assert _codes(api, "answerCallbackQuery") == [0, 400]
    assert _codes(api, "editMessageText") == [500, None]


async def test_retries_are_bounded_then_the_error_reaches_the_caller(
    api: FakeBotAPI, bot: Bot
) -> None:
    api.fail_next("sendMessage", error_code=502, description=BAD_GATEWAY, times=100)

    with pytest.raises(TelegramServerError):
        await bot.send_message(CHAT, "привіт")

    assert _codes(api, "sendMessage") == [502] * 4  # the first try and three retries


@pytest.mark.parametrize(
    ("status", "description"),
    [(400, "Bad Request: chat not found"), (403, "Forbidden: bot was blocked by the user")],
)
async def test_an_answer_is_not_a_fault_and_is_not_retried(
    api: FakeBotAPI, bot: Bot, status: int, description: str
) -> None:
    api.fail_next("sendMessage", error_code=status, description=description)

    with pytest.raises(Exception, match=description.split(": ", 1)[1]):
        await bot.send_message(CHAT, "привіт")

    assert _codes(api, "sendMessage") == [status]


# ---------------------------------------------------------------------- start-up


def _startup(bot: Bot, catalog: Catalog) -> StartupCalls:
    return StartupCalls(bot, catalog, frozenset({777}), first_delay=0.01, max_delay=0.05)


async def test_start_up_survives_5xx_on_every_call(
    api: FakeBotAPI, bot: Bot, catalog: Catalog
) -> None:
    # More failures than one call's retries: each start-up call fails at least once.
    for method in ("getMe", "deleteWebhook", "setMyCommands"):
        api.fail_next(method, error_code=502, description=BAD_GATEWAY, times=6)
    startup = _startup(bot, catalog)

    await startup.start()  # returns: polling could start now
    assert "getMe" not in startup.done
    assert (await bot.me()).id == 123456  # the identity the token gives, for polling
    await startup.wait()

    assert startup.done == {"getMe", "deleteWebhook", "setMyCommands"}
    assert (await bot.me()).username == "stepan_test_bot"
    assert api.commands(language_code="") != []
    assert api.commands(scope_type="chat", language_code="") != []


async def test_a_bot_api_without_set_my_commands_is_not_fatal(
    catalog: Catalog, waits: Waits, caplog: pytest.LogCaptureFixture
) -> None:
    async with FakeBotAPI(unsupported=frozenset({"setMyCommands"})) as api:
        bot = _bot(api, waits)
        startup = _startup(bot, catalog)
        with caplog.at_level(logging.WARNING, logger="bot.wiring.startup"):
            await startup.start()
            await startup.wait()
        await bot.session.close()

    assert startup.done == {"getMe", "deleteWebhook"}
    attempts = [c for c in api.sent if c.method == "setMyCommands"]
    assert [c.error_code for c in attempts] == [404]  # asked once: it will not appear
    assert "has no setMyCommands" in caplog.text


async def test_stop_cancels_what_is_still_being_retried(
    api: FakeBotAPI, bot: Bot, catalog: Catalog
) -> None:
    api.fail_next("deleteWebhook", error_code=502, description=BAD_GATEWAY, times=10_000)
    startup = StartupCalls(bot, catalog, frozenset(), first_delay=0.01, max_delay=0.01)

    await startup.start()
    await api.wait_for(lambda c: c.method == "deleteWebhook" and c.error_code == 502)
    await startup.stop()

    assert "deleteWebhook" not in startup.done
    count = len([c for c in api.sent if c.method == "deleteWebhook"])
    await asyncio.sleep(0.1)  # ten retry periods: a task left running would call again
    assert len([c for c in api.sent if c.method == "deleteWebhook"]) == count


# ---------------------------------------------------------------------- a file's fate


async def test_a_file_that_fails_is_owned_up_to(
    api: FakeBotAPI, bot: Bot, catalog: Catalog, memory: Memory
) -> None:
    api.fail_next("sendDocument", error_code=502, description=BAD_GATEWAY, times=100)
    incoming = Incoming(user_id=f"tg:{CHAT}", chat_id=CHAT, text="звіт", trace_id="t")
    reply = Reply("Звіт готовий — файл у вкладенні.", document=Attachment("r.xlsx", b"PK"))

    await deliver(bot, memory.editor, incoming, reply, Texts(catalog, "uk"))

    assert [c.params["text"] for c in api.calls("sendMessage", chat_id=CHAT)] == [
        catalog.text("uk", "faults.file_failed")
    ]
    assert api.calls("sendDocument") == []


async def test_the_file_failed_line_speaks_the_updates_language(
    api: FakeBotAPI, bot: Bot, catalog: Catalog, memory: Memory
) -> None:
    """The language the middleware decided (here English), not Telegram's client one."""
    api.fail_next("sendDocument", error_code=502, description=BAD_GATEWAY, times=100)
    incoming = Incoming(
        user_id=f"tg:{CHAT}", chat_id=CHAT, text="report", trace_id="t", language_code="uk"
    )
    reply = Reply("The report is ready.", document=Attachment("r.xlsx", b"PK"))

    await deliver(bot, memory.editor, incoming, reply, Texts(catalog, "en"))

    sent = [c.params["text"] for c in api.calls("sendMessage", chat_id=CHAT)]
    assert sent == [catalog.text("en", "faults.file_failed")]
    assert sent != [catalog.text("uk", "faults.file_failed")]
