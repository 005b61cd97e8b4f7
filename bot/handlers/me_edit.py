"""The /me card's ✏️ asks for the name: the next message is it (``MeEdit.name``).
The card's buttons themselves go the one button path (bot/handlers/actions.py ->
pipeline/buttons/me.py)."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.filters import StateFilter
from aiogram.fsm.context import FSMContext
from aiogram.types import Message

from bot.handlers._common import telegram_user_id
from bot.handlers._flow import FsmFlow, MeEdit
from pipeline.buttons.me import name_answer
from pipeline.language.texts import Texts
from pipeline.memory import ProfileEditor

__all__ = ["MeEdit", "router"]

router = Router(name=__name__)


@router.message(StateFilter(MeEdit.name), F.text, ~F.text.startswith("/"))
async def on_name(
    message: Message, profile_editor: ProfileEditor, texts: Texts, state: FSMContext
) -> None:
    if message.from_user is None or message.text is None:
        return
    user_id = telegram_user_id(message.from_user)
    reply = await name_answer(profile_editor, FsmFlow(state), user_id, message.text, texts)
    await message.answer(reply.text)
