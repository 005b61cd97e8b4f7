"""Prometheus metrics of one bot process (``GET /metrics`` in webhook mode).

One ``Metrics`` per process, with its own registry (no module-level collectors):
the counters are fed by the inbox middleware (updates by type and outcome) and the
interaction recorder (reply latency by mode, crew runs); the gauges that live in the
database or in other services (outbox and inbox backlog, job runs by outcome,
breaker state) are read when Prometheus scrapes, by ``refresh``.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from prometheus_client import CONTENT_TYPE_LATEST as CONTENT_TYPE
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from db.repositories import inbox as inbox_repo
from db.repositories import jobs as jobs_repo
from db.uow import Database
from pipeline.memory.profiles.recording import InteractionRecord

logger = logging.getLogger(__name__)

__all__ = ["CONTENT_TYPE", "Metrics"]

BREAKER_STATES = ("closed", "half_open", "open", "disabled")
#: Seconds: light replies are milliseconds, deep ones with an LLM tens of seconds.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120)


class Metrics:
    def __init__(
        self,
        db: Database,
        *,
        outbox_backlog: Callable[[], Awaitable[int]],
        breaker_state: Callable[[], str],
        transport: str,
    ) -> None:
        self._db = db
        self._outbox_backlog = outbox_backlog
        self._breaker_state = breaker_state
        self._transport = transport
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.updates = Counter(
            "stepan_updates", "Telegram updates handled", ["type", "outcome"], registry=r
        )
        self.latency = Histogram(
            "stepan_reply_latency_seconds",
            "Time from a message to its recorded reply",
            ["mode", "transport"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.crew_runs = Counter(
            "stepan_crew_runs", "Deep requests answered by the crew", ["crew_size"], registry=r
        )
        self.breaker = Gauge(
            "stepan_memory_breaker_state",
            "memory-service circuit breaker (1 for the current state)",
            ["state"],
            registry=r,
        )
        self.outbox = Gauge("stepan_outbox_backlog", "Profile changes not yet synced", registry=r)
        self.inbox = Gauge(
            "stepan_inbox_backlog", "Telegram updates stored and not yet handled", registry=r
        )
        self.job_runs = Gauge(
            "stepan_job_slots",
            "Scheduled slots claimed (all instances), by job and outcome",
            ["job", "outcome"],
            registry=r,
        )

    def update_handled(self, update_type: str, outcome: str) -> None:
        self.updates.labels(update_type, outcome).inc()

    def interaction(self, record: InteractionRecord) -> None:
        mode = str(record.decision.mode)
        self.latency.labels(mode, self._transport).observe(record.latency_ms / 1000)
        if record.crew:
            self.crew_runs.labels(str(len(record.crew))).inc()

    async def refresh(self) -> None:
        """Read the gauges that live elsewhere; a failing source is logged and left."""
        current = self._breaker_state()
        for state in BREAKER_STATES:
            self.breaker.labels(state).set(1 if state == current else 0)
        try:
            self.outbox.set(await self._outbox_backlog())
            async with self._db.read() as session:
                self.inbox.set(await inbox_repo.backlog(session))
                slots = await jobs_repo.slot_outcomes(session)
            for (job_id, outcome), count in slots.items():
                self.job_runs.labels(job_id, outcome).set(count)
        except Exception:
            logger.warning("metrics: the database did not answer", exc_info=True)

    async def render(self) -> bytes:
        await self.refresh()
        return bytes(generate_latest(self.registry))
