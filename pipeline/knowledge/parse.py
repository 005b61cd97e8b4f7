"""Parsing and checking the parts of the knowledge files: texts, dates, ranges and
values. Every problem is collected in :class:`Problems`, never raised one by one."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from pipeline.knowledge.files import LocalText
from pipeline.knowledge.model import ALL, DATE_UNIT, ZONES, Text, Value, date_key
from pipeline.rules import schema

__all__ = ["Problems", "read", "strings", "text", "values"]

_DATE_RE = re.compile(r"^(\d{2})-(\d{2})$")
_DAYS_IN_MONTH = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


class Problems:
    def __init__(self) -> None:
        self.found: list[str] = []

    def add(self, where: str, what: str) -> None:
        self.found.append(f"{where}: {what}")


def read(path: Path, model: type[schema.RulesModel]) -> Mapping[str, Any]:
    """The file checked as ``model`` (a one-line RulesError naming the file and the
    key), as plain data (lists, dicts) for the loader's cross-checks, which collect
    every problem."""
    return schema.load(path, model).model_dump(mode="json")


def strings(value: Any) -> tuple[str, ...]:
    return tuple(str(item) for item in value) if isinstance(value, list) else ()


def text(raw: Any, where: str, problems: Problems) -> Text | None:
    if isinstance(raw, LocalText):
        raw = raw.model_dump()
    if not isinstance(raw, Mapping):
        problems.add(where, "needs uk and en text")
        return None
    uk, en = str(raw.get("uk", "")).strip(), str(raw.get("en", "")).strip()
    if not uk or not en:
        problems.add(where, f"text missing in {'uk' if not uk else 'en'}")
        return None
    return Text(uk, en)


# ----------------------------------------------------------------------------- values


def _date(raw: Any, where: str, problems: Problems) -> float | None:
    match = _DATE_RE.match(str(raw))
    if match is None:
        problems.add(where, f"date {raw!r} is not MM-DD")
        return None
    month, day = int(match.group(1)), int(match.group(2))
    if not 1 <= month <= 12 or not 1 <= day <= _DAYS_IN_MONTH[month - 1]:
        problems.add(where, f"date {raw!r} does not exist")
        return None
    return date_key(month, day)


def _number(raw: Any, unit: str, where: str, problems: Problems) -> float | None:
    if unit == DATE_UNIT:
        return _date(raw, where, problems)
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        problems.add(where, f"{raw!r} is not a number")
        return None
    return float(raw)


def _span(raw: Any, unit: str, where: str, problems: Problems) -> tuple[float, float] | None:
    parts = raw if isinstance(raw, list) else [raw]
    if len(parts) not in (1, 2):
        problems.add(where, "a range is [low, high] or one number")
        return None
    numbers = [_number(part, unit, where, problems) for part in parts]
    if any(number is None for number in numbers):
        return None
    low, high = cast(float, numbers[0]), cast(float, numbers[-1])
    if low > high:
        problems.add(where, f"range not ordered: {parts[0]} > {parts[-1]}")
        return None
    return low, high


def _value(raw: Any, where: str, units: frozenset[str], problems: Problems) -> Value | None:
    if not isinstance(raw, Mapping) or not raw.get("key") or not raw.get("unit"):
        problems.add(where, "a value needs a key and a unit")
        return None
    key, unit = str(raw["key"]), str(raw["unit"])
    where = f"{where} value {key!r}"
    if unit != DATE_UNIT and unit not in units:
        problems.add(where, f"unknown unit {unit!r} (add it to [units] of operations.toml)")
        return None
    zone_keys = [name for name in raw if name not in ("key", "unit", "bound")]
    if not _zones_fit(zone_keys, where, problems):
        return None
    bound = raw.get("bound")
    if bound not in (None, "min", "max"):
        problems.add(where, f"bound must be 'min' or 'max', not {bound!r}")
        return None
    spans = _spans(raw, zone_keys, unit, bound, where, problems)
    return Value(key, unit, spans, bound) if spans is not None else None


def _zones_fit(zone_keys: list[str], where: str, problems: Problems) -> bool:
    """A value's spans are under ``all`` alone or under every zone."""
    unknown = [name for name in zone_keys if name != ALL and name not in ZONES]
    if unknown:
        problems.add(where, f"unknown zone(s) {unknown}; zones are {list(ZONES)} or 'all'")
        return False
    if ALL in zone_keys and len(zone_keys) > 1:
        problems.add(where, "'all' and zones together")
        return False
    if ALL not in zone_keys and sorted(zone_keys) != sorted(ZONES):
        problems.add(where, f"needs 'all' or every zone {list(ZONES)}")
        return False
    return True


def _spans(
    raw: Mapping[str, Any],
    zone_keys: list[str],
    unit: str,
    bound: str | None,
    where: str,
    problems: Problems,
) -> dict[str, tuple[float, float]] | None:
    spans: dict[str, tuple[float, float]] = {}
    for name in zone_keys:
        span = _span(raw[name], unit, f"{where} [{name}]", problems)
        if span is None:
            return None
        if bound is not None and span[0] != span[1]:
            problems.add(where, "a bounded value is one number")
            return None
        spans[name] = span
    return spans


def values(raw: Any, where: str, units: frozenset[str], problems: Problems) -> tuple[Value, ...]:
    found = (_value(item, where, units, problems) for item in (raw or []))
    return tuple(value for value in found if value is not None)
