"""Warnings Stepan writes first (docs/weather.md): a frost while it can harm crops,
heavy rain on the day of a planned spraying, a heat day. Run by the weather job right
after the refresh, from the cache only, for active farms whose farmer has not turned
weather warnings off; sent only in the farm's daytime (rules/weather_warnings.toml).

One warning per farm and episode: a hazard is claimed in ``weather_warnings`` for
its kind and local day before it is sent (released when the send fails, so the next
run tries again), and a hazard on the day right after one already claimed of the
same kind continues that episode (two frosty nights, a heat wave): no new message."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from db.repositories import places as places_repo
from db.repositories import warning_context as context_repo
from db.repositories import weather as weather_repo
from db.repositories.places import Recipient
from db.repositories.warning_context import PlannedSpraying
from db.uow import Database
from pipeline.admin.user_ids import telegram_id
from pipeline.clock import Clock, utcnow
from pipeline.farm.sensors.alerts import RecipientGone
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.types import Language
from pipeline.weather import hazards
from pipeline.weather.day_names import day_name
from pipeline.weather.geo import Point
from pipeline.weather.hazards import Hazard, Kind
from pipeline.weather.service import ACTIVE, Forecasts
from pipeline.weather.warning_rules import WarningRules

__all__ = ["WarningResult", "WeatherWarnings"]

logger = logging.getLogger(__name__)

#: Sends a text to a Telegram chat (the bound bot's sender); raises when it cannot.
Send = Callable[[int, str], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class WarningResult:
    farms: int = 0
    sent: Counter[str] = field(default_factory=Counter)
    failed: int = 0

    @property
    def total(self) -> int:
        return sum(self.sent.values())

    def describe(self) -> str:
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(self.sent.items()))
        return (
            f"weather warnings: {self.total} sent{f' ({kinds})' if kinds else ''}, "
            f"{self.failed} failed, {self.farms} farms"
        )


@dataclass(frozen=True, slots=True)
class _Farms:
    """What the journals say of the farms warned this run."""

    sown_lately: set[str]
    sprayings: dict[str, list[PlannedSpraying]]


class WeatherWarnings:
    def __init__(
        self,
        db: Database,
        forecasts: Forecasts,
        catalog: Catalog,
        send: Send,
        rules: WarningRules,
        clock: Clock = utcnow,
    ) -> None:
        self._db = db
        self._forecasts = forecasts
        self._catalog = catalog
        self._send = send
        self._rules = rules
        self._clock = clock

    async def run(self) -> WarningResult:
        now = self._clock()
        async with self._db.read() as session:
            recipients = await places_repo.active_recipients(session, now - ACTIVE)
        # Daytime on the farm's clock only: the others are warned by a later run.
        awake = [r for r in recipients if self._rules.may_send_at(_local(now, r).hour)]
        farms = await self._farms(awake, now)
        sent: Counter[str] = Counter()
        failed = 0
        for recipient in awake:
            for hazard in await self._hazards(recipient, now, farms):
                outcome = await self._warn(recipient, hazard, now)
                if outcome is True:
                    sent[hazard.kind] += 1
                failed += outcome is False
        return WarningResult(len(recipients), sent, failed)

    async def _farms(self, recipients: Sequence[Recipient], now: datetime) -> _Farms:
        farm_ids = [r.farm_id for r in recipients]
        if not farm_ids:
            return _Farms(set(), {})
        today = now.date()
        since = today - timedelta(days=self._rules.frost.after_sowing_days)
        end = today + timedelta(days=self._rules.rain.days_ahead + 1)
        async with self._db.read() as session:
            sown = await context_repo.sown_since(session, farm_ids, since)
            planned = await context_repo.planned_sprayings(session, farm_ids, today, end)
        sprayings: dict[str, list[PlannedSpraying]] = {}
        for spraying in planned:
            sprayings.setdefault(spraying.farm_id, []).append(spraying)
        return _Farms(sown, sprayings)

    async def _hazards(self, recipient: Recipient, now: datetime, farms: _Farms) -> list[Hazard]:
        point = self._point(recipient)
        if point is None or telegram_id(recipient.user_id) is None:
            return []
        rules = self._rules
        ahead = max(rules.frost.ahead, rules.heat.ahead, timedelta(days=rules.rain.days_ahead + 1))
        hours = await self._forecasts.hours(point, now, now + ahead, live=False)
        tz = ZoneInfo(recipient.timezone)
        today = _local(now, recipient).date()
        planned = [
            s for s in farms.sprayings.get(recipient.farm_id, [])
            if 0 <= (s.day - today).days <= rules.rain.days_ahead
        ]  # fmt: skip
        found = (
            hazards.frost(hours, now, tz, rules.frost, recipient.farm_id in farms.sown_lately),
            hazards.rain_on_spraying(hours, tz, rules.rain, planned),
            hazards.heat(hours, now, tz, rules.heat),
        )
        return [hazard for hazard in found if hazard is not None]

    def _point(self, recipient: Recipient) -> Point | None:
        if recipient.latitude is not None and recipient.longitude is not None:
            return Point(recipient.latitude, recipient.longitude)
        return self._forecasts.locator.centre(recipient.region)

    async def _warn(self, recipient: Recipient, hazard: Hazard, now: datetime) -> bool | None:
        """True: sent; False: failed (the claim released); None: nothing to send."""
        chat = telegram_id(recipient.user_id)
        if chat is None:
            return None
        async with self._db.write() as session:
            # The day after one claimed: the same episode, already told. Its day is
            # claimed too, so the episode goes on as long as the hazard does.
            going_on = await weather_repo.warned_on(
                session, recipient.farm_id, hazard.kind, hazard.day - timedelta(days=1)
            )
            claimed = await weather_repo.claim_warning(
                session, recipient.farm_id, hazard.kind, hazard.day, now
            )
        if not claimed or going_on:
            return None
        try:
            await self._send(chat, self._text(recipient, hazard))
        except RecipientGone:
            # Blocked the bot: the claim stays, nothing is retried for this episode.
            return False
        except Exception:
            logger.warning(
                "weather: %s warning to %s not sent", hazard.kind, recipient.user_id, exc_info=True
            )
            async with self._db.write() as session:
                await weather_repo.release_warning(
                    session, recipient.farm_id, hazard.kind, hazard.day
                )
            return False
        return True

    def _text(self, recipient: Recipient, hazard: Hazard) -> str:
        lang: Language = "en" if recipient.language == "en" else "uk"
        texts = Texts(self._catalog, lang)
        day = day_name(texts, hazard.day)
        value = texts.number(round(hazard.value, 1))
        at = hazard.at.strftime("%H:%M") if hazard.at is not None else ""
        if hazard.kind is Kind.FROST:
            return texts.text("forecast.frost_warning", day=day, tmin=value, at=at)
        if hazard.kind is Kind.HEAT:
            return texts.text("forecast.heat_warning", day=day, tmax=value, at=at)
        where = texts.text("forecast.on_field", name=hazard.field) if hazard.field else ""
        return texts.text("forecast.rain_spray_warning", day=day, mm=value, where=where)


def _local(now: datetime, recipient: Recipient) -> datetime:
    return now.astimezone(ZoneInfo(recipient.timezone))
