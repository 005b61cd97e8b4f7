"""Quantities: "1,5 л/га", "20мм", "45 ц/га" (4.5 t/ha), "150 кг на гектар"."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.farm.parsing.scan import Scan
from pipeline.farm.units import Measure, Units

__all__ = ["Quantity", "best_quantity", "find_quantities"]


@dataclass(frozen=True, slots=True)
class Quantity:
    value: float
    unit: str
    priority: int

    @property
    def rate(self) -> bool:
        """Per area or a depth of water: what a field operation is measured in."""
        return "/" in self.unit or self.unit == "mm"


def _number(token: str) -> float:
    return float(token.replace(",", "."))


def find_quantities(scan: Scan, units: Units) -> list[Quantity]:
    found: list[Quantity] = []
    for i, token in enumerate(scan.tokens):
        if not (token.number and scan.free(i)):
            continue
        hit = units.measure_at(scan.norms, i + 1)
        if hit is None:
            continue
        measure, length = hit
        unit, end = _unit_of(scan, units, measure, i + 1 + length)
        if unit is None:
            continue
        value = round(_number(token.norm) * measure.factor, 6)
        found.append(Quantity(value, unit, measure.priority))
        scan.claim(i, end, "quantity")
    return found


def _unit_of(scan: Scan, units: Units, measure: Measure, i: int) -> tuple[str | None, int]:
    """The canonical unit of a measure ending at token ``i``, and where it ends:
    "л" alone, "л/га" / "л на гектар" per area, "л/т" per tonne."""
    for per_unit, terms in ((measure.per_area, units.area), (measure.per_tonne, units.tonne)):
        if per_unit is None:
            continue
        if scan.norm(i) in terms:
            return per_unit, i + 1
        if scan.norm(i) in units.per and scan.norm(i + 1) in terms:
            return per_unit, i + 2
    return measure.alone, i


def best_quantity(found: Sequence[Quantity]) -> Quantity | None:
    best: Quantity | None = None
    for quantity in found:
        if best is None or quantity.priority > best.priority:
            best = quantity
    return best
