"""`stepan run`: migrate, then long polling (or, with --webhook, the webhook server:
bot/transport/serving.py) until SIGTERM/SIGINT."""

from __future__ import annotations

import logging
from typing import Any

from aiogram import methods
from aiogram.methods.base import Response

from bot.config import Settings
from bot.http.readings import ReadingsServer
from bot.middlewares.heap import install_heap_freezer
from bot.transport.serving import (
    build_deferred,
    build_inbox,
    build_metrics,
    polling,
    serve,
    set_webhook,
    stop_on_signals,
    unstored_answers,
    webhook,
)
from bot.wiring.dispatcher import build_dispatcher
from bot.wiring.factory import build_bot, build_core
from bot.wiring.memory import refuse_shared_static_token
from bot.wiring.startup import StartupCalls
from db.file_watch import refuse_to_recreate
from db.migrate import upgrade_async

logger = logging.getLogger(__name__)

#: How long SIGTERM waits for the updates being handled before closing the database
#: (the ones claimed and not started are given back to the inbox at once: bot/transport/inbox.py).
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


async def run_bot(settings: Settings, *, webhook_mode: bool = False, llm: Any = None) -> None:
    """``llm``: a ready CrewAI ``BaseLLM`` instead of STEPAN_LLM_* (bench/scale.py's
    scripted one)."""
    pinned_models = pin_response_models()
    # A SQLite file that was there and is gone is not silently made anew (only
    # `stepan migrate` does that): the start fails with what to do.
    refuse_to_recreate(settings.stepan.database_url)
    await upgrade_async(settings.stepan.database_url)
    # A static memory-service token acts for one farmer: refused with several.
    await refuse_shared_static_token(settings)
    core = build_core(settings, llm=llm)
    deferred = build_deferred(core)
    bot = build_bot(settings, deferred)
    dispatcher = build_dispatcher(core)
    metrics = build_metrics(core, "webhook" if webhook_mode else "polling")
    inbox = build_inbox(core, dispatcher, metrics, deferred)
    transport = (
        webhook(core, dispatcher, bot, inbox, metrics)
        if webhook_mode
        else polling(dispatcher, bot, inbox, unstored_answers(core, bot))
    )
    # --- sensor readings endpoint (bot/http/readings.py); off unless STEPAN_HTTP_PORT is set.
    # Registered before on_shutdown below, so it stops before the engine is disposed.
    readings = ReadingsServer(settings.stepan, core.sensors)
    dispatcher.startup.register(readings.start)
    dispatcher.shutdown.register(readings.stop)
    # --- end of the readings endpoint

    # deleteWebhook, setMyCommands, getMe: a failure is logged and retried in the
    # background, never fatal (bot/wiring/startup.py).
    startup_calls = StartupCalls(
        bot,
        core.pipeline.catalog,
        settings.agx.operator_ids,
        webhook=set_webhook(core, dispatcher, bot) if webhook_mode else None,
    )

    async def on_shutdown() -> None:
        logger.info("Stepan is shutting down")
        # Updates taken from Telegram are stored in the inbox: the queued ones were
        # given back for a replay; what does not finish within the grace is replayed
        # by the next instance once its lease runs out.
        await dispatcher["in_flight"].wait_idle(SHUTDOWN_GRACE_S)
        # Replies still waiting out flood control: the next start (or another
        # instance) sends them when due.
        await deferred.release()
        await core.close()

    dispatcher.startup.register(startup_calls.start)
    dispatcher.shutdown.register(startup_calls.stop)
    dispatcher.shutdown.register(on_shutdown)
    # Last startup hook: the warmed-up heap is frozen, full collections skip it.
    install_heap_freezer(dispatcher)
    stop = stop_on_signals()
    await serve(dispatcher, bot, inbox, transport, stop, deferred)
    del pinned_models  # held until polling stops
