"""A fake memory-service over real HTTP, for tests and benchmarks.

``FakeMemoryService`` is an aiohttp server on 127.0.0.1 (ephemeral port) that speaks the
contract of docs/memory-service.md with an in-memory store::

    async with FakeMemoryService() as service:
        client = MemoryServiceClient(service.base_url, httpx.AsyncClient())
        await service.set_mode("down")      # stops listening: connection refused
        await service.set_mode("healthy")   # listens again on the SAME port

Modes, switched at runtime:

* ``healthy``  - /facts/upsert, /facts/get, /facts/delete work;
* ``down``     - the listening socket and every open connection are closed;
* ``hanging``  - requests are accepted and never answered (until the mode changes);
* ``error500`` - every request gets HTTP 500;
* ``garbage``  - HTTP 200 with invalid JSON or wrong shapes (``GET_GARBAGE`` lists
  the answers /facts/get cycles through; writes get non-object bodies) and nothing
  is stored.

Every request that reaches a handler is recorded in ``requests`` (whatever the mode);
every write the store applied is in ``applied``, in order. Control methods must be
called from the event loop that runs the server.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal, Self

from aiohttp import web

logger = logging.getLogger(__name__)

Mode = Literal["healthy", "down", "hanging", "error500", "garbage"]
JsonDict = dict[str, Any]


def _other_users_profile(user_id: str, fact_key: str) -> JsonDict:
    return {"fact_value_json": {"_fact_key": fact_key, "user_id": "tg:mallory", "name": "Mallory"}}


def _invalid_values(user_id: str, fact_key: str) -> JsonDict:
    plain = user_id.removeprefix("stepan:")
    return {
        "fact_value_json": {
            "_version": 1,
            "_fact_key": fact_key,
            "user_id": plain,
            "farm_id": "farm:garbage",
            "name": "Garbage",
            "expertise_level": "guru",
            "interaction_count": -5,
            "alert_thresholds": {"temperature_min": 50, "temperature_max": -50},
        }
    }


#: What /facts/get answers in "garbage" mode, in turn: raw bytes or a JSON body built
#: from (memory user id, fact key).
GET_GARBAGE: tuple[bytes | Callable[[str, str], JsonDict], ...] = (
    b"<html>502 Bad Gateway</html>",
    b'{"fact_value_json": {"user_id": ',
    b"[1, 2, 3]",
    lambda user_id, key: {"fact_value_json": "a string, not an object"},
    lambda user_id, key: {"value": {"user_id": user_id}},
    _other_users_profile,
    _invalid_values,
)
WRITE_GARBAGE: tuple[bytes, ...] = (b"OK", b"[true]", b"null", b'{"ok": tru')


@dataclass(frozen=True, slots=True)
class Received:
    path: str
    body: Any  #: decoded JSON, or None when it was not JSON
    mode: Mode  #: the mode when the request arrived


class FakeMemoryService:
    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host = host
        self.port = port
        self.facts: dict[tuple[str, str], JsonDict] = {}
        self.requests: list[Received] = []
        #: ("upsert" | "delete", memory user id, fact key, value) in the order applied.
        self.applied: list[tuple[str, str, str, JsonDict | None]] = []
        self._mode: Mode = "healthy"
        self._runner: web.AppRunner | None = None
        self._release = asyncio.Event()
        self._get_garbage = itertools.cycle(GET_GARBAGE)
        self._write_garbage = itertools.cycle(WRITE_GARBAGE)

    # -- lifecycle -------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def mode(self) -> Mode:
        return self._mode

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/facts/upsert", self._upsert)
        app.router.add_post("/facts/get", self._get)
        app.router.add_post("/facts/delete", self._delete)
        # A short shutdown timeout: "down" must not wait for hanging handlers.
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port, reuse_address=True)
        await site.start()
        # The first start picks an ephemeral port; restarts after "down" reuse it.
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

    async def set_mode(self, mode: Mode) -> None:
        """Switch behaviour; "down" closes the socket, leaving it restarts on the same port."""
        previous, self._mode = self._mode, mode
        if previous == "hanging" and mode != "hanging":
            self._release.set()
        if mode == "hanging":
            self._release = asyncio.Event()
        if mode == "down" and previous != "down":
            await self.stop()
        elif previous == "down" and mode != "down":
            await self.start()

    # -- inspection ------------------------------------------------------------------

    def count(self, path: str | None = None) -> int:
        return sum(1 for r in self.requests if path is None or r.path == path)

    def put_fact(self, user_id: str, fact_key: str, value: JsonDict) -> None:
        """Seed the store directly (``user_id`` as the service sees it: "stepan:...")."""
        self.facts[(user_id, fact_key)] = value

    def fact(self, user_id: str, fact_key: str) -> JsonDict | None:
        return self.facts.get((user_id, fact_key))

    # -- handlers --------------------------------------------------------------------

    async def _receive(self, request: web.Request) -> tuple[Any, web.Response | None]:
        """The decoded body, and the answer the mode imposes (None: handle normally)."""
        raw = await request.read()
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        mode = self._mode
        self.requests.append(Received(request.path, body, mode))
        if mode == "hanging":
            await self._release.wait()
            return body, web.json_response({"detail": "released"}, status=503)
        if mode == "error500":
            return body, web.json_response({"detail": "internal error"}, status=500)
        if not isinstance(body, dict) or not isinstance(body.get("user_id"), str):
            return body, web.json_response({"detail": "user_id required"}, status=422)
        if not isinstance(body.get("fact_key"), str):
            return body, web.json_response({"detail": "fact_key required"}, status=422)
        return body, None

    async def _upsert(self, request: web.Request) -> web.Response:
        body, imposed = await self._receive(request)
        if imposed is not None:
            return imposed
        if self._mode == "garbage":
            return web.Response(body=next(self._write_garbage), content_type="application/json")
        value = body.get("fact_value_json")
        if not isinstance(value, dict):
            return web.json_response({"detail": "fact_value_json must be an object"}, status=422)
        self.facts[(body["user_id"], body["fact_key"])] = value
        self.applied.append(("upsert", body["user_id"], body["fact_key"], value))
        return web.json_response({"status": "ok"})

    async def _get(self, request: web.Request) -> web.Response:
        body, imposed = await self._receive(request)
        if imposed is not None:
            return imposed
        if self._mode == "garbage":
            answer = next(self._get_garbage)
            if isinstance(answer, bytes):
                return web.Response(body=answer, content_type="application/json")
            return web.json_response(answer(body["user_id"], body["fact_key"]))
        value = self.facts.get((body["user_id"], body["fact_key"]))
        if value is None:
            return web.json_response({"detail": "not found"}, status=404)
        return web.json_response(
            {"user_id": body["user_id"], "fact_key": body["fact_key"], "fact_value_json": value}
        )

    async def _delete(self, request: web.Request) -> web.Response:
        body, imposed = await self._receive(request)
        if imposed is not None:
            return imposed
        if self._mode == "garbage":
            return web.Response(body=next(self._write_garbage), content_type="application/json")
        existed = self.facts.pop((body["user_id"], body["fact_key"]), None) is not None
        self.applied.append(("delete", body["user_id"], body["fact_key"], None))
        if not existed:
            return web.json_response({"detail": "not found"}, status=404)
        return web.json_response({"status": "deleted"})


class ManualClock:
    """A monotonic clock the test moves by hand (breaker cool-down, cache TTL)."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
