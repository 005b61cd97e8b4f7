"""The operations workbook, plan vs fact and the repository's keyset paging on a real
migrated database (the seeded farm is in reports_world.py; the season summary is in
test_reports_summary.py)."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.engine import create_engine, create_session_factory
from db.models import SensorReadingRow
from db.repositories import sensor_rollups
from db.uow import Database
from pipeline.farm.reports import build_operations_workbook, plan_vs_fact
from pipeline.farm.reports import keyset as paging
from pipeline.farm.reports.summary import season_summary
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from tests.integration import reports_world as world
from tests.integration.reports_world import (
    CATALOG,
    FARM,
    NORTH,
    OCT_END,
    OCT_OPS,
    OCT_START,
    READINGS_START,
    SOUTH,
    UNITS,
    open_sheets,
    operation,
    seed,
)

#: The seeded farm.
factory = world.factory


# --- The workbook --------------------------------------------------------------------


async def test_workbook_sheets_headers_and_rows(factory: async_sessionmaker[AsyncSession]) -> None:
    report = await build_operations_workbook(
        Database(factory), FARM, OCT_START, OCT_END, texts=Texts(CATALOG, "uk")
    )
    assert report.filename == "stepan_operations_2026-10-01_2026-10-31.xlsx"
    assert report.rows == OCT_OPS
    sheets = open_sheets(report.content)
    assert list(sheets) == ["Операції", "План-факт", "Зміни", "Датчики"]

    ops = sheets["Операції"]
    assert ops[0] == (
        "Дата", "Поле", "Культура", "Операція", "Препарат / добриво", "Норма", "Од. норми",
        "Кількість", "Одиниця", "Оброблено, га", "Урожайність, т/га", "Статус",
        "Погода (обприскування)",
    )  # fmt: skip
    assert len(ops) == 1 + OCT_OPS
    # A depth of water is a rate; units as Ukrainian writes them.
    assert ops[1] == (
        datetime(2026, 10, 1), "Північне", "Пшениця", "Полив", None, 20, "мм",
        None, None, None, None, "виконано", None,
    )  # fmt: skip
    assert ops[-1] == (
        datetime(2026, 10, 31), "без поля", None, "Сівба", None, None, None,
        None, None, None, None, "виконано", None,
    )  # fmt: skip
    dates = [str(row[0]) for row in ops[1:]]
    assert dates == sorted(dates)  # by date
    fertilizing = next(row for row in ops[1:] if row[0] == datetime(2026, 10, 13))
    assert fertilizing == (
        datetime(2026, 10, 13), "Південне", None, "Внесення добрив", "Карбамід", None, None,
        1, "т", None, None, "заплановано", None,
    )  # fmt: skip

    assert sheets["План-факт"] == [
        ("Поле", "Операція", "Заплановано", "Виконано", "Виконання, %"),
        ("Південне", "Внесення добрив", 2, 1, 50),
        ("Південне", "Полив", 1, 1, 100),
        ("Північне", "Внесення добрив", 0, 1, None),
        ("Північне", "Полив", 3, 2, 66.7),
        ("Північне", "Обприскування", 0, 1, None),
        ("Східне", "Внесення добрив", 0, 1, None),
        ("без поля", "Сівба", 0, 1, None),
        ("Разом", None, 6, 8, 66.7),
    ]

    sensors = sheets["Датчики"]
    # The farm's clock (Europe/Kyiv by default): 00:00 UTC is 03:00 in October.
    assert sensors[0] == ("Час", "Поле", "Датчик", "Тип", "Значення", "Одиниця")
    assert len(sensors) == 1 + 72 * 3
    assert sensors[1] == (
        datetime(2026, 10, 1, 3), "Північне", "soil-n1", "Вологість ґрунту", 30, "%",
    )  # fmt: skip


async def test_workbook_in_english(factory: async_sessionmaker[AsyncSession]) -> None:
    report = await build_operations_workbook(
        Database(factory), FARM, OCT_START, OCT_END, texts=Texts(CATALOG, "en")
    )
    sheets = open_sheets(report.content)
    assert list(sheets) == ["Operations", "Plan vs fact", "Changes", "Sensors"]
    assert sheets["Operations"][0][:4] == ("Date", "Field", "Crop", "Operation")
    assert sheets["Operations"][1][3:] == (
        "Irrigation", None, 20, "mm", None, None, None, None, "done", None,
    )  # fmt: skip
    assert sheets["Plan vs fact"][-1] == ("Total", None, 6, 8, 66.7)


async def test_workbook_for_one_field(factory: async_sessionmaker[AsyncSession]) -> None:
    report = await build_operations_workbook(
        Database(factory), FARM, OCT_START, OCT_END, field_id=NORTH, texts=Texts(CATALOG, "uk")
    )
    assert report.filename == "stepan_operations_north_2026-10-01_2026-10-31.xlsx"
    assert report.rows == 7
    sheets = open_sheets(report.content)
    assert {row[1] for row in sheets["Операції"][1:]} == {"Північне"}
    assert sheets["План-факт"][1:] == [
        ("Північне", "Внесення добрив", 0, 1, None),
        ("Північне", "Полив", 3, 2, 66.7),
        ("Північне", "Обприскування", 0, 1, None),
        ("Разом", None, 3, 4, 66.7),
    ]
    assert {row[1] for row in sheets["Датчики"][1:]} == {"Північне"}
    assert len(sheets["Датчики"]) == 1 + 72 * 2


async def test_empty_period_gives_a_valid_workbook(
    factory: async_sessionmaker[AsyncSession],
) -> None:
    report = await build_operations_workbook(
        Database(factory), FARM, date(2025, 1, 1), date(2025, 1, 31), texts=Texts(CATALOG, "uk")
    )
    assert report.rows == 0
    sheets = open_sheets(report.content)
    assert [len(rows) for rows in sheets.values()] == [1, 1, 1, 1]
    assert sheets["Операції"][0][0] == "Дата"


async def test_awkward_text_survives(factory: async_sessionmaker[AsyncSession]) -> None:
    async with factory() as session:
        session.add(
            operation(
                FARM,
                500,
                (OCT_START, "new_thing", NORTH, None, 1.5, "л", "A&B <x> \x07 ", "done"),
            )
        )
        await session.commit()
        report = await build_operations_workbook(
            Database(factory), FARM, OCT_START, OCT_START, texts=Texts(CATALOG, "uk")
        )
    rows = open_sheets(report.content)["Операції"]
    # Unknown op ids stay readable, capitalised like every operation's cell; characters
    # XML cannot carry are dropped, the rest kept.
    assert ("New thing", "A&B <x>  ", None, None, 1.5, "л", None, None, "виконано", None) in [
        row[3:] for row in rows
    ]


async def test_long_periods_get_aggregates_not_a_cut(
    factory: async_sessionmaker[AsyncSession],
    catalog: Catalog,
) -> None:
    """216 readings (3 probes, hourly, 3 days). Up to the cap: every reading; over it
    and the hours still too many: one row per probe and day, saying so; no reading
    silently left out."""
    raw = await build_operations_workbook(
        Database(factory), FARM, OCT_START, OCT_END, texts=Texts(CATALOG, "uk"), max_sensor_rows=216
    )
    assert len(open_sheets(raw.content)["Датчики"]) == 1 + 216
    async with factory() as session:
        report = await build_operations_workbook(
            Database(factory),
            FARM,
            OCT_START,
            OCT_END,
            texts=Texts(CATALOG, "uk"),
            max_sensor_rows=100,
        )
        # The session is free again at once: no read is left in flight.
        assert len(await plan_vs_fact(session, FARM, OCT_START, OCT_END)) == 7
    sensors = open_sheets(report.content)["Датчики"]
    note = catalog.text("uk", "sensor_sheet.daily_note", readings=216, limit=100)
    assert sensors[1][0] == note
    days = sensors[2:]
    # Farm days (Kyiv): 72 hours from 1 October 00:00 UTC touch 1-4 October locally.
    assert len(days) == 4 * 3 and sum(int(row[7]) for row in days) == 216  # type: ignore[call-overload]
    north = [row for row in days if row[2] == "soil-n1"]
    assert north[0][:2] == (datetime(2026, 10, 1), "Північне")
    assert north[0][7] == 21  # 03:00..23:00 local
    assert (north[0][4], north[0][6], north[0][8]) == (pytest.approx(28.0), 30.0, "%")


async def test_hourly_aggregates_when_they_fit(
    factory: async_sessionmaker[AsyncSession], catalog: Catalog
) -> None:
    async with factory() as session:
        session.add_all(
            SensorReadingRow(
                farm_id=FARM,
                field_id=SOUTH,
                sensor_id="soil-fast",
                sensor_type="soil_moisture",
                value=20.0 + step % 6,
                unit="%",
                measured_at=READINGS_START + timedelta(minutes=10 * step),
                source="api",
            )
            for step in range(6 * 24)  # a day, every 10 minutes
        )
        await session.flush()
        await sensor_rollups.rebuild(session)
        await session.commit()
    report = await build_operations_workbook(
        Database(factory), FARM, OCT_START, OCT_END, texts=Texts(CATALOG, "uk"), max_sensor_rows=300
    )
    sensors = open_sheets(report.content)["Датчики"]
    assert sensors[1][0] == catalog.text("uk", "sensor_sheet.hourly_note", readings=360, limit=300)
    fast = [row for row in sensors[2:] if row[2] == "soil-fast"]
    assert len(fast) == 24 and {row[7] for row in fast} == {6}
    assert (fast[0][4], fast[0][5], fast[0][6]) == (20.0, 22.5, 25.0)
    assert len(sensors) - 2 == 216 + 24


async def test_even_days_too_many_are_cut_with_a_note(
    factory: async_sessionmaker[AsyncSession], catalog: Catalog
) -> None:
    report = await build_operations_workbook(
        Database(factory), FARM, OCT_START, OCT_END, texts=Texts(CATALOG, "uk"), max_sensor_rows=5
    )
    sensors = open_sheets(report.content)["Датчики"]
    assert len(sensors) == 1 + 1 + 5 + 1
    assert sensors[-1][0] == catalog.text("uk", "reports.sensors_truncated", shown=5)


# --- Plan vs fact and the repository's paging ---------------------------------------


async def test_plan_vs_fact(factory: async_sessionmaker[AsyncSession]) -> None:
    async with factory() as session:
        rows = await plan_vs_fact(session, FARM, OCT_START, OCT_END)
    by_key = {(row.field_id, row.op_type): row for row in rows}
    assert by_key[(NORTH, "irrigation")].completion_pct == 66.7
    assert by_key[(NORTH, "irrigation")].matched == 2
    assert by_key[(SOUTH, "irrigation")].completion_pct == 100.0
    assert by_key[(SOUTH, "fertilising")].completion_pct == 50.0
    assert by_key[(NORTH, "spraying")].completion_pct is None  # done, never planned
    assert by_key[(None, "sowing")].field_name is None
    assert by_key[(NORTH, "irrigation")].field_name == "Північне"
    assert sum(row.planned for row in rows) == 6


async def test_keyset_pages_cover_everything_once(
    factory: async_sessionmaker[AsyncSession],
) -> None:
    pages = [
        page
        async for page in paging.iter_operations(
            Database(factory), FARM, OCT_START, OCT_END, page_size=3
        )
    ]
    readings = [
        reading
        async for page in paging.iter_readings(
            Database(factory), FARM, "soil_moisture", since=READINGS_START, page_size=7
        )
        for reading in page
    ]
    ids = [op.id for page in pages for op in page]
    assert len(ids) == OCT_OPS == len(set(ids))
    assert [len(page) for page in pages] == [3, 3, 3, 3, 2]
    keys = [(op.op_date, op.id) for page in pages for op in page]
    assert keys == sorted(keys)
    # Two sensors share every timestamp: ties on time are broken by id, none lost.
    assert len(readings) == 144 == len({r.id for r in readings})
    assert all(r.measured_at.tzinfo is not None for r in readings)


# --- PostgreSQL --------------------------------------------------------------------------


@pytest.mark.postgres
async def test_sql_aggregates_on_postgres(migrated_postgres_url: str) -> None:
    engine = create_engine(migrated_postgres_url)
    try:
        factory = create_session_factory(engine)
        await seed(factory)
        async with factory() as session:
            rows = await plan_vs_fact(session, FARM, OCT_START, OCT_END)
            summary = await season_summary(session, FARM, OCT_START, OCT_END, UNITS)
            report = await build_operations_workbook(
                Database(factory), FARM, OCT_START, OCT_END, texts=Texts(CATALOG, "uk")
            )
            pages = [
                page
                async for page in paging.iter_operations(
                    Database(factory), FARM, OCT_START, OCT_END, page_size=4
                )
            ]
        by_key = {(row.field_id, row.op_type): row.completion_pct for row in rows}
        assert by_key[(NORTH, "irrigation")] == 66.7
        assert by_key[(SOUTH, "fertilising")] == 50.0
        assert (summary.water_mm, summary.water_m3) == (45.0, 5500.0)
        assert summary.products[0].total == 2050.0
        assert (summary.planned, summary.matched) == (6, 4)
        assert report.rows == OCT_OPS == sum(len(page) for page in pages)
        assert open_sheets(report.content)["План-факт"][-1] == ("Разом", None, 6, 8, 66.7)
    finally:
        await engine.dispose()
