"""Replies waiting out Telegram's flood control survive a restart (``telegram_outbox``).

A 429 answer asks to wait ``retry_after`` seconds, sometimes minutes. The retry
middleware (bot/delivery/retry.py) still waits in memory, so the handler gets
Telegram's answer and the user's later updates queue behind it (order kept); but
first the call is kept in the database, held by this instance, and the update it
answers is marked done (outcome ``deferred``): from then on the reply, not the
update, is what must not be lost, and a replay of the update would answer twice.
If the process stops (its held rows are released at shutdown) or dies (the lease
runs out) before the call went through, any instance's sweep (the Replayer's loop,
bot/transport/inbox.py) sends the row once its wait is over, and deletes it.

A reply in several parts (bot/delivery/render.py) is kept whole: the part that met flood
control and every part after it, in one transaction, each row chained to the one
before it (``after_id``). Without a crash each part still goes from here, in turn,
and its row is deleted once Telegram took it; after one, the sweep sends the chain
in order, a part only once the one before it is gone. A part Telegram refuses ends
its reply (its row and those after it go), as it does in memory; a part given up
here (retries exhausted) leaves itself and the rest to the sweep.

Only calls made of plain JSON are kept: messages, edits, files sent again by file
id. An upload waits in memory only, and so do calls that mean nothing later (a
callback answer expires in seconds, a "typing…" action). While the update of an
upload can still be replayed, nothing of its reply is kept (a replay sends the upload
and what follows); otherwise the parts after it are (``flooded``).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from datetime import timedelta
from typing import Any, Literal

import aiogram.methods
from aiogram import Bot
from aiogram.client.default import Default
from aiogram.exceptions import TelegramAPIError, TelegramRetryAfter
from aiogram.methods import TelegramMethod
from aiogram.types import InputFile

from bot.delivery.failures import TIMEOUT_RESEND_S, TRANSIENT, timed_out
from bot.transport import update_context
from db.repositories import inbox as inbox_repo
from db.repositories import telegram_outbox as repo
from db.uow import Database
from pipeline.clock import Clock, utcnow

logger = logging.getLogger(__name__)

#: What became of a kept row sent from the outbox (``DeferredSends._send``).
Outcome = Literal["sent", "refused", "later"]

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


def _replayable(update_id: int | None) -> bool:
    """The update being answered can still be replayed: there is one, and no part of
    its reply was kept before (which marks it done: the outbox sends the rest)."""
    delivery = update_context.current_delivery()
    return update_id is not None and not (delivery is not None and delivery.deferred)


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

    def resending(self, method: TelegramMethod[Any]) -> bool:
        """``method`` is the sweep's own send of a kept row (it decides what follows)."""
        return id(method) in self._resending

    async def timed_out(self, method: TelegramMethod[Any], row_id: int | None) -> int | None:
        """A send of ``method`` timed out (Telegram may have taken it): kept, if it is
        not yet, with the parts after it (the update marked done), and marked so the
        sweep sends it once more at most. Returns its row; None if it cannot be kept."""
        if row_id is None:
            row_id = await self.flooded(method, TIMEOUT_RESEND_S)
        if row_id is None:
            return None
        try:
            async with self._db.write() as session:
                await repo.mark_timed_out(session, row_id)
        except Exception:
            logger.warning("telegram outbox: row %s not marked as timed out", row_id)
        return row_id

    def kept_ahead(self, method: TelegramMethod[Any]) -> int | None:
        """The row of a reply's part kept before it was tried (an earlier part met
        flood control), if ``method`` is one."""
        reply = update_context.current_sending()
        if reply is None or not reply.in_flight(method):
            return None
        return reply.kept.get(reply.current)

    async def flooded(self, method: TelegramMethod[Any], retry_after: float) -> int | None:
        """``method`` met flood control: keep it, with the parts of its reply after it
        (bot/delivery/render.py), and mark the update done. Returns its row; None if it is not
        kept (an upload, an ephemeral call, a database failure).

        An upload is not kept. While its update can still be replayed (not marked
        done yet) nothing is: a replay sends the upload and the parts after it. When
        it cannot (a part of the same update was kept before, or no update: a
        scheduled alert), the parts after the upload that can be kept are, so only
        the upload is lost if the process dies during the wait."""
        reply = update_context.current_sending()
        if reply is not None and not reply.in_flight(method):
            reply = None  # some other call made while a reply is sent
        rest = self._keepable_after(reply)
        update_id = update_context.current_update()
        if self.keeps(method):
            calls = [(reply.current if reply is not None else -1, method), *rest]
        else:
            if _replayable(update_id) or not rest:
                return None
            calls = rest  # (its update is done already, or there is none)
            logger.warning(
                "telegram outbox: a %s waits out flood control in memory only; the %d "
                "parts after it are kept",
                type(method).__name__,
                len(rest),
            )
        rows = await self._keep([call for _, call in calls], retry_after, update_id)
        if rows is None:
            return None
        if reply is not None:
            reply.kept.update((index, row) for (index, _), row in zip(calls, rows, strict=True))
        return rows[0] if self.keeps(method) else None

    def _keepable_after(
        self, reply: update_context.Sending | None
    ) -> list[tuple[int, TelegramMethod[Any]]]:
        """The parts of ``reply`` after the one being sent that are not kept yet and
        can be, with their index."""
        if reply is None:
            return []
        return [
            (index, call)
            for index, call in enumerate(reply.calls)
            if index > reply.current and index not in reply.kept and self.keeps(call)
        ]

    async def keep(
        self, method: TelegramMethod[Any], retry_after: float, update_id: int | None
    ) -> int | None:
        """Keep one call (held here) and mark ``update_id`` done; None if it could not
        be stored (it then waits in memory only, as before)."""
        rows = await self._keep([method], retry_after, update_id)
        return rows[0] if rows is not None else None

    async def _keep(
        self, calls: list[TelegramMethod[Any]], retry_after: float, update_id: int | None
    ) -> list[int] | None:
        """Keep ``calls`` in one transaction, each row after the one before it (sent
        only once that one is gone), and mark ``update_id`` done."""
        now = self._clock()
        not_before = now + timedelta(seconds=retry_after)
        rows: list[int] = []
        try:
            async with self._db.write() as session:
                for method in calls:
                    chat = getattr(method, "chat_id", None)
                    rows.append(
                        await repo.keep(
                            session,
                            method=type(method).__name__,
                            payload=method_json(method),
                            chat_id=chat if isinstance(chat, int) else None,
                            update_id=update_id,
                            not_before=not_before,
                            owner=self._owner,
                            until=not_before + self._lease,
                            after_id=rows[-1] if rows else None,
                        )
                    )
                if update_id is not None:
                    await inbox_repo.finish(session, [update_id], self._owner, now, "deferred")
        except Exception:
            logger.warning("telegram outbox: could not keep a %s", type(calls[0]).__name__)
            return None
        delivery = update_context.current_delivery()
        if update_id is not None and delivery is not None:
            delivery.deferred = True
        self._held.update(rows)
        return rows

    def _after(self, method: TelegramMethod[Any]) -> list[int]:
        """Rows of the parts after ``method`` in its reply, kept and not sent yet;
        they are no longer this reply's to send (``gave_up``, ``refused``)."""
        reply = update_context.current_sending()
        if reply is None or not reply.in_flight(method):
            return []
        later = sorted(index for index in reply.kept if index > reply.current)
        return [reply.kept.pop(index) for index in later]

    async def sent(self, row_id: int) -> None:
        """Went through (or can never: a 400): forget it."""
        await self._drop([row_id])

    async def gave_up(self, method: TelegramMethod[Any], row_id: int | None, wait_s: float) -> None:
        """The retries of ``method`` are exhausted, the error goes to the caller. Its row
        and those of the parts after it are left to any instance's sweep, in order;
        with no row of its own, the parts after it are dropped, as they would not
        have been sent either."""
        after = self._after(method)
        if row_id is None:
            await self._drop(after)
            return
        await self.later(row_id, wait_s, after)

    async def refused(self, method: TelegramMethod[Any], row_id: int | None) -> None:
        """Telegram refused ``method`` (400, 403...): the reply ends there, in the
        outbox as in memory: its row and those of the parts after it go."""
        await self._drop(([row_id] if row_id is not None else []) + self._after(method))

    async def _drop(self, rows: list[int]) -> None:
        if not rows:
            return
        self._held.difference_update(rows)
        try:
            async with self._db.write() as session:
                for row_id in rows:
                    await repo.drop(session, row_id)
        except Exception:
            logger.exception("telegram outbox: could not forget rows %s", rows)

    async def later(self, row_id: int, wait_s: float, after: Sequence[int] = ()) -> None:
        """Not sent here: any instance sends it after ``wait_s`` (and the rows
        ``after`` it, which wait for it in any case)."""
        rows = [row_id, *after]
        self._held.difference_update(rows)
        try:
            async with self._db.write() as session:
                await repo.postpone(session, rows, self._clock() + timedelta(seconds=wait_s))
        except Exception:
            logger.exception("telegram outbox: could not postpone rows %s", rows)

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
        """Start sending every due row nobody holds whose reply has no earlier part
        waiting; returns how many were started. Each one's task goes on with the
        parts kept after it, in order."""
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
            task = asyncio.create_task(self._send_reply(bot, row))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            started += 1
        return started

    async def _send_reply(self, bot: Bot, row: repo.Kept) -> None:
        """Send ``row``, then each part kept after it, one at a time: a part goes only
        once Telegram took the one before it (its row deleted)."""
        kept: repo.Kept | None = row
        while kept is not None:
            outcome = await self._send(bot, kept)
            if outcome == "refused":  # the reply ends there, as it would in memory
                await self._drop(await self._rest(kept.id))
            if outcome != "sent":
                return
            kept = await self._claim_next(kept.id)

    async def _rest(self, row_id: int) -> list[int]:
        rest: list[int] = []
        async with self._db.read() as session:
            while (
                following := await repo.following(session, rest[-1] if rest else row_id)
            ) is not None:
                rest.append(following.id)
        return rest

    async def _claim_next(self, row_id: int) -> repo.Kept | None:
        now = self._clock()
        try:
            async with self._db.write() as session:
                following = await repo.following(session, row_id)
                if following is None or not await repo.claim(
                    session, following.id, self._owner, now, now + self._lease
                ):
                    return None  # the last part, or held elsewhere (sent from there)
        except Exception:  # the next sweep finds it: its part before it is gone
            logger.exception("telegram outbox: could not claim the part after row %s", row_id)
            return None
        self._held.add(following.id)
        return following

    async def _send_timed_out(self, row: repo.Kept) -> Outcome:
        """The sweep's send of ``row`` timed out: once more after a short wait; a row
        whose send had timed out before is not sent again (Telegram most likely took
        one of the two) and the parts after it go on."""
        if row.timed_out:
            logger.error("telegram outbox: row %s timed out twice, not sent again", row.id)
            await self.sent(row.id)
            return "sent"
        logger.warning("telegram outbox: row %s timed out, sent once more", row.id)
        try:
            async with self._db.write() as session:
                await repo.mark_timed_out(session, row.id)
        except Exception:
            logger.warning("telegram outbox: row %s not marked as timed out", row.id)
        await self.later(row.id, TIMEOUT_RESEND_S)
        return "later"

    async def _send(self, bot: Bot, row: repo.Kept) -> Outcome:
        """``sent``, ``refused`` (dropped) or ``later`` (postponed)."""
        kind = getattr(aiogram.methods, row.method, None)
        if not (isinstance(kind, type) and issubclass(kind, TelegramMethod)):
            logger.error("telegram outbox: unknown method %r in row %s", row.method, row.id)
            await self.sent(row.id)
            return "refused"
        method = kind.model_validate_json(row.payload)
        self._resending.add(id(method))
        try:
            await bot(method)
        except TelegramRetryAfter as exc:
            await self.later(row.id, float(exc.retry_after))
        except TRANSIENT as exc:
            if timed_out(exc):
                return await self._send_timed_out(row)
            logger.warning("telegram outbox: row %s not sent, retried later", row.id)
            await self.later(row.id, self._lease.total_seconds())
        except TelegramAPIError as exc:
            logger.warning(
                "telegram outbox: row %s refused (%s), dropped with the parts after it",
                row.id,
                type(exc).__name__,
            )
            await self.sent(row.id)
            return "refused"
        except Exception:
            logger.exception("telegram outbox: row %s failed, retried later", row.id)
            await self.later(row.id, self._lease.total_seconds())
        else:
            await self.sent(row.id)
            return "sent"
        finally:
            self._resending.discard(id(method))
        return "later"
