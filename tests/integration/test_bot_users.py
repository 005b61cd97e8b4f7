"""A user's own memory (/me, /forget) and onboarding, through the real dispatcher."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlalchemy import func, select, text

from bot.keyboards.me import ForgetCD
from bot.keyboards.pipeline import OnboardingCD, StyleCD
from db.models import Base, FarmProfileRow, UserProfileRow
from pipeline.actions import OnboardingChoice
from tests.conftest import make_settings
from tests.integration.bot_harness import Harness, running_bot

FARMER = 4004


@pytest.fixture
async def harness(sqlite_url: str) -> AsyncIterator[Harness]:
    async with running_bot(make_settings(sqlite_url)) as harness:
        yield harness


async def _rows_mentioning(harness: Harness, user_id: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    async with harness.core.db.sessions() as session:
        for table in Base.metadata.sorted_tables:
            if "user_id" in table.c:
                counts[table.name] = int(
                    await session.scalar(
                        select(func.count()).select_from(table).where(table.c.user_id == user_id)
                    )
                    or 0
                )
    return counts


async def test_me_shows_memory_and_style_buttons(harness: Harness) -> None:
    await harness.say(FARMER, "привіт", first_name="Марія")
    card = await harness.say(FARMER, "/me")
    assert "Марія" in (card.text or "") and "Ферма" in (card.text or "")
    buttons = [
        b["callback_data"] for row in card.params["reply_markup"]["inline_keyboard"] for b in row
    ]
    assert StyleCD(style="detailed").pack() in buttons
    since = len(harness.api.sent)
    await harness.press(FARMER, StyleCD(style="detailed").pack(), harness.message_id(card))
    # The same style button as under any reply: answered with a message.
    catalog = harness.core.pipeline.catalog
    adverb = catalog.text("uk", "actions.adverb.detailed")
    confirm = await harness.reply(FARMER, since)
    assert confirm.text == catalog.text("uk", "actions.style_set", style=adverb)
    async with harness.core.db.sessions() as session:
        row = await session.get(UserProfileRow, f"tg:{FARMER}")
    assert row is not None and row.preferred_style == "detailed"


async def test_forget_after_confirm_leaves_nothing(harness: Harness) -> None:
    for message in ("привіт", "дякую", "запиши полив 20 мм на полі 3"):
        await harness.say(FARMER, message, first_name="Марія")
    assert (await _rows_mentioning(harness, f"tg:{FARMER}"))["user_profiles"] == 1
    confirm = await harness.say(FARMER, "/forget")
    # "Keep" first: nothing is deleted.
    since = len(harness.api.sent)
    await harness.press(FARMER, ForgetCD(confirm=False).pack(), harness.message_id(confirm))
    await harness.reply(FARMER, since)
    assert (await _rows_mentioning(harness, f"tg:{FARMER}"))["interactions"] == 3
    confirm = await harness.say(FARMER, "/forget")
    since = len(harness.api.sent)
    await harness.press(FARMER, ForgetCD(confirm=True).pack(), harness.message_id(confirm))
    done = await harness.reply(FARMER, since)
    assert done.text == harness.core.pipeline.catalog.text("uk", "me.forgotten")
    counts = await _rows_mentioning(harness, f"tg:{FARMER}")
    leftover = {t: n for t, n in counts.items() if n and t != "memory_outbox"}
    assert leftover == {}
    # Only the delete requests for the memory-service may wait in the outbox.
    async with harness.core.db.sessions() as session:
        ops = (
            (
                await session.execute(
                    text("SELECT DISTINCT operation FROM memory_outbox WHERE user_id = :u"),
                    {"u": f"tg:{FARMER}"},
                )
            )
            .scalars()
            .all()
        )
    assert set(ops) <= {"delete"}


async def test_onboarding_fills_profiles(harness: Harness) -> None:
    greeting = await harness.say(FARMER, "привіт", first_name="Марія")
    offer = [
        b["callback_data"]
        for row in greeting.params["reply_markup"]["inline_keyboard"]
        for b in row
    ]
    start = OnboardingCD(choice=OnboardingChoice.START).pack()
    assert start in offer
    since = len(harness.api.sent)
    await harness.press(FARMER, start, harness.message_id(greeting))
    question = await harness.reply(FARMER, since)
    assert harness.core.pipeline.catalog.text("uk", "onboarding.ask.name") in (question.text or "")
    await harness.say(FARMER, "Марія Петрівна")
    await harness.say(FARMER, "Калинівка")
    # The oblast is read as the farmer writes it; an unknown one asks again.
    again = await harness.say(FARMER, "не знаю")
    assert harness.core.pipeline.catalog.text("uk", "onboarding.ask.region") in (again.text or "")
    await harness.say(FARMER, "Полтавщина")
    await harness.say(FARMER, "Північне, Південне і поле 3")
    sensors = await harness.say(FARMER, "пшениця, кукурудза")
    assert "датчики" in (sensors.text or "")
    since = len(harness.api.sent)
    await harness.press(
        FARMER,
        OnboardingCD(choice=OnboardingChoice.SENSORS_YES).pack(),
        harness.message_id(sensors),
    )
    experience_q = await harness.reply(FARMER, since)
    since = len(harness.api.sent)
    await harness.press(
        FARMER,
        OnboardingCD(choice=OnboardingChoice.LEVEL, level="novice").pack(),
        harness.message_id(experience_q),
    )
    style_q = await harness.reply(FARMER, since)
    since = len(harness.api.sent)
    await harness.press(
        FARMER, OnboardingCD(choice=OnboardingChoice.SKIP).pack(), harness.message_id(style_q)
    )
    done = await harness.reply(FARMER, since)
    assert done.text == harness.core.pipeline.catalog.text("uk", "onboarding.done")
    async with harness.core.db.sessions() as session:
        user = await session.get(UserProfileRow, f"tg:{FARMER}")
        farm = (
            await session.execute(
                select(FarmProfileRow).where(FarmProfileRow.user_id == f"tg:{FARMER}")
            )
        ).scalar_one()
    assert user is not None and user.name == "Марія Петрівна"
    assert user.expertise_level == "novice"  # «Як давно ви займаєтесь агрономією?»
    assert farm.farm_name == "Калинівка"
    assert farm.region == "poltava"
    assert farm.field_ids == ["field:pivnichne", "field:pivdenne", "field:pole-3"]
    assert farm.crop_ids == ["crop:wheat", "crop:maize"]  # shared canonical crops
    assert farm.iot_sensors.get("has_iot_integration") is True
    # The farm's dictionary knows the fields by the names the farmer used.
    card = await harness.say(FARMER, "запиши полив 20 мм на Північному вчора")
    assert "Поле: Північне" in (card.text or "") and "⏳" not in (card.text or "")
    # A later greeting from this known user never restarts onboarding.
    again = await harness.say(FARMER, "привіт")
    assert "Маріє Петрівно" in (again.text or "")
    assert not again.params.get("reply_markup")


async def test_onboarding_can_be_postponed(harness: Harness) -> None:
    greeting = await harness.say(FARMER, "привіт")
    since = len(harness.api.sent)
    await harness.press(
        FARMER, OnboardingCD(choice=OnboardingChoice.LATER).pack(), harness.message_id(greeting)
    )
    reply = await harness.reply(FARMER, since)
    assert reply.text == harness.core.pipeline.catalog.text("uk", "onboarding.later_reply")
    # Not in onboarding: the next message goes to the pipeline as usual.
    thanks = await harness.say(FARMER, "дякую")
    assert harness.core.pipeline.catalog.text("uk", "onboarding.ask.farm") not in (
        thanks.text or ""
    )


async def test_three_interactions_build_up_the_profile(harness: Harness) -> None:
    """Seed phase 4 step 11, through the dispatcher and the fake Bot API."""
    for message in ("привіт", "яка вологість на полі 2", "дякую"):
        await harness.say(FARMER, message, first_name="Марія")
    async with harness.core.db.sessions() as session:
        row = await session.get(UserProfileRow, f"tg:{FARMER}")
    assert row is not None
    assert row.interaction_count == 3 and row.name == "Марія"
    assert row.known_intents == ["greeting", "iot", "thanks"]
    assert [topic["intent"] for topic in row.recent_topics] == ["greeting", "iot", "thanks"]
    assert row.last_seen is not None
