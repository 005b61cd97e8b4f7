"""/pending says whose farm each term belongs to (issue 16 point 5): grouped by farm,
with the farm's and the farmer's names and a button to the farm card; only names from
confirmed cards are there."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.keyboards.admin import FarmCardCD
from pipeline.actions import JournalVerb
from tests.conftest import make_settings
from tests.fakes.bot_api import SentCall
from tests.integration.bot_harness import Harness, running_bot

OPERATOR, OLENA, PETRO, INTRUDER = 1101, 2201, 2202, 3301


@pytest.fixture
async def harness(sqlite_url: str) -> AsyncIterator[Harness]:
    settings = make_settings(sqlite_url, operator_ids=frozenset({OPERATOR}))
    async with running_bot(settings) as harness:
        yield harness


def _buttons(call: SentCall) -> list[tuple[str, str]]:
    markup = call.params.get("reply_markup") or {}
    return [
        (b["text"], b["callback_data"]) for row in markup.get("inline_keyboard", []) for b in row
    ]


async def _record(harness: Harness, user: int, text: str, *, confirm: bool) -> None:
    card = await harness.say(user, text)
    if not confirm:
        return
    write = next(d for _, d in _buttons(card) if d.startswith(f"jr:{JournalVerb.WRITE}:"))
    since = len(harness.api.sent)
    await harness.press(user, write, harness.message_id(card))
    await harness.reply(user, since)


async def test_terms_are_grouped_by_farm_with_names_and_a_card_button(harness: Harness) -> None:
    t = harness.core.pipeline.catalog.text
    await harness.say(OLENA, "привіт", first_name="Олена")
    await harness.core.memory.editor.update_farm(f"tg:{OLENA}", farm_name="Зоря")
    await harness.say(PETRO, "привіт", first_name="Петро")
    await _record(harness, OLENA, "запиши полив 15 мм на полі Гора вчора", confirm=True)
    await _record(harness, PETRO, "запиши полив 10 мм на полі Лиман вчора", confirm=True)
    await _record(harness, PETRO, "запиши полив 5 мм на полі Балка вчора", confirm=False)

    pending = await harness.say(OPERATOR, "/pending")
    text = pending.text or ""
    zorya = t("uk", "terms.farm", farm="Зоря", farmer="Олена")
    petro = t("uk", "terms.farm", farm=t("uk", "terms.farm_unnamed"), farmer="Петро")
    assert zorya in text and petro in text
    # Each term sits under its own farm; the unconfirmed «Балка» is not there at all.
    olena_block = text.split(zorya, 1)[1].split("\n\n", 1)[0]
    petro_block = text.split(petro, 1)[1].split("\n\n", 1)[0]
    # Each by its name as the farmer's card showed it («Гора», not «гора»).
    assert "«Гора»" in olena_block and "Лиман" not in olena_block
    assert "«Лиман»" in petro_block and "Гора" not in petro_block
    assert "Балка" not in text
    cards = {label: data for label, data in _buttons(pending) if data.startswith("fc:")}
    assert cards == {
        t("uk", "terms.farm_button", farm="Зоря"): FarmCardCD(user=OLENA).pack(),
        t("uk", "terms.farm_button", farm=t("uk", "terms.farm_unnamed")): FarmCardCD(
            user=PETRO
        ).pack(),
    }
    since = len(harness.api.sent)
    await harness.press(OPERATOR, FarmCardCD(user=OLENA).pack(), harness.message_id(pending))
    card = await harness.reply(OPERATOR, since)
    assert (card.text or "").startswith("🌾") and "Зоря" in (card.text or "")


async def test_the_card_button_is_refused_to_a_farmer(harness: Harness) -> None:
    await harness.say(INTRUDER, "привіт")
    since = len(harness.api.sent)
    harness.api.push_callback(INTRUDER, FarmCardCD(user=OPERATOR).pack(), message_id=1)
    answer = await harness.api.wait_for(
        lambda c: c.method == "answerCallbackQuery", since=since, timeout=10
    )
    text = harness.core.pipeline.catalog.text("uk", "admin.not_operator")
    assert answer.params.get("text") == text
