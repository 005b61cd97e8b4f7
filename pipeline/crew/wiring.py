"""Builds the deep path and the light responder, with or without an LLM.

``bot/wiring/factory.py`` calls :func:`build_brains` with the settings' LLM (or None); tests
and benchmarks pass a ready CrewAI ``BaseLLM`` (a scripted one) instead.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import httpx

from db.uow import Database
from pipeline.admin.platform import PROBE_TIMEOUT_S, Check, LlmHealth, PlatformStatus
from pipeline.crew.composer import Composer, ComposerParts
from pipeline.crew.context import RunContext
from pipeline.crew.llm import LlmClient, LlmHandle, LlmSettings
from pipeline.crew.orchestrator import CrewParts
from pipeline.crew.pool import WorkerPool
from pipeline.crew.runner import CrewRunner
from pipeline.crew.tools import FarmTools, PlatformProbe
from pipeline.deep import DeepPath, DeepTemplate
from pipeline.farm.journal.service import Journal
from pipeline.language.catalog import Catalog
from pipeline.memory.service.syncing import MemorySync
from pipeline.replies.light import LlmResponder
from pipeline.rulebook import Rulebook

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Brains:
    responder: LlmResponder
    deep: DeepPath
    #: One-shot completions when an LLM is configured (grounded agronomy answers).
    client: LlmClient | None = None


def platform_probe(
    db: Database, sync: MemorySync, health: LlmHealth, integrations: Mapping[str, str]
) -> PlatformProbe:
    """PlatformStatus with a short-lived HTTP client: the platform agent is asked
    rarely, and the pipeline owns no client of its own."""

    async def probe(ctx: RunContext) -> list[Check]:
        async with httpx.AsyncClient(timeout=PROBE_TIMEOUT_S) as http:
            status = PlatformStatus(
                db=db,
                sync=sync,
                llm=health,
                http=http,
                integrations=integrations,
            )
            return await status.collect()

    return probe


def standard_tools(
    db: Database,
    sync: MemorySync,
    *,
    rules: Rulebook,
    health: LlmHealth,
    integrations: Mapping[str, str] | None = None,
) -> FarmTools:
    """Every farm tool, over the database, the platform's probes and the rulebook."""
    return FarmTools.standard(
        platform_probe(db, sync, health, integrations or {}),
        words=rules.words,
        dates=rules.dates,
        units=rules.units,
        sensors=rules.sensors,
    )


def build_brains(
    catalog: Catalog,
    journal: Journal,
    db: Database,
    sync: MemorySync,
    *,
    rules: Rulebook,
    llm: LlmSettings | Any | None = None,
    health: LlmHealth | None = None,
    integrations: Mapping[str, str] | None = None,
    tools: FarmTools | None = None,
    learnings: Callable[[], str] | None = None,
) -> Brains:
    """The light responder and the deep path: one deep template, whose parts are
    composed from the tools (``llm`` None) or written by the crew (``llm`` is
    LlmSettings, built lazily, or a ready CrewAI BaseLLM). ``tools`` defaults to
    :func:`standard_tools`."""
    crew, prompts = rules.crew, rules.prompts
    health = health or LlmHealth(configured=llm is not None)
    if tools is None:
        tools = standard_tools(db, sync, rules=rules, health=health, integrations=integrations)
    composer = Composer(catalog, journal, tools, db)
    max_parallel = crew.limits.max_parallel_agents
    if llm is None:
        offline = DeepTemplate(composer, ComposerParts(composer), max_parallel=max_parallel)
        return Brains(LlmResponder(catalog), offline)
    limits = crew.limits
    if isinstance(llm, LlmSettings):
        handle = LlmHandle.from_settings(
            replace(llm, request_timeout_s=limits.llm_request_timeout_s)
        )
    else:
        handle = LlmHandle.of(llm)
    client = LlmClient(
        handle,
        WorkerPool(limits.worker_threads),
        health=health,
        retries=limits.retries,
        backoff_s=limits.retry_backoff_s,
        learnings=learnings,
    )
    runner = CrewRunner(client, crew, tools)
    runner.warm_up()
    parts = CrewParts(
        catalog=catalog, composer=composer, runner=runner, client=client, prompts=prompts
    )
    deep = DeepTemplate(composer, parts, max_parallel=max_parallel)
    responder = LlmResponder(
        catalog,
        client,
        prompts=prompts.light,
        timeout_s=limits.light_timeout_s,
        season=tools.words.season,
    )
    return Brains(responder, deep, client)
