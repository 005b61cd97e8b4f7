"""The «чи можна сьогодні сіяти X?» reply: today's (or the named) date against the
crop's window for the zone, the farm's latest soil temperature (or one in the
question) against the crop's minimum. An unknown date is never called right."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pipeline.knowledge.base import KnowledgeBase, Lookup
from pipeline.knowledge.model import Card, FarmFacts, Value, Zone, date_key
from pipeline.knowledge.render import ValueText

__all__ = ["sow_now_section"]


@dataclass(frozen=True, slots=True)
class _Soil:
    """The farm's soil temperature against the crop's minimum."""

    state: Literal["ok", "border", "cold", "unknown"]
    temp: float | None
    low: float
    high: float

    def line(self, out: ValueText) -> str:
        key = {"ok": "soil_ok", "border": "soil_border", "cold": "soil_cold"}.get(
            self.state, "soil_unknown"
        )
        temp = out.span(self.temp, self.temp, "C") if self.temp is not None else ""
        return out.text(
            f"knowledge.sow_now.{key}",
            temp=temp,
            need=out.span(self.low, self.low, "C"),
            better=out.span(self.high, self.high, "C"),
        )


def sow_now_section(
    card: Card, lookup: Lookup, out: ValueText, facts: FarmFacts, kb: KnowledgeBase
) -> tuple[list[str], bool]:
    """«Чи можна сьогодні сіяти X?»: the date against the zone's window, the soil
    against the crop's minimum; True when the zone is unknown (ask for the region)."""
    window = card.value("window")
    assert window is not None
    crop = kb.crop_names[card.crop].get(out.lang) if card.crop in kb.crop_names else ""
    lines = [out.text("knowledge.sow_now.title", crop=crop)]
    zones = [lookup.zone] if lookup.zone is not None else list(window.spans)
    day = _day(lookup, facts)
    states = {zone: _date_state(window.span(zone), day) for zone in zones}
    info = kb.data.crops.get(card.crop or "")
    season = info.season if info is not None else "spring"
    soil = _soil_state(card, lookup, facts) if season == "spring" else None
    distinct = set(states.values())
    date_state = distinct.pop() if len(distinct) == 1 else "depends"
    lines.append(out.text(f"knowledge.sow_now.{_verdict(date_state, soil)}"))
    lines += _date_lines(window, lookup.zone, day, date_state, out, kb)
    if soil is not None:
        lines.append(soil.line(out))
    elif season == "winter":
        lines.append(out.text("knowledge.sow_now.winter_soil"))
    return lines, lookup.zone is None


def _date_lines(
    window: Value,
    zone: Zone | None,
    day: float | None,
    date_state: str,
    out: ValueText,
    kb: KnowledgeBase,
) -> list[str]:
    """The day against the zone's window; with no zone known, every zone's window."""
    if zone is not None and day is not None:
        span = window.span(zone)
        assert span is not None
        key = {"in": "date_in", "early": "date_early", "late": "date_late",
               "next": "date_next"}[date_state]  # fmt: skip
        return [
            out.text(
                f"knowledge.sow_now.{key}",
                day=out.day(day),
                window=out.span(*span, window.unit),
            )
        ]
    if zone is not None:
        return []
    lines = [out.text("knowledge.sow_now.zones")]
    for each in kb.data.zones:
        lines.append(
            out.text("knowledge.zone_line", zone=out.zone(each), value=out.value(window, each))
        )
    return lines


def _day(lookup: Lookup, facts: FarmFacts) -> float | None:
    """The day to judge: the one the question names, else the farm's today."""
    if lookup.day is not None:
        return date_key(*lookup.day)
    return date_key(facts.today.month, facts.today.day) if facts.today else None


#: Two months past the window's end the season is over: the answer is next year's
#: window («коли сіяти соняшник?» in December), not «пізня сівба знижує врожай».
OFF_SEASON_MONTHS = 2


def _date_state(span: tuple[float, float] | None, key: float | None) -> str:
    if span is None or key is None:
        return "unknown"
    if key < span[0]:
        return "early"
    if key <= span[1]:
        return "in"
    return "next" if key - span[1] > OFF_SEASON_MONTHS * 100 else "late"


def _soil_state(card: Card, lookup: Lookup, facts: FarmFacts) -> _Soil | None:
    minimum = card.value("soil_min")
    span = minimum.span(None) if minimum is not None else None
    if span is None:
        return None
    low, high = span
    temp = facts.soil_temp_c if facts.soil_temp_c is not None else lookup.temperature_c
    state: Literal["ok", "border", "cold", "unknown"] = "unknown"
    if temp is not None:
        state = "cold" if temp < low else "border" if temp < high else "ok"
    return _Soil(state, temp, low, high)


def _verdict(date_state: str, soil: _Soil | None) -> str:
    """The first line: the date rules first, then the soil; an unknown date is
    never called right."""
    if date_state in ("late", "early", "depends", "next"):
        return {"late": "no_late", "early": "no_early", "depends": "depends",
                "next": "no_next"}[date_state]  # fmt: skip
    state = soil.state if soil is not None else "none"
    if state in ("cold", "border"):
        return "no_cold" if state == "cold" else "borderline"
    if date_state == "in":
        return "yes" if state in ("ok", "none") else "yes_check_soil"
    return "soil_ok_check_date" if state == "ok" else "check_both"
