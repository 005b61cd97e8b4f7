"""The season summary on the seeded October (reports_world.py): water as depth per
field and volume, products per hectare, plan completion, and its text in both languages."""

from __future__ import annotations

from datetime import date

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from pipeline.farm.reports.summary import parse_unit, season_summary
from pipeline.farm.reports.summary_text import summary_text
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from tests.integration import reports_world as world
from tests.integration.reports_world import (
    EAST,
    FARM,
    NORTH,
    OCT_END,
    OCT_START,
    SOUTH,
    UNITS,
    operation,
)

#: The seeded farm.
factory = world.factory


def test_units() -> None:
    assert parse_unit("кг/га", UNITS) == parse_unit("kg/ha", UNITS)
    assert parse_unit("т", UNITS).factor == 1000.0 and parse_unit("т", UNITS).base == "kg"
    assert parse_unit("l/ha", UNITS).per_ha and parse_unit("л", UNITS).base == "l"
    assert parse_unit("шт", UNITS).base == "шт" and not parse_unit("шт", UNITS).per_ha


async def test_season_summary_on_a_known_dataset(
    factory: async_sessionmaker[AsyncSession], catalog: Catalog
) -> None:
    async with factory() as session:
        summary = await season_summary(session, FARM, OCT_START, OCT_END, UNITS)
    assert summary.water_mm == 45.0
    assert summary.water_mm_by_field == {NORTH: 35.0, SOUTH: 10.0}
    assert summary.water_m3 == 35 * 10 * 10 + 10 * 20 * 10
    urea, roundup = summary.products
    # 100 kg/ha x 10 ha on North + 1 t on South (20 ha) + 50 kg on East (area unknown).
    assert (urea.product, urea.unit, urea.total, urea.area_ha) == ("Карбамід", "kg", 2050.0, 30.0)
    assert urea.per_ha == pytest.approx(2000 / 30)
    assert urea.unallocated == 50.0
    assert (roundup.product, roundup.unit, roundup.total) == ("Раундап", "l", 30.0)
    assert roundup.per_ha == 3.0 and roundup.area_ha == 10.0
    assert [(f.field_id, f.planned, f.done) for f in summary.operations_by_field] == [
        (EAST, 0, 1),
        (NORTH, 3, 4),
        (SOUTH, 3, 2),
        (None, 0, 1),
    ]
    assert (summary.planned, summary.matched, summary.completion_pct) == (6, 4, 66.7)
    assert summary.operations_done == 8

    uk = summary_text(summary, Texts(catalog, "uk"))
    assert "01.10.2026–31.10.2026" in uk
    # Depths per field, never added up across fields; volumes do add up.
    assert "Південне — 10 мм; Північне — 35 мм" in uk and "5\u00a0500 м³" in uk
    assert "45 мм" not in uk
    assert "Карбамід — 2\u00a0050 кг (66,7 кг/га)" in uk and "Раундап — 30 л (3 л/га)" in uk
    assert "66,7 % (4 з 6)" in uk
    en = summary_text(summary, Texts(catalog, "en"))
    assert "5,500 m³" in en and "66.7% complete (4 of 6)" in en


async def test_irrigation_volumes_become_depth(factory: async_sessionmaker[AsyncSession]) -> None:
    december = date(2026, 12, 1)
    async with factory() as session:
        session.add_all(
            operation(FARM, 600 + i, (december, "irrigation", field, None, qty, unit, None, "done"))
            for i, (field, qty, unit) in enumerate(
                [(NORTH, 300, "m3"), (SOUTH, 50, "m3/ha"), (EAST, 100, "m3")]
            )
        )
        await session.commit()
        summary = await season_summary(session, FARM, december, december, UNITS)
    # 300 m³ on 10 ha = 3 mm; 50 m³/ha = 5 mm; East has no area, so no depth.
    assert summary.water_mm_by_field == {NORTH: 3.0, SOUTH: 5.0}
    assert summary.water_mm == 8.0
    assert summary.water_m3 == 300 + 1000


async def test_summary_of_an_empty_season(
    factory: async_sessionmaker[AsyncSession], catalog: Catalog
) -> None:
    async with factory() as session:
        summary = await season_summary(session, FARM, date(2025, 4, 1), date(2025, 10, 31), UNITS)
    assert (summary.water_mm, summary.water_m3, summary.products) == (0.0, None, [])
    assert summary.completion_pct is None
    text = summary_text(summary, Texts(catalog, "uk"))
    assert catalog.text("uk", "reports.summary_no_plan") in text
    assert catalog.text("uk", "reports.summary_no_water") in text
