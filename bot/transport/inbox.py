"""Exactly once per Telegram update: the inbox (table ``update_inbox``).

Every update is claimed by ``update_id`` in the database before any of its side
effects. Long polling stores each batch (claimed by this instance) before the next
``getUpdates`` confirms it to Telegram, and a webhook stores the update before it
answers 200, so a crash after Telegram forgot an update loses nothing: the row
stays, its lease runs out, and whichever instance sweeps next replays it. An update
that is already known (a redelivery, a second webhook call, a replay that another
instance won) is acknowledged and dropped.

A lease, not a lock: the instance handling an update renews the lease of what it
holds (a heartbeat every third of the lease), so a live instance keeps its updates
however long the deep path takes, and a dead one's updates come back within one
lease. What a replay repeats is made harmless where it counts: the interaction row
carries the update_id (a replayed message is not counted twice), and a reply in
several parts records each part Telegram took but the last (``replies_sent``), so
a replay sends only the parts that had not gone through. What remains is
at-least-once for one Bot API call: the part in flight when the process died, or
the last part if it died between Telegram taking it and the row being marked done,
goes out twice (the Bot API has no idempotency key). docs/OPERATIONS.md
"Delivery guarantees" states it exactly.

On SIGTERM (``Inbox.stop_intake``) the updates already being handled finish, and the
ones this instance claimed but has not started (queued behind a user's earlier
message) are given back: their lease is cleared, so the next start or another
instance replays them at once, instead of shutdown waiting for the whole queue.

An update that was replayed ``MAX_ATTEMPTS`` times without finishing (it kills its
handler every time) is marked ``poison`` and not tried again.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from aiogram import BaseMiddleware, Bot, Dispatcher
from aiogram.types import TelegramObject, Update
from pydantic_core import PydanticSerializationError
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.delivery.deferred import DeferredSends
from bot.transport import update_context
from db.models import UpdateInboxRow
from db.repositories import inbox as repo
from db.uow import Database
from pipeline.clock import Clock, utcnow

logger = logging.getLogger(__name__)

#: feed_update keyword: the caller already stored (and so claimed) this update.
CLAIMED = "inbox_claimed"
#: A replayed update that never finishes is given up after this many tries.
MAX_ATTEMPTS = 5
#: Replayed per sweep, oldest first (the rest come with the next sweep).
REPLAY_BATCH = 200


def update_json(update: Update) -> str:
    """The update as Telegram's JSON (field aliases such as ``from``), for a replay."""
    try:
        return update.model_dump_json(by_alias=True, exclude_none=True)
    except PydanticSerializationError:
        # A lone surrogate in a text: kept escaped. Raising here failed the store of
        # the whole getUpdates batch, and polling asked for it again forever.
        return json.dumps(update.model_dump(mode="json", by_alias=True, exclude_none=True))


@dataclass(eq=False, slots=True)
class _StoreBatch:
    """Updates one caller stores, and what it learns once the transaction ended."""

    payloads: list[repo.Stored]
    #: The ids that were new (None: not written).
    new: set[int] | None = None
    error: BaseException | None = None


class Inbox:
    """Claims, leases and replays updates; one per process, built by the app."""

    def __init__(
        self,
        db: Database,
        owner: str,
        lease: timedelta,
        clock: Clock = utcnow,
    ) -> None:
        self._db = db
        self._owner = owner[:64]
        self._lease = lease
        self._clock = clock
        #: Updates this instance holds the lease of and has not finished.
        self._held: set[int] = set()
        #: Replays started and not yet claimed or dropped.
        self._replaying: set[int] = set()
        #: Shutting down: what has not started is given back (``stop_intake``).
        self._draining = False
        #: Updates marked done are group-committed with the other end-of-message
        #: writes of concurrent updates (db/group_commit.py).
        self._finishes = db.group.lane(self._finish_all, failed=self._finish_failed, name="inbox")
        self._stores = db.group.lane(
            self._store_all, committed=self._stored, failed=self._store_failed, name="store"
        )
        #: Replays: the parts of the reply a previous try got through.
        self._sent_before: dict[int, int] = {}

    @property
    def owner(self) -> str:
        return self._owner

    @property
    def lease(self) -> timedelta:
        return self._lease

    @property
    def held(self) -> int:
        return len(self._held)

    async def store(self, updates: Sequence[Update]) -> list[Update]:
        """Store a batch from getUpdates, claimed by this instance, in one
        transaction; returns the updates that were new, in order. Raises if the
        database does: the caller must not confirm the batch then."""
        payloads = [repo.Stored(update.update_id, update_json(update)) for update in updates]
        new = await self._store(payloads)
        return [update for update in updates if update.update_id in new]

    async def store_raw(self, update_id: int, payload: dict[str, Any]) -> bool:
        """Store one update as received (a webhook body); True if it was new."""
        raw = json.dumps(payload, ensure_ascii=False)
        try:
            raw.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate ("\ud800"): no database takes it
            raw = json.dumps(payload)  # kept escaped; unreadable, it is given up later
        stored = repo.Stored(update_id, raw)
        return update_id in await self._store([stored])

    async def _store(self, payloads: list[repo.Stored]) -> set[int]:
        """Store and claim; the ids that were new. Group-committed: concurrent stores
        (webhook requests, a getUpdates batch) and the end-of-message writes share a
        transaction (db/group_commit.py). Raises if the database did."""
        batch = _StoreBatch(payloads)
        await self._stores.submit(batch)
        if batch.new is None:
            raise batch.error or RuntimeError("inbox: the updates were not stored")
        return batch.new

    async def _store_all(self, session: AsyncSession, batches: list[_StoreBatch]) -> set[int]:
        now = self._clock()
        payloads = [payload for batch in batches for payload in batch.payloads]
        return await repo.store_claimed(session, payloads, self._owner, now, now + self._lease)

    def _stored(self, batches: list[_StoreBatch], new: set[int]) -> None:
        self._held |= new
        unclaimed = set(new)
        for batch in batches:
            # An update two batches carried (a webhook retry racing its first try)
            # is new to the first one only.
            batch.new = {payload.update_id for payload in batch.payloads} & unclaimed
            unclaimed -= batch.new

    @staticmethod
    def _store_failed(batch: _StoreBatch, exc: BaseException) -> None:
        batch.error = exc

    async def claim(self, update: Update) -> bool:
        """Claim an update that was not stored by ``store`` (a replay, a direct feed):
        True if this instance now holds it, False for a duplicate."""
        update_id = update.update_id
        self._replaying.discard(update_id)
        if update_id in self._held:  # handled here right now: a duplicate
            return False
        now = self._clock()
        until = now + self._lease
        async with self._db.write() as session:
            new = await repo.store_claimed(
                session, [repo.Stored(update_id, update_json(update))], self._owner, now, until
            )
            won = bool(new) or await repo.reclaim(session, update_id, self._owner, now, until)
            attempts = sent = 0
            if won and not new:
                attempts, sent = await self._attempts(session, update_id)
        if sent:
            self._sent_before[update_id] = sent
        if won and attempts > MAX_ATTEMPTS:
            self._sent_before.pop(update_id, None)
            logger.error("inbox: update %s failed %d times, given up", update_id, attempts - 1)
            await self._finish(update_id, "poison")
            return False
        if won:
            self._held.add(update_id)
        return won

    @staticmethod
    async def _attempts(session: AsyncSession, update_id: int) -> tuple[int, int]:
        """(tries so far, parts of the reply a previous try got through)."""
        result = await session.execute(
            select(UpdateInboxRow.attempts, UpdateInboxRow.replies_sent).where(
                UpdateInboxRow.update_id == update_id
            )
        )
        attempts, sent = result.one()
        return int(attempts), int(sent or 0)

    def delivery(self, update_id: int) -> update_context.Delivery:
        """The reply's parts of a held update: what a previous try sent is skipped,
        each part that goes through now is recorded (``progress``)."""

        async def record(sent: int) -> None:
            await self.progress(update_id, sent)

        return update_context.Delivery(self._sent_before.pop(update_id, 0), record)

    async def progress(self, update_id: int, sent: int) -> None:
        """``sent`` parts of the update's reply went through. A failure is logged: a
        replay then repeats those parts, as it did before this was recorded."""
        try:
            async with self._db.write() as session:
                await repo.progress(session, update_id, self._owner, sent)
        except Exception:
            logger.exception("inbox: could not record the reply's progress of %s", update_id)

    def holds(self, update_id: int) -> bool:
        return update_id in self._held

    @property
    def draining(self) -> bool:
        return self._draining

    def stop_intake(self) -> None:
        """Shutdown (SIGTERM): the updates in progress finish; every other update this
        instance claimed and has not started is given back when its turn comes
        (``release``), for the next start or another instance to replay at once."""
        self._draining = True

    async def release(self, update_id: int) -> None:
        """Give back a claimed update that was never started. A failure is logged:
        its lease then runs out and it is replayed all the same."""
        self._held.discard(update_id)
        try:
            async with self._db.write() as session:
                await repo.release(session, [update_id], self._owner)
        except Exception:
            logger.exception("inbox: could not give back update %s", update_id)

    async def finish(self, update_id: int, outcome: str) -> None:
        """Mark the update handled. A failure is logged: the lease runs out and the
        update is replayed (what it repeats is idempotent where it counts)."""
        self._held.discard(update_id)
        await self._finish(update_id, outcome)

    async def _finish(self, update_id: int, outcome: str) -> None:
        await self._finishes.submit((update_id, outcome))

    async def _finish_all(self, session: AsyncSession, finished: list[tuple[int, str]]) -> None:
        by_outcome: dict[str, list[int]] = {}
        for update_id, outcome in finished:
            by_outcome.setdefault(outcome, []).append(update_id)
        now = self._clock()
        for outcome, update_ids in by_outcome.items():
            await repo.finish(session, update_ids, self._owner, now, outcome)

    @staticmethod
    def _finish_failed(finished: tuple[int, str], _exc: BaseException) -> None:
        logger.exception("inbox: could not mark update %s done", finished[0])

    async def give_up(self, update_id: int) -> None:
        """A stored update that cannot even be read (its JSON, or a shape this aiogram
        does not know): claimed and marked ``poison`` at once, never replayed again."""
        self._replaying.discard(update_id)
        now = self._clock()
        try:
            async with self._db.write() as session:
                if await repo.reclaim(session, update_id, self._owner, now, now + self._lease):
                    await repo.finish(session, [update_id], self._owner, now, "poison")
        except Exception:
            logger.exception("inbox: could not give up update %s", update_id)

    async def heartbeat(self) -> None:
        """Renew the leases of the updates held here."""
        if not self._held:
            return
        async with self._db.write() as session:
            await repo.renew(session, sorted(self._held), self._owner, self._clock() + self._lease)

    async def expired(self) -> list[tuple[int, str]]:
        """Stored updates nobody holds (their instance died), oldest first, minus
        those already being replayed here."""
        async with self._db.read() as session:
            rows = await repo.expired(session, self._clock(), REPLAY_BATCH)
        fresh = [(update_id, payload) for update_id, payload in rows]
        fresh = [row for row in fresh if row[0] not in self._replaying | self._held]
        self._replaying |= {update_id for update_id, _ in fresh}
        return fresh

    def replay_done(self, update_id: int) -> None:
        self._replaying.discard(update_id)

    async def backlog(self) -> int:
        async with self._db.read() as session:
            return await repo.backlog(session)


class InboxMiddleware(BaseMiddleware):
    """Outer update middleware, registered after the per-user ordering (so a replay
    is claimed in the user's order): claim, handle, mark done."""

    def __init__(self, inbox: Inbox, observe: Callable[[str, str], None] | None = None) -> None:
        self._inbox = inbox
        #: (update type, outcome): ok | error | duplicate | unclaimed | released (given
        #: back unstarted at shutdown) — the metrics.
        self._observe = observe or (lambda kind, outcome: None)

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        if not isinstance(event, Update):
            return await handler(event, data)
        inbox = self._inbox
        if inbox.draining:
            # Shutting down: not started, so not taken; the inbox keeps it for a replay.
            if inbox.holds(event.update_id):
                await inbox.release(event.update_id)
            self._observe(event.event_type, "released")
            return None
        if not (data.get(CLAIMED) and inbox.holds(event.update_id)):
            try:
                claimed = await inbox.claim(event)
            except Exception:
                # Without the database nothing can be claimed (nor handled): the
                # update stays unconfirmed or stored, and comes back.
                logger.exception("inbox: could not claim update %s", event.update_id)
                self._observe(event.event_type, "unclaimed")
                return None
            if not claimed:
                logger.info("inbox: update %s is a duplicate, dropped", event.update_id)
                self._observe(event.event_type, "duplicate")
                return None
        outcome = "error"
        # A reply kept while it waits out flood control names this update.
        token = update_context.handling(event.update_id)
        parts = update_context.delivering(inbox.delivery(event.update_id))
        try:
            result = await handler(event, data)
            outcome = "ok"
            return result
        finally:
            update_context.delivered(parts)
            update_context.done(token)
            await inbox.finish(event.update_id, outcome)
            self._observe(event.event_type, outcome)


class Replayer:
    """Feeds the inbox's orphaned updates back to the dispatcher, and keeps this
    instance's leases alive. Runs next to polling or the webhook server."""

    def __init__(
        self, inbox: Inbox, dispatcher: Dispatcher, bot: Bot, deferred: DeferredSends | None = None
    ) -> None:
        self._inbox = inbox
        self._dispatcher = dispatcher
        self._bot = bot
        #: Replies kept while waiting out flood control (bot/delivery/deferred.py): renewed and
        #: swept here too.
        self._deferred = deferred
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def interval_s(self) -> float:
        return max(self._inbox.lease.total_seconds() / 3, 0.2)

    async def sweep(self) -> int:
        """Start a replay of every orphaned update; returns how many were started.
        Tasks are created oldest first, so one user's updates keep their order (the
        per-user lock is FIFO)."""
        rows = await self._inbox.expired()
        for update_id, payload in rows:
            task = asyncio.create_task(self._replay(update_id, payload))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        if rows:
            logger.warning("inbox: replaying %d stored updates", len(rows))
        return len(rows)

    async def _replay(self, update_id: int, payload: str) -> None:
        try:
            try:
                update = Update.model_validate(json.loads(payload), context={"bot": self._bot})
            except ValueError:  # not JSON, or not an Update (pydantic's errors included)
                # Replaying it would fail every sweep, on every instance, forever.
                logger.error("inbox: stored update %s cannot be read, given up", update_id)
                await self._inbox.give_up(update_id)
                return
            await self._dispatcher.feed_update(self._bot, update)
        except Exception:
            logger.exception("inbox: replay of update %s failed", update_id)
        finally:
            self._inbox.replay_done(update_id)

    async def run(self, stop: asyncio.Event) -> None:
        """Heartbeat and sweep until ``stop`` is set."""
        while not stop.is_set():
            try:
                await self._inbox.heartbeat()
                await self.sweep()
            except Exception:
                logger.exception("inbox: sweep failed")
            if self._deferred is not None:
                try:
                    await self._deferred.heartbeat()
                    await self._deferred.sweep(self._bot)
                except Exception:
                    logger.exception("telegram outbox: sweep failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.interval_s)
