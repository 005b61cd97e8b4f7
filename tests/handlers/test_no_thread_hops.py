"""aiogram runs every synchronous filter (a MagicFilter such as ``F.photo``) in a
worker thread: a thread hop per filter per update, on every light message. The
routers a text message passes keep their filters coroutines, and the photo handler
still gets photos and images sent as files."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from aiogram.dispatcher.event import handler as aiogram_handler

from bot.local.session import LocalBot
from pipeline.language.catalog import Catalog
from tests.handlers.conftest import FARMER, requests


@pytest.fixture
def hops(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every callable aiogram sends to a worker thread (still run, so nothing breaks)."""
    seen: list[str] = []
    to_thread = asyncio.to_thread

    async def counted(func: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        seen.append(repr(getattr(func, "func", func)))
        return await to_thread(func, *args, **kwargs)

    monkeypatch.setattr(aiogram_handler.asyncio, "to_thread", counted)
    return seen


async def test_a_light_message_is_routed_without_a_worker_thread(
    tg: LocalBot, hops: list[str]
) -> None:
    for text in ("привіт", "дякую", "хто я", "/help"):
        sent = requests(await tg.say(FARMER, text))
        assert [method for method, _ in sent] == ["sendMessage"]
    assert hops == []


async def test_an_image_sent_as_a_file_is_answered_as_a_photo(
    tg: LocalBot, catalog: Catalog, hops: list[str]
) -> None:
    document = {
        "file_id": "d1",
        "file_unique_id": "du1",
        "file_name": "leaf.png",
        "mime_type": "image/png",
    }
    update = tg.telegram.message_update(FARMER, {"document": document})
    [(method, params)] = requests(await tg.feed(update))
    assert method == "sendMessage"
    assert params["text"] == catalog.text("uk", "agronomy.photo_offer")
    assert hops == []
