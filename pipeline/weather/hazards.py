"""The hazards a farm's forecast hours hold (pipeline/weather/warnings.py): a frost
while it can harm crops, a heat day, heavy rain on the day of a planned spraying.
Pure functions of the hours, the farm's clock and the rules."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime
from zoneinfo import ZoneInfo

from db.repositories.warning_context import PlannedSpraying
from db.repositories.weather import WeatherHour
from db.states import WeatherWarningKind
from pipeline.weather.warning_rules import FrostRule, HeatRule, RainRule

Kind = WeatherWarningKind


@dataclass(frozen=True, slots=True)
class Hazard:
    kind: WeatherWarningKind
    #: The farm's local day it falls on (one warning per farm, kind and episode).
    day: date
    #: The figure: the lowest or highest °C, or the day's rain in mm.
    value: float
    #: When it peaks, on the farm's clock (None for a day's rain).
    at: datetime | None = None
    #: The planned spraying's field, for rain.
    field: str | None = None


def frost(
    hours: list[WeatherHour], now: datetime, tz: ZoneInfo, rule: FrostRule, sown_lately: bool
) -> Hazard | None:
    """The coldest hour ahead at or below the rule's °C, in a month a frost harms
    crops or after a recent sowing."""
    end = now + rule.ahead
    cold = [(h.temperature, h.hour) for h in hours if h.temperature is not None and h.hour < end]
    if not cold:
        return None
    low, at = min(cold, key=lambda item: item[0])
    local = at.astimezone(tz)
    if low > rule.max_c or (local.month not in rule.months and not sown_lately):
        return None
    return Hazard(Kind.FROST, local.date(), low, local)


def heat(hours: list[WeatherHour], now: datetime, tz: ZoneInfo, rule: HeatRule) -> Hazard | None:
    """The first day ahead whose hottest hour reaches the rule's °C."""
    end = now + rule.ahead
    for hour in sorted(hours, key=lambda h: h.hour):
        if hour.hour < end and hour.temperature is not None and hour.temperature >= rule.min_c:
            day = hour.hour.astimezone(tz).date()
            peak = max(
                (h for h in hours if h.temperature is not None and h.hour < end
                 and h.hour.astimezone(tz).date() == day),
                key=lambda h: h.temperature or 0.0,
            )  # fmt: skip
            return Hazard(Kind.HEAT, day, peak.temperature or 0.0, peak.hour.astimezone(tz))
    return None


def rain_on_spraying(
    hours: list[WeatherHour], tz: ZoneInfo, rule: RainRule, planned: list[PlannedSpraying]
) -> Hazard | None:
    """The first planned spraying whose local day has heavy rain in the forecast."""
    rain: dict[date, float] = defaultdict(float)
    for hour in hours:
        if hour.precipitation is not None:
            rain[hour.hour.astimezone(tz).date()] += hour.precipitation
    for spraying in planned:
        mm = rain.get(spraying.day, 0.0)
        if mm >= rule.heavy_mm:
            return Hazard(Kind.RAIN, spraying.day, mm, None, spraying.field)
    return None
