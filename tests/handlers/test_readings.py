"""A message Stepan does not understand gets a question, not a menu (issue 25 point
3): the likeliest readings as buttons; a press answers the message as that reading
and keeps the choice as a labelled example; nobody else's press does anything."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator

import numpy as np
import pytest
from sqlalchemy import select

from bot.keyboards.pipeline import ReadingCD
from bot.local.session import LocalBot
from bot.wiring.dispatcher import build_dispatcher
from bot.wiring.factory import Core
from db.models import CorrectionRow
from pipeline.classifier.model import IntentModel
from pipeline.intents import Intent
from pipeline.language.catalog import Catalog
from tests.handlers.conftest import FARMER, INTRUDER, message_id, running_core
from tests.shared import rulebook

UNCLEAR = "шакалака бумбум"


def unsure_model() -> IntentModel:
    """Reads the unclear word as help (p 0.46, under the 0.5 a decision needs) or
    whoami (0.34); the rest is general."""
    classes = ["general", "help", "whoami"]
    return IntentModel(
        classes,
        ["w:шакалака"],
        np.ones(1, dtype=np.float32),
        np.array([[0.0, 0.8, 0.5]], dtype=np.float32),
        np.zeros(3, dtype=np.float32),
    )


@pytest.fixture
async def core(sqlite_url: str) -> AsyncIterator[Core]:
    rules = rulebook()
    rules = dataclasses.replace(rules, classifier=rules.classifier.with_model(unsure_model()))
    async with running_core(sqlite_url, rules) as core:
        yield core


@pytest.fixture
def tg(core: Core) -> LocalBot:
    return LocalBot(build_dispatcher(core))


async def test_a_reading_is_asked_pressed_answered_and_kept(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    await tg.say(FARMER, "привіт")
    [question] = [c for c in await tg.say(FARMER, UNCLEAR) if c.method == "sendMessage"]
    assert question.params["text"] == catalog.text("uk", "clarify.readings")
    [row] = question.params["reply_markup"]["inline_keyboard"]
    assert [b["text"] for b in row] == [
        catalog.text("uk", "clarify.reading.help"),
        catalog.text("uk", "clarify.reading.whoami"),
    ]
    choices = [ReadingCD.unpack(b["callback_data"]) for b in row]
    assert [c.intent for c in choices] == [Intent.HELP, Intent.WHOAMI]

    # Someone else's press: the trace is not theirs, nothing is answered or kept.
    stolen = await tg.press(INTRUDER, row[0]["callback_data"], message_id(question))
    told = [c.params for c in stolen if c.method == "sendMessage"]
    assert told == [{"chat_id": INTRUDER, "text": catalog.text("uk", "actions.expired")}]

    pressed = await tg.press(FARMER, row[0]["callback_data"], message_id(question))
    sent = [c for c in pressed if c.method == "sendMessage"]
    assert sent and sent[0].params["text"].startswith(catalog.text("uk", "light.help"))
    # The question stays, its buttons go: nobody picks twice.
    [closed] = [c.params for c in pressed if c.method == "editMessageText"]
    assert closed["message_id"] == message_id(question) and "reply_markup" not in closed
    async with core.db.read() as session:
        [kept] = (await session.scalars(select(CorrectionRow))).all()
    assert (kept.source, kept.text, kept.intent, kept.was_intent) == (
        "farmer", UNCLEAR, "help", "clarify",
    )  # fmt: skip


async def test_a_message_the_rules_know_gets_no_question(tg: LocalBot, catalog: Catalog) -> None:
    await tg.say(FARMER, "привіт")
    [reply] = [c for c in await tg.say(FARMER, "дякую") if c.method == "sendMessage"]
    assert reply.params["text"] != catalog.text("uk", "clarify.readings")
    assert "reply_markup" not in reply.params


@pytest.mark.parametrize("text", ["кукурудза", "а ячмінь?", "що там з цинком"])
async def test_a_named_crop_or_nutrient_goes_to_the_advisor_not_the_menu(
    tg: LocalBot, catalog: Catalog, text: str
) -> None:
    """Nothing understood, but it names an agronomy subject (issue 25 point 3): the
    advisor answers from its cards or honestly offers the agronomist."""
    await tg.say(FARMER, "привіт")
    [reply] = [c for c in await tg.say(FARMER, text) if c.method == "sendMessage"]
    menu = catalog.text("uk", "light.clarify")
    assert reply.text is not None and menu not in reply.text
    assert reply.text not in (
        catalog.text("uk", "clarify.readings"),
        catalog.text("uk", "light.fallback"),
    )
    # The advisor's own words: a crop's topics with the agronomist's offer, or which crop.
    assert "Кукурудза" in reply.text or "ячмінь" in reply.text or "культур" in reply.text
