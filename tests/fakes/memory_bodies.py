"""The bodies of the fake memory-service (tests/fakes/memory_service.py): a stored
fact, FastAPI's validation answer, and what its "garbage" mode answers (2xx answers
that are not what the contract promises: a proxy's HTML, cut JSON, wrong shapes,
another user's profile, values the models refuse); and the tests' manual clock."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from aiohttp import web

JsonDict = dict[str, Any]
Mode = Literal["healthy", "down", "hanging", "error500", "garbage"]


@dataclass(frozen=True, slots=True)
class Received:
    method: str
    path: str
    body: Any  #: decoded JSON, or None when it was not JSON
    mode: Mode  #: the mode when the request arrived
    user: str | None  #: the token's user, None when the token was refused or absent


@dataclass(slots=True)
class Override:
    method: str
    prefix: str
    status: int
    times: int
    detail: Any = field(default="overridden")


def now_iso() -> str:
    return datetime.now(UTC).isoformat()


def fact_body(user_id: str, fact_key: str, value: Any) -> JsonDict:
    """A stored fact's fields (``UserFactResponse`` and the row's own)."""
    return {"id": str(uuid.uuid4()), "user_id": user_id, "fact_key": fact_key,
            "fact_value": None, "fact_value_json": value, "team_id": None, "meta": {},
            "token_gated": False, "token_requirements": None, "expires_at": None,
            "created_at": now_iso(), "updated_at": None}  # fmt: skip


def _other_users_profile(user_id: str, fact_key: str) -> JsonDict:
    value = {"_fact_key": fact_key, "user_id": "tg:mallory", "name": "Mallory"}
    return fact_body(user_id, fact_key, value)


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
    return fact_body(user_id, fact_key, value)


#: What GET /facts/{fact_key} answers in "garbage" mode, in turn: raw bytes or a JSON
#: body built from (memory user id, fact key).
GET_GARBAGE: tuple[bytes | Callable[[str, str], JsonDict], ...] = (
    b"<html>502 Bad Gateway</html>",
    b'{"fact_value_json": {"user_id": ',
    b"[1, 2, 3]",
    lambda user_id, key: fact_body(user_id, key, "a string, not an object"),
    lambda user_id, key: {"value": {"user_id": user_id}},
    _other_users_profile,
    _invalid_values,
)
WRITE_GARBAGE: tuple[bytes, ...] = (b"OK", b"[true]", b"null", b'{"ok": tru')


def fact_response(record: JsonDict) -> JsonDict:
    names = (
        "id", "user_id", "fact_key", "fact_value", "fact_value_json", "team_id", "meta",
        "token_gated", "token_requirements", "expires_at", "created_at", "updated_at",
    )  # fmt: skip
    return {name: record.get(name) for name in names}


def schema_problems(
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


def invalid(problems: list[JsonDict]) -> web.Response:
    return web.json_response({"detail": problems}, status=422)


class ManualClock:
    """A monotonic clock the test moves by hand (breaker cool-down, cache TTL)."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
