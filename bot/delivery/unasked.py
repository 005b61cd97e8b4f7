"""Sending what nobody asked for at that moment: sensor alerts, the nightly report,
the agronomist desk's notices. Jobs run before any update arrives, so the bot is
bound by a dispatcher startup hook."""

from __future__ import annotations

from aiogram import Bot
from aiogram.exceptions import TelegramForbiddenError
from aiogram.types import InlineKeyboardMarkup

from bot.delivery.render import send_reply
from pipeline.farm.sensors.alerts import RecipientGone
from pipeline.types import Reply


class TelegramAlertSender:
    """The sensor watcher's AlertSender (pipeline/farm/sensors/alerts.py) over the running bot."""

    def __init__(self) -> None:
        self._bot: Bot | None = None

    async def bind(self, bot: Bot | None = None) -> None:
        """Dispatcher startup hook: aiogram passes the bot it runs with."""
        if bot is not None:
            self._bot = bot

    async def send(
        self, chat_id: int, text: str, markup: InlineKeyboardMarkup | None = None
    ) -> None:
        if self._bot is None:
            raise RuntimeError("no bot bound yet: alerts wait for the next run")
        try:
            if markup is not None:
                await self._bot.send_message(chat_id, text, reply_markup=markup)
            else:
                await send_reply(self._bot, chat_id, Reply(text=text))
        except TelegramForbiddenError as exc:
            raise RecipientGone(str(exc)) from exc
