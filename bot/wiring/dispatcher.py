"""The dispatcher of a built ``Core``: handlers' workflow data, middlewares, the
scheduler's jobs and the start-up hooks (split from bot/wiring/factory.py by job). FSM
storage: memory for one instance, Redis (with a fallback) for several."""

from __future__ import annotations

import logging

from aiogram import Dispatcher
from aiogram.fsm.storage.base import BaseEventIsolation, BaseStorage
from aiogram.fsm.storage.memory import MemoryStorage
from apscheduler.schedulers.asyncio import AsyncIOScheduler

from bot.config import Settings
from bot.delivery.unasked import TelegramAlertSender
from bot.handlers import build_root_router
from bot.keyboards.pipeline import keyboard
from bot.middlewares.clean_input import CleanInputMiddleware
from bot.middlewares.in_flight import InFlightMiddleware
from bot.middlewares.language import LanguageMiddleware
from bot.middlewares.trace import TraceMiddleware
from bot.middlewares.user_order import UserOrderMiddleware
from bot.user_ids import stepan_user_id, telegram_id
from bot.wiring.factory import Core
from bot.wiring.fsm_storage import FallbackIsolation, FallbackStorage, RenewingRedisIsolation
from bot.wiring.scheduler import (
    JobRunner,
    build_scheduler,
    default_jobs,
    instance_id,
    scheduler_hooks,
)
from bot.wiring.store_watch import store_watch_hooks
from db.checkpoint import WalCheckpointer
from pipeline.admin.keyboards import proposal_buttons
from pipeline.farm.journal.edits.reminders import PlanReminders, Reminder
from pipeline.farm.sensors.alerts import AlertWatcher
from pipeline.language.texts import Texts
from pipeline.types import Language
from pipeline.weather.warning_rules import WarningRules
from pipeline.weather.warnings import WeatherWarnings

logger = logging.getLogger(__name__)


def build_storage(settings: Settings) -> BaseStorage:
    """FSM state (onboarding): in memory for one instance, Redis for several."""
    if settings.stepan.redis_url is None:
        return MemoryStorage()
    from aiogram.fsm.storage.redis import RedisStorage
    from redis.exceptions import RedisError

    redis = RedisStorage.from_url(
        settings.stepan.redis_url.get_secret_value(),
        # A Redis host that stopped answering must not hold every update for long.
        connection_kwargs={"socket_connect_timeout": 2.0, "socket_timeout": 2.0},
    )
    # Redis gone: state kept in memory meanwhile, a warning, no failed updates.
    return FallbackStorage(redis, errors=(RedisError, OSError, TimeoutError))


def isolation(storage: BaseStorage, ttl: float) -> BaseEventIsolation | None:
    """The per-user Redis lock: renewed while its update runs (the longest deep reply
    keeps it), lost within ``ttl`` when its instance dies (bot/wiring/fsm_storage.py)."""
    from aiogram.fsm.storage.redis import RedisStorage

    if isinstance(storage, FallbackStorage) and isinstance(storage.primary, RedisStorage):
        redis = RenewingRedisIsolation(storage.primary.redis, ttl, storage.primary.key_builder)
        return FallbackIsolation(redis, errors=storage.errors)
    if not isinstance(storage, RedisStorage):
        return None
    return RenewingRedisIsolation(storage.redis, ttl, storage.key_builder)


def operator_services(core: Core) -> dict[str, object]:
    """The services only operators' handlers use: given to their branch alone, not
    carried by every update (bot/middlewares/services.py)."""
    return {
        # The cards, their edits and decisions (pipeline/admin/buttons.py AdminServices).
        "admin": core.admin,
        "terms": core.terms,
        "sensors": core.sensors,
        "platform": core.platform,
        "learnings": core.learnings,  # /learnings
        "quality": core.quality,  # /stats
        "overlays": core.overlays,  # /rules
    }


def build_dispatcher(core: Core) -> Dispatcher:
    # Workflow data: a handler declares the services it uses by these names, and
    # aiogram passes exactly those. No handler opens a session or sees a repository:
    # each service call is a use case that opens its own transactions.
    storage = build_storage(core.settings)
    dispatcher = Dispatcher(
        storage=storage,
        # Several instances: one user's updates one at a time across all of them (a
        # Redis lock per user and chat), as UserOrderMiddleware does within one.
        events_isolation=isolation(storage, core.settings.stepan.inbox_lease_s),
        settings=core.settings,
        catalog=core.pipeline.catalog,
        pipeline=core.pipeline,  # handle_message / handle_action
        profiles=core.memory.profiles,  # ProfileLoader: /me, operators' cards
        profile_editor=core.memory.editor,  # ProfileEditor: styles, operator edits, forget
        onboarding=core.onboarding,
        # /answer, /questions, /myquestions (docs/knowledge.md).
        agronomist=core.pipeline.advisor.desk if core.pipeline.advisor else None,
        names=core.names,  # NameBook: /me, /profile, /farm show names, never ids
        conversations=core.pipeline.recall.conversations if core.pipeline.recall else None,
        listener=core.listener,  # voice messages (bot/handlers/voice.py)
    )
    in_flight = _outer_middlewares(dispatcher)
    # The reply language, once per message or button, after every update's outer
    # middleware (also those serving adds: the inbox, the throttle), before any filter.
    language = LanguageMiddleware()
    dispatcher.message.outer_middleware(language)
    dispatcher.callback_query.outer_middleware(language)
    dispatcher.include_router(build_root_router(operator_services(core)))
    # Sensor alerts need a bot to send with, and the bot only exists once polling (or
    # the webhook) starts: the sender is bound by a startup hook, before the jobs run.
    alert_sender = TelegramAlertSender()
    scheduler = _scheduler(core, alert_sender)
    start_jobs, stop_jobs = scheduler_hooks(scheduler)
    start_watch, stop_watch = store_watch_hooks(core, alert_sender)

    async def mirror_operators() -> None:
        # The profiles' operator flag follows AGX_OPERATOR_IDS (also when an id left
        # the list); a database that is down only delays it to each next message.
        operators = {stepan_user_id(user) for user in core.settings.agx.operator_ids}
        try:
            await core.memory.learner.sync_operators(operators)
        except Exception:
            logger.exception("operator flags not synced at start-up")

    dispatcher.startup.register(alert_sender.bind)
    # The SQLite file deleted or replaced under the bot: writes stop, operators told.
    dispatcher.startup.register(start_watch)
    dispatcher.startup.register(start_jobs)
    dispatcher.startup.register(mirror_operators)
    # NATS connects in the background: a server that is down delays nothing.
    dispatcher.startup.register(core.start_peers)
    dispatcher.shutdown.register(stop_jobs)
    dispatcher.shutdown.register(stop_watch)
    dispatcher["scheduler"] = scheduler
    dispatcher["in_flight"] = in_flight
    return dispatcher


def _outer_middlewares(dispatcher: Dispatcher) -> InFlightMiddleware:
    """Registers the outer middlewares; returns the in-flight counter shutdown waits on."""
    # Outer middlewares run in registration order: the in-flight counter first (so
    # shutdown can wait for every update), trace (so every log line has it), then
    # per-user ordering.
    in_flight = InFlightMiddleware()
    dispatcher.update.outer_middleware(in_flight)
    dispatcher.update.outer_middleware(TraceMiddleware())
    # No NUL or control characters reach a handler (bot/middlewares/clean_input.py).
    dispatcher.update.outer_middleware(CleanInputMiddleware())
    dispatcher.update.outer_middleware(UserOrderMiddleware())
    return in_flight


def _scheduler(core: Core, alert_sender: TelegramAlertSender) -> AsyncIOScheduler:
    """The scheduler with the default jobs, alerts and nightly cards sent through
    ``alert_sender``."""
    watcher = AlertWatcher(
        alert_sender, core.db, core.memory.editor, core.pipeline.catalog, core.sensors.types
    )
    catalog = core.pipeline.catalog

    async def send_nightly(chat_id: int, text: str, proposal: int | None, lang: Language) -> None:
        # In the operator's language (pipeline/learning/nightly.py); a card gets ✅ / ❌.
        buttons = proposal_buttons(proposal, Texts(catalog, lang)) if proposal is not None else ()
        markup = keyboard(buttons)
        await alert_sender.send(chat_id, text, markup)

    async def send_reminder(reminder: Reminder) -> bool:
        # «Виконано?» with its buttons; a farmer who blocked the bot is skipped.
        chat = telegram_id(reminder.user_id)
        if chat is None:
            return False
        try:
            await alert_sender.send(chat, reminder.reply.text, keyboard(reminder.reply.buttons))
        except Exception:
            logger.warning("plan reminder to %s not sent", reminder.user_id, exc_info=True)
            return False
        return True

    return build_scheduler(
        JobRunner(core.db, instance_id(), file_watch=core.file_watch),
        default_jobs(
            core.db,
            sweep=core.memory.sweep,
            learner=core.memory.learner,
            cache=core.memory.cache,
            sync=core.memory.sync,
            watcher=watcher,
            nightly=core.nightly.with_sender(send_nightly),
            nightly_at=core.nightly.at,
            farm_timezone=core.settings.stepan.farm_timezone,
            agronomist=core.pipeline.advisor.desk if core.pipeline.advisor else None,
            notify=alert_sender.send,
            conversations=core.pipeline.recall.conversations if core.pipeline.recall else None,
            wal=WalCheckpointer.for_url(core.settings.stepan.database_url),
            reminders=PlanReminders(core.db, catalog),
            remind=send_reminder,
            forecasts=core.forecasts,
            warnings=WeatherWarnings(
                core.db, core.forecasts, catalog, alert_sender.send, WarningRules.load()
            ),
        ),
    )
