"""Builds everything with a lifetime: engine, pipeline, bot, dispatcher.

Nothing here is a module global; the caller owns what it builds and closes it.
"""

from __future__ import annotations

from dataclasses import dataclass

from aiogram import Bot, Dispatcher
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from pipeline.classifier import Classifier
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bot.config import Settings
from bot.handlers import build_root_router
from bot.middlewares.db_session import DbSessionMiddleware
from bot.middlewares.trace import TraceMiddleware
from bot.middlewares.user_order import UserOrderMiddleware
from db.engine import create_engine, create_session_factory
from pipeline.handle import Pipeline, PipelineConfig
from pipeline.i18n import Catalog
from pipeline.memory.manager import MemoryManager
from pipeline.responder import TemplateResponder


@dataclass(slots=True)
class Core:
    """What the bot, the console chat and the tests share."""

    settings: Settings
    engine: AsyncEngine
    session_factory: async_sessionmaker[AsyncSession]
    pipeline: Pipeline

    async def close(self) -> None:
        await self.engine.dispose()


def build_pipeline(settings: Settings, catalog: Catalog | None = None) -> Pipeline:
    catalog = catalog or Catalog.load()
    return Pipeline(
        config=PipelineConfig(force_deep=settings.agx.force_deep),
        catalog=catalog,
        classifier=Classifier.from_file(),
        memory=MemoryManager(),
        responder=TemplateResponder(catalog),
    )


def build_core(settings: Settings) -> Core:
    engine = create_engine(settings.stepan.database_url)
    return Core(
        settings=settings,
        engine=engine,
        session_factory=create_session_factory(engine),
        pipeline=build_pipeline(settings),
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


def build_dispatcher(core: Core) -> Dispatcher:
    dispatcher = Dispatcher(
        settings=core.settings, pipeline=core.pipeline, catalog=core.pipeline.catalog
    )
    # Outer middlewares run in registration order: trace first (so every log line
    # has it), then per-user ordering, and the session last so nobody holds a
    # database session while waiting for their turn.
    dispatcher.update.outer_middleware(TraceMiddleware())
    dispatcher.update.outer_middleware(UserOrderMiddleware())
    dispatcher.update.outer_middleware(DbSessionMiddleware(core.session_factory))
    dispatcher.include_router(build_root_router())
    return dispatcher
