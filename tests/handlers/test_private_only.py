"""Secrets stay secret: commands that show a token or a profile answer only in a
private chat (a group gets a pointer), and /forget also clears the FSM state."""

from __future__ import annotations

import pytest
from aiogram.fsm.storage.base import StorageKey

from bot.handlers.onboarding import Onboarding
from bot.handlers.private_only import PRIVATE_ONLY
from bot.keyboards.me import ForgetCD
from bot.keyboards.pipeline import OnboardingCD
from bot.local.session import ApiCall, LocalBot
from bot.wiring.factory import Core
from pipeline.actions import OnboardingChoice
from pipeline.language.catalog import Catalog
from tests.handlers.conftest import FARMER, OPERATOR, message_id, requests, user_row

GROUP = -1001234567890


async def _in_group(tg: LocalBot, user: int, text: str) -> list[ApiCall]:
    return await tg.feed(
        tg.telegram.message_update(user, tg.telegram.text_fields(text), chat_id=GROUP)
    )


@pytest.mark.parametrize("command", PRIVATE_ONLY)
@pytest.mark.parametrize("who", [OPERATOR, FARMER], ids=["operator", "farmer"])
async def test_a_private_command_in_a_group_gets_a_pointer_only(
    tg: LocalBot, catalog: Catalog, command: str, who: int
) -> None:
    await tg.say(FARMER, "привіт")  # a profile that /profile or /me could show
    calls = await _in_group(
        tg,
        who,
        f"/{command} {FARMER}" if command in ("profile", "farm", "token") else f"/{command}",
    )

    pointer = catalog.text("uk", "faults.private_only", link="https://t.me/stepan_test_bot")
    sent = [(m, p) for m, p in requests(calls) if m != "getMe"]  # the bot's @username
    [(method, params)] = sent
    assert (method, params["chat_id"]) == ("sendMessage", GROUP)
    assert params["text"] == pointer
    assert "stp_" not in params["text"] and "reply_markup" not in params


async def test_the_token_still_works_in_private(tg: LocalBot) -> None:
    await tg.say(OPERATOR, "привіт")
    [call] = requests(await tg.say(OPERATOR, "/token"))
    assert "stp_" in call[1]["text"]


async def test_other_commands_still_work_in_a_group(tg: LocalBot, catalog: Catalog) -> None:
    calls = await _in_group(tg, FARMER, "/whoami")
    [(method, params)] = requests(calls)
    assert method == "sendMessage" and str(FARMER) in params["text"]


async def test_forget_also_clears_the_onboarding_state(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    [offer] = await tg.say(FARMER, "привіт")
    await tg.press(FARMER, OnboardingCD(choice=OnboardingChoice.START).pack(), message_id(offer))
    storage = tg.dispatcher.storage
    key = StorageKey(bot_id=tg.bot.id, chat_id=FARMER, user_id=FARMER)
    assert await storage.get_state(key) is not None  # onboarding is waiting for an answer

    # A command during onboarding works; onboarding then waits under one button.
    confirm, paused = await tg.say(FARMER, "/forget")
    assert paused.params["text"] == catalog.text("uk", "onboarding.paused")
    assert await storage.get_state(key) == Onboarding.paused.state
    await tg.press(FARMER, ForgetCD(confirm=True).pack(), message_id(confirm))

    assert await storage.get_state(key) is None
    assert await storage.get_data(key) == {}
    assert await user_row(core, FARMER) is None
    # The next message is a message, not an onboarding answer re-creating the profile
    # from the old flow's step.
    await tg.say(FARMER, "Ферма Петренка")
    assert await storage.get_state(key) is None
