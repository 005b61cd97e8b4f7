"""What a weather question asks (docs/weather.md): which days (today, tomorrow, the
day after, a weekday, the weekend, the week; none named: a few days from today) and
whether it is about rain, frost or the weather in general. The words are data:
rules/weather.toml, and dates.toml for the day words every reader shares."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from enum import StrEnum
from pathlib import Path

from pydantic import Field

from pipeline.farm.words.dates import with_spoken_numbers
from pipeline.farm.words.datewords import DateWords
from pipeline.grammar import Grammar, TermSet
from pipeline.rules import RULES_DIR
from pipeline.rules.schema import NonEmptyStrings, RulesModel, load
from pipeline.text import tokenize

__all__ = ["DEFAULT_WEATHER", "Topic", "WeatherAsk", "WeatherWords", "read_ask"]

DEFAULT_WEATHER = RULES_DIR / "weather.toml"
#: The forecast reaches this many days from today (the source is asked for 7) ...
HORIZON_DAYS = 7
#: ... and this many before it.
PAST_DAYS = 1


class Topic(StrEnum):
    GENERAL = "general"
    RAIN = "rain"
    FROST = "frost"


class _Defaults(RulesModel):
    general: int = Field(ge=1, le=HORIZON_DAYS)
    rain: int = Field(ge=1, le=HORIZON_DAYS)
    frost: int = Field(ge=1, le=HORIZON_DAYS)


class _Days(RulesModel):
    weekend: NonEmptyStrings
    week: NonEmptyStrings
    default_days: _Defaults


class _Asks(RulesModel):
    rain: NonEmptyStrings
    frost: NonEmptyStrings


class _WeatherFile(RulesModel):
    version: int = Field(ge=1, le=1)
    days: _Days
    asks: _Asks


@dataclass(frozen=True, slots=True)
class WeatherWords:
    weekend: TermSet
    week: TermSet
    asks: TermSet
    defaults: dict[Topic, int]
    dates: DateWords

    @classmethod
    def load(cls, grammar: Grammar, dates: DateWords, path: Path = DEFAULT_WEATHER) -> WeatherWords:
        raw = load(path, _WeatherFile)
        return cls(
            weekend=TermSet.flat(raw.days.weekend, "weekend", grammar),
            week=TermSet.flat(raw.days.week, "week", grammar),
            # Frost first: «мороз і дощ» is a frost question (it is the one that harms).
            asks=TermSet.labelled({"frost": raw.asks.frost, "rain": raw.asks.rain}, grammar),
            defaults={Topic(k): v for k, v in raw.days.default_days.model_dump().items()},
            dates=dates,
        )


@dataclass(frozen=True, slots=True)
class WeatherAsk:
    topic: Topic
    #: The local days asked about, in order, within the forecast's reach.
    days: tuple[date, ...]
    #: Days asked about beyond the forecast's reach (none are answered for them).
    beyond: bool = False
    #: The question named its days (else ``days`` are the topic's default).
    named: bool = True
    #: Days asked about before yesterday (none are answered for them).
    past: bool = False


def _topic(tokens: Sequence[str], words: WeatherWords) -> Topic:
    labels = {words.asks.label(token) for token in tokens}
    if "frost" in labels:
        return Topic.FROST
    return Topic.RAIN if "rain" in labels else Topic.GENERAL


def _weekend(today: date) -> list[date]:
    """The coming Saturday and Sunday (on a Sunday: today)."""
    saturday = today + timedelta(days=(5 - today.weekday()) % 7)
    if today.weekday() == 6:
        saturday = today - timedelta(days=1)
    return [d for d in (saturday, saturday + timedelta(days=1)) if d >= today]


def _counted(tokens: Sequence[str], i: int, today: date, words: WeatherWords) -> list[date] | None:
    """«через 5 днів» (that day), «на 3 дні», «на 2 тижні» (that many days from
    today); None for anything else."""
    dates = words.dates
    if i + 2 >= len(tokens) or not tokens[i + 1].isdigit():
        return None
    unit = dates.offset_units.label(tokens[i + 2])
    if unit is None:
        return None
    days = int(tokens[i + 1]) * int(unit)
    if tokens[i] in dates.offset_ahead:
        return [today + timedelta(days=days)]
    if tokens[i] in dates.future_prepositions and days > 0:
        return [today + timedelta(days=n) for n in range(days)]
    return None


def _day_at(
    tokens: Sequence[str], i: int, today: date, words: WeatherWords
) -> tuple[list[date], int]:
    """The days the words at ``i`` name, and how many tokens they take."""
    dates = words.dates
    counted = _counted(tokens, i, today, words)
    if counted is not None:
        return counted, 3
    found = dates.relative.match_at(tokens, i)
    if found is not None:
        offset, length = int(found[0]), found[1]
        return [today + timedelta(days=offset)], length
    token = tokens[i]
    if token in words.weekend:
        return _weekend(today), 1
    if token in words.week:
        return [today + timedelta(days=n) for n in range(HORIZON_DAYS)], 1
    weekday = dates.weekdays.label(token)
    if weekday is not None:
        return [today + timedelta(days=(int(weekday) - today.weekday()) % 7)], 1
    return [], 1


def _named_days(tokens: Sequence[str], today: date, words: WeatherWords) -> list[date]:
    days: list[date] = []
    i = 0
    while i < len(tokens):
        found, length = _day_at(tokens, i, today, words)
        days += found
        i += max(length, 1)
    return days


def read_ask(text: str, today: date, words: WeatherWords) -> WeatherAsk:
    """The question ``text`` on the farm's local ``today``."""
    tokens = with_spoken_numbers(tokenize(text), words.dates)
    topic = _topic(tokens, words)
    days = _named_days(tokens, today, words)
    named = bool(days)
    if not named:
        days = [today + timedelta(days=n) for n in range(words.defaults[topic])]
    # Yesterday is in the cache (the source is asked for one past day); earlier is not.
    first, last = today - timedelta(days=PAST_DAYS), today + timedelta(days=HORIZON_DAYS - 1)
    wanted = sorted(set(days))
    inside = tuple(d for d in wanted if first <= d <= last)
    beyond = any(d > last for d in wanted)
    return WeatherAsk(topic, inside, beyond, named, past=any(d < first for d in wanted))
