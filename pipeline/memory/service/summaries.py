"""Dialog summaries in the memory-service (``POST /summaries``, ``GET /summaries``,
``DELETE /summaries/{id}``; its ``DialogSummaryCreate`` / ``DialogSummaryResponse``).

The conversation-memory work (issue 11) keeps its summaries in SQL and uses this to
copy them to the service, read the service's recent ones, and delete one. Writes go
through the outbox in the caller's transaction, with the same auth, status and retry
rules as the profile facts (``MemorySync`` sends them); reads are one bounded attempt
like hydration. ``team_id`` comes from ``AGX_MEMORY_TEAM_ID``, ``agent_id`` is
``agromatrix``, ``user_id`` the memory user id, and ``meta`` (the service's field;
an unknown ``metadata`` would be dropped silently) says ``{"source": "stepan"}``.

/forget purges them all, team or not: the service's list filters only by what it is
given, so the purge (and a delete by Stepan's key) lists by ``agent_id`` and
``user_id`` alone and finds the summaries written under any team, the current
``AGX_MEMORY_TEAM_ID``, an earlier one, or none set now. A 404 means "already gone"
only with the service's own ``{"detail": "Summary not found"}``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import quote

import httpx

from db.repositories import outbox as repo
from db.uow import Session
from pipeline.memory.service.client import (
    SUMMARY_NOT_FOUND,
    MemoryServiceClient,
    Outcome,
    Retryable,
    Status,
    memory_user_id,
)
from pipeline.profiles import AGENT

logger = logging.getLogger(__name__)

#: The service's page size limit for GET /summaries.
PAGE_LIMIT = 200


@dataclass(frozen=True, slots=True)
class DialogSummary:
    """What Stepan sends: one conversation's summary."""

    period_start: datetime
    period_end: datetime
    text: str
    message_count: int = 0
    topics: tuple[str, ...] = ()
    data: dict[str, Any] | None = None  # the service's summary_json
    channel_id: str | None = None

    def payload(self) -> dict[str, Any]:
        return {
            "period_start": self.period_start.isoformat(),
            "period_end": self.period_end.isoformat(),
            "summary_text": self.text,
            "summary_json": self.data,
            "message_count": self.message_count,
            "participant_count": 1,
            "topics": list(self.topics),
            "channel_id": self.channel_id,
        }


@dataclass(frozen=True, slots=True)
class StoredSummary:
    """A summary the service holds (its id is what a delete needs)."""

    id: str
    period_start: datetime
    period_end: datetime
    text: str
    message_count: int
    topics: tuple[str, ...] = field(default=())

    @classmethod
    def parse(cls, item: Any) -> StoredSummary | None:
        """None for anything that is not a ``DialogSummaryResponse``."""
        if not isinstance(item, dict):
            return None
        try:
            topics = item.get("topics") or ()
            return cls(
                id=str(item["id"]),
                period_start=datetime.fromisoformat(item["period_start"]),
                period_end=datetime.fromisoformat(item["period_end"]),
                text=str(item["summary_text"]),
                message_count=int(item.get("message_count") or 0),
                topics=tuple(str(topic) for topic in topics),
            )
        except (KeyError, TypeError, ValueError):
            return None


class Summaries:
    """Queue and read a user's dialog summaries. ``enabled`` is False without a
    memory-service or a team id: then ``queue`` does nothing and ``recent`` is None
    (``queue_delete`` still deletes what an earlier team setting wrote)."""

    def __init__(self, client: MemoryServiceClient | None) -> None:
        self._client = client

    @property
    def enabled(self) -> bool:
        return self._client is not None and self._client.team_id is not None

    def queue(self, session: Session, user_id: str, summary: DialogSummary, now: datetime) -> None:
        """Copy ``summary`` to the service, sent by the flush after the caller commits."""
        if self.enabled:
            repo.enqueue(session, user_id, "summary", "summary_add", summary.payload(), now)

    def queue_delete(self, session: Session, user_id: str, summary_id: str, now: datetime) -> None:
        """Delete a summary in the service too: whenever there is a service, team set
        or not (it may have been written under a team set earlier)."""
        if self._client is not None:
            repo.enqueue(session, user_id, summary_id, "summary_delete", None, now)

    async def recent(self, user_id: str, limit: int = 20) -> list[StoredSummary] | None:
        """The user's newest summaries, newest first; None when the answer is unknown
        (no service, breaker not closed, timeout, refusal). One attempt, no probe."""
        client = self._client
        if client is None or client.team_id is None:
            return None
        if client.breaker.acquire(probe_ok=False) is None:
            return None
        try:
            items = await _list(client, user_id, min(max(1, limit), PAGE_LIMIT), client.team_id)
        except (TimeoutError, httpx.HTTPError, Retryable) as exc:
            client.breaker.record_failure()
            logger.warning("memory-service summaries failed user=%s: %s", user_id, exc)
            return None
        client.breaker.record_success()
        if isinstance(items, Outcome):
            return None
        parsed = [StoredSummary.parse(item) for item in items]
        return [summary for summary in parsed if summary is not None]


# -- the flush's calls ------------------------------------------------------------------


async def create(client: MemoryServiceClient, user_id: str, payload: dict[str, Any]) -> Outcome:
    if client.team_id is None:
        return Outcome("dead", "AGX_MEMORY_TEAM_ID is not set")
    body = {**payload, "team_id": client.team_id, "agent_id": AGENT,
            "user_id": memory_user_id(user_id), "meta": {"source": "stepan"}}  # fmt: skip

    async def attempt() -> Outcome:
        response = await client.request("POST", "/summaries", user_id, json=body)
        return client.answer(response, "POST /summaries")

    return await client.run(attempt)


#: A summary named by Stepan's own key (``summary_json.stepan_key``), not the service's id.
STEPAN_KEY = "stepan:"


async def delete(client: MemoryServiceClient, user_id: str, summary_id: str) -> Outcome:
    """Delete one summary: by the service's id, or (``stepan:<key>``) the one whose
    ``summary_json.stepan_key`` is ``key`` (Stepan never learns the service's ids),
    under whichever team it was written."""

    async def attempt() -> Outcome:
        if not summary_id.startswith(STEPAN_KEY):
            return await _delete_one(client, user_id, summary_id)
        items = await _list(client, user_id, PAGE_LIMIT)
        if isinstance(items, Outcome):
            return items
        key = summary_id.removeprefix(STEPAN_KEY)
        for item in items:
            data = item.get("summary_json") if isinstance(item, dict) else None
            if isinstance(data, dict) and data.get("stepan_key") == key and "id" in item:
                return await _delete_one(client, user_id, str(item["id"]))
        return Outcome("ok")  # not there: never sent, or already gone

    return await client.run(attempt)


async def purge(client: MemoryServiceClient, user_id: str) -> Outcome:
    """Delete every summary of the user (after /forget), of every team: it runs with
    or without ``AGX_MEMORY_TEAM_ID`` (module docstring); repeating it is harmless."""

    async def attempt() -> Outcome:
        while True:
            items = await _list(client, user_id, PAGE_LIMIT)
            if isinstance(items, Outcome):
                return items
            ids = [str(item["id"]) for item in items if isinstance(item, dict) and "id" in item]
            for summary_id in ids:
                outcome = await _delete_one(client, user_id, summary_id)
                if outcome.status != "ok":
                    return outcome
            if len(ids) < PAGE_LIMIT:
                return Outcome("ok")

    return await client.run(attempt)


async def _list(
    client: MemoryServiceClient, user_id: str, limit: int, team_id: str | None = None
) -> list[Any] | Outcome:
    """The user's summaries, newest first: of ``team_id``, or of every team (None);
    the refusal's outcome when the service refused the list (a 401/403 or a 404 from
    a wrong base path: config_error, kept for the operator; anything else: dead)."""
    params: dict[str, Any] = {"agent_id": AGENT, "user_id": memory_user_id(user_id),
                              "limit": limit}  # fmt: skip
    if team_id is not None:
        params["team_id"] = team_id
    response = await client.request("GET", "/summaries", user_id, params=params)
    found = client.check(response, "GET /summaries")
    if found != "ok":
        status: Status = "config_error" if found == "config_error" else "dead"
        return Outcome(status, client.last_refusal)
    try:
        body = response.json()
    except ValueError:
        body = None
    items = body.get("items") if isinstance(body, dict) else None
    if not isinstance(items, list):
        raise Retryable("GET /summaries: 2xx without an items list")
    return items


async def _delete_one(client: MemoryServiceClient, user_id: str, summary_id: str) -> Outcome:
    path = f"/summaries/{quote(summary_id, safe='')}"
    response = await client.request("DELETE", path, user_id)
    what = "DELETE /summaries/{summary_id}"
    found = client.check(response, what, not_found=SUMMARY_NOT_FOUND)
    return Outcome("ok") if found == "absent" else client.answer(response, what, found)
