"""The forecast cache and its two readers (docs/weather.md).

The ``weather_refresh`` job (bot/wiring/scheduler.py, hourly, once across instances)
fetches every active farm's locations, several per request, into ``weather_hours``.
A chat question reads the cache; only a location nobody has fetched lately gets one
live fetch, bounded by 2 s and behind a circuit breaker that a chat never probes
(the job does). Down, slow or answering garbage, the source costs a farmer at most
those 2 s once, and the answer then says the forecast is unavailable: no number is
made up.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from db.repositories import places as places_repo
from db.repositories import weather as weather_repo
from db.repositories.weather import Cell, WeatherHour
from db.uow import Database
from pipeline.clock import Clock, utcnow
from pipeline.memory.service.breaker import CircuitBreaker
from pipeline.weather.client import MAX_BATCH, Forecast, OpenMeteo, WeatherUnavailable
from pipeline.weather.geo import Locator, Point, cell_of

__all__ = ["Forecasts", "RefreshResult"]

logger = logging.getLogger(__name__)

#: A chat waits at most this long for a live fetch (DESIGN.md: "never more than 2 s").
CHAT_LIMIT_S = 2.0
#: The job's request may take longer: nobody waits on it.
JOB_LIMIT_S = 20.0
#: A cell fetched within this is not fetched again by the job (a chat, another
#: instance's run that ended late).
FRESH = timedelta(minutes=45)
#: A forecast older than this is not used for an answer.
USABLE = timedelta(hours=12)
#: Farms whose farmer wrote within this are refreshed.
ACTIVE = timedelta(days=30)
#: Hours older than this are forgotten by the job.
KEEP = timedelta(days=3)


@dataclass(frozen=True, slots=True)
class RefreshResult:
    cells: int = 0
    fetched: int = 0
    requests: int = 0
    failed: int = 0

    def describe(self) -> str:
        return (
            f"{self.cells} locations, {self.fetched} fetched in {self.requests} requests,"
            f" {self.failed} failed"
        )


class Forecasts:
    def __init__(
        self,
        db: Database,
        source: OpenMeteo | None,
        locator: Locator,
        *,
        clock: Clock = utcnow,
        breaker: CircuitBreaker | None = None,
        chat_limit_s: float = CHAT_LIMIT_S,
        job_limit_s: float = JOB_LIMIT_S,
    ) -> None:
        self._db = db
        self._source = source
        self._locator = locator
        self._clock = clock
        self.breaker = breaker or CircuitBreaker(name="weather")
        self._chat_limit = chat_limit_s
        self._job_limit = job_limit_s

    @property
    def locator(self) -> Locator:
        return self._locator

    @property
    def enabled(self) -> bool:
        return self._source is not None

    async def hours(
        self, point: Point, start: datetime, end: datetime, *, live: bool = True
    ) -> list[WeatherHour]:
        """The forecast hours of ``point`` in [start, end) from the cache, after at most
        one live fetch (``live``) when the cache has nothing usable; [] when none."""
        cell = cell_of(point)
        now = self._clock()
        async with self._db.read() as session:
            usable = await weather_repo.fetched_cells(session, [cell], now - USABLE)
            found = await weather_repo.hours(session, cell, start, end) if usable else []
        if found or not live or not await self._fetch_live(cell):
            return found
        async with self._db.read() as session:
            return await weather_repo.hours(session, cell, start, end)

    async def _fetch_live(self, cell: Cell) -> bool:
        if self._source is None or self.breaker.acquire(probe_ok=False) is None:
            return False
        try:
            forecasts = await self._source.fetch([cell], limit_s=self._chat_limit)
        except asyncio.CancelledError:
            self.breaker.release_probe()
            raise
        except WeatherUnavailable as exc:
            self.breaker.record_failure()
            logger.warning("weather: live fetch failed: %s", exc)
            return False
        self.breaker.record_success()
        await self._store(forecasts)
        return True

    async def _store(self, forecasts: Sequence[Forecast]) -> None:
        # One short transaction per location (~200 rows): on SQLite every write holds
        # the one writer lock, and a batch of 50 in one would keep a conversation
        # waiting ~0,3 s (bench/weather.py); between them, waiting turns go first.
        now = self._clock()
        for forecast in forecasts:
            async with self._db.write() as session:
                await weather_repo.store_hours(session, forecast.cell, forecast.hours, now)

    async def wanted(self) -> list[Cell]:
        """The cells of every active farm: its own point, its fields', and its oblast's
        centre when it has no point."""
        async with self._db.read() as session:
            places = await places_repo.active_places(session, self._clock() - ACTIVE)
        points = [Point(lat, lon) for lat, lon in places.points]
        points += [c for region in places.regions if (c := self._locator.centre(region))]
        return sorted({cell_of(point) for point in points})

    async def refresh(self) -> RefreshResult:
        """The job: fetch the active cells not fetched lately, ``MAX_BATCH`` a request."""
        if self._source is None:
            return RefreshResult()
        cells = await self.wanted()
        now = self._clock()
        async with self._db.read() as session:
            fresh = await weather_repo.fetched_cells(session, cells, now - FRESH)
        due = [cell for cell in cells if cell not in fresh]
        fetched = requests = failed = 0
        for start in range(0, len(due), MAX_BATCH):
            batch = due[start : start + MAX_BATCH]
            if self.breaker.acquire(probe_ok=True) is None:
                failed += len(due) - start
                break
            requests += 1
            try:
                forecasts = await self._source.fetch(batch, limit_s=self._job_limit)
            except asyncio.CancelledError:
                self.breaker.release_probe()
                raise
            except WeatherUnavailable as exc:
                self.breaker.record_failure()
                logger.warning("weather: refresh of %d locations failed: %s", len(batch), exc)
                failed += len(batch)
                continue
            self.breaker.record_success()
            await self._store(forecasts)
            fetched += len(batch)
        async with self._db.write() as session:
            await weather_repo.prune(session, now - KEEP)
        return RefreshResult(len(cells), fetched, requests, failed)
