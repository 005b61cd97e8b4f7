"""Sensor readings: the HTTP endpoint over a real socket, CSV import and /token through
the real dispatcher, and the service on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.http.readings import CLIENT_MAX_SIZE
from db.engine import create_engine, create_session_factory
from db.models import FarmProfileRow, FarmTokenRow, FieldRow, SensorReadingRow
from db.repositories import recall as recall_repo
from db.repositories.sensor_watch import newest_per_probe
from db.states import AnswerSlot
from db.uow import Database
from pipeline.farm.sensors.readings import MAX_BATCH, InvalidBatch, SensorTypes, parse_batch
from pipeline.farm.sensors.store import SensorStore, latest_readings
from tests.conftest import make_settings
from tests.integration.bot_harness import Harness, running_bot
from tests.integration.sensors_world import (
    FARM,
    NORTH,
    NOW,
    TYPES,
    Api,
    add_farm,
    api_on,
    reading,
    stored,
)

# --- over HTTP ----------------------------------------------------------------------


@pytest.fixture
async def factory(sqlite_url: str) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    engine = create_engine(sqlite_url)
    factory = create_session_factory(engine)
    await add_farm(factory)
    yield factory
    await engine.dispose()


@pytest.fixture
async def api(factory: async_sessionmaker[AsyncSession]) -> AsyncIterator[Api]:
    async with api_on(factory) as api:
        yield api


async def test_healthz(api: Api) -> None:
    async with api.http.get(f"{api.base}/healthz") as response:
        assert response.status == 200
        assert await response.json() == {"status": "ok"}


async def test_missing_and_wrong_tokens_are_401(
    api: Api, factory: async_sessionmaker[AsyncSession]
) -> None:
    status, body = await api.post({"readings": [reading()]}, token=None)
    assert status == 401 and body["error"] == "unauthorized"
    status, body = await api.post({"readings": [reading()]}, token="stp_not-a-real-token")
    assert status == 401 and body["error"] == "unauthorized"
    async with api.http.post(
        f"{api.base}/api/v1/readings",
        json=[reading()],
        headers={"Authorization": f"Basic {api.token}"},
    ) as response:
        assert response.status == 401
        assert response.headers["WWW-Authenticate"] == "Bearer"
    assert await stored(factory) == 0


async def test_malformed_json_is_400(api: Api) -> None:
    status, body = await api.post(None, raw=b'{"readings": [')
    assert status == 400 and body["error"] == "malformed"
    status, body = await api.post({"items": []})
    assert status == 400 and "readings" in body["message"]


async def _assert_422(
    api: Api, factory: async_sessionmaker[AsyncSession], bad: dict[str, Any], field: str, code: str
) -> dict[str, Any]:
    # A good reading first: all-or-nothing means it is not stored either.
    status, body = await api.post({"readings": [reading(0), reading(1), bad]})
    assert status == 422, body
    assert body["error_count"] == 1
    [error] = body["errors"]
    assert (error["index"], error["field"], error["code"]) == (2, field, code)
    assert await stored(factory) == 0
    return dict(error)


async def test_out_of_range_value_is_named(
    api: Api, factory: async_sessionmaker[AsyncSession]
) -> None:
    error = await _assert_422(api, factory, reading(2, value=123.0), "value", "out_of_range")
    assert error["message"] == "soil_moisture must be within 0..100"


async def test_naive_timestamp_is_refused(
    api: Api, factory: async_sessionmaker[AsyncSession]
) -> None:
    naive = reading(2, measured_at="2026-05-01T06:30:00")
    error = await _assert_422(api, factory, naive, "measured_at", "naive_datetime")
    assert "time zone" in error["message"]


async def test_unknown_type_is_refused(api: Api, factory: async_sessionmaker[AsyncSession]) -> None:
    error = await _assert_422(
        api, factory, reading(2, sensor_type="soil_moistur"), "sensor_type", "unknown_type"
    )
    assert "soil_moisture" in error["message"]  # the known types are listed


async def test_unknown_field_is_refused(
    api: Api, factory: async_sessionmaker[AsyncSession]
) -> None:
    await _assert_422(
        api, factory, reading(2, field_id="field:nowhere"), "field_id", "unknown_field"
    )


async def test_a_field_may_be_named_by_its_name(
    api: Api, factory: async_sessionmaker[AsyncSession]
) -> None:
    """Gateways know a field as the farmer calls it: «Північне», "північне" and
    "field:north" are the same field; a name the farm lacks is refused as before."""
    body = [
        reading(0, field_id="Північне"),
        reading(1, field_id="  ПІВНІЧНЕ "),
        reading(2, field_id="«північне»"),
        reading(3, field_id=NORTH),
    ]
    status, answer = await api.post(body)
    assert status == 200 and answer["accepted"] == 4
    async with factory() as session:
        fields = set((await session.execute(select(SensorReadingRow.field_id))).scalars().all())
    assert fields == {NORTH}
    status, answer = await api.post([reading(9, field_id="Південне")])
    assert status == 422 and answer["errors"][0]["code"] == "unknown_field"


async def test_every_bad_item_is_named(api: Api, factory: async_sessionmaker[AsyncSession]) -> None:
    body = [
        reading(0),
        reading(1, value="wet"),
        "not an object",
        reading(3, unit="°F", sensor_type="temperature", value=20),
        reading(4, measured_at=(NOW + timedelta(days=2)).isoformat()),
        {"sensor_type": "temperature", "value": 3, "measured_at": NOW.isoformat()},
    ]
    status, answer = await api.post(body)
    assert status == 422
    named = {(e["index"], e["field"], e["code"]) for e in answer["errors"]}
    assert named == {
        (1, "value", "not_a_number"),
        (2, None, "not_object"),
        (3, "unit", "unknown_unit"),
        (4, "measured_at", "future"),
        (5, "sensor_id", "missing"),
    }
    assert await stored(factory) == 0


async def test_duplicates_within_and_across_batches(
    api: Api, factory: async_sessionmaker[AsyncSession]
) -> None:
    status, body = await api.post({"readings": [reading(0), reading(0), reading(1)]})
    assert (status, body) == (200, {"accepted": 2, "duplicates": 1})
    # The same instant written in another offset is the same reading.
    kyiv = datetime.fromisoformat(reading(1)["measured_at"]).astimezone(
        timezone(timedelta(hours=3))
    )
    again = [reading(0), reading(1, measured_at=kyiv.isoformat()), reading(2)]
    status, body = await api.post(again)  # a bare list is accepted too
    assert (status, body) == (200, {"accepted": 1, "duplicates": 2})
    assert await stored(factory) == 3


async def test_units_default_and_aliases_are_normalised(
    api: Api, factory: async_sessionmaker[AsyncSession]
) -> None:
    body = [
        reading(0, sensor_type="temperature", value=-3.5, unit="C", field_id=None),
        reading(0, sensor_type="rain", value=2, unit=None),
        reading(0, sensor_type="air_humidity", value=61),
    ]
    status, answer = await api.post({"readings": body})
    assert (status, answer) == (200, {"accepted": 3, "duplicates": 0})
    async with factory() as session:
        rows = (await session.execute(select(SensorReadingRow))).scalars().all()
    assert {(r.sensor_type, r.unit, r.field_id, r.source) for r in rows} == {
        ("temperature", "°C", None, "api"),
        ("rainfall", "mm", NORTH, "api"),
        ("air_humidity", "%", NORTH, "api"),
    }


async def test_ten_thousand_readings_in_one_request(
    api: Api, factory: async_sessionmaker[AsyncSession]
) -> None:
    batch = [
        reading(i // 10, sensor_id=f"probe-{i % 10}", value=float(i % 100)) for i in range(10_000)
    ]
    status, body = await api.post({"readings": batch})
    assert (status, body) == (200, {"accepted": 10_000, "duplicates": 0})
    assert await stored(factory) == 10_000
    status, body = await api.post({"readings": batch[:500]})
    assert (status, body) == (200, {"accepted": 0, "duplicates": 500})


async def test_too_many_readings_are_413(api: Api) -> None:
    status, body = await api.post([{}] * (MAX_BATCH + 1))
    assert status == 413 and body["error"] == "too_many"


async def test_oversized_body_is_413(api: Api) -> None:
    status, body = await api.post(None, raw=b"[" + b" " * (CLIENT_MAX_SIZE + 1) + b"]")
    assert status == 413 and body["error"] == "too_large"


async def test_token_is_stored_as_a_hash(factory: async_sessionmaker[AsyncSession]) -> None:
    sensors = SensorStore(Database(factory), TYPES)
    token = await sensors.issue_token(FARM, "label")
    assert await sensors.farm_for_token(token) == FARM
    assert await sensors.farm_for_token(token + "x") is None
    async with factory() as session:
        hashes = (await session.execute(select(FarmTokenRow.token_hash))).scalars().all()
    assert token not in hashes and all(len(h) == 64 for h in hashes)


# --- the service on both databases --------------------------------------------------


async def _service_round(url: str) -> None:
    engine = create_engine(url)
    factory = create_session_factory(engine)
    try:
        await add_farm(factory)
        await add_farm(factory, "tg:3003", "farm:other")
        south = FieldRow(farm_id=FARM, field_id="field:south", name="Південне")
        async with factory() as session:
            session.add(south)
            await session.commit()
        items = [
            reading(30, value=30),
            reading(10, value=18),  # newest soil moisture of the north field
            reading(10, value=99),  # in-batch duplicate: the first copy wins
            reading(20, sensor_id="probe-2", value=22),
            reading(5, sensor_type="temperature", value=11, field_id=None),
            reading(15, field_id="field:south", value=40),
        ]
        sensors = SensorStore(Database(factory), TYPES)
        result = await sensors.ingest(FARM, parse_batch(items, TYPES), source="csv")
        assert (result.accepted, result.duplicates) == (5, 1)
        again = await sensors.ingest(FARM, parse_batch(items[:2], TYPES), source="csv")
        assert (again.accepted, again.duplicates) == (0, 2)
        # Another farm's identical reading is its own.
        other = [reading(10, value=50, field_id=None)]
        assert (
            await sensors.ingest("farm:other", parse_batch(other, TYPES), source="api")
        ).accepted
        async with factory() as session:
            latest = await latest_readings(session, FARM)
            assert [(r.field_id, r.sensor_type, r.value) for r in latest] == [
                (NORTH, "soil_moisture", 18.0),
                ("field:south", "soil_moisture", 40.0),
                (None, "temperature", 11.0),
            ]
            assert latest[0].measured_at == NOW - timedelta(minutes=10)
            only = await latest_readings(session, FARM, field_id="field:south")
            assert [r.value for r in only] == [40.0]
            temps = await latest_readings(session, FARM, sensor_type="temperature")
            assert [(r.field_id, r.unit) for r in temps] == [(None, "°C")]
    finally:
        await engine.dispose()


async def test_service_on_sqlite(sqlite_url: str) -> None:
    await _service_round(sqlite_url)


@pytest.mark.postgres
async def test_service_on_postgres(migrated_postgres_url: str) -> None:
    await _service_round(migrated_postgres_url)


async def _clock_ahead_round(url: str) -> None:
    """A probe whose clock runs 5 minutes fast (issue 29 point 7): its reading stamped
    «00:08» arrived at 00:03 and once stood as the latest against the 5 % read after
    it. The current value is the one that arrived last; a new reading also drops the
    remembered answers that quote the old values (the status one, a repeated sensor
    question), not an agronomy one."""
    engine = create_engine(url)
    factory = create_session_factory(engine)
    try:
        await add_farm(factory)
        async with factory() as session:
            session.add_all(
                [
                    SensorReadingRow(
                        farm_id=FARM, field_id=NORTH, sensor_id="probe-1",
                        sensor_type="soil_moisture", value=30.0, unit="%", source="api",
                        measured_at=NOW + timedelta(minutes=3),
                        received_at=NOW - timedelta(minutes=2),
                    ),
                    SensorReadingRow(
                        farm_id=FARM, field_id=NORTH, sensor_id="probe-1",
                        sensor_type="soil_moisture", value=5.0, unit="%", source="api",
                        measured_at=NOW, received_at=NOW,
                    ),
                ]
            )  # fmt: skip
            for slot, intent in ((AnswerSlot.STATUS, "general"), (AnswerSlot.REPEAT, "iot")):
                await recall_repo.remember_answer(
                    session, user_id="tg:2002", slot=slot, intent=intent, subject="s",
                    trace_id="t", text="30 %", created_at=NOW - timedelta(minutes=1),
                )  # fmt: skip
            await session.commit()
        async with factory() as session:
            [latest] = await latest_readings(session, FARM, sensor_type="soil_moisture")
            [probe] = await newest_per_probe(
                session, FARM, ["soil_moisture"], since=NOW - timedelta(hours=1)
            )
        assert (latest.value, probe.value) == (5.0, 5.0)
        sensors = SensorStore(Database(factory), TYPES)
        await sensors.ingest(FARM, parse_batch([reading(1, value=6)], TYPES), source="api")
        async with factory() as session:
            assert await recall_repo.answer(session, "tg:2002", AnswerSlot.STATUS) is None
            assert await recall_repo.answer(session, "tg:2002", AnswerSlot.REPEAT) is None
            await recall_repo.remember_answer(
                session, user_id="tg:2002", slot=AnswerSlot.REPEAT, intent="agronomy",
                subject="s", trace_id="t", text="сійте", created_at=NOW,
            )  # fmt: skip
            await session.commit()
        await sensors.ingest(FARM, parse_batch([reading(2, value=7)], TYPES), source="api")
        async with factory() as session:
            kept = await recall_repo.answer(session, "tg:2002", AnswerSlot.REPEAT)
            assert kept is not None and kept.text == "сійте"
    finally:
        await engine.dispose()


async def test_a_clock_running_ahead_hides_no_current_value_on_sqlite(sqlite_url: str) -> None:
    await _clock_ahead_round(sqlite_url)


@pytest.mark.postgres
async def test_a_clock_running_ahead_hides_no_current_value_on_postgres(
    migrated_postgres_url: str,
) -> None:
    await _clock_ahead_round(migrated_postgres_url)


# --- through the bot: /token and CSV files ---------------------------------------------

OPERATOR = 1001
FARMER = 2002
INTRUDER = 3003


@pytest.fixture
async def harness(sqlite_url: str) -> AsyncIterator[Harness]:
    settings = make_settings(sqlite_url, operator_ids=frozenset({OPERATOR}))
    async with running_bot(settings) as harness:
        for user in (OPERATOR, FARMER, INTRUDER):
            await harness.say(user, "привіт")  # each now has a farm
        yield harness


async def _farm_id(harness: Harness, telegram_id: int) -> str:
    async with harness.core.db.sessions() as session:
        farm_id = await session.scalar(
            select(FarmProfileRow.farm_id).where(FarmProfileRow.user_id == f"tg:{telegram_id}")
        )
        if farm_id is not None:
            session.add(FieldRow(farm_id=farm_id, field_id=NORTH, name="Північне"))
        await session.commit()
    assert farm_id is not None
    return farm_id


async def _send_csv(harness: Harness, user: int, data: bytes, caption: str | None = None) -> str:
    since = len(harness.api.sent)
    harness.api.push_document(
        user, data, file_name="readings.csv", mime_type="text/csv", caption=caption
    )
    return (await harness.reply(user, since)).text or ""


CSV_SEMICOLON = (
    "sensor_id;sensor_type;value;unit;measured_at;field_id\n"
    f"p1;soil_moisture;23,5;%;{NOW.isoformat()};{NORTH}\n"
    f"p1;soil_moisture;22;;{(NOW - timedelta(hours=1)).isoformat()};{NORTH}\n"
    f"t1;temperature;4,5;°C;{NOW.isoformat()};\n"
    f"p1;soil_moisture;23,5;%;{NOW.isoformat()};{NORTH}\n"
).encode()


async def test_operator_imports_a_csv_into_own_farm(harness: Harness) -> None:
    farm_id = await _farm_id(harness, OPERATOR)
    text = await _send_csv(harness, OPERATOR, CSV_SEMICOLON)
    assert text == harness.core.pipeline.catalog.text(
        "uk", "sensors.csv_done", accepted=3, duplicates=1
    )
    assert harness.api.calls("getFile"), "the bot downloads the file through getFile"
    assert await stored(harness.core.db.sessions, farm_id) == 3
    async with harness.core.db.sessions() as session:
        latest = await latest_readings(session, farm_id, sensor_type="soil_moisture")
    assert [r.value for r in latest] == [23.5]


async def test_operator_imports_for_another_user(harness: Harness) -> None:
    farm_id = await _farm_id(harness, FARMER)
    data = (
        "sensor_id,sensor_type,value,measured_at\n"
        f"p9,air_humidity,55,{NOW.isoformat()}\n"
        f"p9,air_humidity,56,{(NOW - timedelta(hours=1)).isoformat()}\n"
    ).encode()
    text = await _send_csv(harness, OPERATOR, data, caption=f"/import {FARMER}")
    catalog = harness.core.pipeline.catalog
    assert text == catalog.text("uk", "sensors.csv_done", accepted=2, duplicates=0)
    assert await stored(harness.core.db.sessions, farm_id) == 2


async def test_bad_csv_rows_are_named_by_line(harness: Harness) -> None:
    farm_id = await _farm_id(harness, OPERATOR)
    data = (
        "sensor_id;sensor_type;value;unit;measured_at;field_id\n"
        f"p1;soil_moisture;23,5;%;{NOW.isoformat()};{NORTH}\n"
        f"p1;soil_moisture;140;%;{NOW.isoformat()};{NORTH}\n"
        "p1;soil_moisture;20;%;2026-05-01 06:30;\n"
        f"p1;soil_moisture;20;%;{NOW.isoformat()};field:nowhere\n"
    ).encode()
    text = await _send_csv(harness, OPERATOR, data)
    assert "рядок 3, value" in text and "рядок 4, measured_at" in text
    assert await stored(harness.core.db.sessions, farm_id) == 0
    # Field ids are checked against the farm after the rows parse.
    unknown = (
        "sensor_id;sensor_type;value;measured_at;field_id\n"
        f"p1;soil_moisture;20;{NOW.isoformat()};{NORTH}\n"
        f"p1;soil_moisture;20;{(NOW - timedelta(hours=1)).isoformat()};field:nowhere\n"
    ).encode()
    text = await _send_csv(harness, OPERATOR, unknown)
    assert "рядок 3, field_id" in text and "field:nowhere" in text
    assert await stored(harness.core.db.sessions, farm_id) == 0


async def test_csv_without_required_columns(harness: Harness) -> None:
    text = await _send_csv(harness, OPERATOR, b"sensor;value\np1;20\n")
    assert "sensor_id" in text and "measured_at" in text


async def test_non_operator_csv_is_not_imported(harness: Harness) -> None:
    farm_id = await _farm_id(harness, INTRUDER)
    text = await _send_csv(harness, INTRUDER, CSV_SEMICOLON, caption=f"/import {INTRUDER}")
    assert text == harness.core.pipeline.catalog.text("uk", "bot.non_text")
    assert await stored(harness.core.db.sessions, farm_id) == 0
    assert not harness.api.calls("getFile")


async def test_token_for_operators_only(harness: Harness) -> None:
    refused = await harness.say(INTRUDER, "/token")
    assert refused.text == harness.core.pipeline.catalog.text("uk", "admin.not_operator")
    async with harness.core.db.sessions() as session:
        assert await session.scalar(select(func.count()).select_from(FarmTokenRow)) == 0
    farm_id = await _farm_id(harness, FARMER)
    issued = await harness.say(OPERATOR, f"/token {FARMER}")
    token = next(word for word in (issued.text or "").split() if word.startswith("stp_"))
    assert await harness.core.sensors.farm_for_token(token) == farm_id
    usage = await harness.say(OPERATOR, "/token somebody")
    assert usage.text == harness.core.pipeline.catalog.text("uk", "sensors.usage_token")
    unknown = await harness.say(OPERATOR, "/token 777")
    assert unknown.text == harness.core.pipeline.catalog.text("uk", "admin.no_user")


def test_other_sensor_rules_are_passed_in_not_patched(tmp_path: Path) -> None:
    rules = tmp_path / "sensors.toml"
    rules.write_text(
        '[types.leaf_wetness]\nunit = "%"\nmin = 0\nmax = 100\naliases = ["leaf"]\n',
        encoding="utf-8",
    )
    only_leaves = SensorTypes.load(rules)
    [parsed] = parse_batch([reading(sensor_type="leaf", unit="%")], only_leaves)
    assert parsed.sensor_type == "leaf_wetness"
    with pytest.raises(InvalidBatch) as refused:
        parse_batch([reading()], only_leaves)  # soil_moisture: not in these rules
    assert [error.code for error in refused.value.errors] == ["unknown_type"]
