"""Commands that show a token or someone's profile work in private chats only.

In a group, /token would post a sensor token for everyone to read, and /me,
/profile, /farm, /pending a farmer's profile or messages; there they get a pointer
to the private chat instead, whoever sends them. Placed before every router that
handles these commands (operators, refusal, me)."""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.enums import ChatType
from aiogram.filters import BaseFilter, Command
from aiogram.types import Message

from pipeline.language.texts import Texts

#: Commands whose answer must not be seen by anyone but the one who asked.
PRIVATE_ONLY: tuple[str, ...] = ("token", "me", "profile", "farm", "pending")

router = Router(name=__name__)


class NotPrivate(BaseFilter):
    async def __call__(self, message: Message) -> bool:
        return message.chat.type != ChatType.PRIVATE


@router.message(Command(*PRIVATE_ONLY), NotPrivate())
async def point_to_private(message: Message, bot: Bot, texts: Texts) -> None:
    me = await bot.me()
    link = f"https://t.me/{me.username}" if me.username else f"@{me.first_name}"
    await message.answer(
        texts.text("faults.private_only", link=link),
        parse_mode=None,
    )
