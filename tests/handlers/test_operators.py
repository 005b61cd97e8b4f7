"""The operators router: its one IsOperator filter lets operators in, on messages and
callbacks alike; anyone else is refused politely and nothing changes."""

from __future__ import annotations

from unittest.mock import ANY

import pytest

from bot.commands import OPERATOR_ONLY
from bot.keyboards.admin import FarmCD, FarmIotCD, ProfileCD, TermCD
from bot.local.session import LocalBot
from bot.wiring.factory import Core
from pipeline.language.catalog import Catalog
from tests.handlers.conftest import FARMER, INTRUDER, OPERATOR, message_id, requests, user_row


@pytest.mark.parametrize("command", OPERATOR_ONLY)
async def test_every_operator_command_is_refused_to_a_farmer(
    tg: LocalBot, catalog: Catalog, command: str
) -> None:
    calls = await tg.say(INTRUDER, f"/{command}")
    assert requests(calls) == [
        ("sendMessage", {"chat_id": INTRUDER, "text": catalog.text("uk", "admin.not_operator")})
    ]


@pytest.mark.parametrize(
    "data",
    [
        ProfileCD(user=FARMER, field="expertise_level", value="expert").pack(),
        ProfileCD(user=FARMER, field="expertise_level", value="auto").pack(),
        FarmCD(user=FARMER, phase="harvest").pack(),
        FarmCD(user=FARMER, phase="auto").pack(),
        FarmIotCD(user=FARMER, on=True).pack(),
        TermCD(term=1, approve=True).pack(),
    ],
)
async def test_operator_buttons_are_refused_to_a_farmer(
    tg: LocalBot, core: Core, catalog: Catalog, data: str
) -> None:
    await tg.say(FARMER, "привіт")
    [own] = await tg.say(INTRUDER, "дякую")
    calls = await tg.press(INTRUDER, data, message_id(own))
    refusal = catalog.text("uk", "admin.not_operator")
    assert requests(calls) == [
        (
            "answerCallbackQuery",
            {"callback_query_id": ANY, "text": refusal, "show_alert": True},
        )
    ]
    row = await user_row(core, FARMER)
    # Still a new user's level (novice, issue 11 point 2): the forged press changed nothing.
    assert row is not None and (row.expertise_level, row.expertise_locked) == ("novice", False)


async def test_operator_edits_a_card_with_its_buttons(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    await tg.say(FARMER, "привіт", first_name="Оксана")
    [card] = await tg.say(OPERATOR, f"/profile {FARMER}")
    assert f"Telegram id: {FARMER}" in card.params["text"]
    data = ProfileCD(user=FARMER, field="expertise_level", value="expert").pack()
    calls = await tg.press(OPERATOR, data, message_id(card))
    [(answer, answered), (edit, edited)] = requests(calls)
    assert (answer, answered) == (
        "answerCallbackQuery",
        {"callback_query_id": ANY, "text": catalog.text("uk", "admin.saved")},
    )
    assert edit == "editMessageText"
    assert edited["reply_markup"] == card.params["reply_markup"]
    assert catalog.text("uk", "cards.set_by_operator") in edited["text"]
    row = await user_row(core, FARMER)
    assert row is not None and row.expertise_level == "expert" and row.expertise_locked


async def test_a_forged_phase_matches_no_handler_even_for_an_operator(
    tg: LocalBot, catalog: Catalog
) -> None:
    [reply] = await tg.say(OPERATOR, "дякую")
    calls = await tg.press(OPERATOR, f"fm:{FARMER}:party", message_id(reply))
    assert requests(calls) == [
        ("answerCallbackQuery", {"callback_query_id": ANY}),
        ("sendMessage", {"chat_id": OPERATOR, "text": catalog.text("uk", "actions.expired")}),
    ]
