"""The /me card with its buttons, as /me sends it and its buttons redraw it: the
profile and the farm in words, the conversation summaries (when conversation memory
is on) and a 🗑 button for each summary shown."""

from __future__ import annotations

from aiogram.types import InlineKeyboardMarkup

from bot.handlers._common import load_profile
from bot.keyboards.me import TalkButton, me_keyboard
from pipeline.admin.cards import my_memory
from pipeline.farm.localtime import local_time
from pipeline.farm.naming import NameBook
from pipeline.language.texts import Texts
from pipeline.memory import ProfileLoader
from pipeline.recall import Conversations
from pipeline.recall.card import SHOWN_ON_ME, summaries_block


async def me_card(
    user_id: str,
    texts: Texts,
    *,
    profiles: ProfileLoader,
    names: NameBook,
    conversations: Conversations | None,
) -> tuple[str, InlineKeyboardMarkup]:
    loaded = await load_profile(profiles, user_id)
    farm_names = await names.of(loaded.farm, texts.lang)
    talks = None
    buttons: list[TalkButton] = []
    if conversations is not None:
        views = await conversations.window_or_empty(user_id)
        talks = summaries_block(views, loaded.farm.timezone, texts)
        buttons = [
            TalkButton(view.id, f"{local_time(view.period_end, loaded.farm.timezone):%d.%m}")
            for view in views[:SHOWN_ON_ME]
        ]
    text = my_memory(loaded.profile, loaded.farm, farm_names, texts.catalog, texts.lang, talks)
    return text, me_keyboard(texts.catalog, texts.lang, buttons)
