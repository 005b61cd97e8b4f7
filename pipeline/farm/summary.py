"""Season summary figures for the sustainability agent and a short text for farmers.

Rules (the agent quotes these numbers, so they are defined here once):

* Only operations with status ``done`` dated ``start``..``end`` count as applied.
Units are read with the one unit table (:mod:`pipeline.farm.units`, the ``[units]``
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

from sqlalchemy.ext.asyncio import AsyncSession

from db.repositories import reporting
from db.repositories.reporting import PlanFactCount, QuantityTotal
from pipeline.farm.reports import completion_pct, op_key
from pipeline.farm.units import Unit, Units
from pipeline.i18n import Catalog
from pipeline.types import Language

logger = logging.getLogger(__name__)

IRRIGATION_OP_TYPES = frozenset({"irrigation", "watering"})
M3_PER_MM_HA = 10.0  # 1 mm of water on 1 ha is 10 m³
MAX_PRODUCTS_IN_TEXT = 5

#: The measures of ``[units.measures]`` that water is given in.
_DEPTH = "mm"
_WATER = "m3"


@dataclass(frozen=True, slots=True)
class ProductAmount:
    product: str
    unit: str  # base unit of ``total``: "kg", "l" or the unit as written
    total: float  # amount applied in the period
    per_ha: float | None  # per treated hectare of known area; None when no area is known
    area_ha: float  # treated area of known size (each field once)
    unallocated: float = 0.0  # part of ``total`` on fields of unknown area
    unresolved_operations: int = 0  # rates on fields of unknown area


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
    water_mm: float
    water_mm_by_field: dict[str, float]
    water_m3: float | None
    products: list[ProductAmount]
    operations_by_field: list[FieldOperations]
    planned: int
    matched: int

    @property
    def completion_pct(self) -> float | None:
        return completion_pct(self.matched, self.planned)

    @property
    def operations_done(self) -> int:
        return sum(item.done for item in self.operations_by_field)


def parse_unit(raw: str | None, units: Units) -> Unit:
    """A written unit as a base unit: "кг/га" -> kg per ha; "т" -> kg x 1000."""
    return units.parse(raw)


# --- Water ---------------------------------------------------------------------------


def _irrigation_depth(item: QuantityTotal, areas: dict[str, float], units: Units) -> float | None:
    unit = units.parse(item.unit)
    if unit.measure == _DEPTH and not unit.per_ha:
        return item.total * unit.factor
    if unit.measure == _WATER and unit.per_ha:
        return item.total * unit.factor / M3_PER_MM_HA
    area = areas.get(item.field_id) if item.field_id else None
    if unit.measure == _WATER and area:
        return item.total * unit.factor / (M3_PER_MM_HA * area)
    logger.info("summary: irrigation in %r on %s left out (no depth)", item.unit, item.field_id)
    return None


def _water(
    items: Iterable[QuantityTotal], areas: dict[str, float], units: Units
) -> tuple[float, dict[str, float], float | None]:
    total = 0.0
    by_field: dict[str, float] = defaultdict(float)
    for item in items:
        depth = _irrigation_depth(item, areas, units)
        if depth is None:
            continue
        total += depth
        if item.field_id is not None:
            by_field[item.field_id] += depth
    known = [(mm, areas[fid]) for fid, mm in by_field.items() if fid in areas]
    volume = sum(mm * area * M3_PER_MM_HA for mm, area in known) if known else None
    return total, dict(by_field), volume


# --- Products --------------------------------------------------------------------------


@dataclass(slots=True)
class _ProductAccumulator:
    allocated: float = 0.0
    unallocated: float = 0.0
    unresolved: int = 0
    fields: set[str] = field(default_factory=set)


def _add_product(
    acc: _ProductAccumulator, item: QuantityTotal, unit: Unit, area: float | None
) -> None:
    if area is not None and item.field_id is not None:
        amount = item.total * unit.factor * (area if unit.per_ha else 1.0)
        acc.allocated += amount
        acc.fields.add(item.field_id)
    elif unit.per_ha:
        acc.unresolved += item.operations
    else:
        acc.unallocated += item.total * unit.factor


def _products(
    items: Iterable[QuantityTotal], areas: dict[str, float], units: Units
) -> list[ProductAmount]:
    accumulators: dict[tuple[str, str], _ProductAccumulator] = defaultdict(_ProductAccumulator)
    for item in items:
        if item.product is None:
            continue
        unit = units.parse(item.unit)
        area = areas.get(item.field_id) if item.field_id else None
        _add_product(accumulators[(item.product, unit.base)], item, unit, area)
    amounts = []
    for (product, base), acc in sorted(accumulators.items()):
        area_ha = sum(areas[fid] for fid in acc.fields)
        amounts.append(
            ProductAmount(
                product=product,
                unit=base,
                total=acc.allocated + acc.unallocated,
                per_ha=acc.allocated / area_ha if area_ha else None,
                area_ha=area_ha,
                unallocated=acc.unallocated,
                unresolved_operations=acc.unresolved,
            )
        )
    return amounts


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
    session: AsyncSession, farm_id: str, start: date, end: date, units: Units
) -> SeasonSummary:
    """The season's figures (see the module docstring for every rule)."""
    areas = await reporting.field_areas(session, farm_id)
    totals = await reporting.quantity_totals(session, farm_id, start, end, status="done")
    counts = await reporting.plan_fact_counts(session, farm_id, start, end)
    irrigation = [t for t in totals if op_key(t.op_type) in IRRIGATION_OP_TYPES]
    applied = [t for t in totals if op_key(t.op_type) not in IRRIGATION_OP_TYPES]
    water_mm, water_by_field, water_m3 = _water(irrigation, areas, units)
    return SeasonSummary(
        farm_id=farm_id,
        start=start,
        end=end,
        water_mm=water_mm,
        water_mm_by_field=water_by_field,
        water_m3=water_m3,
        products=_products(applied, areas, units),
        operations_by_field=_operations_by_field(counts),
        planned=sum(c.planned for c in counts),
        matched=sum(min(c.planned, c.done) for c in counts),
    )


# --- Text --------------------------------------------------------------------------------


def format_number(value: float, lang: Language) -> str:
    """12345.6 -> "12 346" / "12,346"; 2.5 -> "2,5" (uk) / "2.5" (en)."""
    digits = 0 if abs(value) >= 100 else 1
    text = f"{value:,.{digits}f}"
    if digits and text.endswith(".0"):
        text = text[:-2]
    if lang == "uk":
        # Ukrainian: a space between thousands and a decimal comma.
        return text.replace(",", "\u00a0").replace(".", ",")
    return text


def _unit_text(unit: str, per_ha: bool, lang: Language, catalog: Catalog) -> str:
    key = f"reports.unit.{unit}"
    name = catalog.text(lang, key) if unit and catalog.has(lang, key) else unit
    return catalog.text(lang, "reports.unit.per_ha", unit=name) if per_ha else name


def _product_text(item: ProductAmount, lang: Language, catalog: Catalog) -> str:
    if item.per_ha is not None:
        amount = f"{format_number(item.per_ha, lang)} {_unit_text(item.unit, True, lang, catalog)}"
    else:
        amount = f"{format_number(item.total, lang)} {_unit_text(item.unit, False, lang, catalog)}"
    return catalog.text(
        lang, "reports.summary_product_item", product=item.product, amount=amount.strip()
    )


def _water_text(summary: SeasonSummary, lang: Language, catalog: Catalog) -> str:
    if summary.water_mm <= 0:
        return catalog.text(lang, "reports.summary_no_water")
    mm = format_number(summary.water_mm, lang)
    if summary.water_m3 is None:
        return catalog.text(lang, "reports.summary_water", mm=mm)
    m3 = format_number(summary.water_m3, lang)
    return catalog.text(lang, "reports.summary_water_volume", mm=mm, m3=m3)


def _products_text(summary: SeasonSummary, lang: Language, catalog: Catalog) -> str:
    if not summary.products:
        return catalog.text(lang, "reports.summary_no_products")
    # The biggest applications first; the text stays short, the agent has the list.
    ranked = sorted(summary.products, key=lambda item: -item.total)[:MAX_PRODUCTS_IN_TEXT]
    items = "; ".join(_product_text(item, lang, catalog) for item in ranked)
    return catalog.text(lang, "reports.summary_products", items=items)


def summary_text(summary: SeasonSummary, lang: Language, catalog: Catalog) -> str:
    """A few short lines a farmer reads in a chat: period, water, products, work, plan."""
    worked = sum(1 for item in summary.operations_by_field if item.done and item.field_id)
    lines = [
        catalog.text(
            lang,
            "reports.summary_period",
            start=summary.start.strftime("%d.%m.%Y"),
            end=summary.end.strftime("%d.%m.%Y"),
        ),
        _water_text(summary, lang, catalog),
        _products_text(summary, lang, catalog),
        catalog.text(
            lang, "reports.summary_operations", done=summary.operations_done, fields=worked
        ),
    ]
    pct = summary.completion_pct
    if pct is None:
        lines.append(catalog.text(lang, "reports.summary_no_plan"))
    else:
        lines.append(
            catalog.text(
                lang,
                "reports.summary_plan",
                pct=format_number(pct, lang),
                matched=summary.matched,
                planned=summary.planned,
            )
        )
    return "\n".join(lines)
