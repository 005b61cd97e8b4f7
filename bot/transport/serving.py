"""How `stepan run` takes updates: the inbox, throttling, metrics, and the two
transports (long polling, or the webhook server for several instances).

``serve`` is the shape of both: startup hooks, the stored updates nobody finished
(replayed first), the transport until SIGTERM, then shutdown hooks (updates in
progress finish; queued ones are left to the inbox for a replay).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

from aiogram import Bot, Dispatcher
from aiogram.fsm.storage.redis import RedisStorage
from aiogram.methods import SetWebhook

from bot.delivery.deferred import DeferredSends
from bot.http.metrics import Metrics
from bot.http.readiness import readiness_checks
from bot.http.webhook import WebhookServer
from bot.transport.inbox import Inbox, InboxMiddleware, Replayer
from bot.transport.polling import Poller
from bot.transport.throttle import Bucket, MemoryBucket, RedisBucket, ThrottleMiddleware
from bot.transport.unstored import UnstoredAnswers
from bot.wiring.factory import Core
from bot.wiring.fsm_storage import FallbackStorage
from bot.wiring.scheduler import instance_id
from db.schema import SchemaCheck

logger = logging.getLogger(__name__)

Transport = Callable[[asyncio.Event], Awaitable[None]]


def build_metrics(core: Core, transport: str) -> Metrics:
    metrics = Metrics(
        core.db,
        outbox_backlog=core.memory.sync.backlog,
        breaker_state=lambda: core.memory.sync.breaker_state,
        transport=transport,
    )
    core.memory.interactions.observe(metrics.interaction)
    return metrics


def redis_of(dispatcher: Dispatcher) -> Any:
    """The Redis client of the FSM storage, if the dispatcher keeps state there
    (behind the memory fallback that bot/wiring/dispatcher.py's build_storage puts around it)."""
    storage = dispatcher.fsm.storage
    if isinstance(storage, FallbackStorage):
        storage = storage.primary
    return storage.redis if isinstance(storage, RedisStorage) else None


def build_deferred(core: Core) -> DeferredSends:
    """Replies waiting out flood control, kept in the database (bot/delivery/deferred.py)."""
    lease = timedelta(seconds=core.settings.stepan.inbox_lease_s)
    return DeferredSends(core.db, instance_id(), lease)


def build_inbox(
    core: Core,
    dispatcher: Dispatcher,
    metrics: Metrics | None = None,
    deferred: DeferredSends | None = None,
) -> Inbox:
    """The update inbox (bot/transport/inbox.py), claiming after the per-user ordering, then
    the per-user throttle (a dropped update is still marked done). With ``deferred``
    both claim as one owner: a kept reply marks its update done as its holder."""
    lease = timedelta(seconds=core.settings.stepan.inbox_lease_s)
    inbox = Inbox(core.db, deferred.owner if deferred is not None else instance_id(), lease)
    observe = metrics.update_handled if metrics is not None else None
    dispatcher.update.outer_middleware(InboxMiddleware(inbox, observe))
    settings = core.settings.stepan
    redis = redis_of(dispatcher)
    bucket: Bucket = (
        RedisBucket(redis, settings.throttle_burst, settings.throttle_rate)
        if redis is not None
        else MemoryBucket(settings.throttle_burst, settings.throttle_rate)
    )
    dispatcher.update.outer_middleware(ThrottleMiddleware(bucket, core.pipeline.catalog))
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
    dispatcher: Dispatcher,
    bot: Bot,
    inbox: Inbox,
    run: Transport,
    stop: asyncio.Event,
    deferred: DeferredSends | None = None,
) -> None:
    """Startup hooks, the inbox's replays (stored unhandled updates first), ``run``
    until ``stop``, then shutdown hooks (which wait for updates in flight)."""
    workflow = {"dispatcher": dispatcher, "bots": [bot], **dispatcher.workflow_data}
    workflow.pop("bot", None)
    await dispatcher.emit_startup(bot=bot, **workflow)
    replayer = Replayer(inbox, dispatcher, bot, deferred)
    maintenance: asyncio.Task[None] | None = None
    # From the signal on, no new work: what is being handled finishes (shutdown hooks
    # wait for it), what was claimed and not started goes back to the inbox for a
    # replay, even while the transport is still closing (the webhook's 5 s).
    signalled = asyncio.ensure_future(stop.wait())
    signalled.add_done_callback(lambda _: inbox.stop_intake())
    try:
        await replayer.sweep()
        maintenance = asyncio.create_task(replayer.run(stop))
        await run(stop)
    finally:
        inbox.stop_intake()
        stop.set()
        if maintenance is not None:
            await maintenance
        try:
            await dispatcher.emit_shutdown(bot=bot, **workflow)
        finally:
            await bot.session.close()


def unstored_answers(core: Core, bot: Bot) -> UnstoredAnswers:
    """What answers the updates the inbox cannot store (bot/transport/unstored.py)."""
    return UnstoredAnswers(bot, core.pipeline, core.platform, core.settings.agx.operator_ids)


def polling(
    dispatcher: Dispatcher, bot: Bot, inbox: Inbox, unstored: UnstoredAnswers | None = None
) -> Transport:
    return Poller(dispatcher, bot, inbox, unstored=unstored).run


def webhook(
    core: Core, dispatcher: Dispatcher, bot: Bot, inbox: Inbox, metrics: Metrics
) -> Transport:
    settings = core.settings.stepan
    if settings.webhook_secret is None:
        raise ValueError("STEPAN_WEBHOOK_SECRET is not set: webhook mode needs it")
    server = WebhookServer(
        dispatcher=dispatcher,
        bot=bot,
        inbox=inbox,
        secret=settings.webhook_secret.get_secret_value(),
        path=settings.webhook_path,
        checks=readiness_checks(core.db, SchemaCheck.load(), redis_of(dispatcher)),
        metrics=metrics,
        unstored=unstored_answers(core, bot),
    )

    async def run(stop: asyncio.Event) -> None:
        await server.run(stop, settings.webhook_host, settings.webhook_port)

    return run


def set_webhook(core: Core, dispatcher: Dispatcher, bot: Bot) -> Callable[[], Awaitable[None]]:
    """The start-up call of webhook mode: point Telegram at STEPAN_WEBHOOK_URL (all
    instances set the same URL), or nothing when another party manages it."""
    settings = core.settings.stepan

    async def call() -> None:
        if settings.webhook_url is None or settings.webhook_secret is None:
            return
        await bot(
            SetWebhook(
                url=str(settings.webhook_url),
                secret_token=settings.webhook_secret.get_secret_value(),
                allowed_updates=dispatcher.resolve_used_update_types(),
                drop_pending_updates=False,
            )
        )

    return call
