"""A fake memory-service over real HTTP, for tests and benchmarks.

It follows the real service (IvanTytar/microdao-daarion, services/memory-service:
``app/main.py``, ``app/schemas.py``, ``app/crud.py``) route for route, with the JWT check
its ``verify_token`` stub describes, so a test cannot pass against a contract the real
service lacks:

* ``GET /health`` -> ``{"status": "ok", "service": "memory-service"}`` (no auth);
* ``POST /facts/upsert`` (``UserFactUpsertRequest``) -> ``{"fact": UserFactResponse,
  "created": bool}``; 403 "Cannot modify other user's facts" when the body's
  ``user_id`` is not the token's subject; a fact is matched by (user, key, team_id,
  ``IS NULL`` when absent) and only the non-null fields of an update are applied;
* ``GET /facts/{fact_key}`` -> ``UserFactResponse`` of the token's user, or
  404 ``{"detail": "Fact not found"}``;
* ``DELETE /facts/{fact_id}`` -> ``{"success": true}``; 404 "Fact not found";
  403 "Cannot delete other user's fact";
* ``POST /summaries`` (``DialogSummaryCreate``) -> ``DialogSummaryResponse``;
  ``GET /summaries?team_id&agent_id&user_id&limit`` -> ``{"items", "total", "cursor"}``;
  ``GET`` / ``DELETE /summaries/{summary_id}``, 404 "Summary not found";
* any other method on these paths -> 405 (``POST /facts/get`` among them); a body
  that fails the schema -> 422 with FastAPI's ``detail`` list.

Every route but /health needs ``Authorization: Bearer <token>``: missing, malformed,
badly signed or expired -> 401. A token is an HS256 JWT whose ``sub`` is the acting
user (``jwt_secret``), or one of ``static_tokens`` (token -> user).

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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, Literal, Self

import jwt
from aiohttp import web

Mode = Literal["healthy", "down", "hanging", "error500", "garbage"]
JsonDict = dict[str, Any]
JWT_SECRET = "test-memory-secret-32-bytes-long!!"


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _other_users_profile(user_id: str, fact_key: str) -> JsonDict:
    value = {"_fact_key": fact_key, "user_id": "tg:mallory", "name": "Mallory"}
    return _fact_body(user_id, fact_key, value)


def _invalid_values(user_id: str, fact_key: str) -> JsonDict:
    plain = user_id.removeprefix("stepan:")
    value = {
        "_version": 1,
        "_fact_key": fact_key,
        "user_id": plain,
        "farm_id": "farm:garbage",
        "name": "Garbage",
        "expertise_level": "guru",
        "interaction_count": -5,
        "alert_thresholds": {"temperature_min": 50, "temperature_max": -50},
    }
    return _fact_body(user_id, fact_key, value)


def _fact_body(user_id: str, fact_key: str, value: Any) -> JsonDict:
    return {"id": str(uuid.uuid4()), "user_id": user_id, "fact_key": fact_key,
            "fact_value": None, "fact_value_json": value, "team_id": None, "meta": {},
            "created_at": _now(), "updated_at": None}  # fmt: skip


#: What GET /facts/{fact_key} answers in "garbage" mode, in turn: raw bytes or a JSON
#: body built from (memory user id, fact key).
GET_GARBAGE: tuple[bytes | Callable[[str, str], JsonDict], ...] = (
    b"<html>502 Bad Gateway</html>",
    b'{"fact_value_json": {"user_id": ',
    b"[1, 2, 3]",
    lambda user_id, key: _fact_body(user_id, key, "a string, not an object"),
    lambda user_id, key: {"value": {"user_id": user_id}},
    _other_users_profile,
    _invalid_values,
)
WRITE_GARBAGE: tuple[bytes, ...] = (b"OK", b"[true]", b"null", b'{"ok": tru')

_FACT_FIELDS = {"fact_value": str, "fact_value_json": dict, "team_id": str, "metadata": dict,
                "token_gated": bool, "token_requirements": dict, "expires_at": str}  # fmt: skip
_SUMMARY_FIELDS = {"channel_id": str, "agent_id": str, "user_id": str, "summary_json": dict,
                   "message_count": int, "participant_count": int, "topics": list,
                   "metadata": dict}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Received:
    method: str
    path: str
    body: Any  #: decoded JSON, or None when it was not JSON
    mode: Mode  #: the mode when the request arrived
    user: str | None  #: the token's user, None when the token was refused or absent


@dataclass(slots=True)
class _Override:
    method: str
    prefix: str
    status: int
    times: int
    detail: Any = field(default="overridden")


class FakeMemoryService:
    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        jwt_secret: str | None = JWT_SECRET,
        static_tokens: Mapping[str, str] | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.jwt_secret = jwt_secret
        self.static_tokens = dict(static_tokens or {})
        #: fact id -> the stored fact (UserFactResponse's fields).
        self.facts: dict[str, JsonDict] = {}
        #: summary id -> the stored summary (DialogSummaryResponse's fields).
        self.summaries: dict[str, JsonDict] = {}
        self.requests: list[Received] = []
        #: ("upsert" | "delete", memory user id, fact key, value) in the order applied.
        self.applied: list[tuple[str, str, str, JsonDict | None]] = []
        self._mode: Mode = "healthy"
        self._overrides: list[_Override] = []
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
        self._overrides.append(_Override(method, prefix, status, times, detail))

    # -- inspection ------------------------------------------------------------------

    def count(self, method: str | None = None, prefix: str = "") -> int:
        return sum(
            1
            for r in self.requests
            if (method is None or r.method == method) and r.path.startswith(prefix)
        )

    def put_fact(self, user_id: str, fact_key: str, value: JsonDict) -> str:
        """Seed the store directly (``user_id`` as the service sees it: "stepan:...");
        returns the fact's id."""
        record = self._find(user_id, fact_key, None)
        if record is None:
            record = _fact_body(user_id, fact_key, value) | {"token_gated": False,
                                                              "token_requirements": None,
                                                              "expires_at": None}  # fmt: skip
            self.facts[record["id"]] = record
        record["fact_value_json"] = value
        return str(record["id"])

    def fact(self, user_id: str, fact_key: str) -> JsonDict | None:
        record = self._find(user_id, fact_key, None)
        return None if record is None else record["fact_value_json"]

    def summaries_of(self, user_id: str) -> list[JsonDict]:
        return [s for s in self.summaries.values() if s.get("user_id") == user_id]

    def _find(self, user_id: str, fact_key: str, team_id: str | None) -> JsonDict | None:
        for record in self.facts.values():
            if (record["user_id"], record["fact_key"], record["team_id"]) == (
                user_id,
                fact_key,
                team_id,
            ):
                return record
        return None

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
            return None, _invalid([{"type": "json_invalid", "loc": ["body", 0]}])
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
                token, self.jwt_secret, algorithms=["HS256"], options={"require": ["exp", "sub"]}
            )
        except jwt.InvalidTokenError:  # bad signature, expired, malformed
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
        problems = _schema(body, {"user_id": str, "fact_key": str}, _FACT_FIELDS)
        if problems:
            return _invalid(problems)
        if self._mode == "garbage":
            return web.Response(body=next(self._write_garbage), content_type="application/json")
        if body["user_id"] != user:
            return web.json_response({"detail": "Cannot modify other user's facts"}, status=403)
        record = self._find(body["user_id"], body["fact_key"], body.get("team_id"))
        created = record is None
        if record is None:
            record = _fact_body(body["user_id"], body["fact_key"], None) | {
                "team_id": body.get("team_id"), "token_gated": False,
                "token_requirements": None, "expires_at": None}  # fmt: skip
            self.facts[record["id"]] = record
        for name in ("fact_value", "fact_value_json", "token_gated", "token_requirements"):
            if body.get(name) is not None:
                record[name] = body[name]
        if not created:
            record["updated_at"] = _now()
        self.applied.append(("upsert", user, body["fact_key"], body.get("fact_value_json")))
        return web.json_response({"fact": _fact_response(record), "created": created})

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
        return web.json_response(_fact_response(record))

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
        problems = _schema(body, required, _SUMMARY_FIELDS)
        if problems:
            return _invalid(problems)
        if self._mode == "garbage":
            return web.Response(body=next(self._write_garbage), content_type="application/json")
        summary = {name: body.get(name) for name in (*required, *_SUMMARY_FIELDS)}
        summary.update(
            id=str(uuid.uuid4()),
            created_at=_now(),
            message_count=body.get("message_count", 0),
            participant_count=body.get("participant_count", 0),
            metadata=body.get("metadata") or {},
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
            return _invalid([{"type": "less_than_equal", "loc": ["query", "limit"]}])
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


def _fact_response(record: JsonDict) -> JsonDict:
    names = (
        "id", "user_id", "fact_key", "fact_value", "fact_value_json", "team_id", "meta",
        "token_gated", "token_requirements", "expires_at", "created_at", "updated_at",
    )  # fmt: skip
    return {name: record.get(name) for name in names}


def _schema(
    body: Any, required: Mapping[str, type], optional: Mapping[str, type]
) -> list[JsonDict]:
    """FastAPI-style validation problems of a JSON body (empty: valid)."""
    if not isinstance(body, dict):
        return [
            {"type": "model_attributes_type", "loc": ["body"], "msg": "Input should be an object"}
        ]
    problems = []
    for name, kind in {**required, **optional}.items():
        value = body.get(name)
        if value is None:
            if name in required:
                problems.append({"type": "missing", "loc": ["body", name], "msg": "Field required"})
            continue
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            problems.append({"type": f"{kind.__name__}_type", "loc": ["body", name],
                             "msg": f"Input should be a valid {kind.__name__}"})  # fmt: skip
    return problems


def _invalid(problems: list[JsonDict]) -> web.Response:
    return web.json_response({"detail": problems}, status=422)


class ManualClock:
    """A monotonic clock the test moves by hand (breaker cool-down, cache TTL)."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
