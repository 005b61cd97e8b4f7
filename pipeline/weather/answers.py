"""Weather answers from the forecast cache (docs/weather.md): «яка погода завтра»,
«чи буде дощ на вихідних», «будуть заморозки?», for the farm or a field it names, on
the farm's clock, a day a line, numbers as the language writes them. No forecast:
it says so and guesses nothing."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from db.repositories.places import FarmPlace, FieldPlace
from db.repositories.weather import WeatherHour
from pipeline.knowledge.model import Region
from pipeline.language.texts import Texts
from pipeline.text import tokenize
from pipeline.types import Reply
from pipeline.weather.asking import HORIZON_DAYS, Topic, WeatherAsk, WeatherWords, read_ask
from pipeline.weather.day_names import day_name
from pipeline.weather.geo import Point
from pipeline.weather.places import FarmPlaces
from pipeline.weather.service import Forecasts
from pipeline.weather.sowing import SowingAsk, soil_days, soil_lines
from pipeline.weather.spraying import SprayLimits, spray_lines, spray_windows, window_spans

__all__ = ["DaySummary", "WeatherDesk", "field_named", "summarise"]

logger = logging.getLogger(__name__)

#: A day is rainy from this much rain, or this chance of it.
RAIN_MM = 0.5
RAIN_CHANCE = 50.0
#: Frost: the air at 2 m at or below this.
FROST_C = 0.0
#: A spraying's weather: its hour and the six after (rain that washes it off).
AFTER = timedelta(hours=7)


@dataclass(frozen=True, slots=True)
class DaySummary:
    day: date
    tmin: float | None = None
    tmax: float | None = None
    rain_mm: float | None = None
    rain_chance: float | None = None
    wind_max: float | None = None
    #: The coldest hour, on the farm's clock.
    coldest_at: datetime | None = None

    @property
    def known(self) -> bool:
        return self.tmin is not None

    @property
    def rainy(self) -> bool:
        return (self.rain_mm or 0) >= RAIN_MM or (self.rain_chance or 0) >= RAIN_CHANCE

    @property
    def frosty(self) -> bool:
        return self.tmin is not None and self.tmin <= FROST_C


def _values(hours: Sequence[WeatherHour], name: str) -> list[float]:
    return [v for hour in hours if (v := getattr(hour, name)) is not None]


def _day(day: date, hours: Sequence[WeatherHour], zone: ZoneInfo) -> DaySummary:
    temps = [(h.temperature, h.hour) for h in hours if h.temperature is not None]
    if not temps:
        return DaySummary(day)
    coldest = min(temps, key=lambda item: item[0])
    rain, chance, wind = (
        _values(hours, n) for n in ("precipitation", "precipitation_probability", "wind_speed")
    )
    return DaySummary(
        day,
        tmin=coldest[0],
        tmax=max(t for t, _ in temps),
        rain_mm=round(sum(rain), 1) if rain else None,
        rain_chance=max(chance) if chance else None,
        wind_max=max(wind) if wind else None,
        coldest_at=coldest[1].astimezone(zone),
    )


def summarise(
    hours: Sequence[WeatherHour], days: Sequence[date], zone: ZoneInfo
) -> list[DaySummary]:
    """Each local day's figures from the hours that fall in it on the farm's clock."""
    by_day: dict[date, list[WeatherHour]] = {day: [] for day in days}
    for hour in hours:
        local = hour.hour.astimezone(zone).date()
        if local in by_day:
            by_day[local].append(hour)
    return [_day(day, by_day[day], zone) for day in days]


def _stem(word: str) -> str:
    # A field's name as the farmer declines it: «Північне» in «на Північному».
    return word if len(word) < 4 or word.isdigit() else word[: max(3, len(word) - 2)]


def field_named(fields: Sequence[FieldPlace], text: str) -> FieldPlace | None:
    """The field whose every word the text mentions (the longest name wins)."""
    tokens = tokenize(text)
    best: FieldPlace | None = None
    for item in fields:
        words = tokenize(item.name)
        if not words:
            continue
        named = all(
            any(tok == w if w.isdigit() else tok.startswith(_stem(w)) for tok in tokens)
            for w in words
        )
        if named and (best is None or len(item.name) > len(best.name)):
            best = item
    return best


@dataclass(frozen=True, slots=True)
class _Where:
    point: Point
    header: str


class WeatherDesk:
    def __init__(
        self,
        forecasts: Forecasts,
        places: FarmPlaces,
        words: WeatherWords,
        regions: Mapping[str, Region],
    ) -> None:
        self._forecasts = forecasts
        self._places = places
        self._words = words
        self._regions = regions

    @property
    def live(self) -> bool:
        """A forecast source is configured (else the cache stays empty)."""
        return self._forecasts.enabled

    def _where(self, place: FarmPlace | None, text: str, texts: Texts) -> _Where | None:
        """The point the answer is for, and the line that says which it is."""
        if place is None:
            return None
        field = field_named(place.fields, text)
        farm = (
            Point(place.latitude, place.longitude)
            if place.latitude is not None and place.longitude is not None
            else None
        )
        if field is not None and field.latitude is not None and field.longitude is not None:
            return _Where(
                Point(field.latitude, field.longitude),
                texts.text("forecast.for_field", name=field.name),
            )
        if field is not None and farm is not None:
            return _Where(farm, texts.text("forecast.for_field_farm", name=field.name))
        if farm is not None:
            return _Where(farm, texts.text("forecast.for_farm"))
        centre = self._forecasts.locator.centre(place.region)
        region = self._regions.get(place.region) if place.region else None
        if centre is None or region is None:
            return None
        return _Where(centre, texts.text("forecast.for_region", region=region.name.get(texts.lang)))

    async def at_work(
        self, user_id: str, field_id: str | None, moment: datetime
    ) -> dict[str, Any] | None:
        """The weather of a spraying at ``moment`` on that field (else the farm's point,
        else the oblast's centre), from the cache only: the hour's temperature, wind and
        humidity and the rain of the six hours after; None when the cache has none."""
        place = await self._places.place(user_id)
        where = self._point_of(place, field_id)
        if where is None:
            return None
        start = moment.replace(minute=0, second=0, microsecond=0)
        hours = await self._forecasts.hours(where, start, start + AFTER, live=False)
        if not hours or hours[0].hour != start:
            return None
        now, after = hours[0], hours[1:]
        rain = [h.precipitation for h in after if h.precipitation is not None]
        return {
            "hour": start.isoformat(),
            "temperature": now.temperature,
            "wind_speed": now.wind_speed,
            "humidity": now.humidity,
            "rain_after_mm": round(sum(rain), 1) if rain else None,
        }

    def _point_of(self, place: FarmPlace | None, field_id: str | None) -> Point | None:
        if place is None:
            return None
        field = next((f for f in place.fields if f.field_id == field_id), None)
        if field is not None and field.latitude is not None and field.longitude is not None:
            return Point(field.latitude, field.longitude)
        if place.latitude is not None and place.longitude is not None:
            return Point(place.latitude, place.longitude)
        return self._forecasts.locator.centre(place.region)

    async def _located(
        self, user_id: str, text: str, texts: Texts, now: datetime, answer: str
    ) -> tuple[_Where, ZoneInfo, date] | str:
        """Where ``text`` asks about, the farm's clock and its today; else what the
        ``answer`` (spray, soil) says when the place cannot be read or is unknown."""
        try:
            place = await self._places.place(user_id)
        except Exception:
            logger.warning("weather: the farm's place could not be read", exc_info=True)
            return texts.text(f"forecast.{answer}_unavailable")
        where = self._where(place, text, texts)
        if where is None or place is None:
            return texts.text(f"forecast.{answer}_no_place")
        zone = ZoneInfo(place.timezone)
        return where, zone, now.astimezone(zone).date()

    async def spray(
        self,
        user_id: str,
        text: str,
        texts: Texts,
        now: datetime,
        limits: SprayLimits,
    ) -> str:
        """The spray windows for the days ``text`` names (none: the rest of today and
        tomorrow), under the spraying card's answer; what it says when it cannot."""
        located = await self._located(user_id, text, texts, now, "spray")
        if isinstance(located, str):
            return located
        where, zone, today = located
        ask = read_ask(text, today, self._words)
        # Hours already past are no window: only today and the days ahead.
        days = (
            tuple(d for d in ask.days if d >= today)
            if ask.named
            else (today, today + timedelta(days=1))
        )
        if not days:
            return texts.text("forecast.beyond")
        start = datetime.combine(days[0], time(), zone)
        # The rain-free hours after the day's last window may run into the next day.
        end = datetime.combine(days[-1] + timedelta(days=2), time(), zone)
        hours = await self._forecasts.hours(where.point, start, end)
        if not hours:
            return texts.text("forecast.spray_unavailable")
        found = spray_windows(hours, limits, days, zone, now)
        lines = [where.header, *spray_lines(texts, limits, found), texts.text("forecast.source")]
        return "\n".join(lines)

    async def planned_spray(
        self,
        user_id: str,
        day: date,
        field_id: str | None,
        texts: Texts,
        now: datetime,
        limits: SprayLimits,
    ) -> str | None:
        """Under a card that plans a spraying: that day's windows on its field, or the
        warning that it has none; None when the forecast cannot tell (no place, the
        day past or beyond the forecast, nothing cached: the card stands alone)."""
        place = await self._places.place(user_id)
        where = self._point_of(place, field_id)
        if where is None or place is None:
            return None
        zone = ZoneInfo(place.timezone)
        if not 0 <= (day - now.astimezone(zone).date()).days < HORIZON_DAYS:
            return None
        start = datetime.combine(day, time(), zone)
        hours = await self._forecasts.hours(where, start, start + timedelta(days=2), live=False)
        if not hours:
            return None
        windows = spray_windows(hours, limits, (day,), zone, now)[day]
        if not windows:
            return texts.text("forecast.planned_no_window", day=day_name(texts, day))
        spans = window_spans(windows)
        return texts.text("forecast.planned_window", day=day_name(texts, day), windows=spans)

    async def soil(
        self, user_id: str, text: str, texts: Texts, now: datetime, ask: SowingAsk
    ) -> str:
        """Is the soil warm enough to sow ``ask.crop``: the days ``text`` names, or
        today and the two after; what it says when it cannot tell."""
        located = await self._located(user_id, text, texts, now, "soil")
        if isinstance(located, str):
            return located
        where, zone, today = located
        asked = read_ask(text, today, self._words)
        days = asked.days if asked.named else tuple(today + timedelta(days=n) for n in range(3))
        if not days:
            return texts.text("forecast.beyond")
        start = datetime.combine(days[0], time(), zone)
        end = datetime.combine(days[-1] + timedelta(days=1), time(), zone)
        hours = await self._forecasts.hours(where.point, start, end)
        if not hours:
            return texts.text("forecast.soil_unavailable")
        found = soil_days(hours, days, zone)
        lines = [where.header, *soil_lines(texts, ask, found), texts.text("forecast.source")]
        return "\n".join(lines)

    async def reply(
        self, user_id: str, text: str, texts: Texts, now: datetime, timezone: str
    ) -> Reply:
        try:
            place = await self._places.place(user_id)
        except Exception:
            logger.warning("weather: the farm's place could not be read", exc_info=True)
            return Reply(texts.text("forecast.unavailable"))
        where = self._where(place, text, texts)
        if where is None:
            return Reply(texts.text("forecast.no_place"))
        zone = ZoneInfo(place.timezone if place is not None else timezone)
        ask = read_ask(text, now.astimezone(zone).date(), self._words)
        if not ask.days:
            return Reply(texts.text("forecast.past" if ask.past else "forecast.beyond"))
        start = datetime.combine(ask.days[0], time(), zone)
        end = datetime.combine(ask.days[-1] + timedelta(days=1), time(), zone)
        hours = await self._forecasts.hours(where.point, start, end)
        days = summarise(hours, ask.days, zone)
        if not any(day.known for day in days):
            return Reply(texts.text("forecast.unavailable"))
        return Reply(compose(texts, where.header, ask, days))


def compose(texts: Texts, header: str, ask: WeatherAsk, days: Sequence[DaySummary]) -> str:
    lines = [header]
    if ask.topic is Topic.RAIN:
        lines += _rain(texts, days)
    elif ask.topic is Topic.FROST:
        lines += _frost(texts, days)
    else:
        lines += [_general_line(texts, day) for day in days]
    if ask.beyond:
        lines.append(texts.text("forecast.beyond_some"))
    if ask.past:
        lines.append(texts.text("forecast.past_some"))
    lines.append(texts.text("forecast.source"))
    return "\n".join(lines)


def _number(texts: Texts, value: float | None) -> str:
    return texts.number(round(value, 1)) if value is not None else "?"


def _rain_words(texts: Texts, day: DaySummary) -> str:
    chance = day.rain_chance
    if (day.rain_mm or 0) < 0.1 and (chance is None or chance < RAIN_CHANCE):
        return texts.text("forecast.dry")
    if chance is None:
        return texts.text("forecast.rain", mm=_number(texts, day.rain_mm))
    return texts.text(
        "forecast.rain_chance", mm=_number(texts, day.rain_mm), chance=_number(texts, chance)
    )


def _general_line(texts: Texts, day: DaySummary) -> str:
    name = day_name(texts, day.day)
    if not day.known:
        return texts.text("forecast.no_data", day=name)
    line = texts.text(
        "forecast.line",
        day=name,
        tmin=_number(texts, day.tmin),
        tmax=_number(texts, day.tmax),
        rain=_rain_words(texts, day),
    )
    if day.wind_max is not None:
        line += texts.text("forecast.wind", wind=_number(texts, day.wind_max))
    return line


def _rain(texts: Texts, days: Sequence[DaySummary]) -> list[str]:
    known = [day for day in days if day.known]
    rainy = [day_name(texts, day.day) for day in known if day.rainy]
    first = (
        texts.text("forecast.rain_yes", days=", ".join(rainy))
        if rainy
        else texts.text("forecast.rain_no")
    )
    lines = [first]
    for day in days:
        name = day_name(texts, day.day)
        lines.append(
            texts.text("forecast.rain_line", day=name, rain=_rain_words(texts, day))
            if day.known
            else texts.text("forecast.no_data", day=name)
        )
    return lines


def _frost(texts: Texts, days: Sequence[DaySummary]) -> list[str]:
    known = [day for day in days if day.known]
    frosty = [day for day in known if day.frosty]
    if not frosty:
        coldest = min(known, key=lambda day: day.tmin or 0.0)
        return [
            texts.text(
                "forecast.frost_no",
                tmin=_number(texts, coldest.tmin),
                day=day_name(texts, coldest.day),
            )
        ]
    lines = [texts.text("forecast.frost_yes")]
    for day in frosty:
        at = day.coldest_at.strftime("%H:%M") if day.coldest_at is not None else "?"
        lines.append(
            texts.text(
                "forecast.frost_line",
                day=day_name(texts, day.day),
                tmin=_number(texts, day.tmin),
                at=at,
            )
        )
    return lines
