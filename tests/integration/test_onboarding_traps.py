"""Onboarding never traps (issue 16 point 1), through the real dispatcher and the fake
Bot API: a question, a work record or a command is handled as usual while onboarding
waits under one button; an unusable answer is asked once more with an example, then
skipped; /cancel leaves onboarding. The experience step sets the expertise level."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import select

from bot.keyboards.pipeline import OnboardingCD
from db.models import FarmProfileRow, UserProfileRow
from pipeline.actions import OnboardingChoice
from pipeline.language.texts import Texts
from pipeline.onboarding.flow import Step, question
from tests.conftest import make_settings
from tests.fakes.bot_api import SentCall
from tests.integration.bot_harness import Harness, running_bot
from tests.shared import catalog

FARMER = 4116
CATALOG = catalog()
RESUME = OnboardingCD(choice=OnboardingChoice.RESUME).pack()
SKIP = OnboardingCD(choice=OnboardingChoice.SKIP).pack()


def _t(key: str, **params: Any) -> str:
    return CATALOG.text("uk", key, **params)


def _ask(step: Step) -> str:
    return question(Texts(CATALOG, "uk"), step)[0]


def _buttons(call: SentCall) -> list[str]:
    markup = call.params.get("reply_markup") or {}
    return [b["callback_data"] for row in markup.get("inline_keyboard", []) for b in row]


@pytest.fixture
async def harness(sqlite_url: str) -> AsyncIterator[Harness]:
    async with running_bot(make_settings(sqlite_url)) as harness:
        yield harness


async def _press(harness: Harness, data: str, on: SentCall) -> SentCall:
    since = len(harness.api.sent)
    await harness.press(FARMER, data, harness.message_id(on))
    return await harness.reply(FARMER, since)


async def _start(harness: Harness) -> SentCall:
    greeting = await harness.say(FARMER, "привіт", first_name="Олена")
    first = await _press(harness, OnboardingCD(choice=OnboardingChoice.START).pack(), greeting)
    assert first.text == f"{_t('onboarding.intro')}\n\n{_ask(Step.NAME)}"
    return first


async def _user(harness: Harness) -> UserProfileRow:
    async with harness.core.db.sessions() as session:
        row = await session.get(UserProfileRow, f"tg:{FARMER}")
    assert row is not None
    return row


async def test_a_question_is_answered_and_onboarding_waits(harness: Harness) -> None:
    await _start(harness)
    reply = await harness.say(FARMER, "коли сіяти соняшник?")
    text = reply.text or ""
    # Answered as a question (the sowing card), not taken as the farmer's name.
    assert "Соняшник" in text and _ask(Step.FARM) not in text
    assert text.endswith(_t("onboarding.paused"))
    assert _buttons(reply)[-1] == RESUME
    assert (await _user(harness)).name != "коли сіяти соняшник?"
    # Waiting: the next message goes to the pipeline, not to the name step.
    thanks = await harness.say(FARMER, "Олена Петрівна")
    assert _ask(Step.FARM) not in (thanks.text or "")
    # One button brings the same question back.
    resumed = await _press(harness, RESUME, reply)
    assert resumed.text == f"{_t('onboarding.resumed')}\n\n{_ask(Step.NAME)}"
    nxt = await harness.say(FARMER, "Олена Петрівна")
    assert nxt.text == _ask(Step.FARM)
    assert (await _user(harness)).name == "Олена Петрівна"


async def test_a_work_record_keeps_its_card_buttons_and_gets_the_resume_one(
    harness: Harness,
) -> None:
    first = await _start(harness)
    await _press(harness, SKIP, first)  # name
    farm_q = await harness.say(FARMER, "Зоря")
    assert farm_q.text == _ask(Step.REGION)
    card = await harness.say(FARMER, "запиши полив 20 мм на Північному вчора")
    assert "📝" in (card.text or "")
    buttons = _buttons(card)
    assert buttons[-1] == RESUME and len(buttons) > 1  # ✅ / ✏️ / ❌ stay
    resumed = await _press(harness, RESUME, card)
    assert resumed.text == f"{_t('onboarding.resumed')}\n\n{_ask(Step.REGION)}"


async def test_a_command_works_and_onboarding_waits(harness: Harness) -> None:
    await _start(harness)
    since = len(harness.api.sent)
    harness.api.push_message(FARMER, "/me")
    card = await harness.reply(FARMER, since)
    assert (card.text or "").startswith(_t("me.header"))
    offer = await harness.api.wait_for(
        lambda c: c.method == "sendMessage" and c.text == _t("onboarding.paused"),
        since=since,
        timeout=10,
    )
    assert _buttons(offer) == [RESUME]
    resumed = await _press(harness, RESUME, offer)
    assert resumed.text == f"{_t('onboarding.resumed')}\n\n{_ask(Step.NAME)}"


async def test_an_unusable_answer_is_asked_once_with_an_example_then_skipped(
    harness: Harness,
) -> None:
    first = await _start(harness)
    await _press(harness, SKIP, first)  # name
    await harness.say(FARMER, "Зоря")
    again = await harness.say(FARMER, "не знаю")
    example = _t("onboarding.example.region")
    assert again.text == f"{_t('onboarding.repeat')} {example}\n\n{_ask(Step.REGION)}"
    skipped = await harness.say(FARMER, "десь там")
    assert skipped.text == f"{_t('onboarding.skipped')}\n\n{_ask(Step.FIELDS)}"


async def test_button_questions_read_typed_answers(harness: Harness) -> None:
    first = await _start(harness)
    for _ in range(3):  # name, farm, region
        first = await _press(harness, SKIP, first)
    await harness.say(FARMER, "Північне")
    sensors = await harness.say(FARMER, "пшениця")
    assert sensors.text == _ask(Step.SENSORS)
    experience = await harness.say(FARMER, "так, є")
    assert experience.text == _ask(Step.EXPERIENCE)
    style = await harness.say(FARMER, "вже 15 років")
    assert style.text == _ask(Step.STYLE)
    done = await harness.say(FARMER, "коротко")
    assert done.text == _t("onboarding.done")
    user = await _user(harness)
    assert (user.expertise_level, user.preferred_style) == ("expert", "brief")
    assert not user.expertise_locked  # the farmer's own answer: auto-upgrades still apply
    async with harness.core.db.sessions() as session:
        farm = (
            await session.execute(
                select(FarmProfileRow).where(FarmProfileRow.user_id == f"tg:{FARMER}")
            )
        ).scalar_one()
    assert farm.iot_sensors.get("has_iot_integration") is True


@pytest.mark.parametrize("level", ["novice", "intermediate", "expert"])
async def test_the_experience_buttons_set_the_level(harness: Harness, level: str) -> None:
    first = await _start(harness)
    call = first
    for _ in range(6):  # name .. sensors
        call = await _press(harness, SKIP, call)
    assert call.text == _ask(Step.EXPERIENCE)
    choice = OnboardingCD(choice=OnboardingChoice.LEVEL, level=level).pack()  # type: ignore[arg-type]
    assert choice in _buttons(call)
    style = await _press(harness, choice, call)
    assert style.text == _ask(Step.STYLE)
    assert (await _user(harness)).expertise_level == level


async def test_cancel_leaves_onboarding(harness: Harness) -> None:
    await _start(harness)
    cancelled = await harness.say(FARMER, "/cancel")
    assert cancelled.text == _t("onboarding.cancelled")
    after = await harness.say(FARMER, "Олена")
    assert _ask(Step.FARM) not in (after.text or "")
    again = await harness.say(FARMER, "/cancel")
    assert again.text == _t("onboarding.nothing_to_cancel")
