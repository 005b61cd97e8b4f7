"""The SQLite file watch's start-up and shutdown hooks (db/file_watch.py): it checks
the file every few seconds while the bot runs and, the first time the file is found
deleted or replaced, tells every operator in their language."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from bot.delivery.unasked import TelegramAlertSender
from bot.wiring.factory import Core
from pipeline.language.texts import Texts
from pipeline.learning.nightly import operator_languages

logger = logging.getLogger(__name__)

Hook = Callable[[], Awaitable[None]]


def store_watch_hooks(core: Core, sender: TelegramAlertSender) -> tuple[Hook, Hook]:
    """(start, stop) for the dispatcher; both do nothing on PostgreSQL."""
    watch = core.file_watch
    tasks: list[asyncio.Task[None]] = []
    operators = frozenset(core.settings.agx.operator_ids)
    catalog = core.pipeline.catalog

    async def tell_operators(_detail: str) -> None:
        # Reads still work (the open connection holds the unlinked file).
        languages = await operator_languages(core.db, operators)
        path = str(watch.path) if watch is not None else ""
        for operator, lang in languages.items():
            try:
                await sender.send(
                    operator, Texts(catalog, lang).text("status.db.gone_notice", path=path)
                )
            except Exception:
                logger.warning("operator %s not told the database is gone", operator, exc_info=True)

    async def start() -> None:
        if watch is not None and not tasks:
            watch.note_identity()
            tasks.append(asyncio.create_task(watch.run(tell_operators), name="sqlite-file-watch"))

    async def stop() -> None:
        while tasks:
            task = tasks.pop()
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    return start, stop
