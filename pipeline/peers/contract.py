"""The handoff contract on the wire (ADR "DAARWIZZ orchestration mode") and the answer.

A request on ``agent.{agent_id}.invoke`` carries one JSON object::

    {"intent": "nutrition_advice", "domain": "nutrition",
     "user_goal": "що їсти на сніданок?", "target_agent": "nutra",
     "constraints": {"max_response_time": 30, "format": "short", "language": "uk"},
     "context_summary": "...", "sources": ["agromatrix:handoff:5f0c..."],
     "privacy_level": "public", "requires_consent": true}

and the reply is ``{"status": "ok", "agent": ..., "answer": ..., "language": ...}`` or
``{"status": "error", "agent": ..., "error": {"code": ..., "field": ..., "message": ...}}``.
docs/peers.md documents both. Unknown fields are ignored (a newer sender stays
readable); a missing or malformed one is an ``invalid_contract`` error naming it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from pipeline.peers.directory import MAX_TIME_BUDGET_S

__all__ = [
    "Constraints",
    "ContractError",
    "PeerAnswer",
    "PeerContract",
    "PrivacyLevel",
    "parse_answer",
]

PrivacyLevel = Literal["public", "team", "confidential"]
ErrorCode = Literal[
    "invalid_json",
    "invalid_contract",
    "wrong_target",
    "unsupported_language",
    "out_of_domain",
    "action_not_allowed",
    "time_budget_exceeded",
    "internal_error",
]
MAX_GOAL_CHARS = 2000
MAX_ANSWER_CHARS = 3500


class ContractError(Exception):
    """Why a contract cannot be answered; sent back as a structured error."""

    def __init__(self, code: ErrorCode, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message
        self.field = field


_Slug = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")


class Constraints(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    #: Seconds the sender waits for the answer.
    max_response_time: float = Field(gt=0, le=MAX_TIME_BUDGET_S)
    format: Literal["short", "medium", "detailed"]
    language: str = Field(pattern=r"^[a-z]{2}$")


class PeerContract(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    intent: str = _Slug
    domain: str = _Slug
    user_goal: str = Field(min_length=1, max_length=MAX_GOAL_CHARS)
    target_agent: str = Field(min_length=1, max_length=32, pattern=r"^[a-z][a-z0-9_-]*$")
    constraints: Constraints
    context_summary: str = Field(default="", max_length=MAX_GOAL_CHARS)
    #: Opaque references (message or memory ids), never the content itself.
    sources: tuple[str, ...] = Field(default=(), max_length=20)
    privacy_level: PrivacyLevel
    requires_consent: bool = Field(strict=True)
    #: Not in the ADR's list: who sends the contract (optional; for counting only).
    source_agent: str | None = Field(
        default=None, min_length=1, max_length=32, pattern=r"^[a-z][a-z0-9_-]*$"
    )

    @field_validator("user_goal")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value

    @field_validator("sources")
    @classmethod
    def _opaque(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for source in value:
            if not source or len(source) > 200 or any(ch.isspace() for ch in source):
                raise ValueError("each source is an id: 1..200 characters, no spaces")
        return value

    def to_json(self) -> bytes:
        return self.model_dump_json().encode()

    @classmethod
    def parse(cls, payload: bytes) -> PeerContract:
        """The contract in ``payload``, or a ContractError saying what is wrong."""
        try:
            data = json.loads(payload.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise ContractError("invalid_json", "the request is not UTF-8 JSON") from None
        if not isinstance(data, dict):
            raise ContractError("invalid_json", "the request must be a JSON object")
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            first = exc.errors(include_url=False, include_input=False)[0]
            where = ".".join(str(part) for part in first["loc"]) or None
            raise ContractError("invalid_contract", f"{where}: {first['msg']}", where) from None


@dataclass(frozen=True, slots=True)
class PeerAnswer:
    agent: str
    text: str | None = None
    language: str | None = None
    error: ContractError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and bool(self.text)

    def to_json(self) -> bytes:
        body: dict[str, Any] = {"status": "ok" if self.error is None else "error"}
        body["agent"] = self.agent
        if self.error is None:
            body["answer"] = self.text or ""
            body["language"] = self.language
        else:
            body["error"] = {
                "code": self.error.code,
                "field": self.error.field,
                "message": self.error.message,
            }
        return json.dumps(body, ensure_ascii=False).encode()


def _clean(text: str) -> str:
    """A peer's text is untrusted: plain characters only, bounded."""
    kept = "".join(ch for ch in text if ch in "\n\t" or ch.isprintable())
    kept = kept.strip()
    return kept if len(kept) <= MAX_ANSWER_CHARS else kept[: MAX_ANSWER_CHARS - 1] + "…"


def parse_answer(payload: bytes, agent: str) -> PeerAnswer:
    """A peer's reply: our JSON shape, or a bare text answer (agents differ)."""
    try:
        raw = payload.decode("utf-8")
    except UnicodeDecodeError:
        return PeerAnswer(agent, error=ContractError("invalid_json", "reply is not UTF-8"))
    try:
        data = json.loads(raw)
    except json.JSONDecodeError:
        text = _clean(raw)
        return (
            PeerAnswer(agent, text=text)
            if text
            else PeerAnswer(agent, error=ContractError("invalid_json", "empty reply"))
        )
    if not isinstance(data, dict):
        return PeerAnswer(agent, error=ContractError("invalid_json", "reply is not an object"))
    if data.get("status") == "error":
        raw_error = data.get("error")
        err: dict[str, Any] = raw_error if isinstance(raw_error, dict) else {}
        message = str(err.get("message") or err.get("code") or "error")[:200]
        return PeerAnswer(agent, error=ContractError("internal_error", message))
    for key in ("answer", "text", "response"):
        value = data.get(key)
        if isinstance(value, str) and _clean(value):
            language = data.get("language")
            return PeerAnswer(
                agent, text=_clean(value), language=language if isinstance(language, str) else None
            )
    return PeerAnswer(agent, error=ContractError("invalid_json", "reply has no answer"))
