"""The HTTP side of the bot process: sensor readings in, a health check.

    POST /api/v1/readings   Authorization: Bearer <token>   {"readings": [...]} or [...]
    GET  /healthz

Contract, errors and examples: docs/sensors.md. The app runs in the bot's event
loop (``ReadingsServer``, started and stopped with the dispatcher) and is off unless
STEPAN_HTTP_PORT is set. Tokens are secrets: they are never logged, only their
hashes are stored (pipeline/farm/sensors/store.py).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from aiohttp import web

from bot.config import StepanSettings
from db.store_health import WriteProblem, classify
from pipeline.clock import Clock, utcnow
from pipeline.farm.sensors.readings import (
    MAX_BATCH,
    BatchTooLarge,
    InvalidBatch,
    ReadingIn,
    SensorTypes,
    parse_batch,
)
from pipeline.farm.sensors.store import SensorStore

logger = logging.getLogger(__name__)

#: 10,000 readings are ~1.5 MB of JSON; MAX_BATCH of verbose ones fit in this.
CLIENT_MAX_SIZE = 16 * 1024 * 1024
READINGS_PATH = "/api/v1/readings"
#: The whole body must arrive within this (16 MB at 2 Mbit/s takes a minute; a
#: sensor gateway sends kilobytes).
BODY_TIMEOUT_S = 30.0
#: A request's line and headers must arrive within this, counted from the connection
#: (or from the end of the previous request on a kept-alive one). aiohttp has no
#: header timeout: its keep-alive timer is the one clock that runs while a request is
#: still being parsed (started when the connection opens, it closes a connection
#: whose handler is idle, which it is until the headers are whole), so it is set to
#: this; idle kept-alive connections are closed after as long, which a sensor
#: gateway posting every few minutes does not notice (it reconnects).
HEADER_TIMEOUT_S = 5.0
#: On shutdown, requests still running get this long, then they are cancelled: the
#: bot's SIGTERM must finish well before a container runtime's SIGKILL (10 s).
SHUTDOWN_TIMEOUT_S = 3.0
_SOURCE_RE = re.compile(r"[a-z0-9_-]{1,32}")

SENSORS: web.AppKey[SensorStore] = web.AppKey("sensors")
CLOCK: web.AppKey[Callable[[], datetime]] = web.AppKey("clock")
BODY_TIMEOUT: web.AppKey[float] = web.AppKey("body_timeout")


def _error(status: int, error: str, message: str, **extra: Any) -> web.Response:
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return web.json_response(
        {"error": error, "message": message, **extra}, status=status, headers=headers
    )


def _bearer(request: web.Request) -> str | None:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


class _BadBody(Exception):
    pass


def _decode(body: bytes, now: datetime, types: SensorTypes) -> list[ReadingIn]:
    """JSON -> validated readings. CPU-bound (10,000 items take tens of ms), so it
    runs in a thread and the bot's conversations keep their event loop."""
    try:
        payload = json.loads(body)
    except ValueError as exc:  # UnicodeDecodeError included
        raise _BadBody(f"malformed JSON: {exc}") from None
    except RecursionError:  # [[[[...]]]] 100,000 deep
        raise _BadBody("malformed JSON: nested too deeply") from None
    items = payload.get("readings") if isinstance(payload, dict) else payload
    if not isinstance(items, list):
        raise _BadBody('expected {"readings": [...]} or a JSON array of readings')
    return parse_batch(items, types, now=now)


async def post_readings(request: web.Request) -> web.Response:
    token = _bearer(request)
    if token is None:
        return _error(401, "unauthorized", "missing 'Authorization: Bearer <token>' header")
    sensors = request.app[SENSORS]
    farm_id = await sensors.farm_for_token(token)
    if farm_id is None:
        return _error(401, "unauthorized", "unknown token")
    source = request.query.get("source", "api").lower()
    if not _SOURCE_RE.fullmatch(source):
        return _error(400, "bad_source", "source must be 1-32 of a-z, 0-9, '_' or '-'")
    try:
        # A client trickling its body must not hold a connection (and shutdown) open.
        async with asyncio.timeout(request.app[BODY_TIMEOUT]):
            body = await request.read()
    except web.HTTPRequestEntityTooLarge:
        return _error(413, "too_large", f"the body is over {CLIENT_MAX_SIZE} bytes")
    except TimeoutError:
        limit = request.app[BODY_TIMEOUT]
        return _error(408, "body_timeout", f"the body took over {limit:g} s to arrive")
    try:
        readings = await asyncio.to_thread(_decode, body, request.app[CLOCK](), sensors.types)
    except _BadBody as exc:
        return _error(400, "malformed", str(exc))
    except BatchTooLarge as exc:
        return _error(413, "too_many", f"{exc.size} readings; at most {MAX_BATCH} per request")
    except InvalidBatch as exc:
        return _invalid(exc)
    try:
        result = await sensors.ingest(farm_id, readings, source=source)
    except InvalidBatch as exc:
        return _invalid(exc)
    return web.json_response({"accepted": result.accepted, "duplicates": result.duplicates})


def _invalid(exc: InvalidBatch) -> web.Response:
    return web.json_response(
        {
            "error": "invalid",
            "message": f"{exc.total} invalid reading(s); nothing of this batch was stored",
            "error_count": exc.total,
            "errors": [error.as_json() for error in exc.errors],
        },
        status=422,
    )


#: Seconds a gateway is told to wait before it resends after a 503.
RETRY_AFTER_S = 30


@web.middleware
async def json_errors(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """Every failure is a JSON answer a gateway can act on, never aiohttp's plain-text
    500: the database not taking writes (a lock held past its timeout, a read-only
    file system, the file gone) is 503 with ``Retry-After``, a full disk 507; the
    batch was not stored either way, and resending it is safe (duplicates are
    skipped)."""
    try:
        return await handler(request)
    except web.HTTPException:
        raise
    except Exception as exc:
        problem = classify(exc)
        if problem is WriteProblem.DISK_FULL:
            logger.error("readings: not stored, the disk is full (%s)", type(exc).__name__)
            return _error(507, "disk_full", "the server's disk is full; nothing was stored")
        if problem is not None:
            logger.warning("readings: not stored, database %s (%s)", problem, type(exc).__name__)
            response = _error(
                503, "unavailable", f"the database cannot take writes now ({problem}); retry later"
            )
            response.headers["Retry-After"] = str(RETRY_AFTER_S)
            return response
        logger.exception("readings: request failed")
        return _error(500, "internal", "the request failed; nothing was stored")


async def healthz(request: web.Request) -> web.Response:
    return web.json_response({"status": "ok"})


def build_web_app(
    sensors: SensorStore,
    *,
    clock: Clock = utcnow,
    body_timeout: float = BODY_TIMEOUT_S,
) -> web.Application:
    app = web.Application(client_max_size=CLIENT_MAX_SIZE, middlewares=[json_errors])
    app[SENSORS] = sensors
    app[CLOCK] = clock
    app[BODY_TIMEOUT] = body_timeout
    app.router.add_post(READINGS_PATH, post_readings)
    app.router.add_get("/healthz", healthz)
    return app


class ReadingsServer:
    """Serves ``build_web_app`` on STEPAN_HTTP_HOST:STEPAN_HTTP_PORT while the bot
    runs; ``start``/``stop`` are the dispatcher's startup/shutdown hooks. A port
    of None leaves it off; 0 takes a free port (tests), see ``port``."""

    def __init__(
        self,
        settings: StepanSettings,
        sensors: SensorStore,
        *,
        clock: Clock = utcnow,
        body_timeout: float = BODY_TIMEOUT_S,
        shutdown_timeout: float = SHUTDOWN_TIMEOUT_S,
        header_timeout: float = HEADER_TIMEOUT_S,
    ) -> None:
        self._host = settings.http_host
        self._header_timeout = header_timeout
        self._body_timeout = body_timeout
        self._shutdown_timeout = shutdown_timeout
        self._port = settings.http_port
        self._sensors = sensors
        self._clock = clock
        self._runner: web.AppRunner | None = None

    @property
    def port(self) -> int | None:
        if self._runner is None or not self._runner.addresses:
            return None
        return int(self._runner.addresses[0][1])

    async def start(self) -> None:
        if self._port is None or self._runner is not None:
            return
        runner = web.AppRunner(
            build_web_app(self._sensors, clock=self._clock, body_timeout=self._body_timeout),
            shutdown_timeout=self._shutdown_timeout,
            handler_cancellation=True,
            keepalive_timeout=self._header_timeout,
        )
        await runner.setup()
        try:
            await web.TCPSite(runner, self._host, self._port).start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        logger.info("readings endpoint on http://%s:%s%s", self._host, self.port, READINGS_PATH)

    async def stop(self) -> None:
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner.cleanup()
