"""Threshold alerts from sensor readings: Stepan writes first (DESIGN.md).

The ``sensor_watch`` job runs ``AlertWatcher.run`` every few minutes. For every
farm with recent readings it compares the NEWEST reading per (field, sensor type)
with the farm's ``alert_thresholds``:

* a breach with no open episode opens one (an ``alerts`` row: started_at, the value
  and the threshold) and sets the farm's ``iot_sensors.last_alert``;
* a breach while the episode is open changes nothing: one alert per episode, not
  one per reading;
* a reading back within the thresholds closes the episode (``ended_at``), so the
  next breach is a new episode and alerts again.

An open episode nobody has been told about yet (``notified_at`` NULL) is sent to the
farm's user through an ``AlertSender``; ``notified_at`` is set only after Telegram
took the message, so a failed send is retried on the next run (at least once: a
frost warning lost to a network blip is worse than a rare repeat after a crash).
Users who blocked the bot (active = false) or are not Telegram users get nothing;
their episodes wait, so a user who comes back during the episode still hears of it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from pydantic import ValidationError
from sqlalchemy import exists, select
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import AlertRow, FarmProfileRow, FieldRow, SensorReadingRow, UserProfileRow
from db.uow import Database
from pipeline.clock import Clock, utcnow
from pipeline.farm.reports import sensor_label
from pipeline.farm.sensor_store import LatestReading, latest_readings
from pipeline.farm.sensors import SensorTypes
from pipeline.i18n import Catalog
from pipeline.profiles import AlertThresholds
from pipeline.types import CONSOLE_USER_IDS_FROM, Language

logger = logging.getLogger(__name__)

#: Older readings open no episode: a sensor silent for a day says nothing about
#: now, and an alert about last week's dry spell is noise.
MAX_READING_AGE = timedelta(hours=24)


class AlertSender(Protocol):
    async def send(self, chat_id: int, text: str) -> None:
        """Deliver ``text``; raise RecipientGone if the user blocked the bot."""


class RecipientGone(Exception):
    """The user blocked the bot: they are marked inactive and not tried again."""


class FarmAlertProfiles(Protocol):
    """What the watcher needs of the profile editor (``pipeline.memory.ProfileEditor``)."""

    async def update_farm(self, user_id: str, **changes: Any) -> Any: ...

    async def set_active(self, user_id: str, active: bool) -> None: ...


@dataclass(frozen=True, slots=True)
class Breach:
    kind: str  # below_min | above_max
    threshold: float


@dataclass(frozen=True, slots=True)
class WatchResult:
    farms: int
    opened: int
    closed: int
    sent: int
    failed: int

    def describe(self) -> str:
        return (
            f"farms {self.farms}, opened {self.opened}, closed {self.closed}, "
            f"sent {self.sent}, failed {self.failed}"
        )


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def breach_of(group: str, value: float, limits: AlertThresholds) -> Breach | None:
    """Which threshold ``value`` crosses, if any (a value AT a threshold is fine)."""
    if group == "soil_moisture" and value < limits.soil_moisture_min:
        return Breach("below_min", limits.soil_moisture_min)
    if group == "temperature":
        if value < limits.temperature_min:
            return Breach("below_min", limits.temperature_min)
        if value > limits.temperature_max:
            return Breach("above_max", limits.temperature_max)
    return None


def thresholds_of(raw: dict[str, Any] | None, farm_id: str) -> AlertThresholds:
    """The farm's thresholds with the profile defaults for missing keys (what the
    /farm card shows); the defaults alone for a hand-broken JSON."""
    try:
        return AlertThresholds.model_validate(raw or {})
    except ValidationError:
        logger.warning("alerts: invalid thresholds of farm=%s, using defaults", farm_id)
        return AlertThresholds()


def telegram_chat(user_id: str) -> int | None:
    """``tg:<id>`` -> the private chat id; None for anyone else (console users...)."""
    prefix, _, rest = user_id.partition(":")
    if prefix != "tg" or not rest.isdigit() or int(rest) >= CONSOLE_USER_IDS_FROM:
        return None
    return int(rest)


@dataclass(frozen=True, slots=True)
class _Farm:
    farm_id: str
    user_id: str
    thresholds: AlertThresholds


class AlertWatcher:
    def __init__(
        self,
        sender: AlertSender,
        db: Database,
        profiles: FarmAlertProfiles,
        catalog: Catalog,
        types: SensorTypes,
        *,
        clock: Clock = utcnow,
        max_age: timedelta = MAX_READING_AGE,
    ) -> None:
        self._sender = sender
        self._db = db
        self._profiles = profiles
        self._catalog = catalog
        self._clock = clock
        self._max_age = max_age
        self._types = types
        known = types.types.values()
        self._groups = {kind.name: kind.alerts for kind in known if kind.alerts is not None}

    async def run(self) -> WatchResult:
        """One pass over all farms, then the pending notifications. A database error
        raises (the job records it); a failed send is counted and retried next run.
        Every step is a short transaction of its own; none is open while sending."""
        now = self._clock()
        farms = await self._farms(now)
        opened = closed = 0
        for farm in farms:
            farm_opened, farm_closed = await self._update_episodes(farm, now)
            opened += farm_opened
            closed += farm_closed
            if farm_opened:
                await self._profiles.update_farm(farm.user_id, last_alert=now)
        sent, failed = await self._notify()
        result = WatchResult(len(farms), opened, closed, sent, failed)
        if opened or closed or sent or failed:
            logger.info("alerts: %s", result.describe())
        return result

    async def _farms(self, now: datetime) -> list[_Farm]:
        readings = SensorReadingRow
        recent = exists().where(
            readings.farm_id == FarmProfileRow.farm_id,
            readings.sensor_type.in_(list(self._groups)),
            readings.measured_at >= now - self._max_age,
        )
        async with self._db.read() as session:
            result = await session.execute(
                select(
                    FarmProfileRow.farm_id, FarmProfileRow.user_id, FarmProfileRow.alert_thresholds
                )
                .where(recent)
                .order_by(FarmProfileRow.farm_id)
            )
            rows = result.all()
        return [
            _Farm(r.farm_id, r.user_id, thresholds_of(r.alert_thresholds, r.farm_id)) for r in rows
        ]

    async def _update_episodes(self, farm: _Farm, now: datetime) -> tuple[int, int]:
        async with self._db.write() as session:
            latest = await latest_readings(
                session,
                farm.farm_id,
                sensor_types_in=list(self._groups),
                since=now - self._max_age,
            )
            result = await session.execute(
                select(AlertRow).where(
                    AlertRow.farm_id == farm.farm_id, AlertRow.ended_at.is_(None)
                )
            )
            episodes = {(row.field_id, row.sensor_type): row for row in result.scalars()}
            return self._apply(session, farm, latest, episodes)

    def _apply(
        self,
        session: AsyncSession,
        farm: _Farm,
        latest: Sequence[LatestReading],
        episodes: dict[tuple[str | None, str], AlertRow],
    ) -> tuple[int, int]:
        opened = closed = 0
        for reading in latest:
            breach = breach_of(self._groups[reading.sensor_type], reading.value, farm.thresholds)
            episode = episodes.get((reading.field_id, reading.sensor_type))
            if episode is not None and breach is not None and episode.kind == breach.kind:
                continue  # still the same episode: already alerted (or pending)
            if episode is not None:
                # Recovered, or crossed straight to the other threshold (frost to heat
                # in five minutes is a broken probe, but it is a different alert).
                episode.ended_at = reading.measured_at
                closed += 1
            if breach is not None:
                session.add(
                    AlertRow(
                        farm_id=farm.farm_id,
                        field_id=reading.field_id,
                        sensor_type=reading.sensor_type,
                        kind=breach.kind,
                        value=reading.value,
                        threshold=breach.threshold,
                        started_at=reading.measured_at,
                    )
                )
                opened += 1
        return opened, closed

    # -- notifications ------------------------------------------------------------------

    async def _notify(self) -> tuple[int, int]:
        async with self._db.read() as session:
            result = await session.execute(
                select(AlertRow, FarmProfileRow.user_id, UserProfileRow)
                .join(FarmProfileRow, FarmProfileRow.farm_id == AlertRow.farm_id)
                .join(UserProfileRow, UserProfileRow.user_id == FarmProfileRow.user_id)
                .where(AlertRow.ended_at.is_(None), AlertRow.notified_at.is_(None))
                .order_by(AlertRow.id)
            )
            pending = [
                (alert, user_id, user.preferred_language)
                for alert, user_id, user in result.all()
                if user.active and telegram_chat(user_id) is not None
            ]
            names = await self._field_names(session, {alert.farm_id for alert, _, _ in pending})
        sent = failed = 0
        for alert, user_id, language in pending:
            chat_id = telegram_chat(user_id)
            if chat_id is None:  # pragma: no cover - filtered above
                continue
            lang: Language = "en" if language == "en" else "uk"
            text = self.compose(alert, names.get((alert.farm_id, alert.field_id or "")), lang)
            try:
                await self._sender.send(chat_id, text)
            except RecipientGone:
                logger.info("alerts: user=%s blocked the bot; marked inactive", user_id)
                await self._profiles.set_active(user_id, False)
                failed += 1
                continue
            except Exception:
                logger.warning("alerts: sending alert=%d failed", alert.id, exc_info=True)
                failed += 1
                continue
            await self._mark_notified(alert.id)
            sent += 1
        return sent, failed

    @staticmethod
    async def _field_names(session: AsyncSession, farm_ids: set[str]) -> dict[tuple[str, str], str]:
        if not farm_ids:
            return {}
        result = await session.execute(
            select(FieldRow.farm_id, FieldRow.field_id, FieldRow.name).where(
                FieldRow.farm_id.in_(farm_ids)
            )
        )
        return {(row.farm_id, row.field_id): row.name for row in result}

    async def _mark_notified(self, alert_id: int) -> None:
        async with self._db.write() as session:
            row = await session.get(AlertRow, alert_id)
            if row is not None:
                row.notified_at = self._clock()

    def compose(self, alert: AlertRow, field_name: str | None, lang: Language) -> str:
        """The alert in the user's language: what, where, how far, what to do."""
        catalog = self._catalog
        if alert.field_id is None:
            where = catalog.text(lang, "alerts.no_field")
        else:
            where = catalog.text(lang, "alerts.field", name=field_name or alert.field_id)
        # Stored units are the type's canonical one (validation normalises them).
        kind = self._types.types.get(alert.sensor_type)
        unit = kind.unit if kind is not None else ""
        started = _utc(alert.started_at)
        text = catalog.text(
            lang,
            f"alerts.{alert.kind}",
            sensor=sensor_label(catalog, lang, alert.sensor_type),
            field=where,
            value=f"{alert.value:g}{unit}",
            threshold=f"{alert.threshold:g}{unit}",
            time=started.strftime("%d.%m %H:%M"),
        )
        group = self._groups.get(alert.sensor_type, alert.sensor_type)
        action_key = f"alerts.action_{group}_{alert.kind}"
        if catalog.has(lang, action_key):
            text = f"{text}\n{catalog.text(lang, action_key)}"
        return text
