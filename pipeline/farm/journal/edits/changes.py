"""What a correction changes in one entry or card operation: the pieces of what was
wrong are matched against the entry's values, those of what is right replace them.

"не 150, а 120" changes the amount that is 150 to 120 in its unit; "не на Леваді, а на
полі 3" the field; "не вчора, а позавчора" the date; "це була сівба, а не культивація"
the operation; "не Децис, а Абакус" the product; "ще й 40 га" adds an area. A wrong
part the entry does not hold ("не 200", when it says 150) changes nothing and says
why."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from pipeline.farm.journal.parsing.pieces import Amount, Pieces
from pipeline.farm.journal.parsing.quantities import Quantity, slot_of

__all__ = ["Change", "Mismatch", "change_of", "primary"]

#: An amount's slot -> its value and unit columns (None: the unit is fixed).
SLOT_COLUMNS: dict[str, tuple[str, str | None]] = {
    "rate": ("rate", "rate_unit"),
    "yield": ("yield_t_ha", None),
    "amount": ("amount", "amount_unit"),
    "area": ("area_ha", None),
}
_FIXED_UNIT = {"yield": "t/ha", "area": "ha"}
#: The piece kinds and the column each changes.
_KIND_COLUMN = {
    "fields": "field_id",
    "dates": "op_date",
    "ops": "op_type",
    "products": "product",
    "crops": "crop_id",
}
_KINDS = ("amounts", *_KIND_COLUMN)


@dataclass(frozen=True, slots=True)
class Change:
    """The columns that change, and their new values."""

    values: Mapping[str, Any]

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(self.values)


@dataclass(frozen=True, slots=True)
class Mismatch:
    """The wrong part is not what the entry holds: (kind, what it holds instead)."""

    kind: str
    held: Any


def primary(values: Mapping[str, Any]) -> tuple[float | None, str | None]:
    """The one number a short view shows: the first of rate, yield, amount, area."""
    for slot, (column, unit_column) in SLOT_COLUMNS.items():
        value = values.get(column)
        if value is not None:
            unit = values.get(unit_column) if unit_column else _FIXED_UNIT[slot]
            return value, unit
    return None, None


def _slot_holding(values: Mapping[str, Any], amount: Amount, op_type: str) -> str | None:
    """The slot whose value is ``amount`` (in its unit, when one was said)."""
    for slot, (column, unit_column) in SLOT_COLUMNS.items():
        held = values.get(column)
        if held is None or abs(float(held) - amount.value) > 1e-6 * max(1.0, amount.value):
            continue
        if amount.unit is None or _slot_of(amount, op_type)[0] == slot:
            return slot
        if unit_column and values.get(unit_column) == amount.unit:
            return slot
    return None


def _slot_of(amount: Amount, op_type: str) -> tuple[str, float, str]:
    return slot_of(Quantity(amount.value, amount.unit or "", 0), op_type)


def _amount_changes(
    values: Mapping[str, Any], wrong: Pieces, right: Pieces, adding: bool
) -> dict[str, Any] | Mismatch:
    op_type = str(values.get("op_type") or "")
    changes: dict[str, Any] = {}
    for i, new in enumerate(right.amounts):
        old = wrong.amounts[i] if i < len(wrong.amounts) else None
        slot = _slot_holding(values, old, op_type) if old is not None else None
        if old is not None and slot is None:
            held, unit = primary(values)
            return Mismatch("amounts", (held, unit))
        if new.unit:
            slot, value, unit = _slot_of(new, op_type)
        else:
            slot = slot or _primary_slot(values)
            if slot is None:
                return Mismatch("amounts", (None, None))
            value, unit = new.value, _unit_of(values, slot)
        column, unit_column = SLOT_COLUMNS[slot]
        if (
            adding
            and values.get(column) is not None
            and (new.unit is None or unit == _unit_of(values, slot))
        ):
            value = float(values[column]) + value
        changes[column] = value
        if unit_column:
            changes[unit_column] = unit
    return changes


def _primary_slot(values: Mapping[str, Any]) -> str | None:
    for slot, (column, _unit) in SLOT_COLUMNS.items():
        if values.get(column) is not None:
            return slot
    return None


def _unit_of(values: Mapping[str, Any], slot: str) -> str | None:
    unit_column = SLOT_COLUMNS[slot][1]
    return values.get(unit_column) if unit_column else _FIXED_UNIT[slot]


def _held(values: Mapping[str, Any], kind: str, piece: Any) -> bool:
    held = values.get(_KIND_COLUMN[kind])
    if kind == "dates" and isinstance(held, str):
        held = date.fromisoformat(held)
    return bool(held == piece)


def change_of(
    values: Mapping[str, Any], wrong: Pieces, right: Pieces, *, adding: bool = False
) -> Change | Mismatch | None:
    """The change ``right`` makes to an entry with ``values`` (None: nothing to change).

    With a wrong part, only the kinds both parts name change ("селітри 120 кг/га, а не
    150": the amount, not the product), and each wrong piece must be what the entry
    holds."""
    kinds = [k for k in _KINDS if getattr(right, k)]
    if not wrong.empty:
        kinds = [k for k in kinds if getattr(wrong, k)]
    changes: dict[str, Any] = {}
    for kind in kinds:
        if kind == "amounts":
            found = _amount_changes(values, wrong, right, adding)
            if isinstance(found, Mismatch):
                return found
            changes |= found
            continue
        old = getattr(wrong, kind)
        if old and not _held(values, kind, old[0]):
            return Mismatch(kind, values.get(_KIND_COLUMN[kind]))
        new = getattr(right, kind)[0]
        if not _held(values, kind, new):
            changes[_KIND_COLUMN[kind]] = new
    if not changes:
        return None
    if any(column in changes for column, _ in SLOT_COLUMNS.values()):
        quantity, unit = primary({**values, **changes})
        changes |= {"quantity": quantity, "unit": unit}
    return Change(changes)
