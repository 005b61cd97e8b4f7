"""Bad input, each a test: empty and control-character messages, NUL characters (on
SQLite and PostgreSQL), oversized integers in commands and callbacks, malformed
callbacks. Nothing crashes, nothing is silently lost, every button is answered."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlalchemy import select

from bot.keyboards.admin import FarmCD, ProfileCD, TermCD
from bot.keyboards.pipeline import HandoffCD, JournalCD
from bot.local.session import LocalBot
from bot.wiring.dispatcher import build_dispatcher
from bot.wiring.factory import Core, build_core
from db.models import InteractionRow, UserProfileRow
from pipeline.admin.edits import FARM_KEYS
from pipeline.language.catalog import Catalog
from tests.conftest import make_settings
from tests.handlers.conftest import FARMER, OPERATOR, message_id, requests, user_row

BIG = "99999999999999999999999"


@pytest.mark.parametrize(
    "text",
    [
        " ",
        "\u3000",
        "\u00a0",
        "\u00a0\u3000 \t\n",
        "\x00",
        "\x00\x00 \x07",
        "\x1b\x07\x7f\x9b",
        "\r\n\r",
        "\u200b",
        "\ufeff\u2060\u200d",
        "\u200e\u200f\u202e",
        "\u00ad",
        "\u0301\ufe0f",
        "\u3164",
        "\u2800 \u115f",
        "\u2028\u2029",
    ],
    ids=[
        "space",
        "ideographic",
        "nbsp",
        "mixed",
        "nul",
        "nuls-bell",
        "c0-c1",
        "crlf",
        "zero-width-space",
        "bom-joiners",
        "bidi-marks",
        "soft-hyphen",
        "lone-marks",
        "hangul-filler",
        "braille-blank",
        "line-separators",
    ],
)
async def test_an_empty_message_gets_a_prompt_and_counts_nothing(
    tg: LocalBot, core: Core, catalog: Catalog, text: str
) -> None:
    await tg.say(FARMER, "привіт")
    calls = await tg.say(FARMER, text)

    assert requests(calls) == [
        ("sendMessage", {"chat_id": FARMER, "text": catalog.text("uk", "faults.empty")})
    ]
    row = await user_row(core, FARMER)
    assert row is not None and row.interaction_count == 1


async def _nul_is_stripped(tg: LocalBot, core: Core) -> None:
    calls = await tg.say(FARMER, "при\x00віт, Степане\x00", first_name="Ол\x00ена")

    assert len(calls) == 1 and calls[0].ok
    assert "Олено" in (calls[0].text or "")  # the vocative of the cleaned name
    row = await user_row(core, FARMER)
    assert row is not None and row.name == "Олена" and row.interaction_count == 1
    async with core.db.read() as session:
        texts = (await session.execute(select(InteractionRow.text))).scalars().all()
    assert texts == ["привіт, Степане"]


async def test_nul_characters_are_stripped_before_storage_on_sqlite(
    tg: LocalBot, core: Core
) -> None:
    await _nul_is_stripped(tg, core)


@pytest.fixture
async def pg_core(migrated_postgres_url: str) -> AsyncIterator[Core]:
    core = build_core(make_settings(migrated_postgres_url, operator_ids=frozenset({OPERATOR})))
    try:
        yield core
    finally:
        await core.close()


async def test_nul_characters_are_stripped_before_storage_on_postgres(pg_core: Core) -> None:
    await _nul_is_stripped(LocalBot(build_dispatcher(pg_core)), pg_core)


async def test_a_nul_that_bypasses_the_bot_is_stripped_by_the_database_layer(
    pg_core: Core,
) -> None:
    """The floor under the edges: a write that skipped them still loses nothing."""
    async with pg_core.db.write() as session:
        session.add(UserProfileRow(user_id=f"tg:{FARMER}", name="Ол\x00ена"))
    row = await user_row(pg_core, FARMER)
    assert row is not None and row.name == "Олена"


@pytest.mark.parametrize(
    ("command", "usage"),
    [
        (f"/approve {BIG}", "terms.usage_approve"),
        ("/approve 2147483648", "terms.usage_approve"),  # one past a 32-bit row id
        ("/approve ²", "terms.usage_approve"),  # str.isdigit() says yes, int() says no
        (f"/reject {BIG}", "terms.usage_reject"),
        ("/reject -5", "terms.usage_reject"),
        (f"/profile {BIG}", "admin.usage_profile"),
        (f"/farm {BIG}", "admin.usage_farm"),
        (f"/profile {BIG} set preferred_style=brief", "admin.usage_set"),
        (f"/token {BIG}", "sensors.usage_token"),
    ],
)
async def test_oversized_integers_in_commands_are_refused_cleanly(
    tg: LocalBot, catalog: Catalog, command: str, usage: str
) -> None:
    calls = await tg.say(OPERATOR, command)

    assert requests(calls) == [
        ("sendMessage", {"chat_id": OPERATOR, "text": catalog.text("uk", usage)})
    ]


@pytest.mark.parametrize(
    ("command", "key", "params"),
    [
        ("/farm update timezone=" + "A" * 5000, "admin.bad_timezone", {"value": "a" * 63 + "…"}),
        ("/farm update region=" + "ы" * 5000, "admin.bad_region", {"value": "ы" * 63 + "…"}),
        (
            "/farm update " + "k" * 5000 + "=1",
            "admin.bad_key",
            {"key": "k" * 63 + "…", "allowed": ", ".join(FARM_KEYS)},
        ),
    ],
    ids=["timezone", "region", "key"],
)
async def test_a_huge_value_is_refused_in_a_message_telegram_takes(
    tg: LocalBot, catalog: Catalog, command: str, key: str, params: dict[str, str]
) -> None:
    """Echoed whole, a 5,000-character value made the refusal too long to send."""
    await tg.say(OPERATOR, "привіт")
    calls = await tg.say(OPERATOR, command)
    assert requests(calls) == [
        ("sendMessage", {"chat_id": OPERATOR, "text": catalog.text("uk", key, **params)})
    ]


async def test_an_infinite_threshold_is_not_a_number(tg: LocalBot, catalog: Catalog) -> None:
    await tg.say(OPERATOR, "привіт")
    calls = await tg.say(OPERATOR, "/farm update soil_moisture_min=1e999")
    [call] = requests(calls)
    assert call[1]["text"] == catalog.text("uk", "admin.not_a_number", key="soil_moisture_min")


MALFORMED = [
    "",
    "x",
    "jr",
    "jr:",
    "jr:ok",
    "jr:ok:abc",
    "jr:bogus:1",
    f"jr:write:{BIG}",
    "jr:write:-1",
    "st:loud",
    "st:brief:extra",
    "ob:start:x:y",
    "fg:maybe",
    "ho:yes:abc",
    f"ho:yes:{BIG}",
    f"dt:{BIG}:1",
    "dt:1:maybe",
    f"pf:{BIG}:expertise_level:expert",
    "pf:1:nope:expert",
    f"fm:{BIG}:harvest",
    "fm:1:nope",
    "\x00",
    "ы" * 32,
]


@pytest.mark.parametrize("data", MALFORMED)
@pytest.mark.parametrize("who", [FARMER, OPERATOR], ids=["farmer", "operator"])
async def test_every_malformed_callback_is_answered(
    tg: LocalBot, catalog: Catalog, data: str, who: int
) -> None:
    [own] = await tg.say(who, "привіт")
    calls = await tg.press(who, data, message_id(own))

    answers = [call for call in calls if call.method == "answerCallbackQuery"]
    assert len(answers) == 1 and answers[0].ok
    assert all(call.ok for call in calls)
    expired = catalog.text("uk", "actions.expired")
    said = [call.params.get("text") for call in calls]
    assert expired in said or catalog.text("uk", "admin.not_operator") in said


async def test_well_formed_data_still_parses() -> None:
    """The bounds refuse only what no id can be."""
    assert JournalCD.unpack(JournalCD(verb="write", draft=2**31 - 1).pack()).draft == 2**31 - 1
    assert HandoffCD.unpack("ho:yes:7").handoff == 7
    assert TermCD.unpack("dt:12:1").term == 12
    assert ProfileCD.unpack(f"pf:{2**40}:preferred_style:brief").user == 2**40
    assert FarmCD.unpack("fm:-1001234567890:harvest").user == -1001234567890
