"""Spray windows (docs/weather.md): the hours of the forecast that meet the spraying
card's conditions (rules/knowledge/cards/general.toml, topic ``spraying``: air
temperature, the strongest wind, the lowest humidity, the rain-free hours after),
for the days a spraying question names (none: today's hours left and tomorrow).
A figure the forecast lacks never passes: no hour is offered on a guess."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from db.repositories.weather import WeatherHour
from pipeline.knowledge import KnowledgeBase
from pipeline.knowledge.model import Card
from pipeline.language.texts import Texts
from pipeline.weather.day_names import day_name

__all__ = ["SprayCheck", "SprayLimits", "spray_lines", "spray_windows", "window_spans"]

SPRAYING = "spraying"
#: Rain from this much in an hour, or this chance of it, spoils the hours after.
WET_MM = 0.1
WET_CHANCE = 50.0

Window = tuple[datetime, datetime]


@dataclass(frozen=True, slots=True)
class SprayLimits:
    tmin: float
    tmax: float
    wind_max: float
    humidity_min: float
    rain_free_h: int

    @classmethod
    def of(cls, cards: Sequence[Card]) -> SprayLimits | None:
        """The general spraying card's limits: the warmest, the windiest and the
        least humid the card allows, the fewest rain-free hours it asks for."""
        card = next((c for c in cards if c.topic == SPRAYING and c.crop is None), None)
        if card is None:
            return None
        spans = [card.value(key) for key in ("air_temp", "wind_max", "humidity_min", "rain_free")]
        if any(value is None for value in spans):
            return None
        air, wind, humidity, rain = (value.span(None) for value in spans if value is not None)
        if air is None or wind is None or humidity is None or rain is None:
            return None
        return cls(air[0], air[1], wind[1], humidity[0], int(rain[0]))


@dataclass(frozen=True, slots=True)
class SprayCheck:
    """Is a question about spraying (the knowledge base's topic), and the limits."""

    kb: KnowledgeBase
    limits: SprayLimits

    @classmethod
    def of(cls, kb: KnowledgeBase) -> SprayCheck | None:
        limits = SprayLimits.of(kb.data.cards)
        return cls(kb, limits) if limits is not None else None

    def asks(self, text: str) -> bool:
        return self.kb.lookup(text).topic == SPRAYING


def _dry(hour: WeatherHour) -> bool:
    if hour.precipitation is None or hour.precipitation >= WET_MM:
        return False
    return hour.precipitation_probability is None or hour.precipitation_probability < WET_CHANCE


def _fits(hour: WeatherHour, limits: SprayLimits) -> bool:
    t, wind, humidity = hour.temperature, hour.wind_speed, hour.humidity
    if t is None or wind is None or humidity is None:
        return False
    return (
        limits.tmin <= t <= limits.tmax
        and wind <= limits.wind_max
        and humidity >= limits.humidity_min
    )


def spray_windows(
    hours: Sequence[WeatherHour],
    limits: SprayLimits,
    days: Sequence[date],
    zone: ZoneInfo,
    now: datetime,
) -> dict[date, list[Window]]:
    """Each day's windows (start, end) on the farm's clock: runs of hours that fit,
    each followed by ``rain_free_h`` dry hours, none already past."""
    ordered = sorted(hours, key=lambda h: h.hour)
    by_hour = {h.hour: h for h in ordered}
    found: dict[date, list[Window]] = {day: [] for day in days}
    for hour in ordered:
        local = hour.hour.astimezone(zone)
        if local.date() not in found or hour.hour < now.replace(minute=0, second=0, microsecond=0):
            continue
        after = [by_hour.get(hour.hour + timedelta(hours=n)) for n in range(limits.rain_free_h + 1)]
        if not _fits(hour, limits) or not all(a is not None and _dry(a) for a in after):
            continue
        windows = found[local.date()]
        end = local + timedelta(hours=1)
        if windows and windows[-1][1] == local:
            windows[-1] = (windows[-1][0], end)
        else:
            windows.append((local, end))
    return found


def window_spans(windows: Sequence[Window]) -> str:
    """«05:00–09:00, 18:00–24:00»: a window to the day's end reads «…–24:00»."""
    return ", ".join(f"{a:%H:%M}–{_end(a, b)}" for a, b in windows)


def _end(start: datetime, end: datetime) -> str:
    return "24:00" if end.date() > start.date() else f"{end:%H:%M}"


def spray_lines(texts: Texts, limits: SprayLimits, found: dict[date, list[Window]]) -> list[str]:
    """The conditions, then a day a line with its windows («05:00–09:00»)."""
    number = texts.number
    lines = [
        texts.text(
            "forecast.spray_intro",
            tmin=number(limits.tmin), tmax=number(limits.tmax), wind=number(limits.wind_max),
            humidity=number(limits.humidity_min), hours=number(limits.rain_free_h),
        )
    ]  # fmt: skip
    for day, windows in found.items():
        name = day_name(texts, day)
        if not windows:
            lines.append(texts.text("forecast.spray_none", day=name))
            continue
        lines.append(texts.text("forecast.spray_day", day=name, windows=window_spans(windows)))
    return lines
