"""Platform status: what Stepan depends on and how it is doing. Used by operators'
/status and by the platform agent ("farmOS не відповідає", "статус сервісів")."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

import httpx

from db.repositories import health, jobs
from db.schema import SchemaCheck
from db.store_health import WriteProblem
from db.uow import Database
from pipeline.admin.status_text import Phrase
from pipeline.memory.service.syncing import MemorySync

logger = logging.getLogger(__name__)

State = Literal["ok", "degraded", "down", "off"]
#: An integration probe gets this long; a slow farmOS must not slow /status down.
PROBE_TIMEOUT_S = 2.0


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    state: State
    #: The technical detail, for the logs and the engineer ("breaker open, backlog 3").
    detail: str
    #: What a person reads (pipeline/admin/status_text.py): the service in words, and what
    #: its state means, from the catalogs.
    label: Phrase = field(default_factory=lambda: Phrase("status.service.other"))
    says: tuple[Phrase, ...] = ()


@dataclass(slots=True)
class LlmHealth:
    """Updated by whoever calls the LLM; read here."""

    configured: bool
    last_ok: bool | None = None
    last_at: datetime | None = None
    last_error: str | None = None

    def record(self, ok: bool, at: datetime, error: str | None = None) -> None:
        self.last_ok, self.last_at, self.last_error = ok, at, error


_DB = Phrase("status.service.database")
_MEMORY = Phrase("status.service.memory")
_MEMORY_OFF = Phrase("status.memory.off")
_LLM = Phrase("status.service.llm")


def _job_name(job_id: str) -> Phrase:
    return Phrase(f"status.job.{job_id}", fallback="status.job.other")


def _job_said(outcome: str | None, finished: datetime | None) -> Phrase:
    if outcome is None:
        return Phrase("status.job_never")
    at = f"{finished:%d.%m.%Y %H:%M}" if finished is not None else "?"
    return Phrase("status.job_ok" if outcome == "ok" else "status.job_failed", {"at": at})


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

    def unreadable(self) -> list[Check]:
        """/status while the database cannot be reached in time (its one connection
        waits on a lock held elsewhere): what this process knows without it."""
        reason = self._db.health.reason or WriteProblem.LOCKED
        says = (Phrase(f"status.db.cannot_write.{reason}"),)
        database = Check("database", "down", f"cannot write: {reason}", _DB, says)
        return [database, self._llm_check()]

    def _cannot_write(self) -> Check | None:
        health = self._db.health
        reason = health.reason
        if reason is None:
            return None
        why = health.gone or health.detail or "seen by the file watch"
        detail = f"cannot write: {reason} ({why})"
        logger.warning("status: database %s", detail)
        says = (Phrase(f"status.db.cannot_write.{reason}"),)
        return Check("database", "down", detail, _DB, says)

    async def _database(self) -> Check:
        refused = self._cannot_write()
        if refused is not None:
            return refused
        started = time.perf_counter()
        try:
            async with self._db.read() as session:
                await health.ping(session)
                elapsed = (time.perf_counter() - started) * 1000
                # SELECT 1 answers on a database whose tables are gone: check them.
                problems = await self._schema.problems(session) if self._schema else []
        except Exception as exc:
            logger.warning("status: database check failed", exc_info=True)
            return Check("database", "down", type(exc).__name__, _DB, (Phrase("status.db.down"),))
        if problems:
            more = f" (+{len(problems) - 3} more)" if len(problems) > 3 else ""
            detail = "schema broken: " + "; ".join(problems[:3]) + more
            logger.warning("status: %s", detail)
            says = (Phrase("status.db.schema", count=len(problems)),)
            return Check("database", "down", detail, _DB, says)
        says = (Phrase("status.db.ok", {"ms": round(elapsed)}),)
        return Check("database", "ok", f"{elapsed:.0f} ms", _DB, says)

    async def _memory_service(self) -> Check:
        breaker = self._sync.breaker_state
        if breaker == "disabled":
            return Check("memory-service", "off", "not configured", _MEMORY, (_MEMORY_OFF,))
        status = await self._sync.status(dead_shown=1)
        state: State = "ok" if breaker == "closed" else "down" if breaker == "open" else "degraded"
        counts = status.counts
        backlog = counts["pending"] + counts["config_error"]
        detail = f"breaker {breaker}, backlog {backlog}"
        link = "closed" if breaker == "closed" else "open" if breaker == "open" else "half_open"
        says = [Phrase(f"status.memory.{link}")]
        if backlog:
            says.append(Phrase("status.memory.backlog", count=backlog))
        if status.config_error:
            state = "down" if state == "ok" else state
            detail += f"; refused: {status.config_error}"
            says.append(Phrase("status.memory.refused"))
        if counts["dead"]:
            state = "degraded" if state == "ok" else state
            reason = status.dead[0].reason if status.dead else "?"
            detail += f"; dead letters {counts['dead']} (oldest: {reason})"
            says.append(Phrase("status.memory.dead", count=counts["dead"]))
        return Check("memory-service", state, detail, _MEMORY, tuple(says))

    def _llm_check(self) -> Check:
        if not self._llm.configured:
            detail = "not configured: templates and direct tools"
            return Check("llm", "off", detail, _LLM, (Phrase("status.llm.off"),))
        if self._llm.last_ok is None:
            return Check(
                "llm", "ok", "configured, not called yet", _LLM, (Phrase("status.llm.idle"),)
            )
        if self._llm.last_ok:
            return Check("llm", "ok", "last call ok", _LLM, (Phrase("status.llm.ok"),))
        detail = f"last call failed: {self._llm.last_error or '?'}"
        return Check("llm", "down", detail, _LLM, (Phrase("status.llm.failed"),))

    async def _jobs(self) -> list[Check]:
        try:
            async with self._db.read() as session:
                runs = await jobs.all_runs(session)
        except Exception as exc:
            logger.warning("status: job runs unreadable", exc_info=True)
            label = Phrase("status.service.jobs")
            return [Check("jobs", "down", type(exc).__name__, label, (Phrase("status.jobs.down"),))]
        return [
            Check(
                f"job {run.job_id}",
                "ok" if run.last_outcome == "ok" else "degraded" if run.last_outcome else "off",
                f"{run.last_outcome or 'never ran'}"
                + (f" at {run.last_finished_at:%Y-%m-%d %H:%M} UTC" if run.last_finished_at else "")
                + (f" ({run.last_detail})" if run.last_detail else ""),
                Phrase("status.service.job", {"job": _job_name(run.job_id)}),
                (_job_said(run.last_outcome, run.last_finished_at),),
            )
            for run in runs
        ]

    async def _probe(self, name: str, url: str) -> Check:
        label = Phrase("status.service.integration", {"name": name})
        started = time.perf_counter()
        try:
            response = await self._http.get(url, timeout=PROBE_TIMEOUT_S)
        except httpx.HTTPError as exc:
            return Check(name, "down", type(exc).__name__, label, (Phrase("status.http.down"),))
        ms = round((time.perf_counter() - started) * 1000)
        detail = f"HTTP {response.status_code}, {ms} ms"
        if response.status_code >= 500:
            says = Phrase("status.http.error", {"code": response.status_code})
            return Check(name, "down", detail, label, (says,))
        return Check(name, "ok", detail, label, (Phrase("status.http.ok", {"ms": ms}),))
