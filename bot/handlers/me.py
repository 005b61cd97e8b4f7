"""A user's own memory: /me shows it, /forget deletes it after a confirm button. The
card and both keyboards are built in pipeline/buttons/me.py; their buttons go the
one button path (bot/handlers/actions.py)."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command
from aiogram.types import Message

from bot.handlers._common import telegram_user_id
from bot.keyboards.pipeline import keyboard
from pipeline.buttons.me import MeCard, forget_question
from pipeline.farm.naming import NameBook
from pipeline.language.texts import Texts
from pipeline.memory import ProfileLoader
from pipeline.recall import Conversations

router = Router(name=__name__)


@router.message(Command("me"))
async def on_me(
    message: Message,
    profiles: ProfileLoader,
    names: NameBook,
    texts: Texts,
    conversations: Conversations | None = None,
) -> None:
    if message.from_user is None:
        return
    card = MeCard(profiles, names, conversations)
    reply = await card.reply(telegram_user_id(message.from_user), texts)
    await message.answer(reply.text, reply_markup=keyboard(reply.buttons))


@router.message(Command("forget"))
async def on_forget(message: Message, texts: Texts) -> None:
    question = forget_question(texts)
    await message.answer(question.text, reply_markup=keyboard(question.buttons))
