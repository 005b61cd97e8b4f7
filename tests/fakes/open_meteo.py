"""A fake Open-Meteo forecast API over real HTTP, for tests and benchmarks.

It follows the real server (the public repository open-meteo/open-meteo:
``Sources/App/Helper/ForecastapiQuery.swift`` for the parameters and their errors,
``Sources/App/Helper/Writer/JsonWriter.swift`` for the answer,
``Sources/App/configure.swift`` for the error body, ``Helper/Vapor/ApiKeyManager.swift``
and ``RateLimiter.swift`` for keys and limits) and its documentation
(https://open-meteo.com/en/docs), so a client cannot pass against a contract the
real one lacks:

* ``GET /v1/forecast?latitude=..&longitude=..`` - comma lists; one location answers
  one JSON object, several a JSON **list** in the order asked. Each object:
  ``latitude``, ``longitude`` (snapped to the model grid), ``generationtime_ms``,
  ``utc_offset_seconds``, ``timezone``, ``timezone_abbreviation``, ``elevation``,
  ``hourly_units`` {"time": "iso8601", variable: unit}, ``hourly`` {"time": [...],
  variable: [...]}; with ``daily=``, ``daily_units``/``daily`` the same way (dates).
  The hourly axis starts at local midnight ``past_days`` before today and has
  ``(past_days + forecast_days) * 24`` hours, as ``YYYY-MM-DDTHH:MM`` on the
  requested zone's clock; a value the model lacks is ``null``.
* parameters and their 400 answers, ``{"error": true, "reason": "..."}`` with the
  real reasons: latitude outside -90..90, longitude outside -180..180, lists of
  different lengths, none given, ``forecast_days`` outside 0..16, ``past_days``
  outside 0..92, an unknown variable, an unknown ``wind_speed_unit`` (kmh, ms, mph,
  kn), an unknown ``timezone`` (GMT, UTC, auto or an IANA name), ``daily`` without
  ``timezone``; an invalid ``apikey`` 400, a missing one 401 when ``api_key`` is set
  (the commercial endpoint); ``limit`` requests answered, then 429.

Modes (``mode``): ``healthy``; ``html502`` (a proxy's HTML page, status 502);
``garbage`` (HTTP 200, not JSON); ``wrong_shape`` (HTTP 200, a JSON object whatever
was asked, without ``hourly``); ``missing`` (the variables in ``missing_variables``
left out of ``hourly``, as a model without them); ``hanging`` (never answered until
the mode changes or the server stops).

``requests`` records every request's query (a multi-dict flattened to the last
value); ``now`` fixes the server's clock; ``weather(lat, lon, hour_utc)`` gives the
values (a mapping variable -> number | None; a variable it leaves out is null).
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from types import TracebackType
from typing import Any, Literal, Self
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from aiohttp import web

Mode = Literal["healthy", "html502", "garbage", "wrong_shape", "missing", "hanging"]
JsonDict = dict[str, Any]
Weather = Callable[[float, float, datetime], Mapping[str, float | None]]

#: The hourly variables the fake knows, with their units as the real API names them
#: (wind in the unit asked; see ``_wind_unit``). A real deployment knows many more;
#: any other name is refused as the real one refuses a misspelt one.
HOURLY_UNITS: Mapping[str, str] = {
    "temperature_2m": "°C",
    "relative_humidity_2m": "%",
    "dew_point_2m": "°C",
    "precipitation": "mm",
    "rain": "mm",
    "precipitation_probability": "%",
    "wind_speed_10m": "km/h",
    "wind_gusts_10m": "km/h",
    "soil_temperature_0cm": "°C",
    "soil_temperature_6cm": "°C",
    "soil_moisture_3_to_9cm": "m³/m³",
    "et0_fao_evapotranspiration": "mm",
    "weather_code": "wmo code",
}
DAILY_UNITS: Mapping[str, str] = {
    "temperature_2m_max": "°C",
    "temperature_2m_min": "°C",
    "precipitation_sum": "mm",
    "precipitation_probability_max": "%",
    "wind_speed_10m_max": "km/h",
}
WIND_UNITS = {"kmh": ("km/h", 1.0), "ms": ("m/s", 1 / 3.6), "mph": ("mp/h", 1 / 1.609344),
              "kn": ("kn", 1 / 1.852)}  # fmt: skip
MAX_FORECAST_DAYS = 16
MAX_PAST_DAYS = 92
#: The grid the fake snaps coordinates to (the real one depends on the model).
GRID = 0.0625


def calm(lat: float, lon: float, hour: datetime) -> Mapping[str, float | None]:
    """A mild, deterministic day: 8 °C at night, 18 °C in the afternoon, dry, light wind."""
    daily = math.sin((hour.hour - 9) / 24 * 2 * math.pi)
    return {
        "temperature_2m": round(13 + 5 * daily, 1),
        "relative_humidity_2m": 70.0,
        "dew_point_2m": 6.0,
        "precipitation": 0.0,
        "rain": 0.0,
        "precipitation_probability": 5.0,
        "wind_speed_10m": 10.8,  # km/h: 3 m/s
        "wind_gusts_10m": 21.6,
        "soil_temperature_0cm": 12.0,
        "soil_temperature_6cm": 11.0,
        "soil_moisture_3_to_9cm": 0.25,
        "et0_fao_evapotranspiration": 0.1,
        "weather_code": 1.0,
    }


class _Refused(Exception):
    def __init__(self, reason: str, status: int = 400) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status


def _floats(raw: str | None, name: str) -> list[float]:
    if raw is None or raw == "":
        return []
    values = []
    for part in raw.split(","):
        try:
            values.append(float(part))
        except ValueError:
            # Vapor's decoding error for a value that is not a number.
            raise _Refused(f"Value of type 'Float' required for key '{name}'.") from None
    return values


def _days(raw: str | None, name: str, default: int, top: int, label: str) -> int:
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise _Refused(f"Value of type 'Int' required for key '{name}'.") from None
    if not 0 <= value <= top:
        raise _Refused(f"{label} is invalid. Allowed range 0 to {top}. Given {value}.")
    return value


def _variables(raw: str | None, known: Mapping[str, str], kind: str) -> list[str]:
    names = [part for part in (raw or "").split(",") if part]
    for name in names:
        if name not in known:
            raise _Refused(
                f"Data corrupted at path ''. Cannot initialize {kind} from invalid String "
                f"value {name}"
            )
    return names


def _zone(raw: str | None) -> tuple[str, ZoneInfo | None]:
    if raw is None or raw in ("GMT", "UTC"):
        return "GMT", None
    if raw == "auto":
        return "Europe/Kyiv", ZoneInfo("Europe/Kyiv")  # the fake's points are Ukrainian
    try:
        return raw, ZoneInfo(raw)
    except (ZoneInfoNotFoundError, ValueError):
        raise _Refused("Invalid timezone") from None


class FakeOpenMeteo:
    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        api_key: str | None = None,
        weather: Weather = calm,
        now: datetime | None = None,
        limit: int | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.api_key = api_key
        self.weather = weather
        self.now = now
        self.limit = limit
        self.mode: Mode = "healthy"
        self.missing_variables: set[str] = {"soil_temperature_6cm"}
        self.requests: list[dict[str, str]] = []
        self._runner: web.AppRunner | None = None
        self._release = asyncio.Event()

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/v1/forecast", self._forecast)
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port, reuse_address=True)
        await site.start()
        self.port = int(runner.addresses[0][1])
        self._runner = runner

    async def stop(self) -> None:
        self._release.set()
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner.cleanup()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    def set_mode(self, mode: Mode) -> None:
        if self.mode == "hanging" and mode != "hanging":
            self._release.set()
        if mode == "hanging":
            self._release = asyncio.Event()
        self.mode = mode

    # -- the API ---------------------------------------------------------------------

    async def _forecast(self, request: web.Request) -> web.StreamResponse:
        query = dict(request.query)
        self.requests.append(query)
        mode = self.mode
        if mode == "hanging":
            await self._release.wait()
        if mode == "html502":
            page = "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"
            return web.Response(status=502, text=page, content_type="text/html")
        if mode == "garbage":
            return web.Response(
                status=200,
                text='{"latitude": 49.6, "hourly": {"ti',
                content_type="application/json",
            )
        try:
            self._check_key(query)
            body = self._answer(query, mode)
        except _Refused as refused:
            return web.json_response(
                {"error": True, "reason": refused.reason}, status=refused.status
            )
        return web.Response(
            status=200,
            text=json.dumps(body, ensure_ascii=False),
            content_type="application/json",
            charset="utf-8",
        )

    def _check_key(self, query: Mapping[str, str]) -> None:
        key = query.get("apikey")
        if self.api_key is not None and key is None:
            raise _Refused("API key required. Please add &apikey= to the URL.", 401)
        if key is not None and key != self.api_key:
            raise _Refused("The supplied API key is invalid.")
        if self.limit is not None and len(self.requests) > self.limit:
            raise _Refused(
                "Minutely API request limit exceeded. Please try again in one minute.", 429
            )

    def _answer(self, query: Mapping[str, str], mode: Mode) -> JsonDict | list[JsonDict]:
        lats = _floats(query.get("latitude"), "latitude")
        lons = _floats(query.get("longitude"), "longitude")
        if not lats or not lons:
            raise _Refused("Parameter 'latitude' and 'longitude' must not be empty")
        if len(lats) != len(lons):
            raise _Refused(
                "Parameter 'latitude' and 'longitude' must have the same number of elements"
            )
        for lat, lon in zip(lats, lons, strict=True):
            if not -90 <= lat <= 90:
                raise _Refused(f"Latitude must be in range of -90 to 90°. Given: {lat}.")
            if not -180 <= lon <= 180:
                raise _Refused(f"Longitude must be in range of -180 to 180°. Given: {lon}.")
        hourly = _variables(query.get("hourly"), HOURLY_UNITS, "ForecastVariable")
        daily = _variables(query.get("daily"), DAILY_UNITS, "ForecastVariableDaily")
        if daily and "timezone" not in query:
            raise _Refused("Timezone is required")
        unit = query.get("wind_speed_unit", query.get("windspeed_unit", "kmh"))
        if unit not in WIND_UNITS:
            raise _Refused(
                f"Data corrupted at path ''. Cannot initialize WindspeedUnit from invalid "
                f"String value {unit}"
            )
        forecast_days = _days(query.get("forecast_days"), "forecast_days", 7,
                              MAX_FORECAST_DAYS, "Forecast days")  # fmt: skip
        past_days = _days(query.get("past_days"), "past_days", 0, MAX_PAST_DAYS, "Past days")
        name, zone = _zone(query.get("timezone"))
        if mode == "wrong_shape":
            return {"latitude": lats[0], "longitude": lons[0], "generationtime_ms": 0.1}
        answers = [
            self._location(lat, lon, hourly, daily, unit, (past_days, forecast_days), name, zone)
            for lat, lon in zip(lats, lons, strict=True)
        ]
        return answers if len(answers) > 1 else answers[0]

    def _location(
        self,
        lat: float,
        lon: float,
        hourly: list[str],
        daily: list[str],
        unit: str,
        days: tuple[int, int],
        name: str,
        zone: ZoneInfo | None,
    ) -> JsonDict:
        now = self.now or datetime.now(UTC)
        offset = int(now.astimezone(zone).utcoffset().total_seconds()) if zone else 0  # type: ignore[union-attr]
        local_today = (now + timedelta(seconds=offset)).replace(tzinfo=None).date()
        start = datetime.combine(local_today - timedelta(days=days[0]), datetime.min.time())
        count = (days[0] + days[1]) * 24
        times = [start + timedelta(hours=i) for i in range(count)]
        utc_hours = [(t - timedelta(seconds=offset)).replace(tzinfo=UTC) for t in times]
        shown = [v for v in hourly if not (self.mode == "missing" and v in self.missing_variables)]
        wind_label, wind_factor = WIND_UNITS[unit]
        body: JsonDict = {
            "latitude": round(round(lat / GRID) * GRID, 6),
            "longitude": round(round(lon / GRID) * GRID, 6),
            "generationtime_ms": 0.123,
            "utc_offset_seconds": offset,
            "timezone": name,
            "timezone_abbreviation": "GMT" if zone is None else now.astimezone(zone).tzname(),
            "elevation": 150.0,
        }
        if shown:
            values = [self.weather(lat, lon, hour) for hour in utc_hours]
            units = {v: wind_label if v.startswith("wind_") else HOURLY_UNITS[v] for v in shown}
            body["hourly_units"] = {"time": "iso8601", **units}
            section: JsonDict = {"time": [t.strftime("%Y-%m-%dT%H:%M") for t in times]}
            for variable in shown:
                factor = wind_factor if variable.startswith("wind_") else 1.0
                section[variable] = [
                    None if (v := item.get(variable)) is None else round(v * factor, 2)
                    for item in values
                ]
            body["hourly"] = section
        if daily:
            body["daily_units"] = {"time": "iso8601", **{v: DAILY_UNITS[v] for v in daily}}
            body["daily"] = self._daily(lat, lon, daily, utc_hours, wind_factor, start)
        return body

    def _daily(
        self,
        lat: float,
        lon: float,
        daily: list[str],
        hours: list[datetime],
        wind: float,
        first: datetime,
    ) -> JsonDict:
        """Each local day's aggregate of the same hourly values (24 hours a day)."""
        days = [hours[i : i + 24] for i in range(0, len(hours), 24)]
        section: JsonDict = {"time": []}
        for variable in daily:
            section[variable] = []
        for number, day in enumerate(days):
            values = [self.weather(lat, lon, hour) for hour in day]
            section["time"].append((first.date() + timedelta(days=number)).isoformat())
            for variable in daily:
                section[variable].append(_aggregate(variable, values, wind))
        return section


def _aggregate(
    variable: str, values: list[Mapping[str, float | None]], wind: float
) -> float | None:
    source, _, how = variable.rpartition("_")
    if how == "sum":
        numbers = [v for item in values if (v := item.get(source)) is not None]
        return round(sum(numbers), 2) if numbers else None
    numbers = [v for item in values if (v := item.get(source)) is not None]
    if not numbers:
        return None
    factor = wind if source.startswith("wind_") else 1.0
    return round((max(numbers) if how == "max" else min(numbers)) * factor, 2)
