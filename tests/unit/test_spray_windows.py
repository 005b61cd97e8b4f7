"""Spray windows (pipeline/weather/spraying.py): runs of hours within the spraying
card's limits, each followed by dry hours; a figure the forecast lacks never passes."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from db.repositories.weather import WeatherHour
from pipeline.weather.spraying import SprayLimits, spray_windows
from tests.shared import rulebook

KYIV = ZoneInfo("Europe/Kyiv")
DAY = date(2026, 5, 15)
#: Midnight of DAY in Kyiv (UTC+3 in May).
START = datetime(2026, 5, 14, 21, tzinfo=UTC)
LIMITS = SprayLimits(tmin=10, tmax=25, wind_max=4, humidity_min=60, rain_free_h=3)


def _hours(**changes: dict[int, float | None]) -> list[WeatherHour]:
    """Two days of good hours (15 °C, 2 m/s, 70 %, dry), with ``changes`` by local hour."""
    hours = []
    for n in range(48):
        figures: dict[str, float | None] = {
            "temperature": 15.0, "wind_speed": 2.0, "humidity": 70.0,
            "precipitation": 0.0, "precipitation_probability": 0.0,
        }  # fmt: skip
        for name, by_hour in changes.items():
            if n in by_hour:
                figures[name] = by_hour[n]
        hours.append(WeatherHour(START + timedelta(hours=n), **figures))  # type: ignore[arg-type]
    return hours


def _spans(hours: list[WeatherHour], now: datetime = START) -> list[str]:
    found = spray_windows(hours, LIMITS, [DAY], KYIV, now)
    return [f"{a:%H}-{b:%H}" for a, b in found[DAY]]


def test_the_card_gives_the_limits() -> None:
    limits = SprayLimits.of(rulebook().knowledge.data.cards)
    assert limits == SprayLimits(tmin=10, tmax=25, wind_max=4, humidity_min=60, rain_free_h=3)


def test_wind_heat_and_rain_after_cut_the_day() -> None:
    windy = {h: 6.0 for h in range(10, 14)}
    hot = {h: 28.0 for h in range(14, 17)}
    rain = {21: 1.2}  # spoils 18:00-20:00 (3 dry hours after) and 21:00 itself
    assert _spans(_hours(wind_speed=windy, temperature=hot, precipitation=rain)) == [
        "00-10",
        "17-18",
        "22-00",
    ]


def test_a_missing_figure_never_passes_and_the_past_is_not_offered() -> None:
    missing = {h: None for h in range(0, 6)}
    assert _spans(_hours(humidity=missing)) == ["06-00"]
    assert _spans(_hours(), now=START + timedelta(hours=20, minutes=30)) == ["20-00"]


def test_a_likely_shower_counts_as_rain() -> None:
    assert _spans(_hours(precipitation_probability={5: 70.0})) == ["00-02", "06-00"]
