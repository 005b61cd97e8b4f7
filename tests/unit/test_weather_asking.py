"""What a weather question asks (pipeline/weather/asking.py): the days, ahead of the
farm's today, and the topic; the field it names (docs/weather.md)."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from db.repositories.places import FieldPlace
from pipeline.weather.answers import field_named
from pipeline.weather.asking import Topic, read_ask
from tests.shared import rulebook

WORDS = rulebook().weather
THURSDAY = date(2026, 5, 14)


def _days(*offsets: int) -> tuple[date, ...]:
    return tuple(THURSDAY + timedelta(days=n) for n in offsets)


@pytest.mark.parametrize(
    ("text", "topic", "days"),
    [
        ("яка погода завтра", Topic.GENERAL, _days(1)),
        ("какая погода завтра", Topic.GENERAL, _days(1)),
        ("what's the weather tomorrow", Topic.GENERAL, _days(1)),
        ("погода післязавтра", Topic.GENERAL, _days(2)),
        ("weather the day after tomorrow", Topic.GENERAL, _days(2)),
        ("яка погода сьогодні", Topic.GENERAL, _days(0)),
        ("яка погода", Topic.GENERAL, _days(0, 1, 2)),
        ("чи буде дощ на вихідних", Topic.RAIN, _days(2, 3)),
        ("будет дождь в выходные?", Topic.RAIN, _days(2, 3)),
        ("will it rain this weekend", Topic.RAIN, _days(2, 3)),
        ("дощ у суботу буде?", Topic.RAIN, _days(2)),
        ("будуть заморозки?", Topic.FROST, _days(0, 1, 2, 3, 4, 5, 6)),
        ("чи не буде приморозків в понеділок", Topic.FROST, _days(4)),
        ("погода на тиждень", Topic.GENERAL, _days(0, 1, 2, 3, 4, 5, 6)),
        ("погода в четвер", Topic.GENERAL, _days(0)),
        ("погода на три дні", Topic.GENERAL, _days(0, 1, 2)),
        ("чи буде дощ через 5 днів", Topic.RAIN, _days(5)),
        ("weather in 2 days", Topic.GENERAL, _days(2)),
    ],
)
def test_days_and_topic(text: str, topic: Topic, days: tuple[date, ...]) -> None:
    ask = read_ask(text, THURSDAY, WORDS)
    assert (ask.topic, ask.days, ask.beyond) == (topic, days, False)


def test_yesterday_is_kept_and_earlier_is_said_to_be_past() -> None:
    assert read_ask("яка погода була вчора", THURSDAY, WORDS).days == _days(-1)
    earlier = read_ask("яка погода була позавчора", THURSDAY, WORDS)
    assert (earlier.days, earlier.past) == ((), True)


def test_too_far_ahead_is_said_to_be_beyond() -> None:
    far = read_ask("погода через 10 днів", THURSDAY, WORDS)
    assert (far.days, far.beyond) == ((), True)
    fortnight = read_ask("погода на 2 тижні", THURSDAY, WORDS)
    assert (fortnight.days, fortnight.beyond) == (_days(0, 1, 2, 3, 4, 5, 6), True)


def test_on_a_sunday_the_weekend_is_today() -> None:
    sunday = date(2026, 5, 17)
    assert read_ask("дощ на вихідних?", sunday, WORDS).days == (sunday,)


def test_a_field_is_named_as_the_farmer_declines_it() -> None:
    fields = [
        FieldPlace(1, "field:north", "Північне", None, None),
        FieldPlace(2, "field:2", "Поле 2", None, None),
        FieldPlace(3, "field:20", "Поле 20", None, None),
        FieldPlace(4, "field:pond", "За ставком", None, None),
    ]
    assert field_named(fields, "яка погода на Північному завтра") == fields[0]
    assert field_named(fields, "дощ на полі 2?") == fields[1]
    assert field_named(fields, "дощ на полі 20?") == fields[2]
    assert field_named(fields, "погода за ставком") == fields[3]
    assert field_named(fields, "яка погода завтра") is None
