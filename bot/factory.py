"""Builds everything with a lifetime: engine, HTTP client, pipeline, bot, dispatcher,
scheduler. Nothing here is a module global; the caller owns what it builds."""

from __future__ import annotations

from dataclasses import dataclass

import httpx
from aiogram import Bot, Dispatcher
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.exceptions import TelegramForbiddenError
from aiogram.fsm.storage.base import BaseStorage
from aiogram.fsm.storage.memory import MemoryStorage
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bot.config import Settings
from bot.handlers import build_root_router
from bot.middlewares.db_session import DbSessionMiddleware
from bot.middlewares.in_flight import InFlightMiddleware
from bot.middlewares.trace import TraceMiddleware
from bot.middlewares.user_order import UserOrderMiddleware
from bot.render import send_reply
from bot.scheduler import JobRunner, build_scheduler, default_jobs, instance_id
from db.engine import create_engine, create_session_factory
from pipeline.crew.llm import LlmSettings
from pipeline.crew.wiring import build_brains
from pipeline.farm.alerts import AlertWatcher, RecipientGone
from pipeline.farm.journal import Journal
from pipeline.farm.terms import TermReview
from pipeline.handle import Pipeline, PipelineConfig
from pipeline.i18n import Catalog
from pipeline.memory import build_memory_manager
from pipeline.memory.manager import MemoryManager
from pipeline.onboarding import OnboardingFlow
from pipeline.platform_status import LlmHealth, PlatformStatus
from pipeline.rulebook import Rulebook
from pipeline.types import Reply

#: Seed 3.2: the memory-service gets 2 s, then Stepan goes on without it.
MEMORY_SERVICE_TIMEOUT_S = 2.0


@dataclass(slots=True)
class Core:
    """What the bot, the console chat and the tests share."""

    settings: Settings
    engine: AsyncEngine
    session_factory: async_sessionmaker[AsyncSession]
    http: httpx.AsyncClient
    pipeline: Pipeline
    onboarding: OnboardingFlow
    llm_health: LlmHealth
    platform: PlatformStatus

    async def close(self) -> None:
        await self.pipeline.memory.drain()
        await self.http.aclose()
        await self.engine.dispose()


def build_pipeline(
    settings: Settings,
    catalog: Catalog | None = None,
    memory: MemoryManager | None = None,
    llm_health: LlmHealth | None = None,
    rules: Rulebook | None = None,
) -> Pipeline:
    catalog = catalog or Catalog.load()
    memory = memory or MemoryManager()
    # Every rules file is read here, once, and handed to who uses it.
    rules = rules or Rulebook.load()
    journal = Journal(catalog, memory, parser=rules.parser(), vocabulary=rules.vocabulary)
    stepan = settings.stepan
    llm = None
    if settings.llm_configured and stepan.llm_model:
        base_url = str(stepan.llm_base_url) if stepan.llm_base_url else None
        llm = LlmSettings(model=stepan.llm_model, base_url=base_url, api_key=stepan.llm_api_key)
    # Without an LLM: templates and the offline composer. With one: one short LLM call
    # for light replies and the CrewAI crew for deep ones (CrewAI imported lazily).
    brains = build_brains(
        catalog,
        journal,
        memory,
        rules=rules,
        llm=llm,
        health=llm_health or LlmHealth(configured=settings.llm_configured),
        integrations=settings.integrations,
    )
    return Pipeline(
        config=PipelineConfig(force_deep=settings.agx.force_deep),
        catalog=catalog,
        classifier=rules.classifier,
        memory=memory,
        responder=brains.responder,
        deep=brains.deep,
        journal=journal,
    )


def build_core(settings: Settings, rules: Rulebook | None = None) -> Core:
    rules = rules or Rulebook.load()
    engine = create_engine(settings.stepan.database_url)
    http = httpx.AsyncClient(timeout=MEMORY_SERVICE_TIMEOUT_S)
    url = settings.agx.memory_service_url
    memory = build_memory_manager(str(url) if url else None, http)
    llm_health = LlmHealth(configured=settings.llm_configured)
    pipeline = build_pipeline(settings, memory=memory, llm_health=llm_health, rules=rules)
    session_factory = create_session_factory(engine)
    return Core(
        settings=settings,
        engine=engine,
        session_factory=session_factory,
        http=http,
        pipeline=pipeline,
        onboarding=OnboardingFlow(pipeline.catalog, memory, rules.vocabulary.shared()),
        llm_health=llm_health,
        platform=PlatformStatus(
            session_factory=session_factory,
            memory=memory,
            llm=llm_health,
            http=http,
            integrations=settings.integrations,
        ),
    )


def build_bot(settings: Settings) -> Bot:
    token = settings.stepan.bot_token
    if token is None:
        raise ValueError("STEPAN_BOT_TOKEN is not set")
    session = None
    if settings.stepan.telegram_api_url is not None:
        base = str(settings.stepan.telegram_api_url).rstrip("/")
        session = AiohttpSession(api=TelegramAPIServer.from_base(base))
    # parse_mode stays None: replies are plain text (model output must never fail
    # to parse as HTML/Markdown).
    return Bot(
        token.get_secret_value(), session=session, default=DefaultBotProperties(parse_mode=None)
    )


def build_storage(settings: Settings) -> BaseStorage:
    """FSM state (onboarding): in memory for one instance, Redis for several."""
    if settings.stepan.redis_url is None:
        return MemoryStorage()
    from aiogram.fsm.storage.redis import RedisStorage

    return RedisStorage.from_url(settings.stepan.redis_url.get_secret_value())


class TelegramAlertSender:
    """The sensor watcher's AlertSender (pipeline/farm/alerts.py) over the running bot."""

    def __init__(self) -> None:
        self._bot: Bot | None = None

    async def bind(self, bot: Bot | None = None) -> None:
        """Dispatcher startup hook: aiogram passes the bot it runs with."""
        if bot is not None:
            self._bot = bot

    async def send(self, chat_id: int, text: str) -> None:
        if self._bot is None:
            raise RuntimeError("no bot bound yet: alerts wait for the next run")
        try:
            await send_reply(self._bot, chat_id, Reply(text=text))
        except TelegramForbiddenError as exc:
            raise RecipientGone(str(exc)) from exc


def build_dispatcher(core: Core) -> Dispatcher:
    dispatcher = Dispatcher(
        storage=build_storage(core.settings),
        settings=core.settings,
        pipeline=core.pipeline,
        catalog=core.pipeline.catalog,
        onboarding=core.onboarding,
        terms=TermReview(core.pipeline.memory),
        platform=core.platform,
    )
    # Outer middlewares run in registration order: the in-flight counter first (so
    # shutdown can wait for every update), trace (so every log line has it), then
    # per-user ordering, and the session last so nobody holds a
    # database session while waiting for their turn.
    in_flight = InFlightMiddleware()
    dispatcher.update.outer_middleware(in_flight)
    dispatcher.update.outer_middleware(TraceMiddleware())
    dispatcher.update.outer_middleware(UserOrderMiddleware())
    dispatcher.update.outer_middleware(DbSessionMiddleware(core.session_factory))
    dispatcher.include_router(build_root_router())
    # Sensor alerts need a bot to send with, and the bot only exists once polling (or
    # the webhook) starts: the sender is bound by a startup hook, before the jobs run.
    alert_sender = TelegramAlertSender()
    watcher = AlertWatcher(alert_sender, core.pipeline.memory, core.pipeline.catalog)
    scheduler = build_scheduler(
        JobRunner(core.session_factory, instance_id()),
        default_jobs(core.pipeline.memory, watcher=watcher),
    )

    async def start_jobs() -> None:
        scheduler.start()

    async def stop_jobs() -> None:
        scheduler.shutdown(wait=False)

    dispatcher.startup.register(alert_sender.bind)
    dispatcher.startup.register(start_jobs)
    dispatcher.shutdown.register(stop_jobs)
    dispatcher["scheduler"] = scheduler
    dispatcher["in_flight"] = in_flight
    return dispatcher
