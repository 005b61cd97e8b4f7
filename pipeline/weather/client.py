"""Open-Meteo's forecast API (https://open-meteo.com/en/docs; the server is the public
repository open-meteo/open-meteo): ``GET {base}/v1/forecast`` with comma lists of
latitudes and longitudes. One location answers one JSON object, several a JSON list
in the order asked; a refused request answers 400 ``{"error": true, "reason": ...}``
(429 for a rate limit, 401 without a required key). Hours come in GMT here
(``timezone=GMT``): the cache is shared by farms of any timezone, and the farm's own
clock is applied when an answer is written.

Anything but a well-formed answer (a proxy's HTML 502, garbage, a wrong count of
locations, a hang past the timeout) is ``WeatherUnavailable``: no number is ever made
up. A variable the model lacks comes as nulls or not at all; its figures are None.
The key is never put in an exception or a log line by this module (httpx logs the
URL; bot/log_secrets.py masks ``apikey=``)."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from db.repositories.weather import Cell, WeatherHour
from pipeline.weather.geo import cell_point

__all__ = ["HOURLY", "Forecast", "OpenMeteo", "WeatherUnavailable"]

#: Open-Meteo's hourly variables -> the cache's columns.
HOURLY: Mapping[str, str] = {
    "temperature_2m": "temperature",
    "relative_humidity_2m": "humidity",
    "precipitation": "precipitation",
    "precipitation_probability": "precipitation_probability",
    "wind_speed_10m": "wind_speed",
    "soil_temperature_6cm": "soil_temperature",
}
#: Yesterday too: "was there rain last night" and a day's total need the past hours.
PAST_DAYS = 1
FORECAST_DAYS = 7
#: The API's own limit of coordinates per request is higher; a batch this size keeps
#: one answer under ~1 MB.
MAX_BATCH = 50


class WeatherUnavailable(Exception):
    """The source gave no usable forecast (the message is safe to log)."""


@dataclass(frozen=True, slots=True)
class Forecast:
    cell: Cell
    hours: tuple[WeatherHour, ...]


def _figure(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _hours(item: Any) -> tuple[WeatherHour, ...]:
    if not isinstance(item, dict) or not isinstance(item.get("hourly"), dict):
        raise WeatherUnavailable("answer without hourly data")
    hourly = item["hourly"]
    times = hourly.get("time")
    offset = item.get("utc_offset_seconds", 0)
    if not isinstance(times, list) or not isinstance(offset, int) or isinstance(offset, bool):
        raise WeatherUnavailable("answer without a time axis")
    columns: dict[str, list[Any]] = {}
    for variable, column in HOURLY.items():
        values = hourly.get(variable)
        if isinstance(values, list) and len(values) == len(times):
            columns[column] = values
    result = []
    for index, stamp in enumerate(times):
        try:
            local = datetime.fromisoformat(str(stamp))
        except ValueError:
            raise WeatherUnavailable("a time that is not ISO 8601") from None
        hour = (local.replace(tzinfo=None) - timedelta(seconds=offset)).replace(tzinfo=UTC)
        figures = {column: _figure(values[index]) for column, values in columns.items()}
        result.append(WeatherHour(hour, **figures))
    return tuple(result)


def _reason(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return f"HTTP {response.status_code}"
    if isinstance(body, dict) and isinstance(body.get("reason"), str):
        return f"HTTP {response.status_code}: {body['reason'][:200]}"
    return f"HTTP {response.status_code}"


class OpenMeteo:
    def __init__(
        self,
        http: httpx.AsyncClient,
        base_url: str,
        api_key: str | None = None,
        *,
        past_days: int = PAST_DAYS,
        forecast_days: int = FORECAST_DAYS,
    ) -> None:
        self._http = http
        self._url = base_url.rstrip("/") + "/v1/forecast"
        self._key = api_key
        self._days = (past_days, forecast_days)

    def _params(self, cells: Sequence[Cell]) -> dict[str, str | int]:
        points = [cell_point(cell) for cell in cells]
        params: dict[str, str | int] = {
            "latitude": ",".join(f"{p.latitude:.2f}" for p in points),
            "longitude": ",".join(f"{p.longitude:.2f}" for p in points),
            "hourly": ",".join(HOURLY),
            "timezone": "GMT",
            "wind_speed_unit": "ms",
            "past_days": self._days[0],
            "forecast_days": self._days[1],
        }
        if self._key:
            params["apikey"] = self._key
        return params

    async def fetch(self, cells: Sequence[Cell], *, limit_s: float) -> list[Forecast]:
        """The forecast of every cell (at most ``MAX_BATCH``), in one request that
        takes at most ``limit_s`` in all (httpx's timeouts are per phase: a server
        trickling bytes would outlast them)."""
        if not cells or len(cells) > MAX_BATCH:
            raise ValueError(f"1..{MAX_BATCH} cells per request, not {len(cells)}")
        try:
            async with asyncio.timeout(limit_s):
                response = await self._http.get(
                    self._url, params=self._params(cells), timeout=limit_s
                )
        except TimeoutError:
            raise WeatherUnavailable(f"no answer within {limit_s:g} s") from None
        except httpx.HTTPError as exc:
            # Not str(exc): an httpx error may quote the URL, and the URL holds the key.
            raise WeatherUnavailable(type(exc).__name__) from None
        if response.status_code != 200:
            raise WeatherUnavailable(_reason(response))
        try:
            body = response.json()
        except ValueError:
            raise WeatherUnavailable("an answer that is not JSON") from None
        items = body if isinstance(body, list) else [body]
        if len(cells) > 1 and not isinstance(body, list):
            raise WeatherUnavailable("one answer for several locations")
        if len(items) != len(cells):
            raise WeatherUnavailable(f"{len(items)} answers for {len(cells)} locations")
        return [Forecast(cell, _hours(item)) for cell, item in zip(cells, items, strict=True)]
