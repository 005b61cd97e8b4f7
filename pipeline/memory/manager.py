"""Load and update profiles; every failure degrades to a valid default (seed 10).

SQL is the truth (DESIGN.md). The memory-service is a secondary copy: every profile
change writes an outbox row in the same transaction, and ``flush_outbox`` (a
scheduler job) sends those rows later. A conversation only ever talks to the
memory-service to hydrate a user SQL has never seen, with one bounded attempt, and
not at all while the circuit breaker is open. Details: docs/memory.md.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from pydantic import ValidationError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models import FarmProfileRow, InteractionRow, OutboxRow, UserProfileRow
from db.repositories import outbox
from db.repositories import profiles as repo
from pipeline.memory.cache import CachedProfiles, ProfileCache
from pipeline.memory.client import MemoryServiceClient, Outcome
from pipeline.memory.expertise import INTERMEDIATE_MIN_INTERACTIONS, upgraded_level
from pipeline.profiles import (
    EXPERTISE_LEVELS,
    RECENT_TOPICS_KEPT,
    STYLES,
    Expertise,
    FarmProfile,
    Style,
    UserProfile,
    farm_fact_key,
    new_farm_id,
    user_fact_key,
)
from pipeline.types import DepthDecision, Language

logger = logging.getLogger(__name__)

_USER_FIELDS = tuple(name for name in UserProfile.model_fields)
_FARM_FIELDS = tuple(name for name in FarmProfile.model_fields)

#: What ``update_user`` may change. The level has its own method (it locks).
USER_EDITABLE = frozenset({"name", "preferred_language", "preferred_style", "context_notes"})
#: ``update_farm`` keys: top-level fields, and flat names for the nested objects.
FARM_TOP_LEVEL = frozenset(
    {
        "farm_name",
        "field_ids",
        "crop_ids",
        "active_integrations",
        "typical_intents",
        "dict_pending_count",
    }
)
FARM_NESTED = {
    "current_phase": "seasonal_context",
    "active_operations": "seasonal_context",
    "hemisphere": "seasonal_context",
    "approximate_month": "seasonal_context",
    "has_iot_integration": "iot_sensors",
    "sensor_types": "iot_sensors",
    "last_alert": "iot_sensors",
    "soil_moisture_min": "alert_thresholds",
    "temperature_min": "alert_thresholds",
    "temperature_max": "alert_thresholds",
}
FARM_EDITABLE = FARM_TOP_LEVEL | frozenset(FARM_NESTED)

#: Outbox rows of one user taken per flush batch (see outbox.pending).
FLUSH_PER_USER = 20
#: Sent upserts are kept this long for audit, then pruned by the flush.
SENT_RETENTION = timedelta(days=7)
#: Users upgraded per transaction by the sweep (keeps SQLite's write lock short).
SWEEP_CHUNK = 100

T = TypeVar("T")
R = TypeVar("R")


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class Loaded:
    profile: UserProfile
    farm: FarmProfile
    known: bool  # False for a user neither SQL nor the memory-service has seen
    degraded: bool = False  # True when the store failed and defaults stand in
    hydrated: bool = False  # True when SQL did not know the user and the memory-service did


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


@dataclass(frozen=True, slots=True)
class FlushResult:
    sent: int  # outbox rows delivered in this run (coalesced rows count each)
    failed: int  # rows whose delivery failed in this run (they stay pending)
    pending: int  # rows still waiting after this run


@dataclass(slots=True)
class _Unit:
    """One call to the memory-service: a run of a user's consecutive outbox rows for
    the same key, coalesced into the latest payload (upserts) or a single delete."""

    user_id: str
    fact_key: str
    operation: str
    payload: dict[str, Any] | None
    ids: list[int] = field(default_factory=list)


def user_from_row(row: UserProfileRow) -> UserProfile:
    return UserProfile.model_validate({name: getattr(row, name) for name in _USER_FIELDS})


def farm_from_row(row: FarmProfileRow) -> FarmProfile:
    return FarmProfile.model_validate({name: getattr(row, name) for name in _FARM_FIELDS})


def _user_columns(profile: UserProfile) -> dict[str, Any]:
    values = profile.model_dump()
    values["recent_topics"] = [topic.model_dump(mode="json") for topic in profile.recent_topics]
    if values["updated_at"] is None:
        del values["updated_at"]  # the column's server default fills it
    return values


def _farm_columns(farm: FarmProfile) -> dict[str, Any]:
    values = farm.model_dump()
    as_json = farm.model_dump(mode="json")
    for name in ("seasonal_context", "iot_sensors", "alert_thresholds"):
        values[name] = as_json[name]
    if values["updated_at"] is None:
        del values["updated_at"]
    return values


def _explain(exc: ValidationError) -> str:
    """One readable line per problem, named by the key the caller used."""
    parts = []
    for error in exc.errors(include_url=False, include_input=False):
        loc = [str(part) for part in error["loc"]]
        if len(loc) > 1 and loc[0] in ("seasonal_context", "iot_sensors", "alert_thresholds"):
            loc = loc[1:]
        message = str(error["msg"]).removeprefix("Value error, ")
        parts.append(f"{'.'.join(loc)}: {message}" if loc else message)
    return "; ".join(parts)


class MemoryManager:
    def __init__(
        self,
        *,
        client: MemoryServiceClient | None = None,
        cache: ProfileCache | None = None,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self._client = client
        self._cache = cache if cache is not None else ProfileCache()
        self._clock = clock
        # One flush at a time in this process; across instances the scheduler's
        # job lock (job_runs) keeps it to one.
        self._flush_lock = asyncio.Lock()
        # Group commit of interactions, per database (tests may use several).
        self._pending: dict[Any, list[tuple[InteractionRecord, asyncio.Future[None]]]] = {}
        self._writers: dict[Any, asyncio.Task[None]] = {}

    @property
    def client(self) -> MemoryServiceClient | None:
        return self._client

    @property
    def cache(self) -> ProfileCache:
        return self._cache

    @property
    def breaker_state(self) -> str:
        return "disabled" if self._client is None else self._client.breaker.state

    # -- reading ---------------------------------------------------------------

    async def load(self, session: AsyncSession, user_id: str) -> Loaded:
        """Cache, then SQL, then (for a user SQL does not know) the memory-service,
        then a valid default. Never raises."""
        try:
            return await self._load(session, user_id)
        except Exception:
            logger.exception("memory: load failed user=%s", user_id)
            await _rollback_quietly(session)
            return Loaded(UserProfile.default(user_id), FarmProfile.default(user_id), True, True)

    async def _load(self, session: AsyncSession, user_id: str) -> Loaded:
        cached = self._cache.get(user_id)
        if cached is not None:
            return Loaded(cached.profile, cached.farm, True)
        token = self._cache.token()
        try:
            user_row = await repo.get_user(session, user_id)
            farm_row = await repo.get_farm(session, user_id) if user_row else None
            profile = user_from_row(user_row) if user_row else None
            farm = farm_from_row(farm_row) if farm_row else FarmProfile.default(user_id)
            # End the read now: on SQLite it holds the write lock (BEGIN IMMEDIATE),
            # and the memory-service call below must not run inside a transaction.
            await session.commit()
        except Exception:
            logger.warning("memory: fallback to default profile user=%s", user_id, exc_info=True)
            await _rollback_quietly(session)
            return Loaded(UserProfile.default(user_id), FarmProfile.default(user_id), True, True)
        if profile is not None:
            if farm_row is not None:
                self._cache.put(user_id, CachedProfiles(profile, farm), token)
            return Loaded(profile, farm, True)
        hydrated = await self._hydrate(session, user_id)
        if hydrated is not None:
            return hydrated
        return Loaded(UserProfile.default(user_id), FarmProfile.default(user_id), False)

    async def _hydrate(self, session: AsyncSession, user_id: str) -> Loaded | None:
        """The memory-service's copy of a user SQL does not know (a restored or moved
        database), stored into SQL. Garbage is ignored; SQL rows are never overwritten
        (insert-if-absent only)."""
        if self._client is None:
            return None
        facts = await self._client.get_facts(
            user_id, (user_fact_key(user_id), farm_fact_key(user_id))
        )
        if not facts:
            return None
        profile = _parse(UserProfile.from_seed_json, facts.get(user_fact_key(user_id)), user_id)
        if profile is None:
            return None
        farm = _parse(FarmProfile.from_seed_json, facts.get(farm_fact_key(user_id)), user_id)
        farm = farm or FarmProfile.default(user_id)
        try:
            await repo.insert_ignore(session, UserProfileRow, _user_columns(profile))
            await repo.insert_ignore(session, FarmProfileRow, _farm_columns(farm))
            await session.commit()
            logger.info("memory: hydrated user=%s from the memory-service", user_id)
        except Exception:
            # The profile is still good for this message; the next one retries.
            logger.warning("memory: could not store hydrated user=%s", user_id, exc_info=True)
            await _rollback_quietly(session)
        finally:
            self._cache.invalidate(user_id)
        return Loaded(profile, farm, True, hydrated=True)

    # -- recording an interaction ------------------------------------------------

    async def record_interaction(self, session: AsyncSession, record: InteractionRecord) -> None:
        """Profile counters, the interaction row and the outbox row, committed before
        this returns. Never raises.

        Concurrent calls are written together (group commit): while one batch is
        being written the next ones queue, and the next batch takes all of them in
        one transaction. On SQLite every transaction serialises on the one writer,
        so one transaction for N messages instead of N is what keeps the light path
        fast under load; each caller still waits until its own record is committed.
        """
        bind = session.bind
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue = self._pending.setdefault(bind, [])
        queue.append((record, future))
        writer = self._writers.get(bind)
        if writer is None or writer.done():
            self._writers[bind] = asyncio.create_task(self._drain(bind))
        # Shielded: a caller that is cancelled must not take its record with it.
        await asyncio.shield(future)

    async def drain(self) -> None:
        """Wait for every queued interaction to be written (call before shutdown)."""
        while any(not task.done() for task in self._writers.values()):
            await asyncio.gather(*self._writers.values(), return_exceptions=True)

    async def _drain(self, bind: Any) -> None:
        queue = self._pending[bind]
        while queue:
            batch = queue[:]
            del queue[:]
            try:
                await self._write_batch(bind, [record for record, _ in batch])
            finally:
                # Even if the writer itself is cancelled (shutdown), nobody may be
                # left waiting for a batch that will not be written.
                for _, future in batch:
                    if not future.done():
                        future.set_result(None)

    async def _write_batch(self, bind: Any, records: list[InteractionRecord]) -> None:
        async with AsyncSession(bind=bind, expire_on_commit=False) as session:
            try:
                written = await self._record(session, records)
                await session.commit()
            except Exception:
                await _rollback_quietly(session)
                if len(records) > 1:
                    # One bad record must not cost the others: write them one by one.
                    for record in records:
                        await self._write_batch(bind, [record])
                    return
                record = records[0]
                logger.exception(
                    "memory: update failed user=%s trace=%s", record.user_id, record.trace_id
                )
                self._cache.invalidate(record.user_id)
                return
        for user_id in {record.user_id for record in records}:
            cached = written.get(user_id)
            if cached is None:
                self._cache.invalidate(user_id)
            else:
                # The next message's load is served from the cache: no SQL read.
                self._cache.write_through(user_id, *cached)

    async def _record(
        self, session: AsyncSession, records: Sequence[InteractionRecord]
    ) -> dict[str, tuple[CachedProfiles, int]]:
        """Applies the interactions; returns per user what was written (for the
        cache) with the cache sequence taken under the row locks."""
        now = self._clock()
        user_ids = list(dict.fromkeys(record.user_id for record in records))
        rows = {row.user_id: row for row in await repo.lock_users(session, user_ids)}
        for record in records:
            if record.user_id not in rows:
                rows[record.user_id] = await self._ensure_user(
                    session, record.user_id, now, name=record.name, language=record.language
                )
        seq = self._cache.sequence()
        for record in records:
            self._apply(session, rows[record.user_id], record, now)
        # Profiles first: the farm query below autoflushes, which expires
        # server-generated columns of the rows on PostgreSQL.
        profiles = {
            user_id: self._enqueue_user(session, rows[user_id], now) for user_id in user_ids
        }
        cached_farms = {user_id: self._cache.get(user_id) for user_id in user_ids}
        missing = [user_id for user_id, hit in cached_farms.items() if hit is None]
        farm_rows = {row.user_id: row for row in await repo.get_farms(session, missing)}
        written: dict[str, tuple[CachedProfiles, int]] = {}
        for user_id in user_ids:
            profile = profiles[user_id]
            hit, farm_row = cached_farms[user_id], farm_rows.get(user_id)
            # Every farm writer locks the user row first, so this farm is what commits.
            farm = hit.farm if hit is not None else None
            if farm is None and farm_row is not None:
                farm = _valid(farm_from_row, farm_row)
            if profile is not None and farm is not None:
                written[user_id] = (CachedProfiles(profile, farm), seq)
        return written

    def _apply(
        self, session: AsyncSession, row: UserProfileRow, record: InteractionRecord, now: datetime
    ) -> None:
        intent = record.decision.intent
        # The row is locked (FOR UPDATE / BEGIN IMMEDIATE) until commit, so these
        # read-modify-writes cannot interleave with another writer's.
        row.interaction_count = (row.interaction_count or 0) + 1
        row.last_seen = record.at
        # Whoever writes to us has not blocked us (any more).
        row.active = True
        if row.name is None and record.name:
            row.name = record.name
        topics = [*(row.recent_topics or []), {"intent": intent, "ts": record.at.isoformat()}]
        row.recent_topics = topics[-RECENT_TOPICS_KEPT:]
        if intent and intent not in (row.known_intents or []):
            row.known_intents = [*(row.known_intents or []), intent]
        level = _rule_level(row)
        if level is not None:
            logger.info(
                "memory: expertise %s -> %s user=%s", row.expertise_level, level, row.user_id
            )
            row.expertise_level = level
        row.updated_at = now
        session.add(
            InteractionRow(
                trace_id=record.trace_id,
                user_id=row.user_id,
                chat_id=record.chat_id,
                mode=record.decision.mode,
                intent=intent,
                crew=list(record.crew),
                confidence=record.decision.confidence,
                reason=record.decision.reason[:128],
                latency_ms=record.latency_ms,
                text=record.text,
                created_at=record.at,
            )
        )

    async def _ensure_user(
        self,
        session: AsyncSession,
        user_id: str,
        now: datetime,
        *,
        name: str | None = None,
        language: Language | None = None,
    ) -> UserProfileRow:
        """The user's row, locked; created (with a farm) on first contact."""
        row = await repo.lock_user(session, user_id)
        if row is not None:
            return row
        user = UserProfile.default(user_id)
        user = user.model_copy(
            update={"name": name, "preferred_language": language or "uk", "updated_at": now}
        )
        await repo.insert_ignore(session, UserProfileRow, _user_columns(user))
        farm = FarmProfile(farm_id=new_farm_id(), user_id=user_id, updated_at=now)
        if await repo.insert_ignore(session, FarmProfileRow, _farm_columns(farm)):
            self._enqueue(session, user_id, farm.fact_key, farm.to_seed_json(), now)
        row = await repo.lock_user(session, user_id)
        if row is None:  # pragma: no cover - inserted just above
            raise RuntimeError(f"profile row vanished for {user_id}")
        return row

    # -- profile changes -----------------------------------------------------------

    async def set_style(self, session: AsyncSession, user_id: str, style: Style) -> bool:
        """The reply style; False if the value is not a style, the user is unknown, or
        it could not be saved."""
        if style not in STYLES:
            return False

        async def change(row: UserProfileRow) -> None:
            row.preferred_style = style

        return await self._change_user(session, user_id, change)

    async def set_expertise(
        self, session: AsyncSession, user_id: str, level: Expertise, *, by_operator: bool
    ) -> bool:
        """An operator's choice locks the level (auto-upgrade never touches it again);
        anyone else's choice is refused while an operator's lock stands."""
        if level not in EXPERTISE_LEVELS:
            return False

        async def change(row: UserProfileRow) -> bool:
            if row.expertise_locked and not by_operator:
                return False
            row.expertise_level = level
            row.expertise_locked = row.expertise_locked or by_operator
            return True

        return await self._change_user(session, user_id, change)

    async def update_user(
        self, session: AsyncSession, user_id: str, **changes: Any
    ) -> UserProfile | None:
        """Validated changes to the user profile (``USER_EDITABLE``); creates the user
        if missing. ValueError for unknown keys or invalid values; None if the
        database failed."""
        unknown = set(changes) - USER_EDITABLE
        if "expertise_level" in unknown:
            raise ValueError("expertise_level: use set_expertise")
        if unknown:
            raise ValueError(
                f"unknown profile field(s) {', '.join(sorted(unknown))}; "
                f"expected {', '.join(sorted(USER_EDITABLE))}"
            )
        _validate_user(UserProfile.default(user_id), changes)  # fail before any SQL

        async def change(session: AsyncSession, now: datetime) -> UserProfile:
            row = await self._ensure_user(session, user_id, now)
            profile = _validate_user(user_from_row(row), changes)
            for name in changes:
                setattr(row, name, getattr(profile, name))
            row.updated_at = now
            self._enqueue_user(session, row, now)
            return user_from_row(row)

        return await self._write(session, user_id, change, "update_user")

    async def update_farm(
        self, session: AsyncSession, user_id: str, **changes: Any
    ) -> FarmProfile | None:
        """Validated changes to the farm (``FARM_EDITABLE``, nested fields by their
        own names: current_phase, has_iot_integration, temperature_min ...); creates
        the rows if missing. ValueError naming the key for anything invalid; None if
        the database failed."""
        unknown = set(changes) - FARM_EDITABLE
        if unknown:
            raise ValueError(
                f"unknown farm field(s) {', '.join(sorted(unknown))}; "
                f"expected {', '.join(sorted(FARM_EDITABLE))}"
            )
        _validate_farm(FarmProfile.default(user_id), changes)  # fail before any SQL

        async def change(session: AsyncSession, now: datetime) -> FarmProfile:
            await self._ensure_user(session, user_id, now)
            farm_row = await repo.lock_farm(session, user_id)
            if farm_row is None:
                # Possible for a user hydrated without a farm; create it now.
                base = FarmProfile(farm_id=new_farm_id(), user_id=user_id, updated_at=now)
                await repo.insert_ignore(session, FarmProfileRow, _farm_columns(base))
                farm_row = await repo.lock_farm(session, user_id)
                if farm_row is None:  # pragma: no cover - inserted just above
                    raise RuntimeError(f"farm row vanished for {user_id}")
            farm = _validate_farm(farm_from_row(farm_row), changes)
            farm = farm.model_copy(update={"updated_at": now})
            columns = _farm_columns(farm)
            touched = {FARM_NESTED.get(name, name) for name in changes}
            for name in touched:
                setattr(farm_row, name, columns[name])
            farm_row.updated_at = now
            self._enqueue(session, user_id, farm.fact_key, farm.to_seed_json(), now)
            return farm

        return await self._write(session, user_id, change, "update_farm")

    async def forget(self, session: AsyncSession, user_id: str) -> None:
        """Delete everything Stepan keeps about the user, in one transaction, and queue
        deletes for the memory-service. Raises if the database failed (after rolling
        back), so nobody is told their data is gone when it is not."""
        try:
            await repo.delete_user_data(session, user_id)
            await outbox.delete_for_user(session, user_id)
            if self._client is not None:
                now = self._clock()
                for key in (user_fact_key(user_id), farm_fact_key(user_id)):
                    outbox.enqueue(session, user_id, key, "delete", None, now)
            await session.commit()
            logger.info("memory: forgot user=%s", user_id)
        except Exception:
            logger.exception("memory: forget failed user=%s", user_id)
            await _rollback_quietly(session)
            raise
        finally:
            self._cache.invalidate(user_id)

    async def set_active(self, session: AsyncSession, user_id: str, active: bool) -> None:
        """Not part of the seed JSON, so no outbox row. Never raises."""
        try:
            await repo.set_active(session, user_id, active)
            await session.commit()
        except Exception:
            logger.exception("memory: set_active failed user=%s", user_id)
            await _rollback_quietly(session)

    async def auto_upgrade_sweep(self, session: AsyncSession) -> int:
        """The daily job: apply the expertise rule to every user it might move up (a
        rule change, or an operator unlocking a level). Returns how many moved."""
        upgraded = 0
        after = ""
        while True:
            changed: list[str] = []
            try:
                candidates = await repo.upgrade_candidates(
                    session,
                    min_interactions=INTERMEDIATE_MIN_INTERACTIONS,
                    after=after,
                    limit=SWEEP_CHUNK,
                )
                now = self._clock()
                for candidate in candidates:
                    if _rule_level(candidate) is None:
                        continue  # the common case: checked without locking anything
                    row = await repo.lock_user(session, candidate.user_id)
                    level = _rule_level(row) if row is not None else None
                    if row is None or level is None:
                        continue
                    row.expertise_level = level
                    row.updated_at = now
                    self._enqueue_user(session, row, now)
                    changed.append(row.user_id)
                await session.commit()
            except Exception:
                await _rollback_quietly(session)
                raise
            finally:
                for user_id in changed:
                    self._cache.invalidate(user_id)
            upgraded += len(changed)
            if len(candidates) < SWEEP_CHUNK:
                return upgraded
            after = candidates[-1].user_id

    def expire_cache(self) -> int:
        return self._cache.expire()

    # -- the outbox ------------------------------------------------------------------

    async def outbox_backlog(self, session: AsyncSession) -> int:
        """Rows not yet delivered to the memory-service."""
        try:
            return await outbox.backlog(session)
        finally:
            await _rollback_quietly(session)

    async def flush_outbox(
        self, session_factory: async_sessionmaker[AsyncSession], *, batch: int = 100
    ) -> FlushResult:
        """Send up to ``batch`` pending outbox rows, oldest first. A user whose call
        fails keeps their later rows back (their order holds); other users go on.
        Network trouble never raises; a database error does (the job records it)."""
        if self._client is None:
            return FlushResult(0, 0, 0)
        async with self._flush_lock:
            return await self._flush(self._client, session_factory, batch)

    async def _flush(
        self,
        client: MemoryServiceClient,
        session_factory: async_sessionmaker[AsyncSession],
        batch: int,
    ) -> FlushResult:
        if client.breaker.state == "open":
            # Nothing may be sent before the cool-down ends, so do not even read the
            # outbox: during a long outage it grows, and on SQLite every read takes
            # the write lock that conversations need.
            async with session_factory() as session:
                pending = await outbox.backlog(session)
                await session.commit()
            return FlushResult(0, 0, pending)
        async with session_factory() as session:
            rows = await outbox.pending(session, limit=batch, per_user=FLUSH_PER_USER)
            await session.commit()
        if not rows and client.breaker.state == "half_open":
            # Nothing to send, but conversations wait for a closed breaker to hydrate.
            await client.probe()
        sent: list[int] = []
        sent_deletes: list[int] = []
        failures: list[tuple[list[int], str]] = []
        blocked: set[str] = set()
        for unit in _plan(rows):
            if unit.user_id in blocked:
                continue
            outcome = await self._send(client, unit)
            if outcome.status == "skipped":
                break  # breaker open: nothing more is tried until the cool-down ends
            if outcome.status == "ok":
                (sent_deletes if unit.operation == "delete" else sent).extend(unit.ids)
                continue
            blocked.add(unit.user_id)
            failures.append((unit.ids, outcome.error or outcome.status))
        now = self._clock()
        async with session_factory() as session:
            delivered = await outbox.mark_sent(session, sent, now)
            # Delete rows exist so the memory-service forgets too; once it has,
            # nothing of the user may stay behind (forget's promise).
            delivered += await outbox.delete_ids(session, sent_deletes)
            for ids, error in failures:
                await outbox.record_failure(session, ids, error)
            await outbox.prune_sent(session, now - SENT_RETENTION)
            pending = await outbox.backlog(session)
            await session.commit()
        failed = sum(len(ids) for ids, _ in failures)
        if delivered or failed:
            logger.info("memory: outbox sent=%d failed=%d pending=%d", delivered, failed, pending)
        return FlushResult(delivered, failed, pending)

    @staticmethod
    async def _send(client: MemoryServiceClient, unit: _Unit) -> Outcome:
        if unit.operation == "delete":
            return await client.delete(unit.user_id, unit.fact_key)
        if unit.operation == "upsert" and unit.payload is not None:
            return await client.upsert(unit.user_id, unit.fact_key, unit.payload)
        return Outcome("rejected", f"malformed outbox row: {unit.operation}")

    # -- helpers -----------------------------------------------------------------------

    def _enqueue(
        self,
        session: AsyncSession,
        user_id: str,
        fact_key: str,
        payload: dict[str, Any],
        now: datetime,
    ) -> None:
        # Without a memory-service there is nobody to send to: no rows at all.
        if self._client is not None:
            outbox.enqueue(session, user_id, fact_key, "upsert", payload, now)

    def _enqueue_user(
        self, session: AsyncSession, row: UserProfileRow, now: datetime
    ) -> UserProfile | None:
        """Queue the row's seed JSON; returns the validated profile (None if invalid)."""
        profile = _valid(user_from_row, row)
        if profile is None:
            # A hand-edited row SQL accepts but the model does not: keep the SQL
            # change (the truth) and skip the copy rather than lose the interaction.
            logger.warning("memory: profile of user=%s is invalid, not synced", row.user_id)
            return None
        self._enqueue(session, row.user_id, user_fact_key(row.user_id), profile.to_seed_json(), now)
        return profile

    async def _change_user(
        self,
        session: AsyncSession,
        user_id: str,
        change: Callable[[UserProfileRow], Awaitable[bool | None]],
    ) -> bool:
        """Lock an existing user, apply ``change`` (None or True: changed), enqueue,
        commit. False when the user is unknown, the change refused, or SQL failed."""
        try:
            row = await repo.lock_user(session, user_id)
            if row is None or await change(row) is False:
                await session.rollback()
                return False
            now = self._clock()
            row.updated_at = now
            self._enqueue_user(session, row, now)
            await session.commit()
            return True
        except Exception:
            logger.exception("memory: profile change failed user=%s", user_id)
            await _rollback_quietly(session)
            return False
        finally:
            self._cache.invalidate(user_id)

    async def _write(
        self,
        session: AsyncSession,
        user_id: str,
        change: Callable[[AsyncSession, datetime], Awaitable[T]],
        what: str,
    ) -> T | None:
        try:
            result = await change(session, self._clock())
            await session.commit()
            return result
        except ValueError as exc:
            await _rollback_quietly(session)
            if isinstance(exc, ValidationError):
                raise ValueError(_explain(exc)) from None
            raise
        except Exception:
            logger.exception("memory: %s failed user=%s", what, user_id)
            await _rollback_quietly(session)
            return None
        finally:
            self._cache.invalidate(user_id)


def _valid(convert: Callable[[R], T], row: R) -> T | None:
    try:
        return convert(row)
    except ValidationError:
        return None


def _rule_level(row: UserProfileRow) -> Expertise | None:
    return upgraded_level(
        row.expertise_level,
        interaction_count=row.interaction_count or 0,
        known_intents=row.known_intents or [],
        locked=row.expertise_locked,
    )


def _plan(rows: Sequence[OutboxRow]) -> list[_Unit]:
    """Calls to make, in the order of their first row: per user, consecutive upserts
    of the same key collapse into the latest one (it carries the whole profile)."""
    last_unit: dict[str, _Unit] = {}
    units: list[_Unit] = []
    for row in rows:
        previous = last_unit.get(row.user_id)
        if (
            previous is not None
            and row.operation == "upsert"
            and previous.operation == "upsert"
            and previous.fact_key == row.fact_key
        ):
            previous.payload = row.payload
            previous.ids.append(row.id)
            continue
        unit = _Unit(row.user_id, row.fact_key, row.operation, row.payload, [row.id])
        units.append(unit)
        last_unit[row.user_id] = unit
    return units


def _validate_user(base: UserProfile, changes: dict[str, Any]) -> UserProfile:
    try:
        return UserProfile.model_validate({**base.model_dump(), **changes})
    except ValidationError as exc:
        raise ValueError(_explain(exc)) from None


def _validate_farm(base: FarmProfile, changes: dict[str, Any]) -> FarmProfile:
    data = base.model_dump()
    for name, value in changes.items():
        group = FARM_NESTED.get(name)
        if group is None:
            data[name] = value
        else:
            data[group] = {**data[group], name: value}
    try:
        return FarmProfile.model_validate(data)
    except ValidationError as exc:
        raise ValueError(_explain(exc)) from None


def _parse(parser: Callable[[Any, str], T], value: dict[str, Any] | None, user_id: str) -> T | None:
    if value is None:
        return None
    try:
        return parser(value, user_id)
    except (ValueError, TypeError) as exc:
        logger.warning("memory: ignored a malformed fact for user=%s: %s", user_id, exc)
        return None


async def _rollback_quietly(session: AsyncSession) -> None:
    try:
        await session.rollback()
    except Exception:
        logger.debug("memory: rollback failed", exc_info=True)
