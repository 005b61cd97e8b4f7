"""`stepan run`: migrate, then long polling until SIGTERM/SIGINT."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from datetime import timedelta
from typing import Any

from aiogram import Bot, Dispatcher, methods
from aiogram.methods.base import Response

from bot.config import Settings
from bot.factory import Core, build_bot, build_core, build_dispatcher
from bot.inbox import Inbox, InboxMiddleware, Replayer
from bot.polling import Poller
from bot.scheduler import instance_id
from bot.startup import StartupCalls
from bot.web import ReadingsServer
from db.migrate import upgrade_async

logger = logging.getLogger(__name__)

#: How long SIGTERM waits for updates in flight before closing the database.
SHUTDOWN_GRACE_S = 20.0

#: The Bot API methods Stepan calls (see pin_response_models).
BOT_API_METHODS = (
    methods.GetUpdates, methods.GetMe, methods.SendMessage, methods.SendChatAction,
    methods.AnswerCallbackQuery, methods.EditMessageText, methods.SendDocument,
    methods.SendPhoto, methods.GetFile, methods.SetMyCommands, methods.DeleteWebhook,
)  # fmt: skip


def pin_response_models() -> list[type]:
    """aiogram parses every Bot API answer into ``Response[<returned type>]``, a
    pydantic generic model built on first use. pydantic caches those classes only
    weakly (a WeakValueDictionary, itself kept in a ContextVar that starts unset), so
    between two calls the class is garbage collected and the next call builds it
    again: measured with py-spy, about a seventh of the bot's CPU under load.
    Building them all once here, and holding the list for the bot's lifetime, keeps
    every one cached; doing it in the main task also sets the ContextVar before any
    update task copies the context."""
    generic: Any = Response  # parametrised with runtime values, which mypy cannot follow
    return [generic[method.__returning__] for method in BOT_API_METHODS]


def build_inbox(core: Core, dispatcher: Dispatcher) -> Inbox:
    """The update inbox (bot/inbox.py), claiming after the per-user ordering."""
    lease = timedelta(seconds=core.settings.stepan.inbox_lease_s)
    inbox = Inbox(core.db, instance_id(), lease)
    dispatcher.update.outer_middleware(InboxMiddleware(inbox))
    return inbox


def stop_on_signals() -> asyncio.Event:
    """An event set by SIGTERM or SIGINT."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    return stop


async def serve(
    dispatcher: Dispatcher, bot: Bot, inbox: Inbox, run: Any, stop: asyncio.Event
) -> None:
    """Startup hooks, the inbox's replays (stored unhandled updates first), ``run``
    until ``stop``, then shutdown hooks (which wait for updates in flight)."""
    workflow = {"dispatcher": dispatcher, "bots": [bot], **dispatcher.workflow_data}
    workflow.pop("bot", None)
    await dispatcher.emit_startup(bot=bot, **workflow)
    replayer = Replayer(inbox, dispatcher, bot)
    maintenance: asyncio.Task[None] | None = None
    try:
        await replayer.sweep()
        maintenance = asyncio.create_task(replayer.run(stop))
        await run(stop)
    finally:
        stop.set()
        if maintenance is not None:
            await maintenance
        try:
            await dispatcher.emit_shutdown(bot=bot, **workflow)
        finally:
            await bot.session.close()


async def run_bot(settings: Settings) -> None:
    pinned_models = pin_response_models()
    await upgrade_async(settings.stepan.database_url)
    core = build_core(settings)
    bot = build_bot(settings)
    dispatcher = build_dispatcher(core)
    inbox = build_inbox(core, dispatcher)
    # --- sensor readings endpoint (bot/web.py); off unless STEPAN_HTTP_PORT is set.
    # Registered before on_shutdown below, so it stops before the engine is disposed.
    readings = ReadingsServer(settings.stepan, core.sensors)
    dispatcher.startup.register(readings.start)
    dispatcher.shutdown.register(readings.stop)
    # --- end of the readings endpoint

    # deleteWebhook, setMyCommands, getMe: a failure is logged and retried in the
    # background, never fatal (bot/startup.py).
    startup_calls = StartupCalls(bot, core.pipeline.catalog, settings.agx.operator_ids)

    async def on_shutdown() -> None:
        logger.info("Stepan is shutting down")
        # Updates taken from Telegram are stored in the inbox: what does not finish
        # within the grace is replayed by the next instance once its lease runs out.
        await dispatcher["in_flight"].wait_idle(SHUTDOWN_GRACE_S)
        await core.close()

    dispatcher.startup.register(startup_calls.start)
    dispatcher.shutdown.register(startup_calls.stop)
    dispatcher.shutdown.register(on_shutdown)
    stop = stop_on_signals()
    await serve(dispatcher, bot, inbox, Poller(dispatcher, bot, inbox).run, stop)
    del pinned_models  # held until polling stops
