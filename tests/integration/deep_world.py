"""The seeded farm of the deep-path tests (test_deep_offline.py, the crew tests, the
shortcut and opener tests): a guard against any connection beyond loopback, the day
its data is about, its fields, crops, journal, readings and alerts, and the lines the
tools write about them."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, date, datetime

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models import AlertRow, CropRow, FarmProfileRow, FieldRow, OperationRow, SensorReadingRow
from pipeline.clock import Clock
from pipeline.farm.reports import op_label, sensor_label
from pipeline.handle import Pipeline
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.memory import Memory
from pipeline.types import Incoming, Reply
from tests.fakes.llm import no_outbound_connections

USER = "tg:500"
NOW = datetime(2025, 5, 14, 10, 0, tzinfo=UTC)  # a Wednesday in the sowing season
PNG = b"\x89PNG\r\n\x1a\n"
XLSX = b"PK\x03\x04"


@pytest.fixture(autouse=True)
def no_internet() -> Iterator[list[str]]:
    with no_outbound_connections() as attempts:
        yield attempts
    assert attempts == [], f"tried to connect to {attempts}"


def incoming(text: str, user: str = USER, message_id: int | None = None) -> Incoming:
    return Incoming(
        user_id=user,
        chat_id=500,
        text=text,
        trace_id=uuid.uuid4().hex[:16],
        first_name="Оксана",
        message_id=message_id,
    )


async def say(
    pipeline: Pipeline, factory: async_sessionmaker[AsyncSession], text: str, **kwargs: object
) -> Reply:
    return await pipeline.handle_message(incoming(text, **kwargs))  # type: ignore[arg-type]


def on_the_seeded_day() -> datetime:
    return NOW


@pytest.fixture
def pipeline_clock() -> Clock:
    """The pipeline lives on the day the seeded farm's data is about."""
    return on_the_seeded_day


def operation_row(
    farm_id: str, op_type: str, field_id: str, day: date, status: str, **extra: object
) -> OperationRow:
    return OperationRow(
        farm_id=farm_id,
        op_type=op_type,
        field_id=field_id,
        op_date=day,
        status=status,
        author=USER,
        **extra,
    )


async def seed_farm(
    pipeline: Pipeline,
    memory: Memory,
    factory: async_sessionmaker[AsyncSession],
    *,
    iot: bool = True,
) -> str:
    """A farm with two fields, a crop, a journal, sensor readings and an open alert."""
    await say(pipeline, factory, "привіт")
    # The reference voice (catalogs as they are): a new user would be a novice, whose
    # list lines and explanations the voice tests check on their own.
    assert await memory.editor.set_expertise(USER, "intermediate", by_operator=False)
    await memory.editor.update_farm(USER, has_iot_integration=iot, farm_name="Калинівка")
    async with factory() as session:
        farm = (
            await session.execute(select(FarmProfileRow).where(FarmProfileRow.user_id == USER))
        ).scalar_one()
        farm_id = farm.farm_id
        north, two = "field:pivnichne", "field:pole-2"
        session.add_all(
            [
                FieldRow(farm_id=farm_id, field_id=north, name="Північне", area_ha=12.0),
                FieldRow(farm_id=farm_id, field_id=two, name="Поле 2", area_ha=8.0),
                CropRow(farm_id=farm_id, crop_id="crop:wheat", name="Пшениця"),
                operation_row(farm_id, "irrigation", north, date(2025, 4, 5), "planned"),
                operation_row(farm_id, "irrigation", north, date(2025, 4, 12), "planned"),
                operation_row(
                    farm_id,
                    "irrigation",
                    north,
                    date(2025, 4, 10),
                    "done",
                    quantity=20.0,
                    unit="mm",
                ),
                operation_row(
                    farm_id,
                    "spraying",
                    two,
                    date(2025, 5, 16),
                    "planned",
                    product="Децис",
                    quantity=0.25,
                    unit="l/ha",
                ),
                operation_row(farm_id, "sowing", two, date(2025, 6, 30), "planned"),
                operation_row(
                    farm_id, "spraying", north, date(2024, 10, 3), "done", product="Фалькон"
                ),
                SensorReadingRow(
                    farm_id=farm_id,
                    field_id=two,
                    sensor_id="s-2",
                    sensor_type="soil_moisture",
                    value=31.0,
                    unit="%",
                    measured_at=datetime(2025, 5, 13, 6, tzinfo=UTC),
                    source="api",
                ),
                SensorReadingRow(
                    farm_id=farm_id,
                    field_id=two,
                    sensor_id="s-2",
                    sensor_type="soil_moisture",
                    value=17.5,
                    unit="%",
                    measured_at=datetime(2025, 5, 14, 6, tzinfo=UTC),
                    source="api",
                ),
                SensorReadingRow(
                    farm_id=farm_id,
                    field_id=north,
                    sensor_id="s-1",
                    sensor_type="soil_moisture",
                    value=40.0,
                    unit="%",
                    measured_at=datetime(2025, 5, 14, 5, tzinfo=UTC),
                    source="api",
                ),
                AlertRow(
                    farm_id=farm_id,
                    field_id=two,
                    sensor_type="soil_moisture",
                    kind="below_min",
                    value=17.5,
                    threshold=20.0,
                    started_at=datetime(2025, 5, 14, 6, tzinfo=UTC),
                ),
            ]
        )
        await session.commit()
    return farm_id


def planned_spraying(catalog: Catalog) -> str:
    """The week plan's line for the seeded spraying of Поле 2 on 16 May (Децис at
    0,25 л/га: a rate keeps its second decimal)."""
    return catalog.text(
        "uk",
        "compose.planned_item",
        date="16.05",
        operation=op_label(Texts(catalog, "uk"), "spraying"),
        field="Поле 2",
        amount=", 0,25 л/га, Децис",
    )


def moisture_on_field_two(catalog: Catalog) -> str:
    """The newest soil moisture of Поле 2 as the readings tool shows it: 17,5 %, under
    the farm's 20 % threshold."""
    line = catalog.text(
        "uk",
        "compose.readings_item",
        field="Поле 2",
        sensor=sensor_label(Texts(catalog, "uk"), "soil_moisture"),
        value="17,5",
        unit="%",
        when="14.05 09:00",  # 06:00 UTC on the farm's clock (Europe/Kyiv, summer time)
    )
    return line + catalog.text("uk", "compose.below", threshold="20 %")


@pytest.fixture
async def farm(
    pipeline: Pipeline,
    memory: Memory,
    session_factory: async_sessionmaker[AsyncSession],
) -> str:
    return await seed_farm(pipeline, memory, session_factory)
