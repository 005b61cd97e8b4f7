"""Sensor alerts: Stepan writes first (DESIGN.md).

The ``sensor_watch`` job runs ``AlertWatcher.run`` every few minutes. For every farm
with readings in the last days it decides, in one short write per farm, which
episodes open and end (``pipeline.farm.sensors.alert_rules``: thresholds with hysteresis
judged on the field's worst probe, and silent probes), then sends what is pending:

* one alert per episode (an ``alerts`` row; ``notified_at`` set once Telegram took
  the message), however many readings and runs it lasts;
* one recovery message when an episode the farmer was told about ends
  (``recovery_notified_at``); recoveries older than ``RECOVERY_MAX_AGE`` are not
  sent (old news).

Delivery is at least once: a failed send is retried on the next run (a frost warning
lost to a network blip is worse than a rare repeat after a crash). Users who blocked
the bot (active = false) or are not Telegram users get nothing; their open episodes
wait, so a user who comes back during one still hears of it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from pydantic import ValidationError

from db.models import AlertRow
from db.repositories import sensor_watch
from db.repositories.sensor_watch import (
    due_alerts,
    farm_ids_with_readings,
    newest_per_probe,
    probe_activity,
    watched_farms,
)
from db.uow import Database, Session
from pipeline.clock import Clock, utcnow
from pipeline.farm.localtime import local_time
from pipeline.farm.reports import sensor_label
from pipeline.farm.reports.summary_text import format_number
from pipeline.farm.sensors.alert_rules import (
    SILENT,
    Decisions,
    Episode,
    breach_of,
    decide_levels,
    decide_silence,
)
from pipeline.farm.sensors.readings import SensorTypes
from pipeline.language.catalog import Catalog
from pipeline.language.choice import stored_language
from pipeline.language.texts import Texts
from pipeline.profiles import AlertThresholds
from pipeline.types import CONSOLE_USER_IDS_FROM, Language

logger = logging.getLogger(__name__)

__all__ = ["AlertSender", "AlertWatcher", "RecipientGone", "WatchResult", "breach_of"]

#: Older readings open no threshold episode: a reading a day old says nothing about
#: now (silence says it instead), and an alert about last week's dry spell is noise.
MAX_READING_AGE = timedelta(hours=24)
#: The farms to watch are read this much of the lookback per transaction...
FARMS_SLICE = timedelta(hours=1)
#: ...and then their profiles this many per transaction.
FARMS_PER_READ = 500
#: A recovery not sent within this long after the episode ended is not sent at all.
RECOVERY_MAX_AGE = timedelta(hours=24)


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


@dataclass(frozen=True, slots=True)
class _Pending:
    alert: AlertRow
    user_id: str
    lang: Language
    timezone: str | None
    recovery: bool


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
        self._policy = types.alerting
        known = types.types.values()
        self._groups = {kind.name: kind.alerts for kind in known if kind.alerts is not None}

    async def run(self) -> WatchResult:
        """One pass over all farms, then the pending messages. A database error raises
        (the job records it); a failed send is counted and retried next run. Every
        step is a short transaction of its own; none is open while sending."""
        now = self._clock()
        farms = await self._farms(now)
        opened = closed = 0
        for farm in farms:
            farm_opened, farm_closed = await self._update_episodes(farm, now)
            opened += farm_opened
            closed += farm_closed
            if farm_opened:
                await self._profiles.update_farm(farm.user_id, last_alert=now)
        sent, failed = await self._notify(now)
        result = WatchResult(len(farms), opened, closed, sent, failed)
        if opened or closed or sent or failed:
            logger.info("alerts: %s", result.describe())
        return result

    def _lookback(self) -> timedelta:
        return max(self._max_age, self._policy.silent_lookback)

    async def _farms(self, now: datetime) -> list[_Farm]:
        """Farms with readings in the lookback: their ids a slice of the lookback per
        read (a week of 10,000 farms' readings is a million index entries, a second
        in one read), then their profiles by key, ``FARMS_PER_READ`` a read."""
        found: set[str] = set()
        start = now - self._lookback()
        while True:
            end = start + FARMS_SLICE
            last = end >= now  # the newest slice is open (a probe's clock may run ahead)
            async with self._db.read() as session:
                found.update(
                    await farm_ids_with_readings(
                        session, list(self._types.types), since=start, until=None if last else end
                    )
                )
            if last:
                break
            start = end
        ordered = sorted(found)
        farms: list[_Farm] = []
        for first in range(0, len(ordered), FARMS_PER_READ):
            async with self._db.read() as session:
                watched = await watched_farms(session, ordered[first : first + FARMS_PER_READ])
            farms += [
                _Farm(f.farm_id, f.user_id, thresholds_of(f.alert_thresholds, f.farm_id))
                for f in watched
            ]
        return farms

    async def _update_episodes(self, farm: _Farm, now: datetime) -> tuple[int, int]:
        policy = self._policy
        async with self._db.write() as session:
            values = await newest_per_probe(
                session, farm.farm_id, list(self._groups), since=now - self._max_age
            )
            activity = await probe_activity(
                session,
                farm.farm_id,
                list(self._types.types),
                since=now - policy.silent_lookback,
                skip_sources=policy.batch_sources,
            )
            rows = {row.id: row for row in await sensor_watch.open_alerts(session, farm.farm_id)}
            episodes = [
                Episode(row.id, row.field_id, row.sensor_type, row.sensor_id, row.kind)
                for row in rows.values()
            ]
            levels = decide_levels(values, episodes, self._groups, farm.thresholds, policy)
            silence = decide_silence(activity, episodes, now, policy)
            return self._apply(session, farm, rows, (levels, silence))

    @staticmethod
    def _apply(
        session: Session,
        farm: _Farm,
        rows: dict[int, AlertRow],
        decisions: Sequence[Decisions],
    ) -> tuple[int, int]:
        opened = closed = 0
        for decided in decisions:
            for closing in decided.closes:
                row = rows[closing.episode_id]
                row.ended_at = closing.ended_at
                row.ended_value = closing.ended_value
                closed += 1
            for opening in decided.opens:
                sensor_watch.add_alert(
                    session,
                    AlertRow(
                        farm_id=farm.farm_id,
                        field_id=opening.field_id,
                        sensor_type=opening.sensor_type,
                        sensor_id=opening.sensor_id,
                        kind=opening.kind,
                        value=opening.value,
                        threshold=opening.threshold,
                        started_at=opening.started_at,
                    ),
                )
                opened += 1
        return opened, closed

    # -- messages -----------------------------------------------------------------------

    async def _pending(self, now: datetime) -> list[_Pending]:
        async with self._db.read() as session:
            due = await due_alerts(session, recovered_since=now - RECOVERY_MAX_AGE)
        return [
            _Pending(
                item.alert,
                item.user_id,
                stored_language(item.language),
                item.timezone,
                recovery=item.alert.ended_at is not None,
            )
            for item in due
            if item.active and telegram_chat(item.user_id) is not None
        ]

    async def _notify(self, now: datetime) -> tuple[int, int]:
        pending = await self._pending(now)
        if not pending:
            return 0, 0
        async with self._db.read() as session:
            names = await sensor_watch.field_names_of_farms(
                session, {p.alert.farm_id for p in pending}
            )
        sent = failed = 0
        for item in pending:
            chat_id = telegram_chat(item.user_id)
            if chat_id is None:  # pragma: no cover - filtered above
                continue
            alert = item.alert
            name = names.get((alert.farm_id, alert.field_id or ""))
            compose = self.compose_recovery if item.recovery else self.compose
            text = compose(alert, name, item.lang, item.timezone)
            try:
                await self._sender.send(chat_id, text)
            except RecipientGone:
                logger.info("alerts: user=%s blocked the bot; marked inactive", item.user_id)
                await self._profiles.set_active(item.user_id, False)
                failed += 1
                continue
            except Exception:
                logger.warning("alerts: sending alert=%d failed", alert.id, exc_info=True)
                failed += 1
                continue
            await self._mark(alert.id, recovery=item.recovery)
            sent += 1
        return sent, failed

    async def _mark(self, alert_id: int, *, recovery: bool) -> None:
        async with self._db.write() as session:
            row = await sensor_watch.alert(session, alert_id)
            if row is None:
                return
            if recovery:
                row.recovery_notified_at = self._clock()
            else:
                row.notified_at = self._clock()

    # -- texts --------------------------------------------------------------------------

    def _where(self, alert: AlertRow, field_name: str | None, lang: Language) -> str:
        if alert.field_id is None:
            return self._catalog.text(lang, "alerts.no_field")
        return self._catalog.text(lang, "alerts.field", name=field_name or alert.field_id)

    def _amount(self, value: float, sensor_type: str, lang: Language) -> str:
        # Stored units are the type's canonical one (validation normalises them).
        kind = self._types.types.get(sensor_type)
        number = format_number(value, lang)
        return f"{number} {kind.unit}" if kind is not None else number

    def compose(
        self, alert: AlertRow, field_name: str | None, lang: Language, timezone: str | None = None
    ) -> str:
        """The alert in the user's language: what, where, how far, when (the farm's
        clock), what to do."""
        texts = Texts(self._catalog, lang)
        sensor = sensor_label(texts, alert.sensor_type)
        when = f"{local_time(alert.started_at, timezone):%d.%m %H:%M}"
        where = self._where(alert, field_name, lang)
        if alert.kind == SILENT:
            hours = format_number(alert.threshold, lang)
            return texts.text(
                "alerts.silent",
                sensor=sensor,
                probe=alert.sensor_id or "?",
                field=where,
                hours=hours,
                time=when,
            )
        text = texts.text(
            f"alerts.{alert.kind}",
            sensor=sensor,
            field=where,
            value=self._amount(alert.value, alert.sensor_type, lang),
            threshold=self._amount(alert.threshold, alert.sensor_type, lang),
            time=when,
        )
        group = self._groups.get(alert.sensor_type, alert.sensor_type)
        action_key = f"alerts.action_{group}_{alert.kind}"
        dormant = local_time(alert.started_at, timezone).month in self._policy.dormant_months
        if dormant and texts.has(f"{action_key}_dormant"):
            action_key = f"{action_key}_dormant"
        if texts.has(action_key):
            text = f"{text}\n{texts.text(action_key)}"
        return text

    def compose_recovery(
        self, alert: AlertRow, field_name: str | None, lang: Language, timezone: str | None = None
    ) -> str:
        """The one message when an episode the farmer was told about ends."""
        texts = Texts(self._catalog, lang)
        sensor = sensor_label(texts, alert.sensor_type)
        ended = alert.ended_at or alert.started_at
        when = f"{local_time(ended, timezone):%d.%m %H:%M}"
        where = self._where(alert, field_name, lang)
        if alert.kind == SILENT:
            return texts.text(
                "alerts.silent_recovered",
                sensor=sensor,
                probe=alert.sensor_id or "?",
                field=where,
                time=when,
            )
        value = alert.ended_value if alert.ended_value is not None else alert.value
        return texts.text(
            "alerts.recovered",
            sensor=sensor,
            field=where,
            value=self._amount(value, alert.sensor_type, lang),
            threshold=self._amount(alert.threshold, alert.sensor_type, lang),
            time=when,
        )
