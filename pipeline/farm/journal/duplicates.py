"""The same operation sent twice: same type, field, crop, date, product and amounts
from the same user within a few minutes (``WINDOW``).

A signature is taken per field (an operation on "полях 2 і 6" is written as one row
per field), so a written row and a card's operation compare the same way.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, timedelta
from typing import Protocol

from pipeline.farm.journal.draft import DraftOperation

#: How long after an operation the same one is taken for a repetition.
WINDOW = timedelta(minutes=10)

Signature = tuple[object, ...]
_AMOUNTS = ("rate", "rate_unit", "amount", "amount_unit", "area_ha", "yield_t_ha")


class Recorded(Protocol):
    """What a signature reads: a written row (``OperationRow``) or a card's operation."""

    @property
    def op_type(self) -> str: ...
    @property
    def crop_id(self) -> str | None: ...
    @property
    def op_date(self) -> date: ...
    @property
    def product(self) -> str | None: ...
    @property
    def rate(self) -> float | None: ...
    @property
    def rate_unit(self) -> str | None: ...
    @property
    def amount(self) -> float | None: ...
    @property
    def amount_unit(self) -> str | None: ...
    @property
    def area_ha(self) -> float | None: ...
    @property
    def yield_t_ha(self) -> float | None: ...


def _number(value: object) -> object:
    return round(float(value), 6) if isinstance(value, int | float) else value


def signature(values: Recorded, field_id: str | None) -> Signature:
    """What makes two operations the same, for one of their fields."""
    return (
        values.op_type,
        field_id,
        values.crop_id,
        values.op_date.isoformat(),
        (values.product or "").casefold() or None,
        *(_number(getattr(values, key)) for key in _AMOUNTS),
    )


def signatures(operation: DraftOperation) -> set[Signature]:
    return {signature(operation, field_id) for field_id in operation.target_fields()}


def is_repeat(operation: DraftOperation, seen: Iterable[Signature]) -> bool:
    """Every row the operation would write is already there."""
    known = set(seen)
    return bool(known) and signatures(operation) <= known
