"""Sowing readiness (docs/weather.md): is the soil warm enough to sow the crop asked
about? The crop's soil-temperature card gives the minimum at seeding depth
(``soil_min``); the forecast's soil temperature at 6 cm gives each day's coldest and
warmest hour on the farm's clock. A day is ready when even its coldest hour is at
the minimum. No soil figures in the forecast: said so, never guessed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from zoneinfo import ZoneInfo

from db.repositories.weather import WeatherHour
from pipeline.knowledge import KnowledgeBase
from pipeline.language.texts import Texts
from pipeline.types import Language
from pipeline.weather.day_names import day_name

__all__ = ["SoilCheck", "SoilDay", "SowingAsk", "soil_days", "soil_lines"]

#: The knowledge topics of a sowing question («чи можна вже сіяти», «чи прогрівся ґрунт»).
SOWING_TOPICS = frozenset({"soil_temperature", "sowing_window"})
SOIL_TOPIC = "soil_temperature"


@dataclass(frozen=True, slots=True)
class SowingAsk:
    crop: str
    #: The crop's name as the knowledge base gives it, in the reply's language.
    name: str
    minimum: float


@dataclass(frozen=True, slots=True)
class SoilCheck:
    kb: KnowledgeBase

    def asks(self, text: str, lang: Language) -> SowingAsk | None:
        """A sowing question about a crop whose card states a minimum soil temperature."""
        lookup = self.kb.lookup(text)
        if lookup.topic not in SOWING_TOPICS or lookup.crop is None:
            return None
        card = next(
            (c for c in self.kb.data.cards if c.crop == lookup.crop and c.topic == SOIL_TOPIC),
            None,
        )
        value = card.value("soil_min") if card is not None else None
        span = value.span(None) if value is not None else None
        if span is None:
            return None
        names = self.kb.crop_names.get(lookup.crop)
        name = names.get(lang) if names is not None else lookup.crop
        return SowingAsk(lookup.crop, name, span[0])


@dataclass(frozen=True, slots=True)
class SoilDay:
    day: date
    low: float | None = None
    high: float | None = None


def soil_days(hours: Sequence[WeatherHour], days: Sequence[date], zone: ZoneInfo) -> list[SoilDay]:
    found: dict[date, list[float]] = {day: [] for day in days}
    for hour in hours:
        local = hour.hour.astimezone(zone).date()
        if local in found and hour.soil_temperature is not None:
            found[local].append(hour.soil_temperature)
    return [SoilDay(d, min(v), max(v)) if v else SoilDay(d) for d, v in found.items()]


def soil_lines(texts: Texts, ask: SowingAsk, days: Sequence[SoilDay]) -> list[str]:
    """The verdict, then a day a line: the soil at 6 cm from its coldest to its
    warmest hour."""
    known = [d for d in days if d.low is not None]
    if not known:
        return [texts.text("forecast.soil_unknown")]
    minimum = texts.number(ask.minimum)
    ready = next((d for d in known if d.low is not None and d.low >= ask.minimum), None)
    if ready is None:
        verdict = texts.text("forecast.soil_cold", crop=ask.name, minimum=minimum)
    elif ready is known[0]:
        verdict = texts.text("forecast.soil_ready", crop=ask.name, minimum=minimum)
    else:
        verdict = texts.text(
            "forecast.soil_from", crop=ask.name, minimum=minimum, day=day_name(texts, ready.day)
        )
    lines = [verdict]
    for day in days:
        if day.low is None or day.high is None:
            lines.append(texts.text("forecast.no_data", day=day_name(texts, day.day)))
            continue
        low, high = texts.number(round(day.low, 1)), texts.number(round(day.high, 1))
        lines.append(
            texts.text("forecast.soil_line", day=day_name(texts, day.day), low=low, high=high)
        )
    return lines
