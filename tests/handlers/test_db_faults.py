"""A failing database is said to be failing: operator commands answer with a clear
line instead of silence or default values, buttons stop spinning."""

from __future__ import annotations

from unittest.mock import ANY

import pytest
from sqlalchemy import text

from bot.factory import Core
from bot.keyboards.admin import TermCD
from bot.local_session import LocalBot
from pipeline.i18n import Catalog
from tests.handlers.conftest import OPERATOR, message_id, requests


async def _drop(core: Core, table: str) -> None:
    async with core.db.write() as session:
        await session.execute(text(f"DROP TABLE {table}"))


@pytest.mark.parametrize(
    ("command", "table"),
    [
        ("/pending", "pending_terms"),
        ("/approve 3", "pending_terms"),
        ("/pending_stats", "pending_terms"),
        ("/token", "farm_tokens"),
    ],
)
async def test_an_operator_command_on_a_broken_database_says_so(
    tg: LocalBot, core: Core, catalog: Catalog, command: str, table: str
) -> None:
    await tg.say(OPERATOR, "привіт")  # the operator has a profile and a farm
    await _drop(core, table)

    calls = await tg.say(OPERATOR, command)

    assert requests(calls) == [
        ("sendMessage", {"chat_id": OPERATOR, "text": catalog.text("uk", "faults.database")})
    ]


async def test_a_button_on_a_broken_database_stops_spinning(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    [own] = await tg.say(OPERATOR, "привіт")
    await _drop(core, "pending_terms")

    calls = await tg.press(OPERATOR, TermCD(term=1, approve=True).pack(), message_id(own))

    assert requests(calls) == [
        (
            "answerCallbackQuery",
            {"callback_query_id": ANY, "text": catalog.text("uk", "faults.database")},
        )
    ]
