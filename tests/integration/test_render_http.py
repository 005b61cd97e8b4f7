"""bot.delivery.render.send_reply with aiogram's real ``Bot`` over real HTTP, against FakeBotAPI.

The fake validates like Telegram does (length limits, markup when a parse mode is
set), so what passes here is what the real server would accept.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import AsyncIterator

import pytest
from aiogram import Bot
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.enums import ParseMode
from aiogram.exceptions import TelegramForbiddenError

from bot.delivery.render import CAPTION_LIMIT, TELEGRAM_TEXT_LIMIT, AttachmentFailed, send_reply
from bot.delivery.retry import RetryMiddleware
from bot.keyboards.pipeline import StyleCD
from pipeline.actions import StyleAction
from pipeline.types import Attachment, Button, Reply
from tests.fakes.bot_api import FakeBotAPI, SentCall

TOKEN = "123456:TEST-token"
CHAT = 4242
FLOOD = "Too Many Requests: retry after 1"


@pytest.fixture
async def api() -> AsyncIterator[FakeBotAPI]:
    async with FakeBotAPI() as fake:
        yield fake


class Waits:
    """The sleeps the retry middleware asked for (answered at once: no test waits
    out a real flood wait)."""

    def __init__(self) -> None:
        self.seconds: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.seconds.append(seconds)


@pytest.fixture
def waits() -> Waits:
    return Waits()


def _bot(api: FakeBotAPI, parse_mode: ParseMode | None = None, waits: Waits | None = None) -> Bot:
    session = AiohttpSession(api=TelegramAPIServer.from_base(api.base_url))
    client = Bot(TOKEN, session=session, default=DefaultBotProperties(parse_mode=parse_mode))
    # As bot.wiring.factory.build_bot installs it.
    client.session.middleware(RetryMiddleware(sleep=waits or Waits()))
    return client


@pytest.fixture
async def bot(api: FakeBotAPI, waits: Waits) -> AsyncIterator[Bot]:
    client = _bot(api, waits=waits)
    yield client
    await client.session.close()


@pytest.fixture
async def html_bot(api: FakeBotAPI) -> AsyncIterator[Bot]:
    """A bot whose *default* parse mode is HTML: render must still send plain text."""
    client = _bot(api, ParseMode.HTML)
    yield client
    await client.session.close()


STYLE_BUTTONS = (
    (Button("Коротко", StyleAction("brief")), Button("Детально", StyleAction("detailed"))),
)


def _long_text() -> str:
    paragraphs = [
        f"Абзац {i}. " + " ".join(f"поле{i}-{j} полито" for j in range(60)) for i in range(20)
    ]
    text = "\n\n".join(paragraphs)
    assert len(text) >= 10_000
    return text


def _png(width: int = 3, height: int = 2) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    raw = b"".join(b"\x00" + b"\x00\x80\x00" * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def _buttons_of(call: SentCall) -> list[str]:
    markup = call.params.get("reply_markup") or {}
    return [button["callback_data"] for row in markup["inline_keyboard"] for button in row]


def _attempts(api: FakeBotAPI, method: str) -> list[SentCall]:
    return [call for call in api.sent if call.method == method]


async def test_long_reply_is_split_into_parts_that_rejoin(api: FakeBotAPI, bot: Bot) -> None:
    text = _long_text()

    await send_reply(bot, CHAT, Reply(text, STYLE_BUTTONS))

    calls = api.calls("sendMessage", chat_id=CHAT)
    parts = [call.params["text"] for call in calls]
    assert len(parts) >= 3
    assert all(0 < len(part) <= TELEGRAM_TEXT_LIMIT for part in parts)
    assert "\n\n".join(parts) == text
    # Cut at paragraph boundaries: every part starts a paragraph.
    assert all(part.startswith("Абзац ") for part in parts)
    # Every part was accepted by the (validating) fake, none retried.
    assert all(call.ok for call in _attempts(api, "sendMessage"))


async def test_no_parse_mode_is_sent(api: FakeBotAPI, bot: Bot, html_bot: Bot) -> None:
    await send_reply(bot, CHAT, Reply(_long_text()))
    await send_reply(html_bot, CHAT, Reply("коротко"))

    calls = api.calls("sendMessage", chat_id=CHAT)
    assert len(calls) >= 4
    assert all("parse_mode" not in call.params for call in calls)


async def test_buttons_only_under_the_last_part(api: FakeBotAPI, bot: Bot) -> None:
    await send_reply(bot, CHAT, Reply(_long_text(), STYLE_BUTTONS))

    calls = api.calls("sendMessage", chat_id=CHAT)
    assert len(calls) > 1
    assert all("reply_markup" not in call.params for call in calls[:-1])
    markup = calls[-1].params["reply_markup"]
    rows = markup["inline_keyboard"]
    assert [[button["text"] for button in row] for row in rows] == [["Коротко", "Детально"]]
    data = [button["callback_data"] for button in rows[0]]
    assert data == ["st:brief", "st:detailed"]
    assert StyleCD.unpack(data[0]).to_action() == StyleAction("brief")
    # The fake echoes the keyboard back on the stored message, as Telegram does.
    stored = api.message(CHAT, calls[-1].result["message_id"])
    assert stored is not None
    assert stored["reply_markup"] == markup


async def test_short_reply_is_one_message_with_its_buttons(api: FakeBotAPI, bot: Bot) -> None:
    await send_reply(bot, CHAT, Reply("Як вам зручніше?", STYLE_BUTTONS))

    calls = api.calls("sendMessage", chat_id=CHAT)
    assert [call.params["text"] for call in calls] == ["Як вам зручніше?"]
    assert "reply_markup" in calls[0].params


@pytest.mark.parametrize("text", ["<b>a_b*c", "Полив 5 < 10 мм & *без* [markdown](", "x_y <i>"])
async def test_markup_like_text_is_sent_verbatim(
    api: FakeBotAPI, bot: Bot, html_bot: Bot, text: str
) -> None:
    # Both bots: with parse_mode=HTML the fake would reject "<b>a_b*c" (unclosed tag),
    # so this also proves render overrides a bot-wide default parse mode.
    await send_reply(bot, CHAT, Reply(text))
    await send_reply(html_bot, CHAT, Reply(text))

    attempts = _attempts(api, "sendMessage")
    assert len(attempts) == 2
    assert all(call.ok for call in attempts), [call.description for call in attempts]
    assert [call.result["text"] for call in attempts] == [text.strip()] * 2


async def test_the_fake_does_reject_bad_html_with_a_parse_mode(
    api: FakeBotAPI, html_bot: Bot
) -> None:
    """Guard for the test above: the fake really validates when a parse mode is set."""
    from aiogram.exceptions import TelegramBadRequest

    with pytest.raises(TelegramBadRequest, match="can't parse entities"):
        await html_bot.send_message(CHAT, "<b>a_b*c")


async def test_flood_control_is_waited_out(api: FakeBotAPI, bot: Bot, waits: Waits) -> None:
    api.fail_next("sendMessage", error_code=429, description=FLOOD, retry_after=1, times=2)

    await send_reply(bot, CHAT, Reply("Дощ буде ввечері."))

    attempts = _attempts(api, "sendMessage")
    assert [call.error_code for call in attempts] == [429, 429, None]
    assert waits.seconds == [1.0, 1.0]
    assert [call.params["text"] for call in api.calls("sendMessage", chat_id=CHAT)] == [
        "Дощ буде ввечері."
    ]


async def test_a_long_flood_wait_is_waited_out_not_dropped(
    api: FakeBotAPI, bot: Bot, waits: Waits
) -> None:
    """Any retry_after: an hour's wait still ends with the reply sent."""
    api.fail_next(
        "sendMessage", error_code=429, description="Too Many Requests: retry after 3600",
        retry_after=3600,
    )  # fmt: skip

    await send_reply(bot, CHAT, Reply("Дощ буде ввечері."))

    assert waits.seconds == [3600.0]
    assert [call.error_code for call in _attempts(api, "sendMessage")] == [429, None]


async def test_blocked_user_raises_forbidden(api: FakeBotAPI, bot: Bot) -> None:
    api.block_user(CHAT)

    with pytest.raises(TelegramForbiddenError):
        await send_reply(bot, CHAT, Reply("Привіт"))


async def test_document_and_photo_keep_their_file_names(api: FakeBotAPI, bot: Bot) -> None:
    report = "дата;поле;мм\n2025-05-01;Північне;20\n".encode()
    chart = _png()
    reply = Reply(
        "Звіт за травень готовий.",
        document=Attachment("zvit_traven.csv", report),
        photo=Attachment("chart.png", chart),
    )

    await send_reply(bot, CHAT, reply)

    # The text is the first file's caption: no "attached" line without its file.
    assert [call.method for call in api.sent] == ["sendDocument", "sendPhoto"]
    assert all(call.ok and call.chat_id == CHAT for call in api.sent)
    (document,) = api.calls("sendDocument", chat_id=CHAT)
    assert document.params["caption"] == "Звіт за травень готовий."
    assert document.filenames == {"document": "zvit_traven.csv"}
    assert document.files == {"document": report}
    assert document.result["document"]["file_name"] == "zvit_traven.csv"
    (photo,) = api.calls("sendPhoto", chat_id=CHAT)
    assert "caption" not in photo.params
    assert photo.filenames == {"photo": "chart.png"}
    assert photo.files == {"photo": chart}
    assert photo.result["photo"][0]["width"] == 3
    assert [stored.data for stored in api.files] == [report, chart]


async def test_a_file_carries_its_caption_and_buttons_in_one_call(
    api: FakeBotAPI, bot: Bot
) -> None:
    chart = _png()
    await send_reply(
        bot, CHAT, Reply("Графік — у вкладенні.", STYLE_BUTTONS, photo=Attachment("c.png", chart))
    )

    (photo,) = api.sent
    assert photo.method == "sendPhoto" and photo.ok
    assert photo.params["caption"] == "Графік — у вкладенні."
    assert _buttons_of(photo) == [StyleCD(style="brief").pack(), StyleCD(style="detailed").pack()]


async def test_a_text_too_long_for_a_caption_follows_the_file(api: FakeBotAPI, bot: Bot) -> None:
    text = "Звіт готовий. " + "Деталі по полях. " * 80
    assert len(text) > CAPTION_LIMIT
    await send_reply(bot, CHAT, Reply(text, document=Attachment("r.csv", b"a;b\n")))

    assert [call.method for call in api.sent] == ["sendDocument", "sendMessage"]
    assert "caption" not in api.sent[0].params
    assert api.sent[1].params["text"] == text.strip()


async def test_a_file_that_cannot_be_sent_is_reported_not_promised(
    api: FakeBotAPI, bot: Bot
) -> None:
    api.fail_next("sendDocument", error_code=400, description="Bad Request: file is broken")

    with pytest.raises(AttachmentFailed):
        await send_reply(
            bot, CHAT, Reply("Звіт — у вкладенні.", document=Attachment("r.csv", b"x"))
        )

    assert api.calls("sendMessage") == []  # no "attached" text went out on its own


async def test_document_upload_survives_flood_control(api: FakeBotAPI, bot: Bot) -> None:
    """The retried upload must send the whole file again, not an exhausted stream."""
    report = b"PK\x03\x04" + bytes(range(256)) * 40
    api.fail_next("sendDocument", error_code=429, description=FLOOD, retry_after=1)

    await send_reply(bot, CHAT, Reply("Звіт:", document=Attachment("report.xlsx", report)))

    assert [call.error_code for call in _attempts(api, "sendDocument")] == [429, None]
    (document,) = api.calls("sendDocument", chat_id=CHAT)
    assert document.params["caption"] == "Звіт:"
    assert document.filenames == {"document": "report.xlsx"}
    assert document.files == {"document": report}
