"""What the readings tests share (test_sensors.py, test_readings_abuse.py): a farm
with one field, a reading as a probe posts it, the count stored, and the readings
endpoint served over a real socket with a client holding the farm's token."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import aiohttp
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.config import StepanSettings
from bot.http.readings import ReadingsServer
from db.models import FarmProfileRow, FieldRow, SensorReadingRow, UserProfileRow
from db.uow import Database
from pipeline.farm.sensors.readings import SensorTypes
from pipeline.farm.sensors.store import SensorStore

TYPES = SensorTypes.load()
FARM = "farm:test-sensors"
NORTH = "field:north"
NOW = datetime.now(UTC).replace(microsecond=0)


def reading(i: int = 0, **changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "sensor_id": "probe-1",
        "sensor_type": "soil_moisture",
        "value": 25.5,
        "measured_at": (NOW - timedelta(minutes=i)).isoformat(),
        "field_id": NORTH,
    }
    return base | changes


async def add_farm(
    factory: async_sessionmaker[AsyncSession], user_id: str = "tg:2002", farm_id: str = FARM
) -> None:
    async with factory() as session:
        session.add(UserProfileRow(user_id=user_id))
        await session.flush()
        session.add(FarmProfileRow(farm_id=farm_id, user_id=user_id))
        await session.flush()
        session.add(FieldRow(farm_id=farm_id, field_id=NORTH, name="Північне"))
        await session.commit()


async def stored(factory: async_sessionmaker[AsyncSession], farm_id: str = FARM) -> int:
    async with factory() as session:
        count = await session.scalar(
            select(func.count())
            .select_from(SensorReadingRow)
            .where(SensorReadingRow.farm_id == farm_id)
        )
        await session.commit()
    return int(count or 0)


class Api:
    def __init__(self, http: aiohttp.ClientSession, base: str, token: str) -> None:
        self.http, self.base, self.token = http, base, token

    async def post(
        self, body: Any, *, token: str | None = "default", raw: bytes | None = None
    ) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        if token is not None:
            headers["Authorization"] = f"Bearer {self.token if token == 'default' else token}"
        data = raw if raw is not None else json.dumps(body).encode()
        async with self.http.post(
            f"{self.base}/api/v1/readings", data=data, headers=headers
        ) as response:
            return response.status, await response.json()


async def serve(
    factory: async_sessionmaker[AsyncSession], **options: float
) -> tuple[ReadingsServer, str]:
    """The readings endpoint on a free port (``options`` go to ReadingsServer) and a
    token of the farm; the caller stops the server."""
    sensors = SensorStore(Database(factory), TYPES)
    token = await sensors.issue_token(FARM, "test")
    settings = StepanSettings(_env_file=None, http_port=0)  # type: ignore[call-arg]
    server = ReadingsServer(settings, sensors, **options)
    await server.start()
    return server, token


@asynccontextmanager
async def api_on(factory: async_sessionmaker[AsyncSession]) -> AsyncIterator[Api]:
    """A client of the readings endpoint, served for the block."""
    server, token = await serve(factory)
    try:
        async with aiohttp.ClientSession() as http:
            yield Api(http, f"http://127.0.0.1:{server.port}", token)
    finally:
        await server.stop()
