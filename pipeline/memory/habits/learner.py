"""Profiles that learn from use (seed sections 5-6): the service that reads what was
observed and writes what the rules of ``pipeline/rules/profiles.toml`` conclude.

* the journal: fields and crops of written operations join the farm profile, and
  the season (month, active operations, the phase unless an operator locked it)
  follows the last two weeks of it;
* sensor readings: the first one of a farm turns the IoT integration on;
* an operator's switch on the /farm card turns it on or off;
* the daily sweep: typical intents over their window and the season for every farm
  (the calendar moves even when nobody writes);
* the operator flag mirrors AGX_OPERATOR_IDS.

Every change is one short transaction that writes the row and queues the whole
profile for the memory-service through the outbox; nothing here raises out of the
observation calls (a failed lesson is logged, the farmer's answer is not affected).
The rules themselves are pure functions in ``pipeline.memory.habits.observed``.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Awaitable, Callable, Collection, Iterable, Sequence
from datetime import datetime
from typing import Any

from db.models import FarmProfileRow
from db.repositories import profile_learning as learn_repo
from db.repositories import profiles as repo
from db.uow import Database, Session
from pipeline.clock import Clock
from pipeline.farm.localtime import local_today
from pipeline.memory.habits.observed import (
    IntentCount,
    JournalOp,
    season,
    season_window,
    typical_intents,
    typical_window_start,
)
from pipeline.memory.habits.rules import LearningRules, TypicalIntentRules
from pipeline.memory.profiles.cache import ProfileCache
from pipeline.memory.profiles.rows import (
    FARM_NESTED,
    farm_columns,
    farm_from_row,
    valid,
    validate_farm,
)
from pipeline.memory.profiles.writer import ProfileWriter
from pipeline.memory.service.outbox import Outbox
from pipeline.profiles import FarmProfile

logger = logging.getLogger(__name__)

#: What one observation teaches a locked farm row: ``update_farm`` changes.
Lesson = Callable[[Session, FarmProfileRow, datetime], Awaitable[dict[str, Any]]]

#: Farms per sweep transaction (keeps SQLite's write lock short).
SWEEP_CHUNK = 20


def apply_farm_changes(
    session: Session,
    outbox: Outbox,
    row: FarmProfileRow,
    changes: dict[str, Any],
    now: datetime,
) -> FarmProfile | None:
    """Write ``changes`` (``update_farm`` names) to the locked row and queue the farm
    for the memory-service; None when nothing actually changes (nothing is written
    or queued) or the stored row is not a valid profile."""
    current = valid(farm_from_row, row)
    if current is None or not changes:
        return None
    learned = validate_farm(current, changes)
    if learned == current:
        return None
    learned = learned.model_copy(update={"updated_at": now})
    columns = farm_columns(learned)
    for name in {FARM_NESTED.get(name, name) for name in changes}:
        setattr(row, name, columns[name])
    row.updated_at = now
    outbox.upsert(session, row.user_id, learned.fact_key, learned.to_seed_json(), now)
    return learned


async def learned_typical_intents(
    session: Session, user_ids: Sequence[str], now: datetime, rules: TypicalIntentRules
) -> dict[str, list[str]]:
    """Each user's typical intents over the window (users with none map to [])."""
    counts: dict[str, list[IntentCount]] = defaultdict(list)
    since = typical_window_start(now, rules)
    for user_id, intent, count, last in await learn_repo.intent_counts(session, user_ids, since):
        counts[user_id].append(IntentCount(intent, int(count), last))
    return {user_id: typical_intents(counts[user_id], rules) for user_id in user_ids}


class ProfileLearner(ProfileWriter):
    def __init__(
        self,
        db: Database,
        cache: ProfileCache,
        outbox: Outbox,
        clock: Clock,
        rules: LearningRules,
    ) -> None:
        super().__init__(db, cache, outbox, clock)
        self._rules = rules

    @property
    def rules(self) -> LearningRules:
        return self._rules

    # ------------------------------------------------------------------ observations

    async def journal_written(
        self, user_id: str, *, fields: Iterable[str | None], crops: Iterable[str | None]
    ) -> FarmProfile | None:
        """Operations were written to the journal: their fields and crops join the
        farm, and the season follows the journal. Never raises."""

        async def learn(session: Session, row: FarmProfileRow, now: datetime) -> dict[str, Any]:
            changes = (await self._season_changes(session, [row], now)).get(row.farm_id, {})
            for name, new in (("field_ids", fields), ("crop_ids", crops)):
                known = list(getattr(row, name) or [])
                added = [value for value in dict.fromkeys(new) if value and value not in known]
                if added:
                    changes[name] = [*known, *added]
            return changes

        return await self._learn(user_id, learn, "journal")

    async def sensors_seen(
        self, farm_id: str, *, sources: Collection[str], sensor_types: Collection[str]
    ) -> FarmProfile | None:
        """Readings of a farm were stored. The first one sets has_iot_integration and
        adds the integration its source means; new sensor types join (none of it
        while an operator has the farm's sensors switched off). Readings come
        every few minutes: a read decides first, and only a farm that learns
        something takes a write transaction. Never raises."""
        try:
            async with self._db.read() as session:
                row = await learn_repo.farm_by_id(session, farm_id)
                if row is None or not self._iot_changes(row, sources, sensor_types):
                    return None
                user_id = row.user_id
        except Exception:
            logger.exception("memory: reading the farm for sensors failed farm=%s", farm_id)
            return None

        async def learn(session: Session, row: FarmProfileRow, now: datetime) -> dict[str, Any]:
            return self._iot_changes(row, sources, sensor_types)

        return await self._learn(user_id, learn, "sensors")

    async def set_iot(self, user_id: str, on: bool) -> FarmProfile | None:
        """An operator's switch on the /farm card: sensors on adds the operator's
        integration, off removes every sensor integration and stays off (readings no
        longer switch it on, nor raise alerts) until an operator's on. None when nothing changed
        or the database failed."""
        integrations = self._rules.integrations

        async def learn(session: Session, row: FarmProfileRow, now: datetime) -> dict[str, Any]:
            current = list(row.active_integrations or [])
            if on:
                wanted = (
                    current
                    if integrations.operator in current
                    else [*current, integrations.operator]
                )
            else:
                wanted = [name for name in current if name not in integrations.sensor_integrations]
            # Off stays off: the next reading must not switch it back on.
            return {
                "has_iot_integration": on,
                "active_integrations": wanted,
                "switched_off": not on,
            }

        return await self._learn(user_id, learn, "set_iot")

    async def refresh(self, user_id: str) -> FarmProfile | None:
        """Typical intents and the season of one farm, now (after an operator's
        "phase: auto", and by tests). None when nothing changed."""

        async def learn(session: Session, row: FarmProfileRow, now: datetime) -> dict[str, Any]:
            return (await self._farm_lessons(session, [row], now)).get(row.farm_id, {})

        return await self._learn(user_id, learn, "refresh")

    # ------------------------------------------------------------------ sweeps

    async def sweep(self) -> int:
        """The daily job: typical intents and the season of every farm, in chunks of
        ``SWEEP_CHUNK`` farms per transaction. Returns how many farms changed; a
        database error raises (the job records it)."""
        changed_total = 0
        after = ""
        while True:
            changed: list[str] = []
            try:
                async with self._db.write() as session:
                    rows = list(await learn_repo.farms_after(session, after, SWEEP_CHUNK))
                    now = self._clock()
                    lessons = await self._farm_lessons(session, rows, now)
                    for row in rows:
                        if apply_farm_changes(
                            session, self._outbox, row, lessons.get(row.farm_id, {}), now
                        ):
                            changed.append(row.user_id)
            finally:
                for user_id in changed:
                    self._cache.invalidate(user_id)
            changed_total += len(changed)
            if len(rows) < SWEEP_CHUNK:
                return changed_total
            after = rows[-1].user_id

    async def sync_operators(self, operator_user_ids: Collection[str]) -> int:
        """The operator flag of every stored profile made equal to AGX_OPERATOR_IDS
        (at start-up: an operator removed from the list is one no longer). Returns how
        many profiles changed; raises on a database error."""
        wanted = sorted(operator_user_ids)
        changed: list[str] = []
        try:
            async with self._db.write() as session:
                now = self._clock()
                for user_id in await learn_repo.operator_mismatches(session, wanted):
                    row = await repo.lock_user(session, user_id)
                    if row is None:
                        continue
                    row.operator = user_id in operator_user_ids
                    row.updated_at = now
                    self._outbox.upsert_user(session, row, now)
                    changed.append(user_id)
        finally:
            for user_id in changed:
                self._cache.invalidate(user_id)
        if changed:
            logger.info("memory: operator flag corrected for %d profiles", len(changed))
        return len(changed)

    # ------------------------------------------------------------------ helpers

    async def _learn(self, user_id: str, learn: Lesson, what: str) -> FarmProfile | None:
        """Lock the user (every farm writer locks the user row first) and the farm,
        ask ``learn`` for the changes, write them. Never raises. The cache entry is
        invalidated unless a commit wrote nothing (a lesson that changes nothing, as
        most journal writes are, keeps the farmer's next message a cache hit)."""
        learned: FarmProfile | None = None
        committed = False
        try:
            async with self._db.write() as session:
                if await repo.lock_user(session, user_id) is None:
                    return None
                row = await repo.lock_farm(session, user_id)
                if row is None:
                    return None
                now = self._clock()
                learned = apply_farm_changes(
                    session, self._outbox, row, await learn(session, row, now), now
                )
            committed = True
            return learned
        except Exception:
            logger.exception("memory: learning from %s failed user=%s", what, user_id)
            return None
        finally:
            if learned is not None or not committed:
                self._cache.invalidate(user_id)

    def _iot_changes(
        self, row: FarmProfileRow, sources: Collection[str], sensor_types: Collection[str]
    ) -> dict[str, Any]:
        changes: dict[str, Any] = {}
        sensors = row.iot_sensors or {}
        if sensors.get("switched_off"):  # an operator's off: readings teach nothing
            return changes
        if not sensors.get("has_iot_integration"):
            changes["has_iot_integration"] = True
        current = list(row.active_integrations or [])
        added = [
            name
            for name in dict.fromkeys(self._rules.integrations.of_source(s) for s in sources)
            if name not in current
        ]
        if added:
            changes["active_integrations"] = [*current, *added]
        known = list(sensors.get("sensor_types") or [])
        new_types = [name for name in dict.fromkeys(sensor_types) if name not in known]
        if new_types:
            changes["sensor_types"] = [*known, *new_types]
        return changes

    async def _farm_lessons(
        self, session: Session, rows: Sequence[FarmProfileRow], now: datetime
    ) -> dict[str, dict[str, Any]]:
        """farm_id -> the changes typical intents and the season call for."""
        lessons = await self._season_changes(session, rows, now)
        typical = await learned_typical_intents(
            session, [row.user_id for row in rows], now, self._rules.typical_intents
        )
        for row in rows:
            if typical[row.user_id] != list(row.typical_intents or []):
                lessons.setdefault(row.farm_id, {})["typical_intents"] = typical[row.user_id]
        return lessons

    async def _season_changes(
        self, session: Session, rows: Sequence[FarmProfileRow], now: datetime
    ) -> dict[str, dict[str, Any]]:
        rules = self._rules.season
        today = {row.farm_id: local_today(now, row.timezone) for row in rows}
        if not rows:
            return {}
        start = min(season_window(day, rules)[0] for day in today.values())
        end = max(season_window(day, rules)[1] for day in today.values())
        ops: dict[str, list[JournalOp]] = defaultdict(list)
        for farm_id, op_type, op_date, status in await learn_repo.journal_ops(
            session, list(today), start, end
        ):
            ops[farm_id].append(JournalOp(op_type, op_date, status))
        lessons: dict[str, dict[str, Any]] = {}
        for row in rows:
            seen = season(today[row.farm_id], ops[row.farm_id], rules)
            changes: dict[str, Any] = {
                "approximate_month": seen.approximate_month,
                "active_operations": seen.active_operations,
            }
            if seen.phase is not None and not row.phase_locked:
                changes["current_phase"] = seen.phase
            lessons[row.farm_id] = changes
        return lessons
