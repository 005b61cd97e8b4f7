"""Profiles: SQL is the truth (seed 3.2 as DESIGN.md amends it); the memory-service
gets a copy through the outbox. See docs/memory.md.

One service per job, each injected only where it is used:

* ``ProfileLoader``: the cache, SQL, hydration from the service (the pipeline,
  /me, operators' cards);
* ``InteractionRecorder``: counters and the interactions row, group-committed (the
  pipeline);
* ``ProfileEditor``: style, operator edits, onboarding answers, the farm a journal
  card needs, the active flag, forget (the pipeline, journal, term review, alerts,
  onboarding, handlers);
* ``MemorySync``: the outbox flush, the backlog by state, dead letters, the breaker,
  ``pull`` (the flush job, platform status, ``stepan memory``);
* ``Summaries``: dialog summaries copied to / read from the memory-service;
* ``ExpertiseSweep``: the daily expertise rule over all users (the sweep job);
* ``ProfileLearner``: what the journal, sensor readings and the interactions teach
  the farm profile, the daily learning sweep, the operator flag (journal, sensor
  store, the /farm card, the sweep job, start-up);
* ``ProfileCache``: process-local LRU + TTL (the services above, the expiry job).

Each opens its own short transactions through the injected ``db.uow.Database``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import httpx

from db.uow import Database
from pipeline.clock import Clock, utcnow
from pipeline.memory.habits.learner import ProfileLearner
from pipeline.memory.habits.rules import LearningRules
from pipeline.memory.habits.sweep import ExpertiseSweep
from pipeline.memory.profiles.cache import ProfileCache
from pipeline.memory.profiles.editing import ProfileEditor
from pipeline.memory.profiles.errors import StoreUnavailable
from pipeline.memory.profiles.loading import Loaded, ProfileLoader
from pipeline.memory.profiles.recording import InteractionRecord, InteractionRecorder
from pipeline.memory.service.auth import Credentials
from pipeline.memory.service.breaker import CircuitBreaker
from pipeline.memory.service.client import MemoryServiceClient
from pipeline.memory.service.outbox import Outbox
from pipeline.memory.service.summaries import DialogSummary, StoredSummary, Summaries
from pipeline.memory.service.syncing import FlushResult, MemorySync

__all__ = [
    "CircuitBreaker",
    "Credentials",
    "DialogSummary",
    "ExpertiseSweep",
    "FlushResult",
    "InteractionRecord",
    "InteractionRecorder",
    "LearningRules",
    "Loaded",
    "Memory",
    "MemoryServiceClient",
    "MemorySync",
    "ProfileCache",
    "ProfileEditor",
    "ProfileLearner",
    "ProfileLoader",
    "StoreUnavailable",
    "StoredSummary",
    "Summaries",
    "build_memory",
    "memory_client",
]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Memory:
    """The memory services of one database, as the factory hands them out. Nothing
    takes this whole: each consumer gets the one service it uses."""

    cache: ProfileCache
    profiles: ProfileLoader
    interactions: InteractionRecorder
    editor: ProfileEditor
    sync: MemorySync
    summaries: Summaries
    sweep: ExpertiseSweep
    learner: ProfileLearner


def build_memory(
    db: Database,
    client: MemoryServiceClient | None = None,
    *,
    cache: ProfileCache | None = None,
    clock: Clock = utcnow,
    learning: LearningRules | None = None,
) -> Memory:
    """No client: SQL only (no outbox rows, the flush does nothing). ``learning``:
    the rules profiles learn by (the bot passes ``Rulebook.profiles``; default: the
    packaged rules/profiles.toml, read here)."""
    cache = cache if cache is not None else ProfileCache()
    outbox = Outbox(enabled=client is not None)
    learning = learning if learning is not None else LearningRules.load()
    return Memory(
        cache=cache,
        profiles=ProfileLoader(db, cache, client),
        interactions=InteractionRecorder(db, cache, outbox, clock, learning=learning),
        editor=ProfileEditor(db, cache, outbox, clock),
        sync=MemorySync(db, client, clock, cache),
        summaries=Summaries(client),
        sweep=ExpertiseSweep(db, cache, outbox, clock),
        learner=ProfileLearner(db, cache, outbox, clock, learning),
    )


def memory_client(
    memory_service_url: str | None,
    http: httpx.AsyncClient | None,
    *,
    credentials: Credentials | None = None,
    team_id: str | None = None,
) -> MemoryServiceClient | None:
    """The memory-service client the bot uses; None without a URL (SQL only).

    The caller owns ``http`` and closes it on shutdown; with a URL it must be given,
    because a client built here would have nobody to close it.
    """
    if not memory_service_url:
        return None
    if http is None:
        raise ValueError("a memory-service URL needs an httpx.AsyncClient to call it with")
    if credentials is None or credentials.kind == "none":
        logger.warning(
            "memory-service: no AGX_MEMORY_SERVICE_JWT_SECRET or AGX_MEMORY_SERVICE_TOKEN; "
            "it will refuse every call (401) until one is set"
        )
    return MemoryServiceClient(memory_service_url, http, credentials=credentials, team_id=team_id)
