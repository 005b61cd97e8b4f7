"""Operator checks. Used on every operator command AND callback router: a forged
callback from a non-operator must never reach an operator handler."""

from __future__ import annotations

from aiogram.filters import BaseFilter
from aiogram.types import CallbackQuery, Message

from bot.config import Settings


class IsOperator(BaseFilter):
    async def __call__(self, event: Message | CallbackQuery, settings: Settings) -> bool:
        user = event.from_user
        return user is not None and user.id in settings.agx.operator_ids
