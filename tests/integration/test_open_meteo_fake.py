"""The fake Open-Meteo (tests/fakes/open_meteo.py) answers as the documented API does
(https://open-meteo.com/en/docs; the server's code, open-meteo/open-meteo): a client
that passes against it passes against the real one. Plain HTTP, no Stepan code."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import httpx
import pytest

from tests.fakes.open_meteo import FakeOpenMeteo

NOW = datetime(2026, 5, 14, 9, 30, tzinfo=UTC)
HOURLY = "temperature_2m,precipitation,wind_speed_10m,relative_humidity_2m,soil_temperature_6cm"


@pytest.fixture
async def fake() -> AsyncIterator[FakeOpenMeteo]:
    async with FakeOpenMeteo(now=NOW) as server:
        yield server


async def _get(fake: FakeOpenMeteo, **params: object) -> httpx.Response:
    async with httpx.AsyncClient(base_url=fake.base_url, timeout=5) as client:
        return await client.get("/v1/forecast", params={k: str(v) for k, v in params.items()})


async def test_one_location_is_one_object_on_the_asked_clock(fake: FakeOpenMeteo) -> None:
    response = await _get(
        fake, latitude=49.59, longitude=34.55, hourly=HOURLY, wind_speed_unit="ms",
        timezone="GMT", past_days=1, forecast_days=3,
    )  # fmt: skip
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert isinstance(body, dict)
    keys = {"latitude", "longitude", "generationtime_ms", "utc_offset_seconds", "timezone"}
    keys |= {"timezone_abbreviation", "elevation", "hourly_units", "hourly"}
    assert keys <= set(body)
    assert body["utc_offset_seconds"] == 0 and body["timezone"] == "GMT"
    hourly = body["hourly"]
    assert len(hourly["time"]) == (1 + 3) * 24
    assert hourly["time"][0] == "2026-05-13T00:00" and hourly["time"][-1] == "2026-05-16T23:00"
    assert body["hourly_units"]["wind_speed_10m"] == "m/s"
    assert body["hourly_units"]["temperature_2m"] == "°C"
    assert all(len(hourly[v]) == len(hourly["time"]) for v in HOURLY.split(","))


async def test_several_locations_are_a_list_in_the_order_asked(fake: FakeOpenMeteo) -> None:
    response = await _get(fake, latitude="49.59,46.48", longitude="34.55,30.72", hourly=HOURLY)
    body = response.json()
    assert isinstance(body, list) and len(body) == 2
    assert body[0]["latitude"] == pytest.approx(49.59, abs=0.07)
    assert body[1]["longitude"] == pytest.approx(30.72, abs=0.07)
    # The default: 7 days from today's midnight, in GMT, wind in km/h.
    assert len(body[0]["hourly"]["time"]) == 7 * 24
    assert body[0]["hourly_units"]["wind_speed_10m"] == "km/h"


async def test_a_zone_shifts_the_axis_to_its_clock(fake: FakeOpenMeteo) -> None:
    body = (await _get(fake, latitude=49.59, longitude=34.55, hourly="temperature_2m",
                       timezone="Europe/Kyiv", forecast_days=1)).json()  # fmt: skip
    assert body["utc_offset_seconds"] == 3 * 3600 and body["timezone"] == "Europe/Kyiv"
    assert body["hourly"]["time"][0] == "2026-05-14T00:00"


@pytest.mark.parametrize(
    ("params", "reason"),
    [
        ({"latitude": 91, "longitude": 30},
         "Latitude must be in range of -90 to 90°. Given: 91.0."),
        ({"latitude": 50, "longitude": 181},
         "Longitude must be in range of -180 to 180°. Given: 181.0."),
        ({"latitude": "50,51", "longitude": 30},
         "Parameter 'latitude' and 'longitude' must have the same number of elements"),
        ({"latitude": "", "longitude": ""},
         "Parameter 'latitude' and 'longitude' must not be empty"),
        ({"latitude": 50, "longitude": 30, "forecast_days": 17},
         "Forecast days is invalid. Allowed range 0 to 16. Given 17."),
        ({"latitude": 50, "longitude": 30, "past_days": 93},
         "Past days is invalid. Allowed range 0 to 92. Given 93."),
        ({"latitude": 50, "longitude": 30, "hourly": "temperature_2m,sunshine_hours_typo"},
         "Data corrupted at path ''. Cannot initialize ForecastVariable from invalid String "
         "value sunshine_hours_typo"),
        ({"latitude": 50, "longitude": 30, "timezone": "Mars/Olympus"}, "Invalid timezone"),
    ],
)  # fmt: skip
async def test_a_refused_request_is_400_with_the_reason(
    fake: FakeOpenMeteo, params: dict[str, object], reason: str
) -> None:
    response = await _get(fake, **params)
    assert response.status_code == 400
    assert response.json() == {"error": True, "reason": reason}


async def test_the_commercial_endpoint_wants_its_key() -> None:
    async with FakeOpenMeteo(now=NOW, api_key="k-123") as fake:
        missing = await _get(fake, latitude=50, longitude=30, hourly="temperature_2m")
        wrong = await _get(fake, latitude=50, longitude=30, apikey="nope")
        right = await _get(fake, latitude=50, longitude=30, hourly="temperature_2m", apikey="k-123")
    assert missing.status_code == 401
    assert missing.json()["reason"] == "API key required. Please add &apikey= to the URL."
    assert (wrong.status_code, wrong.json()["error"]) == (400, True)
    assert right.status_code == 200


async def test_a_rate_limit_is_429_with_a_reason() -> None:
    async with FakeOpenMeteo(now=NOW, limit=1) as fake:
        await _get(fake, latitude=50, longitude=30)
        limited = await _get(fake, latitude=50, longitude=30)
    assert limited.status_code == 429 and limited.json()["error"] is True


async def test_modes_a_broken_source_can_be_in(fake: FakeOpenMeteo) -> None:
    fake.set_mode("html502")
    page = await _get(fake, latitude=50, longitude=30)
    assert page.status_code == 502 and page.headers["content-type"].startswith("text/html")
    fake.set_mode("garbage")
    with pytest.raises(ValueError):
        (await _get(fake, latitude=50, longitude=30)).json()
    fake.set_mode("missing")
    body = (await _get(fake, latitude=50, longitude=30, hourly=HOURLY)).json()
    assert "soil_temperature_6cm" not in body["hourly"] and "temperature_2m" in body["hourly"]
    fake.set_mode("hanging")
    with pytest.raises(httpx.ReadTimeout):
        async with httpx.AsyncClient(base_url=fake.base_url, timeout=0.3) as client:
            await client.get("/v1/forecast", params={"latitude": "50", "longitude": "30"})
    fake.set_mode("healthy")
    await asyncio.sleep(0)
    assert (await _get(fake, latitude=50, longitude=30)).status_code == 200
    assert len(fake.requests) == 5
