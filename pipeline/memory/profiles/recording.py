"""Recording an interaction after the reply (seed section 6), group-committed.

``InteractionRecorder.record`` returns once the record is committed: the profile
counters, the ``interactions`` row and (with a memory-service) the outbox row, all or
nothing. Concurrent calls are written together (db/group_commit.py): while one batch
is written the next ones queue, and the next batch takes all of them, with the other
end-of-message writes (inbox rows marked done), in one transaction. On SQLite every
transaction serialises on the one writer, so one transaction for N messages instead
of N is what keeps the light path fast under load (docs/BENCHMARKS.md). A batch that
fails is retried item by item, so one bad record costs only itself.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from db.repositories import interactions as interactions_repo
from db.repositories import profiles as repo
from db.repositories import recall as recall_repo
from db.uow import Database, Session
from pipeline.clock import Clock
from pipeline.learning.evals import EvalResult
from pipeline.memory.habits.expertise import upgraded_level
from pipeline.memory.habits.learner import apply_farm_changes, learned_typical_intents
from pipeline.memory.habits.rules import LearningRules
from pipeline.memory.profiles.cache import CachedProfiles, ProfileCache
from pipeline.memory.profiles.ensure import ensure_user
from pipeline.memory.profiles.rows import farm_from_row, valid
from pipeline.memory.profiles.writer import ProfileWriter
from pipeline.memory.service.outbox import Outbox
from pipeline.profiles import RECENT_TOPICS_KEPT, FarmProfile
from pipeline.types import DepthDecision, Language

logger = logging.getLogger(__name__)

#: The user row's columns an interaction may change (``_apply``): every batch writes
#: them back with one executemany UPDATE.
COUNTED = (
    "interaction_count",
    "last_seen",
    "active",
    "name",
    "operator",
    "preferred_language",
    "recent_topics",
    "known_intents",
    "expertise_level",
    "updated_at",
)


@dataclass(frozen=True, slots=True)
class InteractionRecord:
    user_id: str
    chat_id: int
    trace_id: str
    text: str
    decision: DepthDecision
    crew: tuple[str, ...]
    latency_ms: float
    at: datetime
    name: str | None
    language: Language
    update_id: int | None = None
    #: The eval rules' verdict on the reply (pipeline/learning/evals.py); None: not checked.
    evals: EvalResult | None = None
    #: The message's own language when it was a full message (kept with the topic).
    written_in: Language | None = None
    #: The profile's new language when the switch lasts (pipeline/language/choice.py).
    lasting_language: Language | None = None
    #: The sender is in AGX_OPERATOR_IDS: the profile's ``operator`` flag mirrors it
    #: (None: the channel does not know, the flag stays).
    operator: bool | None = None
    #: The reply was a card (it may write to the journal): the user's remembered
    #: answers (pipeline/recall/shortcuts.py) are dropped in this transaction.
    forget_answers: bool = False


class InteractionRecorder(ProfileWriter):
    def __init__(
        self,
        db: Database,
        cache: ProfileCache,
        outbox: Outbox,
        clock: Clock,
        *,
        learning: LearningRules | None = None,
    ) -> None:
        super().__init__(db, cache, outbox, clock)
        #: Typical intents are learned on the spot every ``refresh_every``
        #: interactions (rules/profiles.toml); None: only by the daily sweep.
        self._typical = learning.typical_intents if learning is not None else None
        self._observers: list[Callable[[InteractionRecord], None]] = []
        #: Records are group-committed with the other end-of-message writes.
        self._lane = db.group.lane(
            self._apply_all, committed=self._committed, failed=self._failed, name="interactions"
        )

    def observe(self, observer: Callable[[InteractionRecord], None]) -> None:
        """Call ``observer`` with every record (the bot's metrics); it must not raise."""
        self._observers.append(observer)

    async def record(self, record: InteractionRecord) -> None:
        """Returns once ``record`` is committed (or has failed, which is logged and
        invalidates the user's cache entry). Never raises; a caller that is cancelled
        does not take its record with it."""
        for observer in self._observers:
            observer(record)
        await self._lane.submit(record)

    async def drain(self) -> None:
        """Wait for every queued write to be committed (call before shutdown)."""
        await self._db.group.drain()

    def _committed(
        self, records: list[InteractionRecord], written: dict[str, tuple[CachedProfiles, int]]
    ) -> None:
        for user_id in {record.user_id for record in records}:
            cached = written.get(user_id)
            if cached is None:
                self._cache.invalidate(user_id)
            else:
                # The next message's load is served from the cache: no SQL read.
                self._cache.write_through(user_id, *cached)

    def _failed(self, record: InteractionRecord, _exc: BaseException) -> None:
        logger.exception("memory: update failed user=%s trace=%s", record.user_id, record.trace_id)
        self._cache.invalidate(record.user_id)

    async def _apply_all(
        self, session: Session, records: Sequence[InteractionRecord]
    ) -> dict[str, tuple[CachedProfiles, int]]:
        """Applies the interactions; returns per user what was written (for the
        cache) with the cache sequence taken under the row locks."""
        now = self._clock()
        records = await _not_yet_recorded(session, records)
        user_ids = list(dict.fromkeys(record.user_id for record in records))
        rows = await self._locked_rows(session, records, user_ids, now)
        seq = self._cache.sequence()
        counts_before = {user_id: rows[user_id]["interaction_count"] or 0 for user_id in user_ids}
        interactions = [_apply(rows[record.user_id], record, now) for record in records]
        await repo.write_user_values(session, COUNTED, [rows[user_id] for user_id in user_ids])
        await _drop_remembered_answers(session, records)
        profiles = {
            user_id: self._outbox.upsert_user_values(session, rows[user_id], now)
            for user_id in user_ids
        }
        # One executemany for the batch.
        await interactions_repo.insert_many(session, interactions)
        cached_farms = {user_id: self._cache.get(user_id) for user_id in user_ids}
        learned = await self._learn_typical(session, rows, counts_before, now)
        farms = await _committed_farms(session, cached_farms, learned)
        written: dict[str, tuple[CachedProfiles, int]] = {}
        for user_id in user_ids:
            profile, farm = profiles[user_id], farms.get(user_id)
            if profile is not None and farm is not None:
                written[user_id] = (CachedProfiles(profile, farm), seq)
        return written

    async def _locked_rows(
        self,
        session: Session,
        records: Sequence[InteractionRecord],
        user_ids: list[str],
        now: datetime,
    ) -> dict[str, dict[str, Any]]:
        """The users' profile rows, locked, as plain values (Core: no ORM objects to
        load, track and flush); a user met for the first time is created."""
        rows = await repo.lock_user_values(session, user_ids)
        for record in records:
            if record.user_id not in rows:
                created = await ensure_user(
                    session,
                    self._outbox,
                    record.user_id,
                    now,
                    name=record.name,
                    language=record.language,
                )
                rows[record.user_id] = repo.user_values(created)
        return rows

    async def _learn_typical(
        self,
        session: Session,
        rows: dict[str, dict[str, Any]],
        counts_before: dict[str, int],
        now: datetime,
    ) -> dict[str, FarmProfile]:
        """Typical intents of the users whose count passed a multiple of
        ``refresh_every`` in this batch, learned on the spot (this batch's
        interactions count: the query flushes them first); the farms that changed."""
        rules = self._typical
        if rules is None:
            return {}
        due = [
            user_id
            for user_id, before in counts_before.items()
            if (rows[user_id]["interaction_count"] or 0) // rules.refresh_every
            > before // rules.refresh_every
        ]
        if not due:
            return {}
        typical = await learned_typical_intents(session, due, now, rules)
        learned: dict[str, FarmProfile] = {}
        farm_rows = {row.user_id: row for row in await repo.lock_farms(session, due)}
        for user_id in due:
            farm_row = farm_rows.get(user_id)
            if farm_row is None or typical[user_id] == list(farm_row.typical_intents or []):
                continue
            farm = apply_farm_changes(
                session, self._outbox, farm_row, {"typical_intents": typical[user_id]}, now
            )
            if farm is not None:
                learned[user_id] = farm
        return learned


async def _not_yet_recorded(
    session: Session, records: Sequence[InteractionRecord]
) -> Sequence[InteractionRecord]:
    """Drop records of Telegram updates already recorded: an update whose handler
    died after recording is replayed (bot/transport/inbox.py), and must not count twice."""
    update_ids = [record.update_id for record in records if record.update_id is not None]
    if not update_ids:
        return records
    seen = await interactions_repo.recorded_update_ids(session, update_ids)
    if not seen:
        return records
    logger.info("memory: %d replayed updates already recorded", len(seen))
    return [record for record in records if record.update_id not in seen]


async def _drop_remembered_answers(session: Session, records: Sequence[InteractionRecord]) -> None:
    """A card may write to the journal: its user's remembered answers go."""
    for user_id in dict.fromkeys(r.user_id for r in records if r.forget_answers):
        await recall_repo.drop_answers(session, user_id)


async def _committed_farms(
    session: Session,
    cached: dict[str, CachedProfiles | None],
    learned: dict[str, FarmProfile],
) -> dict[str, FarmProfile]:
    """Each user's farm as this transaction commits it (every farm writer locks the
    user row first): learned in this batch, else cached, else read; a farm row the
    model does not accept is left out."""
    missing = [user_id for user_id, hit in cached.items() if hit is None and user_id not in learned]
    farm_rows = {row.user_id: row for row in await repo.get_farms(session, missing)}
    farms: dict[str, FarmProfile] = {}
    for user_id, hit in cached.items():
        farm = learned.get(user_id) or (hit.farm if hit is not None else None)
        farm_row = farm_rows.get(user_id)
        if farm is None and farm_row is not None:
            farm = valid(farm_from_row, farm_row)
        if farm is not None:
            farms[user_id] = farm
    return farms


def _apply(row: dict[str, Any], record: InteractionRecord, now: datetime) -> dict[str, Any]:
    """Count the interaction on the (locked) profile row's values (only the ``COUNTED``
    columns change); returns its interactions row."""
    # The row is locked (FOR UPDATE / BEGIN IMMEDIATE) until commit, so these
    # read-modify-writes cannot interleave with another writer's.
    row["interaction_count"] = (row["interaction_count"] or 0) + 1
    row["last_seen"] = record.at
    # Whoever writes to us has not blocked us (any more).
    row["active"] = True
    _take_identity(row, record)
    _note_topic(row, record)
    _upgrade_expertise(row)
    row["updated_at"] = now
    return _interaction_values(record, row["user_id"])


def _take_identity(row: dict[str, Any], record: InteractionRecord) -> None:
    """The name when none is known, the operator flag and a lasting language switch."""
    user_id = row["user_id"]
    if row["name"] is None and record.name:
        row["name"] = record.name
    if record.operator is not None and row["operator"] != record.operator:
        logger.info("memory: operator flag -> %s user=%s", record.operator, user_id)
        row["operator"] = record.operator
    language = record.lasting_language
    if language is not None and language != row["preferred_language"]:
        logger.info("memory: language -> %s user=%s", language, user_id)
        row["preferred_language"] = language


def _note_topic(row: dict[str, Any], record: InteractionRecord) -> None:
    """The intent joins the recent topics (the newest kept) and the known intents."""
    intent = record.decision.intent
    topic = {"intent": intent, "ts": record.at.isoformat()}
    if record.written_in is not None:
        topic["lang"] = record.written_in
    topics = [*(row["recent_topics"] or []), topic]
    row["recent_topics"] = topics[-RECENT_TOPICS_KEPT:]
    known = row["known_intents"] or []
    if intent and intent not in known:
        row["known_intents"] = [*known, intent]


def _upgrade_expertise(row: dict[str, Any]) -> None:
    level = upgraded_level(
        row["expertise_level"],
        interaction_count=row["interaction_count"],
        known_intents=row["known_intents"] or [],
        locked=row["expertise_locked"],
    )
    if level is not None:
        logger.info(
            "memory: expertise %s -> %s user=%s", row["expertise_level"], level, row["user_id"]
        )
        row["expertise_level"] = level


def _interaction_values(record: InteractionRecord, user_id: str) -> dict[str, Any]:
    """The ``interactions`` row of the record."""
    intent = record.decision.intent
    evals = record.evals
    return {
        "trace_id": record.trace_id,
        "user_id": user_id,
        "chat_id": record.chat_id,
        "mode": record.decision.mode,
        "intent": intent,
        "crew": list(record.crew),
        "crew_size": len(record.crew),
        "confidence": record.decision.confidence,
        "reason": record.decision.reason[:128],
        "latency_ms": record.latency_ms,
        "text": record.text,
        "created_at": record.at,
        "update_id": record.update_id,
        "eval_warnings": None if evals is None else evals.warnings,
        "eval_infos": None if evals is None else evals.infos,
        "eval_failed": None if evals is None else list(evals.failed_ids),
    }
