"""Freezing the start-up heap, so full garbage collections skip it.

A bot that has imported aiogram, pydantic, SQLAlchemy and CrewAI and built its
routers, rules and catalogs holds ~300,000 long-lived container objects. CPython's
full (generation 2) collection walks every one of them each time: 170-220 ms, about
twice every 4 s under load, and the light path's p99 was exactly those pauses (issue
17). ``gc.freeze()`` moves every object alive at that moment to a permanent generation
no collection scans; they still die normally when nothing refers to them.

The heap is frozen when the bot is up (after a collection, so no garbage is kept),
and again after the 1st, 10th, 100th and 1,000th update: the first updates import
modules lazily and fill caches (pydantic's validators, aiogram's resolved handlers,
SQLAlchemy's compiled statements) that live as long as the process. Later freezes
are cheap because a collection only walks what is not frozen yet. Nothing here asks
``gc.get_freeze_count()``: CPython counts the permanent generation by walking its
list, 70-165 ms for ~370,000 objects, which was a pause of its own in the middle of
the 100th and 1,000th update (docs/BENCHMARKS.md, light path).
"""

from __future__ import annotations

import gc
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware, Dispatcher
from aiogram.types import TelegramObject

logger = logging.getLogger(__name__)

#: After how many updates the heap is frozen again (their lazy imports and caches).
FREEZE_AFTER_UPDATES = (1, 10, 100, 1000)


class HeapFreezer(BaseMiddleware):
    """An outer update middleware; ``freeze`` is also the dispatcher's startup hook."""

    def __init__(self, after_updates: tuple[int, ...] = FREEZE_AFTER_UPDATES) -> None:
        self._after = frozenset(after_updates)
        self._last = max(after_updates, default=0)
        self.handled = 0
        #: How many times the heap was frozen.
        self.freezes = 0
        #: Objects this freezer moved to the permanent generation, all freezes.
        self.frozen = 0

    def freeze(self) -> int:
        """Collect, then freeze everything alive; returns how many objects this call
        froze (what a collection walked until now: cheap, it is not frozen yet)."""
        gc.collect()
        moved = len(gc.get_objects())
        gc.freeze()
        self.freezes += 1
        self.frozen += moved
        logger.info(
            "heap frozen (#%d): %d objects more, %d in all skipped by collections",
            self.freezes,
            moved,
            self.frozen,
        )
        return moved

    async def on_startup(self) -> None:
        self.freeze()

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        try:
            return await handler(event, data)
        finally:
            if self.handled < self._last:
                self.handled += 1
                if self.handled in self._after:
                    self.freeze()


def install_heap_freezer(dispatcher: Dispatcher) -> HeapFreezer:
    """Freeze at start-up (the last startup hook registered so far) and after the
    first updates. ``stepan run`` only: a test process must not freeze its heap."""
    freezer = HeapFreezer()
    dispatcher.update.outer_middleware(freezer)
    dispatcher.startup.register(freezer.on_startup)
    return freezer
