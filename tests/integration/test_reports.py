"""Reports, charts and the season summary on a real migrated database."""

from __future__ import annotations

import io
import struct
from datetime import UTC, date, datetime, timedelta

import pytest
from openpyxl import load_workbook
from openpyxl.worksheet.worksheet import Worksheet
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.engine import create_engine, create_session_factory
from db.models import (
    CropRow,
    FarmProfileRow,
    FieldRow,
    OperationRow,
    SensorReadingRow,
    UserProfileRow,
)
from db.repositories import sensor_rollups
from db.uow import Database
from pipeline.farm import paging
from pipeline.farm.reports import build_operations_workbook, plan_vs_fact
from pipeline.farm.summary import parse_unit, season_summary
from pipeline.farm.summary_text import summary_text
from pipeline.i18n import Catalog
from tests.shared import catalog as shared_catalog
from tests.shared import rulebook

FARM = "farm:kalynivka"
OTHER_FARM = "farm:other"
UNITS = rulebook().units
CATALOG = shared_catalog()
NORTH, SOUTH, EAST = "field:north", "field:south", "field:east"
OCT_START, OCT_END = date(2026, 10, 1), date(2026, 10, 31)
READINGS_START = datetime(2026, 10, 1, tzinfo=UTC)

# (date, type, field, crop, quantity, unit, product, status)
OPS: list[tuple[date, str, str | None, str | None, float | None, str | None, str | None, str]] = [
    (date(2026, 10, 1), "irrigation", NORTH, "crop:wheat", 20, "mm", None, "done"),
    (date(2026, 10, 5), "irrigation", NORTH, "crop:wheat", 15, "mm", None, "done"),
    (date(2026, 10, 2), "irrigation", NORTH, "crop:wheat", 20, "mm", None, "planned"),
    (date(2026, 10, 6), "irrigation", NORTH, "crop:wheat", 20, "mm", None, "planned"),
    (date(2026, 10, 9), "irrigation", NORTH, "crop:wheat", 20, "mm", None, "planned"),
    (date(2026, 10, 3), "irrigation", SOUTH, None, 10, "мм", None, "done"),
    (date(2026, 10, 3), "irrigation", SOUTH, None, 10, "мм", None, "planned"),
    (date(2026, 10, 10), "fertilising", NORTH, "crop:wheat", 100, "кг/га", "Карбамід", "done"),
    (date(2026, 10, 12), "fertilising", SOUTH, None, 1, "т", "Карбамід", "done"),
    (date(2026, 10, 13), "fertilising", SOUTH, None, 1, "т", "Карбамід", "planned"),
    (date(2026, 10, 14), "fertilising", SOUTH, None, 1, "т", "Карбамід", "planned"),
    (date(2026, 10, 15), "fertilising", EAST, None, 50, "kg", "Карбамід", "done"),
    (date(2026, 10, 20), "spraying", NORTH, "crop:wheat", 3, "l/ha", "Раундап", "done"),
    (date(2026, 10, 31), "sowing", None, None, None, None, None, "done"),
    # Outside October: never in an October report.
    (date(2026, 9, 30), "irrigation", NORTH, None, 50, "mm", None, "done"),
    (date(2026, 11, 1), "irrigation", NORTH, None, 50, "mm", None, "done"),
]
OCT_OPS = 14


async def _seed_farm(session: AsyncSession, farm_id: str, user_id: str) -> None:
    session.add(UserProfileRow(user_id=user_id, name="Іван"))
    await session.flush()
    session.add(
        FarmProfileRow(
            farm_id=farm_id,
            user_id=user_id,
            farm_name="Калинівка",
            alert_thresholds={
                "soil_moisture_min": 25.0,
                "temperature_min": 5.0,
                "temperature_max": 30.0,
            },
        )
    )
    await session.flush()


def _operation(farm_id: str, number: int, op: tuple[object, ...]) -> OperationRow:
    op_date, op_type, field_id, crop_id, quantity, unit, product, status = op
    return OperationRow(
        farm_id=farm_id,
        op_type=op_type,
        field_id=field_id,
        crop_id=crop_id,
        quantity=quantity,
        unit=unit,
        product=product,
        op_date=op_date,
        status=status,
        source_chat_id=1,
        source_message_id=number,
        author="tg:1",
    )


def _readings() -> list[SensorReadingRow]:
    rows = []
    for hour in range(72):  # three days, hourly
        at = READINGS_START + timedelta(hours=hour)
        for sensor_id, field_id, sensor_type, value, unit in (
            ("soil-n1", NORTH, "soil_moisture", 30.0 - hour * 0.1, "%"),
            ("soil-s1", SOUTH, "soil_moisture", 28.0, "%"),
            ("temp-n1", NORTH, "temperature", 12.0 + hour % 10, "°C"),
        ):
            rows.append(
                SensorReadingRow(
                    farm_id=FARM,
                    field_id=field_id,
                    sensor_id=sensor_id,
                    sensor_type=sensor_type,
                    value=value,
                    unit=unit,
                    measured_at=at,
                    source="api",
                )
            )
    return rows


async def seed(factory: async_sessionmaker[AsyncSession]) -> None:
    async with factory() as session:
        await _seed_farm(session, FARM, "tg:1")
        await _seed_farm(session, OTHER_FARM, "tg:2")
        session.add_all(
            [
                FieldRow(farm_id=FARM, field_id=NORTH, name="Північне", area_ha=10.0),
                FieldRow(farm_id=FARM, field_id=SOUTH, name="Південне", area_ha=20.0),
                FieldRow(farm_id=FARM, field_id=EAST, name="Східне", area_ha=None),
                CropRow(farm_id=FARM, crop_id="crop:wheat", name="Пшениця"),
            ]
        )
        session.add_all(_operation(FARM, i, op) for i, op in enumerate(OPS))
        # Another farm's journal never leaks into this farm's report.
        session.add(
            _operation(
                OTHER_FARM, 999, (OCT_START, "irrigation", NORTH, None, 99, "mm", None, "done")
            )
        )
        session.add_all(_readings())
        await session.flush()
        await sensor_rollups.rebuild(session)  # stored directly, not through the ingest
        await session.commit()


@pytest.fixture
async def factory(
    session_factory: async_sessionmaker[AsyncSession],
) -> async_sessionmaker[AsyncSession]:
    await seed(session_factory)
    return session_factory


def _open(content: bytes) -> dict[str, list[tuple[object, ...]]]:
    workbook = load_workbook(io.BytesIO(content))  # full (not read-only) mode parses styles too
    sheets: dict[str, list[tuple[object, ...]]] = {}
    for sheet in workbook.worksheets:
        assert isinstance(sheet, Worksheet)
        sheets[sheet.title] = [tuple(row) for row in sheet.iter_rows(values_only=True)]
    return sheets


def _png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert png[12:16] == b"IHDR"
    width, height = struct.unpack(">II", png[16:24])
    return width, height


# --- The workbook --------------------------------------------------------------------


async def test_workbook_sheets_headers_and_rows(factory: async_sessionmaker[AsyncSession]) -> None:
    report = await build_operations_workbook(
        Database(factory), FARM, OCT_START, OCT_END, catalog=CATALOG
    )
    assert report.filename == "stepan_operations_2026-10-01_2026-10-31.xlsx"
    assert report.rows == OCT_OPS
    sheets = _open(report.content)
    assert list(sheets) == ["Операції", "План-факт", "Датчики"]

    ops = sheets["Операції"]
    assert ops[0] == (
        "Дата", "Поле", "Культура", "Операція", "Препарат / добриво", "Норма", "Од. норми",
        "Кількість", "Одиниця", "Оброблено, га", "Урожайність, т/га", "Статус",
    )  # fmt: skip
    assert len(ops) == 1 + OCT_OPS
    # A depth of water is a rate; units as Ukrainian writes them.
    assert ops[1] == (
        datetime(2026, 10, 1), "Північне", "Пшениця", "Полив", None, 20, "мм",
        None, None, None, None, "виконано",
    )  # fmt: skip
    assert ops[-1] == (
        datetime(2026, 10, 31), "без поля", None, "Сівба", None, None, None,
        None, None, None, None, "виконано",
    )  # fmt: skip
    dates = [str(row[0]) for row in ops[1:]]
    assert dates == sorted(dates)  # by date
    fertilizing = next(row for row in ops[1:] if row[0] == datetime(2026, 10, 13))
    assert fertilizing == (
        datetime(2026, 10, 13), "Південне", None, "Внесення добрив", "Карбамід", None, None,
        1, "т", None, None, "заплановано",
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
        Database(factory), FARM, OCT_START, OCT_END, lang="en", catalog=CATALOG
    )
    sheets = _open(report.content)
    assert list(sheets) == ["Operations", "Plan vs fact", "Sensors"]
    assert sheets["Operations"][0][:4] == ("Date", "Field", "Crop", "Operation")
    assert sheets["Operations"][1][3:] == (
        "Irrigation", None, 20, "mm", None, None, None, None, "done",
    )  # fmt: skip
    assert sheets["Plan vs fact"][-1] == ("Total", None, 6, 8, 66.7)


async def test_workbook_for_one_field(factory: async_sessionmaker[AsyncSession]) -> None:
    report = await build_operations_workbook(
        Database(factory), FARM, OCT_START, OCT_END, field_id=NORTH, catalog=CATALOG
    )
    assert report.filename == "stepan_operations_north_2026-10-01_2026-10-31.xlsx"
    assert report.rows == 7
    sheets = _open(report.content)
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
        Database(factory), FARM, date(2025, 1, 1), date(2025, 1, 31), catalog=CATALOG
    )
    assert report.rows == 0
    sheets = _open(report.content)
    assert [len(rows) for rows in sheets.values()] == [1, 1, 1]
    assert sheets["Операції"][0][0] == "Дата"


async def test_awkward_text_survives(factory: async_sessionmaker[AsyncSession]) -> None:
    async with factory() as session:
        session.add(
            _operation(
                FARM,
                500,
                (OCT_START, "new_thing", NORTH, None, 1.5, "л", "A&B <x> \x07 ", "done"),
            )
        )
        await session.commit()
        report = await build_operations_workbook(
            Database(factory), FARM, OCT_START, OCT_START, catalog=CATALOG
        )
    rows = _open(report.content)["Операції"]
    # Unknown op ids stay readable; characters XML cannot carry are dropped, the rest kept.
    assert ("new thing", "A&B <x>  ", None, None, 1.5, "л", None, None, "виконано") in [
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
        Database(factory), FARM, OCT_START, OCT_END, catalog=CATALOG, max_sensor_rows=216
    )
    assert len(_open(raw.content)["Датчики"]) == 1 + 216
    async with factory() as session:
        report = await build_operations_workbook(
            Database(factory), FARM, OCT_START, OCT_END, catalog=CATALOG, max_sensor_rows=100
        )
        # The session is free again at once: no read is left in flight.
        assert len(await plan_vs_fact(session, FARM, OCT_START, OCT_END)) == 7
    sensors = _open(report.content)["Датчики"]
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
        Database(factory), FARM, OCT_START, OCT_END, catalog=CATALOG, max_sensor_rows=300
    )
    sensors = _open(report.content)["Датчики"]
    assert sensors[1][0] == catalog.text("uk", "sensor_sheet.hourly_note", readings=360, limit=300)
    fast = [row for row in sensors[2:] if row[2] == "soil-fast"]
    assert len(fast) == 24 and {row[7] for row in fast} == {6}
    assert (fast[0][4], fast[0][5], fast[0][6]) == (20.0, 22.5, 25.0)
    assert len(sensors) - 2 == 216 + 24


async def test_even_days_too_many_are_cut_with_a_note(
    factory: async_sessionmaker[AsyncSession], catalog: Catalog
) -> None:
    report = await build_operations_workbook(
        Database(factory), FARM, OCT_START, OCT_END, catalog=CATALOG, max_sensor_rows=5
    )
    sensors = _open(report.content)["Датчики"]
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


# --- Season summary ----------------------------------------------------------------------


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

    uk = summary_text(summary, "uk", catalog)
    assert "01.10.2026–31.10.2026" in uk
    # Depths per field, never added up across fields; volumes do add up.
    assert "Південне — 10 мм; Північне — 35 мм" in uk and "5\u00a0500 м³" in uk
    assert "45 мм" not in uk
    assert "Карбамід — 2\u00a0050 кг (66,7 кг/га)" in uk and "Раундап — 30 л (3 л/га)" in uk
    assert "66,7% (4 з 6)" in uk
    en = summary_text(summary, "en", catalog)
    assert "5,500 m³" in en and "66.7% complete (4 of 6)" in en


async def test_irrigation_volumes_become_depth(factory: async_sessionmaker[AsyncSession]) -> None:
    december = date(2026, 12, 1)
    async with factory() as session:
        session.add_all(
            _operation(
                FARM, 600 + i, (december, "irrigation", field, None, qty, unit, None, "done")
            )
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
    text = summary_text(summary, "uk", catalog)
    assert catalog.text("uk", "reports.summary_no_plan") in text
    assert catalog.text("uk", "reports.summary_no_water") in text


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
                Database(factory), FARM, OCT_START, OCT_END, catalog=CATALOG
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
        assert _open(report.content)["План-факт"][-1] == ("Разом", None, 6, 8, 66.7)
    finally:
        await engine.dispose()
