"""The readings endpoint under abuse, each a test: deep nesting, out-of-range dates,
NUL bytes, wrong types, readings from the future, numeric units (400/422 with an
error code, never 500, nothing stored), slow bodies, and a bounded shutdown."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.engine import create_engine, create_session_factory
from pipeline.farm.sensors.store import SensorStore
from tests.integration.sensors_world import Api, add_farm, api_on, reading, serve, stored


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest) -> str:
    name = "sqlite_url" if request.param == "sqlite" else "migrated_postgres_url"
    return str(request.getfixturevalue(name))


@pytest.fixture
async def factory(database_url: str) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    engine = create_engine(database_url)
    factory = create_session_factory(engine)
    await add_farm(factory)
    yield factory
    await engine.dispose()


@pytest.fixture
async def api(factory: async_sessionmaker[AsyncSession]) -> AsyncIterator[Api]:
    async with api_on(factory) as api:
        yield api


async def _refused(
    api: Api,
    factory: async_sessionmaker[AsyncSession],
    *,
    raw: bytes | None = None,
    body: Any = None,
) -> tuple[int, dict[str, Any]]:
    status, answer = await api.post(body, raw=raw)
    assert status in (400, 413, 422), (status, answer)
    assert isinstance(answer.get("error"), str) and answer["error"]
    assert await stored(factory) == 0
    return status, answer


async def test_deeply_nested_json_is_malformed_not_500(
    api: Api, factory: async_sessionmaker[AsyncSession]
) -> None:
    depth = 100_000
    status, answer = await _refused(api, factory, raw=b"[" * depth + b"]" * depth)
    assert (status, answer["error"]) == (400, "malformed")
    status, answer = await _refused(
        api, factory, raw=b'{"readings": ' + b'{"a": ' * depth + b"1" + b"}" * (depth + 1)
    )
    assert status in (400, 422)


def _codes(answer: dict[str, Any]) -> set[tuple[int, str | None, str]]:
    return {(e["index"], e["field"], e["code"]) for e in answer["errors"]}


@pytest.mark.parametrize(
    ("measured_at", "code"),
    [
        ("0001-01-01T00:30:00+01:00", "too_old"),  # has no UTC: OverflowError once
        ("0001-01-01T00:00:00Z", "too_old"),
        ("1999-12-31T23:59:59Z", "too_old"),
        ("9999-12-31T23:30:00-01:00", "future"),
        (timedelta(hours=23), "future"),  # hid real readings for a day once
        (timedelta(minutes=10), "future"),
        ("2026-02-30T10:00:00Z", "bad_datetime"),
        ("2026-05-01T10:00:00", "naive_datetime"),
    ],
)
async def test_out_of_range_dates_are_refused(
    api: Api, factory: async_sessionmaker[AsyncSession], measured_at: str | timedelta, code: str
) -> None:
    if isinstance(measured_at, timedelta):  # ahead of the clock when the test runs
        measured_at = (datetime.now(UTC) + measured_at).isoformat()
    status, answer = await _refused(api, factory, body=[reading(0, measured_at=measured_at)])
    assert status == 422 and _codes(answer) == {(0, "measured_at", code)}


async def test_a_clock_a_little_ahead_is_accepted(
    api: Api, factory: async_sessionmaker[AsyncSession]
) -> None:
    ahead = datetime.now(UTC) + timedelta(minutes=2)
    status, _ = await api.post([reading(0, measured_at=ahead.isoformat())])
    assert status == 200 and await stored(factory) == 1


@pytest.mark.parametrize(
    ("changes", "field", "code"),
    [
        ({"sensor_id": "probe\x00-1"}, "sensor_id", "control_chars"),
        ({"field_id": "north\x00"}, "field_id", "control_chars"),
        ({"sensor_id": "probe\x1b[2J"}, "sensor_id", "control_chars"),
        ({"unit": 5}, "unit", "not_text"),
        ({"unit": ["%"]}, "unit", "not_text"),
        ({"unit": True}, "unit", "not_text"),
        ({"unit": "%\x00"}, "unit", "unknown_unit"),
        ({"unit": "furlongs"}, "unit", "unknown_unit"),
        ({"value": [1]}, "value", "not_a_number"),
        ({"value": {"v": 1}}, "value", "not_a_number"),
        ({"value": True}, "value", "not_a_number"),
        ({"value": "1e999"}, "value", "not_a_number"),
        ({"measured_at": 1714550000}, "measured_at", "bad_datetime"),
        ({"measured_at": None}, "measured_at", "bad_datetime"),
        ({"sensor_type": ["soil_moisture"]}, "sensor_type", "not_text"),
        ({"sensor_id": {"id": 1}}, "sensor_id", "not_text"),
        # JSON's "\ud800" is a lone surrogate: no text; it made the error message 500.
        ({"sensor_type": "\ud800"}, "sensor_type", "not_text"),
        ({"unit": "%\udfff"}, "unit", "not_text"),
        ({"sensor_id": "p\ud800"}, "sensor_id", "not_text"),
        ({"field_id": "\udc00"}, "field_id", "not_text"),
        # Invisible characters that change how an id reads in a chart or a report.
        ({"sensor_id": "\u202eprobe-1"}, "sensor_id", "control_chars"),
        ({"sensor_id": "\u200b"}, "sensor_id", "control_chars"),
        ({"field_id": "nor\u2028th"}, "field_id", "control_chars"),
        ({"sensor_id": "\ufeffprobe"}, "sensor_id", "control_chars"),
    ],
)
async def test_bad_fields_get_422_with_a_code(
    api: Api,
    factory: async_sessionmaker[AsyncSession],
    changes: dict[str, Any],
    field: str,
    code: str,
) -> None:
    status, answer = await _refused(api, factory, body=[reading(0, **changes)])
    assert status == 422 and _codes(answer) == {(0, field, code)}


@pytest.mark.parametrize(
    "raw",
    [
        b'{"readings": {"sensor_id": "p"}}',
        b'"readings"',
        b"42",
        b"null",
        b'{"readings": "all"}',
        b"\x00\x00\x00",
        b'{"readings": [1, 2]\x00}',
        "[\ud800]".encode("utf-8", "surrogatepass"),
        b"\xff\xfe[]",
        b'{"readings": [' + b"9" * 5000 + b"]}",  # past Python's int digit limit
    ],
)
async def test_wrong_shapes_get_400_or_422(
    api: Api, factory: async_sessionmaker[AsyncSession], raw: bytes
) -> None:
    await _refused(api, factory, raw=raw)


async def test_a_slow_body_times_out(factory: async_sessionmaker[AsyncSession]) -> None:
    server, token = await serve(factory, body_timeout=0.5)
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(
            b"POST /api/v1/readings HTTP/1.1\r\nHost: x\r\n"
            + f"Authorization: Bearer {token}\r\n".encode()
            + b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n["
        )
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout=10)
        assert head.startswith(b"HTTP/1.1 408")
        length = int(
            next(
                line.split(b":")[1]
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length")
            )
        )
        answer = json.loads(await reader.readexactly(length))
        assert answer["error"] == "body_timeout"
        writer.close()
    finally:
        await server.stop()
    assert await stored(factory) == 0


async def test_shutdown_is_bounded_with_slow_clients_connected(
    factory: async_sessionmaker[AsyncSession],
) -> None:
    """100 slow bodies with a valid token once held SIGTERM for 61 s."""
    server, token = await serve(factory, body_timeout=60.0, shutdown_timeout=1.0)
    writers = []
    for _ in range(100):
        _, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(
            b"POST /api/v1/readings HTTP/1.1\r\nHost: x\r\n"
            + f"Authorization: Bearer {token}\r\n".encode()
            + b"Content-Length: 100000\r\n\r\n["
        )
        writers.append(writer)
    for writer in writers:
        await writer.drain()
    await asyncio.sleep(0.2)  # let the handlers reach their body read

    started = time.monotonic()
    await server.stop()
    elapsed = time.monotonic() - started

    for writer in writers:
        writer.close()
    assert elapsed < 10.0, f"shutdown took {elapsed:.1f}s"


async def test_headers_sent_byte_by_byte_lose_the_connection(
    factory: async_sessionmaker[AsyncSession],
) -> None:
    """A client trickling its request line and headers was held open forever: aiohttp
    has no header timeout of its own (bot/http/readings.py HEADER_TIMEOUT_S)."""
    server, token = await serve(factory, header_timeout=0.5)
    head = (
        b"POST /api/v1/readings HTTP/1.1\r\nHost: x\r\n"
        + f"Authorization: Bearer {token}\r\n".encode()
        + b"X-Padding: "
        + b"a" * 400
        + b"\r\nContent-Length: 2\r\n\r\n"
    )
    sent = 0
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        try:
            for byte in head:
                writer.write(bytes([byte]))
                sent += 1
                await writer.drain()
                if reader.at_eof():
                    break
                try:  # the server's close arrives as the end of the stream
                    if await asyncio.wait_for(reader.read(1), timeout=0.05) == b"":
                        break
                except TimeoutError:
                    pass
        except ConnectionError:
            pass  # the server closed the connection under the write
        writer.close()
    finally:
        await server.stop()
    assert sent < len(head)  # dropped before the headers were whole
    assert await stored(factory) == 0


def _sqlite_error(message: str) -> OperationalError:
    return OperationalError("INSERT", None, sqlite3.OperationalError(message))


@pytest.mark.parametrize(
    ("error", "status", "code"),
    [
        (_sqlite_error("database is locked"), 503, "unavailable"),
        (_sqlite_error("attempt to write a readonly database"), 503, "unavailable"),
        (_sqlite_error("database or disk is full"), 507, "disk_full"),
        (RuntimeError("boom"), 500, "internal"),
    ],
)
async def test_a_store_that_fails_answers_json(
    sqlite_url: str,
    monkeypatch: pytest.MonkeyPatch,
    error: Exception,
    status: int,
    code: str,
) -> None:
    """Database errors and a lock held past its timeout were aiohttp's plain-text 500
    «Server got itself in trouble»; a gateway could not tell when to resend."""
    engine = create_engine(sqlite_url)
    factory = create_session_factory(engine)
    await add_farm(factory)

    async def failing(*args: object, **kwargs: object) -> None:
        raise error

    monkeypatch.setattr(SensorStore, "ingest", failing)
    try:
        async with api_on(factory) as api:
            answer_status, answer = await api.post({"readings": [reading()]})
            async with api.http.post(
                f"{api.base}/api/v1/readings",
                json=[reading()],
                headers={"Authorization": f"Bearer {api.token}"},
            ) as response:
                retry_after = response.headers.get("Retry-After")
                assert response.content_type == "application/json"
    finally:
        await engine.dispose()
    assert (answer_status, answer["error"]) == (status, code)
    assert (retry_after is not None) == (status == 503)
