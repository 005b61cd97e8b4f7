"""The same operation sent twice: same type, field, crop, date, product and amounts
from the same user within a few minutes (``WINDOW``).

A signature is taken per field (an operation on "полях 2 і 6" is written as one row
per field), so a written row and a card's operation compare the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import timedelta
from typing import Any

#: How long after an operation the same one is taken for a repetition.
WINDOW = timedelta(minutes=10)

Signature = tuple[object, ...]
_AMOUNTS = ("rate", "rate_unit", "amount", "amount_unit", "area_ha", "yield_t_ha")


def _number(value: object) -> object:
    return round(float(value), 6) if isinstance(value, int | float) else value


def signature(values: Mapping[str, Any], field_id: str | None) -> Signature:
    """What makes two operations the same, for one of their fields."""
    return (
        values.get("op_type"),
        field_id,
        values.get("crop_id"),
        str(values.get("op_date")),
        (values.get("product") or "").casefold() or None,
        *(_number(values.get(key)) for key in _AMOUNTS),
    )


def op_fields(body: Mapping[str, Any]) -> list[str | None]:
    """The fields an operation of a card is written to, one row each."""
    return list(body.get("several_fields") or []) or [body.get("field_id")]


def signatures(body: Mapping[str, Any]) -> set[Signature]:
    return {signature(body, field_id) for field_id in op_fields(body)}


def is_repeat(body: Mapping[str, Any], seen: Iterable[Signature]) -> bool:
    """Every row the operation would write is already there."""
    known = set(seen)
    return bool(known) and signatures(body) <= known
