"""`stepan run`: migrate, then long polling until SIGTERM/SIGINT."""

from __future__ import annotations

import logging

from aiogram import Bot, Dispatcher
from aiogram.types import BotCommand, BotCommandScopeDefault

from bot.config import Settings
from bot.factory import build_bot, build_core, build_dispatcher
from db.migrate import upgrade_async
from pipeline.i18n import Catalog

logger = logging.getLogger(__name__)


async def set_commands(bot: Bot, catalog: Catalog) -> None:
    for lang in ("uk", "en"):
        commands = [
            BotCommand(command=name, description=catalog.text(lang, f"bot.commands.{name}"))
            for name in ("start", "help")
        ]
        # Ukrainian is the default list; English-speaking clients get their own.
        await bot.set_my_commands(
            commands, scope=BotCommandScopeDefault(), language_code=None if lang == "uk" else lang
        )


async def run_bot(settings: Settings) -> None:
    await upgrade_async(settings.stepan.database_url)
    core = build_core(settings)
    bot = build_bot(settings)
    dispatcher: Dispatcher = build_dispatcher(core)

    async def on_startup() -> None:
        await bot.delete_webhook(drop_pending_updates=False)
        await set_commands(bot, core.pipeline.catalog)
        me = await bot.get_me()
        logger.info("Stepan is up as @%s (long polling)", me.username)

    async def on_shutdown() -> None:
        logger.info("Stepan is shutting down")
        await core.close()

    dispatcher.startup.register(on_startup)
    dispatcher.shutdown.register(on_shutdown)
    # handle_signals: SIGTERM/SIGINT stop polling cleanly, in-flight updates finish.
    await dispatcher.start_polling(bot, handle_signals=True, close_bot_session=True)
