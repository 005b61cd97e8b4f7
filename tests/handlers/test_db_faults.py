"""A failing database is said to be failing: operator commands answer with a clear
line instead of silence or default values, buttons stop spinning."""

from __future__ import annotations

import logging
from unittest.mock import ANY

import pytest
from sqlalchemy import text

from bot.keyboards.admin import FarmCD, ProfileCD, TermCD
from bot.local.session import LocalBot
from bot.wiring.factory import Core
from pipeline.language.catalog import Catalog
from tests.handlers.conftest import FARMER, OPERATOR, message_id, requests


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
        # Defaults once stood in for the user's data ("user does not exist").
        ("/profile 2002", "user_profiles"),
        ("/farm 2002", "farm_profiles"),
        ("/farm 2002 update phase=harvest", "farm_profiles"),
        # A failed write once read as "no such user".
        ("/profile 2002 set expertise_level=expert", "user_profiles"),
        ("/profile 2002 set preferred_style=brief", "user_profiles"),
    ],
)
async def test_an_operator_command_on_a_broken_database_says_so(
    tg: LocalBot, core: Core, catalog: Catalog, command: str, table: str
) -> None:
    await tg.say(OPERATOR, "привіт")  # the operator has a profile and a farm
    await tg.say(FARMER, "привіт")
    core.memory.cache.clear()  # the cards are read from the database, not the cache
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


@pytest.mark.parametrize(
    ("data", "table"),
    [
        (ProfileCD(user=FARMER, field="expertise_level", value="expert"), "user_profiles"),
        # The farm card's reader still has the profile cached; only the write fails.
        (FarmCD(user=FARMER, phase="harvest"), "farm_profiles"),
    ],
)
async def test_an_operator_button_whose_write_fails_says_so_not_saved_or_unknown(
    tg: LocalBot, core: Core, catalog: Catalog, data: ProfileCD | FarmCD, table: str
) -> None:
    [own] = await tg.say(OPERATOR, "привіт")
    await tg.say(FARMER, "привіт")
    await _drop(core, table)

    calls = await tg.press(OPERATOR, data.pack(), message_id(own))

    assert requests(calls)[0] == (
        "answerCallbackQuery",
        {"callback_query_id": ANY, "text": catalog.text("uk", "faults.database")},
    )
    assert catalog.text("uk", "admin.saved") not in str(requests(calls))


async def test_status_reports_a_missing_table_as_broken(
    tg: LocalBot, core: Core, caplog: pytest.LogCaptureFixture
) -> None:
    await tg.say(OPERATOR, "привіт")
    catalog = core.pipeline.catalog
    label = catalog.text("uk", "status.service.database")
    [healthy] = requests(await tg.say(OPERATOR, "/status"))
    assert f"✅ {label}" in healthy[1]["text"]
    await _drop(core, "user_profiles")

    with caplog.at_level(logging.WARNING, logger="pipeline.admin.platform"):
        [(_, params)] = requests(await tg.say(OPERATOR, "/status"))

    database = next(line for line in params["text"].splitlines() if label in line)
    assert "✅" not in database
    # In words for the operator; the table's name is in the log for the engineer.
    assert catalog.plural("uk", "status.db.schema", 1) in database
    assert "user_profiles" not in database and "user_profiles" in caplog.text


async def test_status_reports_a_schema_behind_the_code(
    tg: LocalBot, core: Core, caplog: pytest.LogCaptureFixture
) -> None:
    async with core.db.write() as session:
        await session.execute(text("UPDATE alembic_version SET version_num = '0001_old'"))

    with caplog.at_level(logging.WARNING, logger="pipeline.admin.platform"):
        [(_, params)] = requests(await tg.say(OPERATOR, "/status"))

    label = core.pipeline.catalog.text("uk", "status.service.database")
    database = next(line for line in params["text"].splitlines() if label in line)
    assert database.startswith("❌") and "0001_old" in caplog.text


async def test_me_on_a_broken_database_says_so_not_defaults(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    await tg.say(FARMER, "привіт")
    core.memory.cache.clear()
    await _drop(core, "farm_profiles")

    calls = await tg.say(FARMER, "/me")

    assert requests(calls) == [
        ("sendMessage", {"chat_id": FARMER, "text": catalog.text("uk", "faults.database")})
    ]


async def test_a_press_answered_before_the_database_failed_is_still_told(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    """The agronomist button records the press: when the database fails there, the
    failure is said in the chat, not swallowed (the one button path: the spinner
    stopped once, then the line)."""
    [sent] = await tg.say(FARMER, "яка норма висіву кавунів?")
    [data] = [
        b["callback_data"]
        for row in sent.params["reply_markup"]["inline_keyboard"]
        for b in row
        if b["callback_data"].startswith("ag")
    ]
    await _drop(core, "agronomist_questions")

    calls = await tg.press(FARMER, data, message_id(sent))

    # The spinner stopped; the line goes to the chat.
    assert [(c.method, c.ok) for c in calls] == [
        ("answerCallbackQuery", True),
        ("sendMessage", True),
    ]
    assert calls[1].params == {"chat_id": FARMER, "text": catalog.text("uk", "faults.database")}
