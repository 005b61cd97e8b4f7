"""Season summary figures for the sustainability agent and a short text for farmers.

Rules (the agent quotes these numbers, so they are defined here once):

* Only operations with status ``done`` dated ``start``..``end`` count as applied.
Units are read with the one unit table (:mod:`pipeline.farm.words.units`, the ``[units]``
of ``operations.toml``), so "мм", "кг/га", "т" or "м³" mean here what they mean to the
operation parser.

* Water: irrigation operations (op type ``irrigation`` or ``watering``, with or
  without an ``operation:`` prefix). Depth in ``mm`` is taken as is; ``m3/ha`` is
  depth x 10 (1 mm on 1 ha = 10 m³); volume in ``m3`` becomes depth through the
  field's area and is skipped when the area is unknown. ``water_mm`` is the plain
  sum of depths of all irrigation operations; ``water_mm_by_field`` sums per field
  (the season's depth on that field); ``water_m3`` is the volume over fields whose
  area is known.
* Products: every other done operation naming a product and a quantity, grouped by
  product and base unit (t, ц, kg, g -> kg; l, ml -> l; anything else as written).
  A rate (``kg/ha``, ``л/га``...) becomes an amount by multiplying with the field's
  area; an absolute amount is taken as is. ``per_ha`` is the total amount on fields
  of known area divided by the sum of those fields' areas (each field once), i.e.
  the season's dose per treated hectare. Absolute amounts on a field without a
  known area (or on no field) are in ``total`` and ``unallocated`` but not in
  ``per_ha``; rates on such fields cannot become amounts and are only counted in
  ``unresolved_operations``.
* Plan completion: a planned operation counts as fulfilled when an operation of the
  same field and type is done within the period; each done operation fulfils at
  most one planned one (``matched = min(planned, done)`` per field and type).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date

from db.repositories import reporting
from db.repositories.reporting import AmountGroup, PlanFactCount
from db.uow import Session
from pipeline.farm.reports import completion_pct, op_key
from pipeline.farm.words.units import Unit, Units

logger = logging.getLogger(__name__)

IRRIGATION_OP_TYPES = frozenset({"irrigation", "watering"})
HARVEST_OP_TYPES = frozenset({"harvest"})
M3_PER_MM_HA = 10.0  # 1 mm of water on 1 ha is 10 m³
MAX_PRODUCTS_IN_TEXT = 5

#: The measures of ``[units.measures]`` that water is given in.
_DEPTH = "mm"
_WATER = "m3"


@dataclass(frozen=True, slots=True)
class ProductAmount:
    product: str
    unit: str  # base unit of ``total``: "kg", "l" or the unit as written
    total: float  # amount applied in the period, where it could be worked out
    per_ha: float | None  # per treated hectare of known area; None when no area is known
    area_ha: float  # treated area of known size
    unallocated: float = 0.0  # part of ``total`` on fields of unknown area
    unresolved_operations: int = 0  # rates on fields of unknown area (no amount)
    #: The mean rate of those, per ha, shown when no amount could be worked out.
    rate_unknown_area: float | None = None


@dataclass(frozen=True, slots=True)
class HarvestAmount:
    crop_id: str | None
    total_t: float | None  # None when neither a total nor a yield with an area was given
    yield_t_ha: float | None  # total over the harvested area, else the mean yield given
    area_ha: float


@dataclass(frozen=True, slots=True)
class FieldOperations:
    field_id: str | None
    planned: int
    done: int


@dataclass(frozen=True, slots=True)
class SeasonSummary:
    farm_id: str
    start: date
    end: date
    water_mm: float  # every depth added up: a figure for code, never shown as such
    water_mm_by_field: dict[str, float]
    water_m3: float | None
    products: list[ProductAmount]
    operations_by_field: list[FieldOperations]
    planned: int
    matched: int
    harvest: list[HarvestAmount] = field(default_factory=list)
    #: Names of fields whose area is unknown while a rate on them needed it.
    fields_without_area: list[str] = field(default_factory=list)
    field_names: dict[str, str] = field(default_factory=dict)
    crop_names: dict[str, str] = field(default_factory=dict)

    @property
    def completion_pct(self) -> float | None:
        return completion_pct(self.matched, self.planned)

    @property
    def operations_done(self) -> int:
        return sum(item.done for item in self.operations_by_field)


def parse_unit(raw: str | None, units: Units) -> Unit:
    """A written unit as a base unit: "кг/га" -> kg per ha; "т" -> kg x 1000."""
    return units.parse(raw)


@dataclass(slots=True)
class _Amounts:
    """One group's amounts with the rows written before the columns were apart folded in."""

    amount: float
    amount_unit: str | None
    rate: float
    rate_alone: float
    rate_alone_ops: int
    rate_unit: str | None
    yield_alone: float
    yield_alone_ops: int

    @classmethod
    def of(cls, group: AmountGroup, units: Units) -> _Amounts:
        found = cls(
            group.amount, group.amount_unit, group.rate, group.rate_alone,
            group.rate_alone_ops, group.rate_unit, group.yield_alone, group.yield_alone_ops,
        )  # fmt: skip
        if not group.legacy_ops:
            return found
        unit = units.parse(group.legacy_unit)
        if op_key(group.op_type) == "harvest" and unit.per_ha and unit.base == "kg":
            found.yield_alone += group.legacy * unit.factor / 1000.0
            found.yield_alone_ops += group.legacy_ops
        elif unit.per_ha or unit.measure == _DEPTH:
            found.rate += group.legacy
            found.rate_alone += group.legacy
            found.rate_alone_ops += group.legacy_ops
            found.rate_unit = group.legacy_unit
        else:
            found.amount += group.legacy
            found.amount_unit = group.legacy_unit
        return found


# --- Water ---------------------------------------------------------------------------


def _irrigation_depth(
    group: AmountGroup, amounts: _Amounts, area: float | None, units: Units
) -> float | None:
    depth = 0.0
    known = False
    if amounts.rate:
        unit = units.parse(amounts.rate_unit)
        if unit.measure == _DEPTH and not unit.per_ha:
            depth, known = depth + amounts.rate * unit.factor, True
        elif unit.measure == _WATER and unit.per_ha:
            depth, known = depth + amounts.rate * unit.factor / M3_PER_MM_HA, True
    if amounts.amount:
        unit = units.parse(amounts.amount_unit)
        treated = group.area or area
        if unit.measure == _WATER and treated:
            depth, known = depth + amounts.amount * unit.factor / (M3_PER_MM_HA * treated), True
        elif unit.measure == _DEPTH:
            depth, known = depth + amounts.amount * unit.factor, True
    if not known:
        logger.info("summary: irrigation on %s left out (no depth)", group.field_id)
        return None
    return depth


def _water(
    groups: Iterable[AmountGroup], areas: dict[str, float], units: Units
) -> tuple[float, dict[str, float], float | None]:
    total = 0.0
    by_field: dict[str, float] = defaultdict(float)
    for group in groups:
        area = areas.get(group.field_id) if group.field_id else None
        depth = _irrigation_depth(group, _Amounts.of(group, units), area, units)
        if depth is None:
            continue
        total += depth
        if group.field_id is not None:
            by_field[group.field_id] += depth
    known = [(mm, areas[fid]) for fid, mm in by_field.items() if fid in areas]
    volume = sum(mm * area * M3_PER_MM_HA for mm, area in known) if known else None
    return total, dict(by_field), volume


# --- Products --------------------------------------------------------------------------


@dataclass(slots=True)
class _ProductAccumulator:
    allocated: float = 0.0
    unallocated: float = 0.0
    area: float = 0.0
    unresolved: int = 0
    unresolved_rate: float = 0.0
    fields: set[str] = field(default_factory=set)


def _add_product(
    acc: _ProductAccumulator,
    group: AmountGroup,
    amounts: _Amounts,
    area: float | None,
    units: Units,
) -> set[str]:
    """Adds one group; returns the field that lacked an area for a rate, if any."""
    lacking: set[str] = set()
    if amounts.amount:
        unit = units.parse(amounts.amount_unit)
        value = amounts.amount * unit.factor
        if area is not None and group.field_id is not None:
            acc.allocated += value
            if group.field_id not in acc.fields:
                acc.fields.add(group.field_id)
                acc.area += area
        elif group.area:
            acc.allocated += value
            acc.area += group.area
        else:
            acc.unallocated += value
    if amounts.rate:
        unit = units.parse(amounts.rate_unit)
        if group.rate_on_area and unit.per_ha:
            acc.allocated += group.rate_on_area * unit.factor
            acc.area += group.rate_area
        if amounts.rate_alone_ops:
            if area is not None and group.field_id is not None and unit.per_ha:
                acc.allocated += amounts.rate_alone * unit.factor * area
                acc.area += area * amounts.rate_alone_ops
            else:
                acc.unresolved += amounts.rate_alone_ops
                acc.unresolved_rate += amounts.rate_alone * unit.factor
                if group.field_id is not None and unit.per_ha:
                    lacking.add(group.field_id)
    return lacking


def _products(
    groups: Iterable[AmountGroup], areas: dict[str, float], units: Units
) -> tuple[list[ProductAmount], set[str]]:
    accumulators: dict[tuple[str, str], _ProductAccumulator] = defaultdict(_ProductAccumulator)
    lacking: set[str] = set()
    for group in groups:
        if group.product is None:
            continue
        amounts = _Amounts.of(group, units)
        base = units.parse(amounts.amount_unit if amounts.amount else amounts.rate_unit).base
        area = areas.get(group.field_id) if group.field_id else None
        lacking |= _add_product(accumulators[(group.product, base)], group, amounts, area, units)
    found = []
    for (product, base), acc in sorted(accumulators.items()):
        if not (acc.allocated or acc.unallocated or acc.unresolved):
            continue
        found.append(
            ProductAmount(
                product=product,
                unit=base,
                total=acc.allocated + acc.unallocated,
                per_ha=acc.allocated / acc.area if acc.area else None,
                area_ha=acc.area,
                unallocated=acc.unallocated,
                unresolved_operations=acc.unresolved,
                rate_unknown_area=acc.unresolved_rate / acc.unresolved if acc.unresolved else None,
            )
        )
    return found, lacking


# --- Harvest -----------------------------------------------------------------------------


@dataclass(slots=True)
class _HarvestAccumulator:
    tonnes: float = 0.0  # every tonne harvested that is known
    tonnes_on_area: float = 0.0  # the part of it whose area is known ...
    area: float = 0.0  # ... and that area
    yields: float = 0.0  # yields stated, for a mean when no area is known
    yield_count: int = 0

    def add(self, tonnes: float, area: float | None) -> None:
        self.tonnes += tonnes
        if area:
            self.tonnes_on_area += tonnes
            self.area += area


def _harvest(
    groups: Iterable[AmountGroup], areas: dict[str, float], units: Units
) -> list[HarvestAmount]:
    """Per crop: tonnes harvested and t/ha (the tonnes of known area over that area,
    else the mean of the yields stated)."""
    totals: dict[str | None, _HarvestAccumulator] = defaultdict(_HarvestAccumulator)
    for group in groups:
        area = areas.get(group.field_id) if group.field_id else None
        _add_harvest(totals[group.crop_id], group, area, units)
    found = [
        HarvestAmount(crop_id, acc.tonnes or None, _per_ha(acc), acc.area)
        for crop_id, acc in totals.items()
        if acc.tonnes or acc.yield_count
    ]
    return sorted(found, key=lambda item: -(item.total_t or 0.0))


def _add_harvest(
    acc: _HarvestAccumulator, group: AmountGroup, area: float | None, units: Units
) -> None:
    """One group's harvest: tonnes in kg-based amounts, yields on a known area, and
    yields stated alone (over the field's area when no amount says the tonnes)."""
    amounts = _Amounts.of(group, units)
    if amounts.amount:
        unit = units.parse(amounts.amount_unit)
        if unit.base == "kg" and not unit.per_ha:
            acc.add(amounts.amount * unit.factor / 1000.0, group.area or area)
    if group.yield_on_area:
        acc.add(group.yield_on_area, group.area)
    if amounts.yield_alone_ops:
        if area is not None and not amounts.amount:
            acc.add(amounts.yield_alone * area, area * amounts.yield_alone_ops)
        acc.yields += amounts.yield_alone
        acc.yield_count += amounts.yield_alone_ops


def _per_ha(acc: _HarvestAccumulator) -> float | None:
    """The tonnes of known area over that area, else the mean of the yields stated."""
    if acc.area:
        return acc.tonnes_on_area / acc.area
    return acc.yields / acc.yield_count if acc.yield_count else None


# --- Operations and plan ----------------------------------------------------------------


def _operations_by_field(counts: Iterable[PlanFactCount]) -> list[FieldOperations]:
    planned: dict[str | None, int] = defaultdict(int)
    done: dict[str | None, int] = defaultdict(int)
    for count in counts:
        planned[count.field_id] += count.planned
        done[count.field_id] += count.done
    keys = sorted(planned.keys() | done.keys(), key=lambda k: (k is None, k or ""))
    return [FieldOperations(key, planned[key], done[key]) for key in keys]


async def season_summary(
    session: Session, farm_id: str, start: date, end: date, units: Units
) -> SeasonSummary:
    """The season's figures (see the module docstring for every rule)."""
    infos = await reporting.fields(session, farm_id)
    names = {info.field_id: info.name for info in infos}
    areas = {i.field_id: i.area_ha for i in infos if i.area_ha is not None and i.area_ha > 0}
    groups = await reporting.amount_groups(session, farm_id, start, end, status="done")
    counts = await reporting.plan_fact_counts(session, farm_id, start, end)
    crops = await reporting.crop_names(session, farm_id)
    irrigation = [g for g in groups if op_key(g.op_type) in IRRIGATION_OP_TYPES]
    harvest = [g for g in groups if op_key(g.op_type) in HARVEST_OP_TYPES]
    applied = [g for g in groups if op_key(g.op_type) not in IRRIGATION_OP_TYPES | HARVEST_OP_TYPES]
    water_mm, water_by_field, water_m3 = _water(irrigation, areas, units)
    products, lacking = _products(applied, areas, units)
    return SeasonSummary(
        farm_id=farm_id,
        start=start,
        end=end,
        water_mm=water_mm,
        water_mm_by_field=water_by_field,
        water_m3=water_m3,
        products=products,
        operations_by_field=_operations_by_field(counts),
        planned=sum(c.planned for c in counts),
        matched=sum(min(c.planned, c.done) for c in counts),
        harvest=_harvest(harvest, areas, units),
        fields_without_area=sorted(names.get(fid, fid) for fid in lacking),
        field_names=names,
        crop_names=crops,
    )


# --- Text --------------------------------------------------------------------------------
