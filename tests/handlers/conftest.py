"""The cheap layer: handlers through `Dispatcher.feed_update`, no HTTP, no polling.

Each test feeds Telegram updates to the bot's real dispatcher (`bot.wiring.factory`), with
aiogram's Bot answered in-process by `bot.local.session` (the same local Bot API as
`stepan chat`), and asserts the exact requests the bot made and the database state.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from sqlalchemy import select

from bot.local.session import ApiCall, LocalBot
from bot.wiring.dispatcher import build_dispatcher
from bot.wiring.factory import Core, build_core
from db.models import UserProfileRow
from pipeline.language.catalog import Catalog
from pipeline.rulebook import Rulebook
from tests.conftest import make_settings
from tests.shared import catalog as shared_catalog
from tests.shared import rulebook

OPERATOR = 1001
FARMER = 2002
INTRUDER = 3003


@asynccontextmanager
async def running_core(sqlite_url: str, rules: Rulebook | None = None) -> AsyncIterator[Core]:
    """The bot's core on ``sqlite_url`` with OPERATOR as the operator (``rules``: the
    packaged ones unless a test changes them), closed after."""
    settings = make_settings(sqlite_url, operator_ids=frozenset({OPERATOR}))
    core = build_core(settings, rules=rules or rulebook(), catalog=shared_catalog())
    try:
        yield core
    finally:
        await core.close()


@pytest.fixture
async def core(sqlite_url: str) -> AsyncIterator[Core]:
    async with running_core(sqlite_url) as core:
        yield core


@pytest.fixture
def tg(core: Core) -> LocalBot:
    return LocalBot(build_dispatcher(core))


@pytest.fixture
def catalog(core: Core) -> Catalog:
    return core.pipeline.catalog


def requests(calls: list[ApiCall]) -> list[tuple[str, dict[str, Any]]]:
    """What the bot asked Telegram for, in order (every call was accepted)."""
    refused = [(call.method, call.error) for call in calls if not call.ok]
    assert refused == [], refused
    return [(call.method, call.params) for call in calls]


def keyboard(*rows: list[tuple[str, str]]) -> dict[str, Any]:
    """An inline keyboard as sent: rows of (label, callback data)."""
    return {
        "inline_keyboard": [
            [{"text": text, "callback_data": data} for text, data in row] for row in rows
        ]
    }


def message_id(call: ApiCall) -> int:
    assert isinstance(call.result, dict)
    return int(call.result["message_id"])


async def user_row(core: Core, telegram_id: int) -> UserProfileRow | None:
    async with core.db.sessions() as session:
        return (
            await session.execute(
                select(UserProfileRow).where(UserProfileRow.user_id == f"tg:{telegram_id}")
            )
        ).scalar_one_or_none()
