"""Warnings Stepan writes first (docs/weather.md): a frost in the next two days on an
active farm. Run by the weather job right after the refresh, from the cache only;
one warning per farm and local day (claimed in ``weather_warnings`` before it is
sent, released when the send fails, so the next run tries again)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from db.repositories import places as places_repo
from db.repositories import weather as weather_repo
from db.repositories.places import Recipient
from db.states import WeatherWarningKind
from db.uow import Database
from pipeline.admin.user_ids import telegram_id
from pipeline.clock import Clock, utcnow
from pipeline.farm.sensors.alerts import RecipientGone
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.types import Language
from pipeline.weather.answers import FROST_C
from pipeline.weather.geo import Point
from pipeline.weather.service import ACTIVE, Forecasts

__all__ = ["FrostWarnings", "WarningResult"]

logger = logging.getLogger(__name__)

#: How far ahead a frost is warned of.
AHEAD = timedelta(hours=48)
#: Sends a text to a Telegram chat (the bound bot's sender); raises when it cannot.
Send = Callable[[int, str], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class WarningResult:
    farms: int = 0
    sent: int = 0
    failed: int = 0

    def describe(self) -> str:
        return f"frost warnings: {self.sent} sent, {self.failed} failed, {self.farms} farms"


@dataclass(frozen=True, slots=True)
class _Frost:
    day: date
    low: float
    at: datetime


class FrostWarnings:
    def __init__(
        self,
        db: Database,
        forecasts: Forecasts,
        catalog: Catalog,
        send: Send,
        clock: Clock = utcnow,
    ) -> None:
        self._db = db
        self._forecasts = forecasts
        self._catalog = catalog
        self._send = send
        self._clock = clock

    async def run(self) -> WarningResult:
        now = self._clock()
        async with self._db.read() as session:
            recipients = await places_repo.active_recipients(session, now - ACTIVE)
        sent = failed = 0
        for recipient in recipients:
            outcome = await self._warn(recipient, now)
            sent += outcome is True
            failed += outcome is False
        return WarningResult(len(recipients), sent, failed)

    async def _frost(self, recipient: Recipient, now: datetime) -> _Frost | None:
        if recipient.latitude is not None and recipient.longitude is not None:
            point: Point | None = Point(recipient.latitude, recipient.longitude)
        else:
            point = self._forecasts.locator.centre(recipient.region)
        if point is None:
            return None
        hours = await self._forecasts.hours(point, now, now + AHEAD, live=False)
        cold = [(h.temperature, h.hour) for h in hours if h.temperature is not None]
        if not cold:
            return None
        low, at = min(cold, key=lambda item: item[0])
        if low > FROST_C:
            return None
        local = at.astimezone(ZoneInfo(recipient.timezone))
        return _Frost(local.date(), low, local)

    async def _warn(self, recipient: Recipient, now: datetime) -> bool | None:
        """True: sent; False: failed (the claim released); None: nothing to send."""
        chat = telegram_id(recipient.user_id)
        frost = await self._frost(recipient, now) if chat is not None else None
        if chat is None or frost is None:
            return None
        kind = WeatherWarningKind.FROST
        async with self._db.write() as session:
            claimed = await weather_repo.claim_warning(
                session, recipient.farm_id, kind, frost.day, now
            )
        if not claimed:
            return None
        try:
            await self._send(chat, self._text(recipient, frost))
        except RecipientGone:
            # Blocked the bot: the claim stays, nothing is retried for this frost.
            return False
        except Exception:
            logger.warning(
                "weather: frost warning to %s not sent", recipient.user_id, exc_info=True
            )
            async with self._db.write() as session:
                await weather_repo.release_warning(session, recipient.farm_id, kind, frost.day)
            return False
        return True

    def _text(self, recipient: Recipient, frost: _Frost) -> str:
        lang: Language = "en" if recipient.language == "en" else "uk"
        texts = Texts(self._catalog, lang)
        names = texts.text("forecast.weekdays").split()
        day = texts.text(
            "forecast.day", weekday=names[frost.day.weekday()], date=frost.day.strftime("%d.%m")
        )
        low = texts.number(round(frost.low, 1))
        return texts.text(
            "forecast.frost_warning", day=day, tmin=low, at=frost.at.strftime("%H:%M")
        )
