"""Quantities: "1,5 л/га", "20мм", "45 ц/га" (4.5 t/ha), "150 кило на гектар",
"двісті кг" (numbers said in words are read into the scan first), "40 га".

Each is found with its position; which slot of an operation it fills (a rate, a total,
the area treated, a yield) depends on its unit and on the operation
(:func:`slot_of`): "9,8 т/га" of a harvest is a yield, of potatoes being planted a
rate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from pipeline.farm.journal.parsing.scan import Scan
from pipeline.farm.words.units import Measure, Units
from pipeline.grammar import TermSet

__all__ = ["Quantity", "Slot", "best_quantity", "find_quantities", "slot_of"]

Slot = Literal["rate", "amount", "area", "yield"]

_HARVEST = "harvest"
_TONNES_PER_HA = "t/ha"
_KG_PER_HA = "kg/ha"
_KG_IN_TONNE = 1000.0
#: How many tokens before an amount a yield word may stand in its clause.
_YIELD_REACH = 8


@dataclass(frozen=True, slots=True)
class Quantity:
    value: float
    unit: str
    priority: int
    pos: int = 0
    #: A yield word stands before it: "урожайність 45 ц".
    yield_said: bool = False

    @property
    def rate(self) -> bool:
        """Per area or a depth of water: what a field operation is measured in."""
        return "/" in self.unit or self.unit == "mm"


def _number(token: str) -> float:
    return float(token.replace(",", "."))


def find_quantities(
    scan: Scan, units: Units, yield_words: TermSet | None = None, each: TermSet | None = None
) -> list[Quantity]:
    found: list[Quantity] = []
    for i, token in enumerate(scan.tokens):
        if not (token.number and scan.free(i)):
            continue
        hit = units.measure_at(scan.norms, i + 1)
        if hit is None:
            continue
        measure, length = hit
        scale = 1.0
        following = units.measure_at(scan.norms, i + 1 + length)
        if (
            measure.scale is not None
            and following is not None
            and scan.norm(i + 1 + length) not in units.area
        ):
            scale = measure.scale  # "2,5 тисячі тонн"; "70 тис/га" stays thousands
            measure, length = following[0], length + following[1]
        unit, end, per = _unit_of(scan, units, measure, i + 1 + length)
        if unit is None:
            continue
        unit = _each_unit(scan, measure, unit, i, each)
        value = round(_number(token.norm) * scale * measure.factor, 6)
        said = yield_words is not None and _yield_said(scan, yield_words, i)
        found.append(Quantity(value, unit, measure.priority, i, said))
        scan.claim(i, i + 1 + length if per else end, "quantity")
        if per:
            scan.claim(per[0], per[1], "quantity")
    found += _lone_units(scan, units)
    return sorted(found, key=lambda q: q.pos)


def _lone_units(scan: Scan, units: Units) -> list[Quantity]:
    """ "літр на тонну", "литр на гектар": one of the unit, said without a number."""
    found: list[Quantity] = []
    for i, token in enumerate(scan.tokens):
        if not (token.word and scan.free(i)) or (i > 0 and scan.tokens[i - 1].number):
            continue
        hit = units.measure_at(scan.norms, i)
        if hit is None:
            continue
        measure, length = hit
        unit, end, per = _unit_of(scan, units, measure, i + length)
        if unit is None or "/" not in unit or per is not None or end == i + length:
            continue
        if not scan.all_free(i, end):
            continue
        found.append(Quantity(round(measure.factor, 6), unit, measure.priority, i))
        scan.claim(i, end, "quantity")
    return found


def _each_unit(scan: Scan, measure: Measure, unit: str, i: int, each: TermSet | None) -> str:
    """``unit`` per area when an "each" word stands before the number."""
    if each is not None and unit == measure.alone and scan.norm(i - 1) in each:
        return measure.per_area or unit  # "по 100 кг": on each hectare
    return unit


def _yield_said(scan: Scan, yield_words: TermSet, i: int) -> bool:
    """A yield word earlier in the same clause: "урожайність пшениці на полі 3 склала
    62 ц"."""
    for j in range(i - 1, max(-1, i - 1 - _YIELD_REACH), -1):
        if scan.norms[j] in yield_words:
            return True
        if any(mark in scan.gap(j + 1) for mark in ",.;:!?"):
            return False
    return False


def _unit_of(
    scan: Scan, units: Units, measure: Measure, i: int
) -> tuple[str | None, int, tuple[int, int] | None]:
    """The canonical unit of a measure ending at token ``i``, where it ends, and the
    span of a "per hectare" written after what was applied: "л" alone, "л/га" / "л на
    гектар" per area, "л/т" per tonne, "200 кг аміачки на гектар"."""
    for per_unit, terms in ((measure.per_area, units.area), (measure.per_tonne, units.tonne)):
        if per_unit is None:
            continue
        if scan.norm(i) in terms:
            return per_unit, i + 1, None
        if scan.norm(i) in units.per and scan.norm(i + 1) in terms:
            return per_unit, i + 2, None
    if measure.per_area is not None:
        for j in range(i + 1, i + 1 + units.per_reach):
            if not (scan.free(j - 1) and scan.tokens[j - 1].word):
                break
            if scan.norm(j) in units.per and scan.norm(j + 1) in units.area:
                return measure.per_area, j + 2, (j, j + 2)
    return measure.alone or measure.per_area, i, None


def slot_of(
    quantity: Quantity,
    op_type: str,
    bare_rates: Mapping[str, Mapping[str, float]] | None = None,
) -> tuple[Slot, float, str]:
    """Which slot a quantity fills in an operation of ``op_type``, its value and unit
    there: t/ha (or kg/ha) of a harvest, or anything after "урожайність", is a yield
    in t/ha; "ha" the area; per area or per tonne a rate; a unit alone up to the
    operation's ``bare_rates`` ceiling a rate per hectare; the rest a total."""
    unit, value = quantity.unit, quantity.value
    ceiling = (bare_rates or {}).get(op_type, {}).get(unit)
    if ceiling is not None and 0 < value <= ceiling:
        return "rate", value, f"{unit}/ha"
    harvest_rate = op_type == _HARVEST and unit in (_TONNES_PER_HA, _KG_PER_HA)
    if harvest_rate or (quantity.yield_said and unit in ("t", _TONNES_PER_HA)):
        tonnes = value / _KG_IN_TONNE if unit == _KG_PER_HA else value
        return "yield", round(tonnes, 6), _TONNES_PER_HA
    if unit == "ha":
        return "area", value, unit
    if quantity.rate:
        return "rate", value, unit
    return "amount", value, unit


def best_quantity(found: Sequence[Quantity]) -> Quantity | None:
    best: Quantity | None = None
    for quantity in found:
        if best is None or quantity.priority > best.priority:
            best = quantity
    return best
