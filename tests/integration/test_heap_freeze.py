"""The running bot's start-up heap is frozen (bot/middlewares/heap.py): a full
collection no longer walks the objects built at start-up and by the first updates."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from aiogram import Dispatcher

from bot.middlewares.heap import HeapFreezer, install_heap_freezer
from tests.conftest import make_settings
from tests.integration.bot_harness import running_bot


@pytest.fixture
def unfrozen() -> Iterator[None]:
    """This test process's heap goes back to normal afterwards."""
    gc.unfreeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _scanned(objects: list[object]) -> list[object]:
    """Those of ``objects`` a full collection would walk (frozen ones it does not)."""
    tracked = {id(o) for o in gc.get_objects()}
    return [o for o in objects if id(o) in tracked]


@pytest.mark.usefixtures("unfrozen")
async def test_a_full_collection_skips_the_start_up_heap(sqlite_url: str) -> None:
    async with running_bot(make_settings(sqlite_url)) as harness:
        start_up: list[object] = [
            harness.dispatcher,
            harness.bot,
            harness.core.pipeline,
            harness.core.pipeline.catalog,
            harness.core.db,
            harness.core.memory.cache,
        ]
        assert len(_scanned(start_up)) == len(start_up)  # before: walked every time
        freezer = HeapFreezer(after_updates=(1, 3))
        harness.dispatcher.update.outer_middleware(freezer)
        await freezer.on_startup()  # as the startup hook does in `stepan run`
        assert _scanned(start_up) == []
        frozen_at_start = gc.get_freeze_count()
        for _ in range(4):
            await harness.say(5, "привіт")
        # Frozen again after the 1st and the 3rd update, not after the 4th.
        assert (freezer.handled, freezer.freezes) == (3, 3)
        assert gc.get_freeze_count() >= frozen_at_start
        # What a full collection walks now is a small remainder of the heap.
        assert len(gc.get_objects()) < gc.get_freeze_count() // 10
        assert _scanned(start_up) == []


def test_stepan_run_freezes_at_start_up_and_after_the_first_updates() -> None:
    dispatcher = Dispatcher()
    freezer = install_heap_freezer(dispatcher)
    assert any(h.callback == freezer.on_startup for h in dispatcher.startup.handlers)
    assert freezer in dispatcher.update.outer_middleware


@pytest.mark.usefixtures("unfrozen")
def test_a_freeze_never_walks_the_frozen_heap(monkeypatch: pytest.MonkeyPatch) -> None:
    """``gc.get_freeze_count()`` walks the whole permanent generation (70-165 ms at
    370,000 objects): the freezes in the middle of the 100th and 1,000th update must
    not ask it."""

    def walk() -> int:
        raise AssertionError("the permanent generation was walked")

    monkeypatch.setattr(gc, "get_freeze_count", walk)
    freezer = HeapFreezer()
    kept = [object() for _ in range(3)], {"x": [1]}
    first = freezer.freeze()
    more = [[n] for n in range(100)]
    second = freezer.freeze()
    assert first > 0
    assert second >= len(more)  # the lists built in between, frozen by the second
    assert freezer.frozen == first + second
    assert _scanned([kept[1], more[0]]) == []
