"""A fake memory-service over real HTTP, for tests and benchmarks.

It follows the real service (IvanTytar/microdao-daarion, services/memory-service:
``app/main.py``, ``app/schemas.py``, ``app/crud.py``) route for route, with the JWT check
its ``verify_token`` stub describes, so a test cannot pass against a contract the real
service lacks:

* ``GET /health`` -> ``{"status": "ok", "service": "memory-service"}`` (no auth);
* ``POST /facts/upsert`` (``UserFactUpsertRequest``) -> ``{"fact": UserFactResponse,
  "created": bool}``; 403 "Cannot modify other user's facts" when the body's
  ``user_id`` is not the token's subject; a fact is matched by (user, key, team_id,
  ``IS NULL`` when absent) and only the non-null fields of an update are applied
  (``meta`` among them). There is no unique key on (user, key): crud.py reads
  ``.first()`` and then inserts, so two upserts that race both insert (``race_upserts``
  makes the next ones do so; ``put_fact(..., duplicate=True)`` seeds a second row);
* ``GET /facts/{fact_key}`` -> ``UserFactResponse`` of the first matching row, or
  404 ``{"detail": "Fact not found"}``;
* ``DELETE /facts/{fact_id}`` -> ``{"success": true}``; 404 "Fact not found";
  403 "Cannot delete other user's fact";
* ``POST /summaries`` (``DialogSummaryCreate``) -> ``DialogSummaryResponse``;
  ``GET /summaries?team_id&agent_id&user_id&limit`` -> ``{"items", "total", "cursor"}``
  (each filter applied only when given: without ``team_id``, every team's);
  ``GET`` / ``DELETE /summaries/{summary_id}``, 404 "Summary not found";
* a path no route has -> FastAPI's 404 ``{"detail": "Not Found"}`` (a wrong base
  path such as ``/api/facts/...``), another method on a route's path -> 405
  ``{"detail": "Method Not Allowed"}`` (``POST /facts/get`` among them): JSON, as
  Starlette answers, never aiohttp's text;
* bodies are pydantic models that ignore unknown fields: a summary's or a fact's
  ``metadata`` is dropped silently, ``meta`` is stored; a body that fails the schema
  -> 422 with FastAPI's ``detail`` list.

Every route but /health needs ``Authorization: Bearer <token>``: missing, malformed,
badly signed or expired -> 401. A token is an HS256 JWT whose ``sub`` is the acting
user (``jwt_secret``), checked as ``jwt.decode(token, secret, algorithms=["HS256"],
leeway=leeway_s)`` (the check docs/memory-service.md tells the service's operators
to put in ``verify_token``): an ``iat`` ahead of this clock by more than
``leeway_s`` (0, PyJWT's default) or an ``exp`` behind it is refused, so a Stepan
clock that runs ahead is tested against the real rule. Or one of ``static_tokens``
(token -> user).

Modes, switched at runtime (``set_mode``): ``healthy``; ``down`` (socket closed:
connection refused, restarts on the same port); ``hanging`` (requests never
answered until the mode changes); ``error500``; ``garbage`` (HTTP 200 with invalid
JSON or wrong shapes, nothing stored). ``answer_next`` makes the next matching
requests get a given status (a route removed or changed upstream).

``requests`` records every request that reached a handler; ``applied`` every change
the store made, in order. Control methods must be called from the server's loop.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import uuid
from collections.abc import Awaitable, Callable, Mapping
from types import TracebackType
from typing import Any, Self

import jwt
from aiohttp import web

from tests.fakes.memory_bodies import (
    GET_GARBAGE,
    WRITE_GARBAGE,
    JsonDict,
    ManualClock,
    Mode,
    Override,
    Received,
    fact_body,
    fact_response,
    invalid,
    schema_problems,
)
from tests.fakes.memory_bodies import now_iso as _now

__all__ = ["GET_GARBAGE", "JWT_SECRET", "FakeMemoryService", "ManualClock"]

JWT_SECRET = "test-memory-secret-32-bytes-long!!"
#: FastAPI's answers for a path no route has and a method the route lacks.
_STARLETTE = {404: "Not Found", 405: "Method Not Allowed"}


_FACT_FIELDS = {"fact_value": str, "fact_value_json": dict, "team_id": str, "meta": dict,
                "token_gated": bool, "token_requirements": dict, "expires_at": str}  # fmt: skip
_SUMMARY_FIELDS = {"channel_id": str, "agent_id": str, "user_id": str, "summary_json": dict,
                   "message_count": int, "participant_count": int, "topics": list,
                   "meta": dict}  # fmt: skip


class FakeMemoryService:
    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        jwt_secret: str | None = JWT_SECRET,
        static_tokens: Mapping[str, str] | None = None,
        leeway_s: float = 0,
    ) -> None:
        self.host = host
        self.port = port
        self.jwt_secret = jwt_secret
        self.static_tokens = dict(static_tokens or {})
        self.leeway_s = leeway_s
        #: The next upserts wait for each other after their lookup (``race_upserts``).
        self._race: asyncio.Barrier | None = None
        self._racers = 0
        #: fact id -> the stored fact (UserFactResponse's fields).
        self.facts: dict[str, JsonDict] = {}
        #: summary id -> the stored summary (DialogSummaryResponse's fields).
        self.summaries: dict[str, JsonDict] = {}
        self.requests: list[Received] = []
        #: ("upsert" | "delete", memory user id, fact key, value) in the order applied.
        self.applied: list[tuple[str, str, str, JsonDict | None]] = []
        self._mode: Mode = "healthy"
        self._overrides: list[Override] = []
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
        app = web.Application(middlewares=[self._starlette_errors])
        app.router.add_get("/health", self._health)
        app.router.add_post("/facts/upsert", self._upsert)
        # One resource for both, as FastAPI routes them: POST /facts/get is a 405.
        fact = app.router.add_resource("/facts/{fact}")
        fact.add_route("GET", self._get_fact)
        fact.add_route("DELETE", self._delete_fact)
        summaries = app.router.add_resource("/summaries")
        summaries.add_route("POST", self._create_summary)
        summaries.add_route("GET", self._list_summaries)
        summary = app.router.add_resource("/summaries/{summary_id}")
        summary.add_route("GET", self._get_summary)
        summary.add_route("DELETE", self._delete_summary)
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

    def answer_next(
        self, method: str, prefix: str, status: int, *, times: int = 1, detail: Any = "changed"
    ) -> None:
        """The next ``times`` requests ``method`` on a path starting with ``prefix`` get
        ``status`` (after the token check) instead of their normal answer."""
        self._overrides.append(Override(method, prefix, status, times, detail))

    def race_upserts(self, count: int = 2) -> None:
        """The next ``count`` upserts each look their fact up, then wait until all of
        them have: every one finds none and inserts (the service's race)."""
        self._race, self._racers = asyncio.Barrier(count), count

    @web.middleware
    async def _starlette_errors(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        try:
            return await handler(request)
        except (web.HTTPNotFound, web.HTTPMethodNotAllowed) as exc:
            self.requests.append(Received(request.method, request.path, None, self._mode, None))
            return web.json_response({"detail": _STARLETTE[exc.status]}, status=exc.status)

    # -- inspection ------------------------------------------------------------------

    def count(self, method: str | None = None, prefix: str = "") -> int:
        return sum(
            1
            for r in self.requests
            if (method is None or r.method == method) and r.path.startswith(prefix)
        )

    def put_fact(
        self, user_id: str, fact_key: str, value: JsonDict, *, duplicate: bool = False
    ) -> str:
        """Seed the store directly (``user_id`` as the service sees it: "stepan:...");
        returns the fact's id. ``duplicate``: add another row even if one exists."""
        record = None if duplicate else self._find(user_id, fact_key, None)
        if record is None:
            record = fact_body(user_id, fact_key, value)
            self.facts[record["id"]] = record
        record["fact_value_json"] = value
        return str(record["id"])

    def fact(self, user_id: str, fact_key: str) -> JsonDict | None:
        record = self._find(user_id, fact_key, None)
        return None if record is None else record["fact_value_json"]

    def rows(self, user_id: str, fact_key: str, team_id: str | None = None) -> list[JsonDict]:
        """Every stored row of the key, in insertion order (there may be several)."""
        wanted = (user_id, fact_key, team_id)
        return [
            r for r in self.facts.values() if (r["user_id"], r["fact_key"], r["team_id"]) == wanted
        ]

    def summaries_of(self, user_id: str) -> list[JsonDict]:
        return [s for s in self.summaries.values() if s.get("user_id") == user_id]

    def _find(self, user_id: str, fact_key: str, team_id: str | None) -> JsonDict | None:
        """The first row, as the service's ``query.first()`` answers."""
        found = self.rows(user_id, fact_key, team_id)
        return found[0] if found else None

    async def _wait_for_racers(self) -> None:
        race = self._race
        assert race is not None
        self._racers -= 1
        if self._racers <= 0:
            self._race = None
        await race.wait()

    # -- the door: mode, token, overrides --------------------------------------------

    async def _enter(self, request: web.Request, *, auth: bool = True) -> tuple[Any, Any]:
        """(body, acting user) or (None, the response the mode, token or an override
        imposes)."""
        # Counted the moment the handler runs, before the body is read: a client that
        # gives up at its timeout has still made the request.
        mode = self._mode
        user = self._user(request) if auth else None
        index = len(self.requests)
        self.requests.append(Received(request.method, request.path, None, mode, user))
        raw = await request.read()
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        self.requests[index] = Received(request.method, request.path, body, mode, user)
        if mode == "hanging":
            await self._release.wait()
            return None, web.json_response({"detail": "released"}, status=503)
        if mode == "error500":
            return None, web.Response(text="Internal Server Error", status=500)
        if auth and user is None:
            header = request.headers.get("Authorization")
            detail = "Missing authorization header" if not header else "Invalid token"
            return None, web.json_response({"detail": detail}, status=401)
        for override in self._overrides:
            if override.method == request.method and request.path.startswith(override.prefix):
                override.times -= 1
                if override.times <= 0:
                    self._overrides.remove(override)
                return None, web.json_response({"detail": override.detail}, status=override.status)
        if raw and body is None:
            return None, invalid([{"type": "json_invalid", "loc": ["body", 0]}])
        return body, user

    def _user(self, request: web.Request) -> str | None:
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        if scheme != "Bearer" or not token:
            return None
        if token in self.static_tokens:
            return self.static_tokens[token]
        if self.jwt_secret is None:
            return None
        try:
            claims = jwt.decode(
                token,
                self.jwt_secret,
                algorithms=["HS256"],
                leeway=self.leeway_s,
                options={"require": ["exp", "sub"]},
            )
        except jwt.InvalidTokenError:  # bad signature, expired, issued "in the future"
            return None
        subject = claims.get("sub")
        return subject if isinstance(subject, str) and subject else None

    # -- /health and facts -----------------------------------------------------------

    async def _health(self, request: web.Request) -> web.Response:
        _body, user = await self._enter(request, auth=False)
        if isinstance(user, web.Response):
            return user
        if self._mode == "garbage":
            return web.Response(body=next(self._write_garbage), content_type="application/json")
        return web.json_response({"status": "ok", "service": "memory-service"})

    async def _upsert(self, request: web.Request) -> web.Response:
        body, user = await self._enter(request)
        if isinstance(user, web.Response):
            return user
        problems = schema_problems(body, {"user_id": str, "fact_key": str}, _FACT_FIELDS)
        if problems:
            return invalid(problems)
        if self._mode == "garbage":
            return web.Response(body=next(self._write_garbage), content_type="application/json")
        if body["user_id"] != user:
            return web.json_response({"detail": "Cannot modify other user's facts"}, status=403)
        record = self._find(body["user_id"], body["fact_key"], body.get("team_id"))
        if self._race is not None:
            await self._wait_for_racers()
        created = record is None
        if record is None:
            record = fact_body(body["user_id"], body["fact_key"], None)
            record["team_id"] = body.get("team_id")
            self.facts[record["id"]] = record
        # The schema's defaults (meta {}, token_gated false) are not None: applied too.
        values = {"meta": {}, "token_gated": False} | body
        for name in ("fact_value", "fact_value_json", "meta", "token_gated",
                     "token_requirements", "expires_at"):  # fmt: skip
            if values.get(name) is not None:
                record[name] = values[name]
        if not created:
            record["updated_at"] = _now()
        self.applied.append(("upsert", user, body["fact_key"], body.get("fact_value_json")))
        return web.json_response({"fact": fact_response(record), "created": created})

    async def _get_fact(self, request: web.Request) -> web.Response:
        _body, user = await self._enter(request)
        if isinstance(user, web.Response):
            return user
        fact_key = request.match_info["fact"]
        if self._mode == "garbage":
            answer = next(self._get_garbage)
            if isinstance(answer, bytes):
                return web.Response(body=answer, content_type="application/json")
            return web.json_response(answer(user, fact_key))
        record = self._find(user, fact_key, request.query.get("team_id") or None)
        if record is None:
            return web.json_response({"detail": "Fact not found"}, status=404)
        return web.json_response(fact_response(record))

    async def _delete_fact(self, request: web.Request) -> web.Response:
        _body, user = await self._enter(request)
        if isinstance(user, web.Response):
            return user
        if self._mode == "garbage":
            return web.Response(body=next(self._write_garbage), content_type="application/json")
        record = self.facts.get(request.match_info["fact"])
        if record is None:
            return web.json_response({"detail": "Fact not found"}, status=404)
        if record["user_id"] != user:
            return web.json_response({"detail": "Cannot delete other user's fact"}, status=403)
        del self.facts[record["id"]]
        self.applied.append(("delete", user, record["fact_key"], None))
        return web.json_response({"success": True})

    # -- summaries (the service checks the token, not who owns a summary) -------------

    async def _create_summary(self, request: web.Request) -> web.Response:
        body, user = await self._enter(request)
        if isinstance(user, web.Response):
            return user
        required = {"team_id": str, "period_start": str, "period_end": str, "summary_text": str}
        problems = schema_problems(body, required, _SUMMARY_FIELDS)
        if problems:
            return invalid(problems)
        if self._mode == "garbage":
            return web.Response(body=next(self._write_garbage), content_type="application/json")
        summary = {name: body.get(name) for name in (*required, *_SUMMARY_FIELDS)}
        summary.update(
            id=str(uuid.uuid4()),
            created_at=_now(),
            message_count=body.get("message_count", 0),
            participant_count=body.get("participant_count", 0),
            meta=body.get("meta") or {},
        )
        self.summaries[summary["id"]] = summary
        return web.json_response(summary)

    async def _list_summaries(self, request: web.Request) -> web.Response:
        _body, user = await self._enter(request)
        if isinstance(user, web.Response):
            return user
        if self._mode == "garbage":
            return web.Response(body=next(self._write_garbage), content_type="application/json")
        found = sorted(self.summaries.values(), key=lambda s: s["created_at"], reverse=True)
        for name in ("team_id", "channel_id", "agent_id", "user_id"):
            wanted = request.query.get(name)
            if wanted:
                found = [s for s in found if s.get(name) == wanted]
        limit = int(request.query.get("limit", "50"))
        if not 1 <= limit <= 200:
            return invalid([{"type": "less_than_equal", "loc": ["query", "limit"]}])
        page, cursor = found[:limit], found[limit - 1]["created_at"] if len(found) > limit else None
        return web.json_response({"items": page, "total": len(page), "cursor": cursor})

    async def _get_summary(self, request: web.Request) -> web.Response:
        _body, user = await self._enter(request)
        if isinstance(user, web.Response):
            return user
        summary = self.summaries.get(request.match_info["summary_id"])
        if summary is None:
            return web.json_response({"detail": "Summary not found"}, status=404)
        return web.json_response(summary)

    async def _delete_summary(self, request: web.Request) -> web.Response:
        _body, user = await self._enter(request)
        if isinstance(user, web.Response):
            return user
        if self.summaries.pop(request.match_info["summary_id"], None) is None:
            return web.json_response({"detail": "Summary not found"}, status=404)
        return web.json_response({"success": True})
