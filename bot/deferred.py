"""Replies waiting out Telegram's flood control survive a restart (``telegram_outbox``).

A 429 answer asks to wait ``retry_after`` seconds, sometimes minutes. The retry
middleware (bot/telegram_retry.py) still waits in memory, so the handler gets
Telegram's answer and the user's later updates queue behind it (order kept); but
first the call is kept in the database, held by this instance, and the update it
answers is marked done (outcome ``deferred``): from then on the reply, not the
update, is what must not be lost, and a replay of the update would answer twice.
If the process stops (its held rows are released at shutdown) or dies (the lease
runs out) before the call went through, any instance's sweep (the Replayer's loop,
bot/inbox.py) sends the row once its wait is over, and deletes it.

Only calls made of plain JSON are kept: messages, edits, files sent again by file
id. An upload waits in memory only, and so do calls that mean nothing later (a
callback answer expires in seconds, a "typing…" action).
"""

from __future__ import annotations

import asyncio
import json
import logging
from datetime import timedelta
from typing import Any

import aiogram.methods
from aiogram import Bot
from aiogram.client.default import Default
from aiogram.exceptions import TelegramAPIError, TelegramRetryAfter
from aiogram.methods import TelegramMethod
from aiogram.types import InputFile

from bot.telegram_retry import TRANSIENT
from db.repositories import inbox as inbox_repo
from db.repositories import telegram_outbox as repo
from db.uow import Database
from pipeline.clock import Clock, utcnow

logger = logging.getLogger(__name__)

#: Calls that mean nothing minutes later, or are no replies: never kept.
_EPHEMERAL = (
    aiogram.methods.AnswerCallbackQuery,
    aiogram.methods.SendChatAction,
    aiogram.methods.GetUpdates,
    aiogram.methods.GetMe,
    aiogram.methods.GetFile,
    aiogram.methods.SetMyCommands,
    aiogram.methods.DeleteWebhook,
    aiogram.methods.SetWebhook,
)
#: Rows sent per sweep (the rest come with the next one).
SWEEP_BATCH = 50


def method_json(method: TelegramMethod[Any]) -> str:
    """The call's fields as JSON; defaults the bot fills in (parse_mode ...) left out."""
    unset = {name for name, value in method if isinstance(value, Default)}
    fields = method.model_dump(mode="json", exclude_none=True, exclude=unset)
    return json.dumps(fields, ensure_ascii=False)


class DeferredSends:
    """One per process (built by the app with the bot): keeps, sends and forgets."""

    def __init__(self, db: Database, owner: str, lease: timedelta, clock: Clock = utcnow) -> None:
        self._db = db
        self._owner = owner[:64]
        self._lease = lease
        self._clock = clock
        #: Rows this instance holds: waiting here, or being sent by the sweep.
        self._held: set[int] = set()
        #: The sweep's own calls (by object id): waited out in memory, not kept again.
        self._resending: set[int] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def owner(self) -> str:
        return self._owner

    @property
    def held(self) -> int:
        return len(self._held)

    def keeps(self, method: TelegramMethod[Any]) -> bool:
        if isinstance(method, _EPHEMERAL) or id(method) in self._resending:
            return False
        return not any(isinstance(value, InputFile) for _, value in method)

    async def keep(
        self, method: TelegramMethod[Any], retry_after: float, update_id: int | None
    ) -> int | None:
        """Keep the call (held here) and mark ``update_id`` done; None if it could not
        be stored (it then waits in memory only, as before)."""
        now = self._clock()
        chat = getattr(method, "chat_id", None)
        try:
            async with self._db.write() as session:
                row_id = await repo.keep(
                    session,
                    method=type(method).__name__,
                    payload=method_json(method),
                    chat_id=chat if isinstance(chat, int) else None,
                    update_id=update_id,
                    not_before=now + timedelta(seconds=retry_after),
                    owner=self._owner,
                    until=now + timedelta(seconds=retry_after) + self._lease,
                )
                if update_id is not None:
                    await inbox_repo.finish(session, [update_id], self._owner, now, "deferred")
        except Exception:
            logger.warning("telegram outbox: could not keep a %s", type(method).__name__)
            return None
        self._held.add(row_id)
        return row_id

    async def sent(self, row_id: int) -> None:
        """Went through (or can never: a 400): forget it."""
        self._held.discard(row_id)
        try:
            async with self._db.write() as session:
                await repo.drop(session, row_id)
        except Exception:
            logger.exception("telegram outbox: could not forget row %s", row_id)

    async def later(self, row_id: int, wait_s: float) -> None:
        """Not sent here: any instance sends it after ``wait_s``."""
        self._held.discard(row_id)
        try:
            async with self._db.write() as session:
                await repo.postpone(session, row_id, self._clock() + timedelta(seconds=wait_s))
        except Exception:
            logger.exception("telegram outbox: could not postpone row %s", row_id)

    async def heartbeat(self) -> None:
        if self._held:
            async with self._db.write() as session:
                await repo.renew(
                    session, sorted(self._held), self._owner, self._clock() + self._lease
                )

    async def release(self) -> None:
        """Shutdown: what is still waiting here is left to the next sweep anywhere."""
        held, self._held = sorted(self._held), set()
        if not held:
            return
        try:
            async with self._db.write() as session:
                await repo.release(session, held, self._owner)
        except Exception:  # their leases run out instead
            logger.exception("telegram outbox: could not release %d rows", len(held))
            return
        logger.warning("telegram outbox: %d replies left for the next start", len(held))

    async def sweep(self, bot: Bot) -> int:
        """Start sending every due row nobody holds; returns how many were started."""
        now = self._clock()
        async with self._db.read() as session:
            rows = await repo.due(session, now, SWEEP_BATCH)
        started = 0
        for row in rows:
            if row.id in self._held:
                continue
            async with self._db.write() as session:
                won = await repo.claim(session, row.id, self._owner, now, now + self._lease)
            if not won:
                continue
            self._held.add(row.id)
            task = asyncio.create_task(self._send(bot, row))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            started += 1
        return started

    async def _send(self, bot: Bot, row: repo.Kept) -> None:
        kind = getattr(aiogram.methods, row.method, None)
        if not (isinstance(kind, type) and issubclass(kind, TelegramMethod)):
            logger.error("telegram outbox: unknown method %r in row %s", row.method, row.id)
            await self.sent(row.id)
            return
        method = kind.model_validate_json(row.payload)
        self._resending.add(id(method))
        try:
            await bot(method)
        except TelegramRetryAfter as exc:
            await self.later(row.id, float(exc.retry_after))
        except TRANSIENT:
            logger.warning("telegram outbox: row %s not sent, retried later", row.id)
            await self.later(row.id, self._lease.total_seconds())
        except TelegramAPIError as exc:
            logger.warning(
                "telegram outbox: row %s refused (%s), dropped", row.id, type(exc).__name__
            )
            await self.sent(row.id)
        except Exception:
            logger.exception("telegram outbox: row %s failed, retried later", row.id)
            await self.later(row.id, self._lease.total_seconds())
        else:
            await self.sent(row.id)
        finally:
            self._resending.discard(id(method))
