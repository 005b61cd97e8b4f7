"""What the report tests share (test_reports.py, test_reports_summary.py): a farm
with three fields, October's journal (done and planned, in mixed units, one more
farm's entry that must never leak in) and three days of hourly readings, seeded on a
migrated database; the workbook opened back into rows."""

from __future__ import annotations

import io
from datetime import UTC, date, datetime, timedelta

import pytest
from openpyxl import load_workbook
from openpyxl.worksheet.worksheet import Worksheet
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models import (
    CropRow,
    FarmProfileRow,
    FieldRow,
    OperationRow,
    SensorReadingRow,
    UserProfileRow,
)
from db.repositories import sensor_rollups
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


def operation(farm_id: str, number: int, op: tuple[object, ...]) -> OperationRow:
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
        session.add_all(operation(FARM, i, op) for i, op in enumerate(OPS))
        # Another farm's journal never leaks into this farm's report.
        session.add(
            operation(
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


def open_sheets(content: bytes) -> dict[str, list[tuple[object, ...]]]:
    workbook = load_workbook(io.BytesIO(content))  # full (not read-only) mode parses styles too
    sheets: dict[str, list[tuple[object, ...]]] = {}
    for sheet in workbook.worksheets:
        assert isinstance(sheet, Worksheet)
        sheets[sheet.title] = [tuple(row) for row in sheet.iter_rows(values_only=True)]
    return sheets
