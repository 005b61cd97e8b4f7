"""Updates the inbox could not store are answered anyway (issue 29 point 3).

The inbox rule stands: an update is handled only once it is stored, and one that
could not be stored is not confirmed to Telegram, which keeps it and sends it again
(bot/transport/polling.py), so it is replayed once the database takes writes again.
Until then silence was the answer (a read-only or full disk, a lock held elsewhere:
25 s of nothing per message). Now, within ``PATIENCE_S`` of the store's start, the
farmer gets «зараз не можу зберегти — спробуйте за хвилину» once per update (a
button's press a pop-up), and an operator's /status is answered from what can still
be read. Nothing here writes to the database.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Iterable, Sequence

from aiogram import Bot
from aiogram.enums import ChatType
from aiogram.exceptions import TelegramAPIError
from aiogram.types import Message, Update, User

from bot.middlewares.language import spoken_texts, telegram_texts
from pipeline.admin.cards import status_card
from pipeline.admin.platform import PlatformStatus
from pipeline.handle import Pipeline
from pipeline.language.texts import Texts

logger = logging.getLogger(__name__)

#: A store that has not ended by then (a lock held elsewhere, a stuck disk) gets its
#: farmers the apology meanwhile: an answer within 2 s, never silence.
PATIENCE_S = 1.5
#: The language is read from the profile cache or the database; a read that hangs
#: falls back to Telegram's client language after this.
LANGUAGE_WAIT_S = 0.3
#: /status reads what it can within this; past it, it says what it knows unread.
STATUS_WAIT_S = 1.0
#: Update ids answered while unstored, remembered so a batch fetched again is not
#: answered again (oldest forgotten first).
REMEMBERED = 10_000


class UnstoredAnswers:
    def __init__(
        self,
        bot: Bot,
        pipeline: Pipeline,
        platform: PlatformStatus,
        operator_ids: Iterable[int],
    ) -> None:
        self._bot = bot
        self._pipeline = pipeline
        self._platform = platform
        self._operators = frozenset(operator_ids)
        self._answered: OrderedDict[int, None] = OrderedDict()

    def forget(self, update_ids: Iterable[int]) -> None:
        """Stored at last: a later failure is a new one."""
        for update_id in update_ids:
            self._answered.pop(update_id, None)

    async def __call__(self, updates: Sequence[Update]) -> None:
        """Each update not answered yet gets its answer; one that fails stops no other."""
        for update in updates:
            if update.update_id in self._answered:
                continue
            self._answered[update.update_id] = None
            while len(self._answered) > REMEMBERED:
                self._answered.popitem(last=False)
            try:
                await self._answer(update)
            except TelegramAPIError as exc:
                logger.warning("unstored update %s: no answer sent (%s)", update.update_id, exc)
            except Exception:
                logger.exception("unstored update %s: no answer sent", update.update_id)

    async def _answer(self, update: Update) -> None:
        if update.message is not None and update.message.from_user is not None:
            message = update.message
            if self._asks_status(message):
                try:
                    async with asyncio.timeout(STATUS_WAIT_S):
                        checks = await self._platform.collect()
                except TimeoutError:
                    checks = self._platform.unreadable()
                await message.answer(status_card(checks, await self._texts(message)))
                return
            text = (await self._texts(message)).text("faults.not_saved")
            await message.answer(text, parse_mode=None)
        elif update.callback_query is not None:
            query = update.callback_query
            texts = await self._spoken(query.from_user, "")
            await query.answer(texts.text("faults.not_saved"))

    def _asks_status(self, message: Message) -> bool:
        words = (message.text or "").split(maxsplit=1)
        command = words[0].split("@", 1)[0] if words else ""
        return (
            command == "/status"
            and message.from_user is not None
            and message.from_user.id in self._operators
            and message.chat.type == ChatType.PRIVATE
        )

    async def _texts(self, message: Message) -> Texts:
        return await self._spoken(message.from_user, message.text or "")

    async def _spoken(self, user: User | None, text: str) -> Texts:
        try:
            async with asyncio.timeout(LANGUAGE_WAIT_S):
                return await spoken_texts(self._pipeline, user, text)
        except TimeoutError:
            return telegram_texts(self._pipeline.catalog, user)
