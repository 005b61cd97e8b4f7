"""Platform status: what Stepan depends on and how it is doing. Used by operators'
/status and by the platform agent ("farmOS не відповідає", "статус сервісів")."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

import httpx
from sqlalchemy import text

from db.repositories import jobs
from db.schema import SchemaCheck
from db.uow import Database
from pipeline.memory.syncing import MemorySync

logger = logging.getLogger(__name__)

State = Literal["ok", "degraded", "down", "off"]
#: An integration probe gets this long; a slow farmOS must not slow /status down.
PROBE_TIMEOUT_S = 2.0


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    state: State
    detail: str


@dataclass(slots=True)
class LlmHealth:
    """Updated by whoever calls the LLM; read here."""

    configured: bool
    last_ok: bool | None = None
    last_at: datetime | None = None
    last_error: str | None = None

    def record(self, ok: bool, at: datetime, error: str | None = None) -> None:
        self.last_ok, self.last_at, self.last_error = ok, at, error


class PlatformStatus:
    def __init__(
        self,
        *,
        db: Database,
        sync: MemorySync,
        llm: LlmHealth,
        http: httpx.AsyncClient,
        integrations: Mapping[str, str],
        schema: SchemaCheck | None = None,
    ) -> None:
        self._db = db
        self._schema = schema
        self._sync = sync
        self._llm = llm
        self._http = http
        self._integrations = integrations

    async def collect(self) -> list[Check]:
        checks = [await self._database(), await self._memory_service(), self._llm_check()]
        checks.extend(await self._jobs())
        for name, url in self._integrations.items():
            checks.append(await self._probe(name, url))
        return checks

    async def _database(self) -> Check:
        started = time.perf_counter()
        try:
            async with self._db.read() as session:
                await session.execute(text("SELECT 1"))
                elapsed = (time.perf_counter() - started) * 1000
                # SELECT 1 answers on a database whose tables are gone: check them.
                problems = await self._schema.problems(session) if self._schema else []
        except Exception as exc:
            logger.warning("status: database check failed", exc_info=True)
            return Check("database", "down", type(exc).__name__)
        if problems:
            more = f" (+{len(problems) - 3} more)" if len(problems) > 3 else ""
            return Check("database", "down", "schema broken: " + "; ".join(problems[:3]) + more)
        return Check("database", "ok", f"{elapsed:.0f} ms")

    async def _memory_service(self) -> Check:
        breaker = self._sync.breaker_state
        if breaker == "disabled":
            return Check("memory-service", "off", "not configured")
        status = await self._sync.status(dead_shown=1)
        state: State = "ok" if breaker == "closed" else "down" if breaker == "open" else "degraded"
        counts = status.counts
        detail = f"breaker {breaker}, backlog {counts['pending'] + counts['config_error']}"
        if status.config_error:
            state = "down" if state == "ok" else state
            detail += f"; refused: {status.config_error}"
        if counts["dead"]:
            state = "degraded" if state == "ok" else state
            reason = status.dead[0].reason if status.dead else "?"
            detail += f"; dead letters {counts['dead']} (oldest: {reason})"
        return Check("memory-service", state, detail)

    def _llm_check(self) -> Check:
        if not self._llm.configured:
            return Check("llm", "off", "not configured: templates and direct tools")
        if self._llm.last_ok is None:
            return Check("llm", "ok", "configured, not called yet")
        if self._llm.last_ok:
            return Check("llm", "ok", "last call ok")
        return Check("llm", "down", f"last call failed: {self._llm.last_error or '?'}")

    async def _jobs(self) -> list[Check]:
        try:
            async with self._db.read() as session:
                runs = await jobs.all_runs(session)
        except Exception as exc:
            logger.warning("status: job runs unreadable", exc_info=True)
            return [Check("jobs", "down", type(exc).__name__)]
        return [
            Check(
                f"job {run.job_id}",
                "ok" if run.last_outcome == "ok" else "degraded" if run.last_outcome else "off",
                f"{run.last_outcome or 'never ran'}"
                + (f" at {run.last_finished_at:%Y-%m-%d %H:%M} UTC" if run.last_finished_at else "")
                + (f" ({run.last_detail})" if run.last_detail else ""),
            )
            for run in runs
        ]

    async def _probe(self, name: str, url: str) -> Check:
        started = time.perf_counter()
        try:
            response = await self._http.get(url, timeout=PROBE_TIMEOUT_S)
        except httpx.HTTPError as exc:
            return Check(name, "down", type(exc).__name__)
        elapsed = f"{(time.perf_counter() - started) * 1000:.0f} ms"
        if response.status_code >= 500:
            return Check(name, "down", f"HTTP {response.status_code}, {elapsed}")
        return Check(name, "ok", f"HTTP {response.status_code}, {elapsed}")
