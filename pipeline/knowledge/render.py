"""Values as a farmer reads them: "50–60 тис. насінин/га", "до 14 %", "20 вересня –
10 жовтня", "pH 4,6–5", "через 3–5 днів"; the decimal comma in Ukrainian. Every word
comes from the catalog (``[knowledge]``, ``[knowledge.lead]`` and ``[unit]``).

A value's label is a noun phrase before a colon; the words that lead into the number
(«не нижче», «через», «не сильніший за») are the value's own, ``knowledge.lead.<key>``,
so the line reads «Вітер: не сильніший за 5 м/с», never «Вітер — не сильніший за: 5 м/с».
A counted unit agrees with the last number said, as Ukrainian does: «14–21 день»,
«3–5 днів», «2–3 дні»."""

from __future__ import annotations

from pipeline.knowledge.model import DATE_UNIT, Value, month_day
from pipeline.language.texts import Texts

__all__ = ["ValueText"]

_MINUS = "\u2212"
_NBSP = "\u00a0"


class ValueText:
    """Renders numbers, ranges, dates and units in one language."""

    def __init__(self, texts: Texts) -> None:
        self.texts = texts
        self.lang = texts.lang

    def text(self, key: str, /, **params: object) -> str:
        return self.texts.text(key, **params)

    def number(self, value: float) -> str:
        """Up to two decimals, trailing zeros dropped; "1,5" in Ukrainian."""
        rounded = round(value, 2)
        if rounded == int(rounded):
            body = f"{abs(int(rounded)):,}"
        else:
            body = f"{abs(rounded):,.2f}".rstrip("0").rstrip(".")
        if self.lang == "uk":
            body = body.replace(",", _NBSP).replace(".", ",")
        return (_MINUS if rounded < 0 else "") + body

    def unit(self, unit: str, count: float | None = None) -> str:
        """The unit's word; a counted one («день», «дні», «днів») in the form ``count`` takes."""
        key = f"unit.{unit}"
        if not self.texts.has(key):
            return unit
        return self.texts.text(key) if count is None else self.texts.plural(key, count)

    def day(self, key: float) -> str:
        month, day = month_day(key)
        return self.text("knowledge.date", day=day, month=self.text(f"knowledge.month.{month}"))

    def span(self, low: float, high: float, unit: str, bound: str | None = None) -> str:
        """One range with its unit ("8–10 °C", "до 14 %", "pH 5,1–5,5")."""
        if unit == DATE_UNIT:
            if low == high:
                return self.day(low)
            return self.text("knowledge.date_range", start=self.day(low), end=self.day(high))
        if low == high:
            number = self.number(low)
        else:
            key = "knowledge.range_negative" if low < 0 or high < 0 else "knowledge.range"
            number = self.text(key, low=self.number(low), high=self.number(high))
        if unit == "pH":
            value = self.text("knowledge.ph", value=number)
        else:
            value = self.text("knowledge.quantity", value=number, unit=self.unit(unit, high))
        if bound == "max":
            return self.text("knowledge.bound_max", value=value)
        if bound == "min":
            return self.text("knowledge.bound_min", value=value)
        return value

    def value(self, value: Value, zone: str | None) -> str | None:
        """The value for ``zone`` with the words that lead into it («через 3–5 днів»)."""
        span = value.span(zone)
        if span is None:
            return None
        text = self.span(*span, value.unit, value.bound)
        lead = f"knowledge.lead.{value.key}"
        if not self.texts.has(lead):
            return text
        return self.text("knowledge.lead_value", lead=self.text(lead), value=text)

    def label(self, key: str) -> str:
        return self.text(f"knowledge.value.{key}")

    def zone(self, zone: str) -> str:
        return self.text(f"knowledge.zone.{zone}")

    def join(self, parts: list[str]) -> str:
        return self.text("knowledge.list_sep").join(parts)
