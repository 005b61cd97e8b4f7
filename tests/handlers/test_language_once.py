"""One user, one language in a row (issue 24 point 3): the reply language is decided
once per update by the pipeline's policy (bot/middlewares/language.py), so a command
or a button after a conversation answers in the conversation's language, not in the
Telegram client's."""

from __future__ import annotations

from bot.keyboards.me import ForgetCD
from bot.local.session import ApiCall, LocalBot
from pipeline.language.catalog import Catalog
from pipeline.language.choice import detect_language
from tests.handlers.conftest import message_id, requests

#: Telegram says English; the user writes Ukrainian.
WRITER = 4004
#: Telegram says English; the user has written nothing yet.
NEWCOMER = 5005
UKRAINIAN = "Добрий день, підкажіть будь ласка коли краще сіяти озиму пшеницю"


def _texts(calls: list[ApiCall]) -> list[str]:
    return [str(params["text"]) for _, params in requests(calls) if "text" in params]


async def test_a_ukrainian_writer_with_an_english_client_gets_ukrainian_throughout(
    tg: LocalBot, catalog: Catalog
) -> None:
    replies = _texts(await tg.say(WRITER, UKRAINIAN, language_code="en"))
    assert replies and all(detect_language(text) == "uk" for text in replies), replies

    # A command after the message: the conversation's language, not Telegram's.
    [whoami] = _texts(await tg.say(WRITER, "/whoami", language_code="en"))
    role = catalog.text("uk", "admin.role_user")
    assert whoami == catalog.text("uk", "admin.whoami", telegram_id=WRITER, role=role)
    [confirm] = await tg.say(WRITER, "/forget", language_code="en")
    assert confirm.params["text"] == catalog.text("uk", "me.forget_confirm")

    # And a button: the same language again.
    pressed = await tg.press(
        WRITER, ForgetCD(confirm=False).pack(), message_id(confirm), language_code="en"
    )
    assert _texts(pressed) == [catalog.text("uk", "me.kept")]
    # A button nobody knows (an older version's): still Ukrainian.
    stale = await tg.press(WRITER, "stale:button", message_id(confirm), language_code="en")
    assert _texts(stale) == [catalog.text("uk", "actions.expired")]


async def test_a_newcomer_with_an_english_client_gets_english_commands(
    tg: LocalBot, catalog: Catalog
) -> None:
    [whoami] = _texts(await tg.say(NEWCOMER, "/whoami", language_code="en"))
    role = catalog.text("en", "admin.role_user")
    assert whoami == catalog.text("en", "admin.whoami", telegram_id=NEWCOMER, role=role)
    [confirm] = await tg.say(NEWCOMER, "/forget", language_code="en")
    assert confirm.params["text"] == catalog.text("en", "me.forget_confirm")
    pressed = await tg.press(
        NEWCOMER, ForgetCD(confirm=False).pack(), message_id(confirm), language_code="en"
    )
    assert _texts(pressed) == [catalog.text("en", "me.kept")]
