"""A pressed button's messages to other chats (``Reply.notices``: the agronomist's
card to every operator) go one by one: a chat that cannot be reached stops no other,
and a picture goes before its text."""

from __future__ import annotations

from typing import Any

from aiogram.exceptions import TelegramForbiddenError
from aiogram.methods import SendMessage

from bot.handlers._common import notify
from pipeline.types import Notice

BLOCKED = 7


class _Bot:
    def __init__(self) -> None:
        self.sent: list[tuple[str, int, str]] = []

    async def send_message(self, chat_id: int, text: str) -> Any:
        if chat_id == BLOCKED:
            method = SendMessage(chat_id=chat_id, text=text)
            raise TelegramForbiddenError(method=method, message="bot was blocked by the user")
        self.sent.append(("message", chat_id, text))

    async def send_photo(self, chat_id: int, photo: str) -> Any:
        self.sent.append(("photo", chat_id, photo))


async def test_one_unreachable_chat_stops_no_other() -> None:
    bot = _Bot()
    notices = (Notice(1, "#5 card", "file-1"), Notice(BLOCKED, "#5 card"), Notice(9, "#5 card"))

    await notify(bot, notices)  # type: ignore[arg-type]

    assert bot.sent == [
        ("photo", 1, "file-1"),
        ("message", 1, "#5 card"),
        ("message", 9, "#5 card"),
    ]
