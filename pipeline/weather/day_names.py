"""A forecast day as farmers read it: «пт 15.05», "Fri 15.05" (forecast.weekdays and
forecast.day in the catalogs), for every weather text."""

from __future__ import annotations

from datetime import date

from pipeline.language.texts import Texts

__all__ = ["day_name"]


def day_name(texts: Texts, day: date) -> str:
    names = texts.text("forecast.weekdays").split()
    return texts.text("forecast.day", weekday=names[day.weekday()], date=day.strftime("%d.%m"))
