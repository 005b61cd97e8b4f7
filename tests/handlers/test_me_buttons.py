"""/me's correction buttons (issue 11 point 6): the name, the language, the level the
farmer asks for, 🗑 under a conversation summary; only the presser's own profile
changes."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from bot.keyboards.me import MeForgetTalkCD, MeLanguageCD, MeLevelCD, MeNameCD, MeWarningsCD
from bot.local.session import LocalBot
from bot.wiring.factory import Core
from db.models import ConversationSummaryRow
from pipeline.admin.cards import valid_name
from pipeline.language.catalog import Catalog
from tests.handlers.conftest import FARMER, INTRUDER, message_id, requests, user_row


def _buttons(call_params: dict[str, object]) -> list[str]:
    markup = call_params["reply_markup"]
    assert isinstance(markup, dict)
    return [b["callback_data"] for row in markup["inline_keyboard"] for b in row]


async def test_the_card_offers_every_correction(tg: LocalBot) -> None:
    await tg.say(FARMER, "привіт")
    [card] = await tg.say(FARMER, "/me")
    buttons = _buttons(card.params)
    assert MeNameCD().pack() in buttons
    assert {MeLanguageCD(language="en").pack(), MeLanguageCD(language="uk").pack()} <= set(buttons)
    assert MeLevelCD(level="novice").pack() in buttons


async def test_the_name_is_the_next_message(tg: LocalBot, core: Core, catalog: Catalog) -> None:
    await tg.say(FARMER, "привіт", first_name="Марія")
    [card] = await tg.say(FARMER, "/me")
    calls = await tg.press(FARMER, MeNameCD().pack(), message_id(card))
    assert requests(calls)[-1] == (
        "sendMessage",
        {"chat_id": FARMER, "text": catalog.text("uk", "me.ask_name")},
    )
    [bad] = await tg.say(FARMER, "запиши полив 20 мм")
    assert bad.text == catalog.text("uk", "me.name_bad")
    [done] = await tg.say(FARMER, "Марія Петрівна")
    # Thanked by the name just given, in the vocative; stored as written.
    assert done.text == catalog.text("uk", "me.name_set", name="Маріє Петрівно")
    row = await user_row(core, FARMER)
    assert row is not None and row.name == "Марія Петрівна"
    # The state is gone: the next message is an ordinary one again.
    [reply] = await tg.say(FARMER, "дякую")
    assert reply.text != catalog.text("uk", "me.name_set", name="дякую")
    assert (await user_row(core, FARMER)).name == "Марія Петрівна"  # type: ignore[union-attr]


async def test_language_button_switches_and_edits_the_card(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    await tg.say(FARMER, "привіт")
    [card] = await tg.say(FARMER, "/me")
    calls = await tg.press(FARMER, MeLanguageCD(language="en").pack(), message_id(card))
    sent = requests(calls)
    assert sent[0] == (
        "answerCallbackQuery",
        {
            "callback_query_id": sent[0][1]["callback_query_id"],
            "text": catalog.text("en", "me.language_set"),
        },
    )
    assert sent[-1][0] == "editMessageText"
    assert catalog.text("uk", "me.language.en") in str(sent[-1][1]["text"])
    row = await user_row(core, FARMER)
    assert row is not None and row.preferred_language == "en"


async def test_level_request_and_the_operators_lock(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    await tg.say(FARMER, "привіт")
    [card] = await tg.say(FARMER, "/me")
    calls = await tg.press(FARMER, MeLevelCD(level="expert").pack(), message_id(card))
    level = catalog.text("uk", "expertise.expert")
    assert requests(calls)[0][1].get("text") == catalog.text("uk", "me.level_set", level=level)
    row = await user_row(core, FARMER)
    assert row is not None and (row.expertise_level, row.expertise_locked) == ("expert", False)
    assert await core.memory.editor.set_expertise(f"tg:{FARMER}", "intermediate", by_operator=True)
    calls = await tg.press(FARMER, MeLevelCD(level="novice").pack(), message_id(card))
    assert requests(calls)[0][1].get("text") == catalog.text("uk", "me.level_locked")
    row = await user_row(core, FARMER)
    assert row is not None and row.expertise_level == "intermediate"


async def test_weather_warnings_are_turned_off_and_on_again(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    await tg.say(FARMER, "привіт")
    [card] = await tg.say(FARMER, "/me")
    off, on = MeWarningsCD(on=False).pack(), MeWarningsCD(on=True).pack()
    assert off in _buttons(card.params) and on not in _buttons(card.params)
    calls = await tg.press(FARMER, off, message_id(card))
    sent = requests(calls)
    assert sent[0][1].get("text") == catalog.text("uk", "me.warnings_off")
    assert sent[-1][0] == "editMessageText" and on in _buttons(sent[-1][1])
    row = await user_row(core, FARMER)
    assert row is not None and row.weather_warnings is False
    # Another user's press of the same card changes nothing of theirs or the farmer's.
    await tg.press(INTRUDER, on, message_id(card))
    assert (await user_row(core, FARMER)).weather_warnings is False  # type: ignore[union-attr]
    calls = await tg.press(FARMER, on, message_id(card))
    assert requests(calls)[0][1].get("text") == catalog.text("uk", "me.warnings_on")
    assert (await user_row(core, FARMER)).weather_warnings is True  # type: ignore[union-attr]


async def test_buttons_change_only_the_pressers_profile(tg: LocalBot, core: Core) -> None:
    await tg.say(FARMER, "привіт")
    await tg.say(INTRUDER, "привіт")
    [card] = await tg.say(FARMER, "/me")
    # Another user presses the farmer's card (forwarded, or forged): their own changes.
    await tg.press(INTRUDER, MeLanguageCD(language="en").pack(), message_id(card))
    farmer, intruder = await user_row(core, FARMER), await user_row(core, INTRUDER)
    assert farmer is not None and farmer.preferred_language == "uk"
    assert intruder is not None and intruder.preferred_language == "en"


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("  Тарас  ", "Тарас"),
        ("Olena Kovalenko", "Olena Kovalenko"),
        ("/start", None),
        ("https://spam.example", None),
        ("@someone", None),
        ("запиши полив 20 мм", None),
        ("один два три чотири пʼять", None),
        ("x" * 65, None),
        ("Ім'я\nще рядок", None),
        ("...", None),
    ],
)
def test_what_counts_as_a_name(text: str, name: str | None) -> None:
    assert valid_name(text) == name


async def _summary(core: Core, user_id: str, day: int, text: str) -> int:
    """A conversation summary as the compaction stores it."""
    end = datetime(2026, 5, day, 9, 0, tzinfo=UTC)
    async with core.db.write() as session:
        row = ConversationSummaryRow(
            key=str(uuid.uuid4()),
            user_id=user_id,
            period_start=end - timedelta(minutes=20),
            period_end=end,
            text=text,
            intents=["planning"],
            message_count=3,
            source="extractive",
        )
        session.add(row)
        await session.flush()
        return row.id


async def test_a_single_summary_is_deleted_by_its_button(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    await tg.say(FARMER, "привіт")
    kept = await _summary(core, f"tg:{FARMER}", 10, "10.05: план поливу на Північному")
    gone = await _summary(core, f"tg:{FARMER}", 12, "12.05: обприскування кукурудзи")
    theirs = await _summary(core, f"tg:{INTRUDER}", 12, "12.05: чужа розмова")
    [card] = await tg.say(FARMER, "/me")
    assert "обприскування кукурудзи" in (card.text or "")
    buttons = _buttons(card.params)
    # Newest first, each with its day.
    assert buttons[-2:] == [
        MeForgetTalkCD(summary=gone).pack(),
        MeForgetTalkCD(summary=kept).pack(),
    ]
    calls = await tg.press(FARMER, MeForgetTalkCD(summary=gone).pack(), message_id(card))
    sent = requests(calls)
    assert sent[0][1].get("text") == catalog.text("uk", "me.talk_forgotten")
    assert sent[-1][0] == "editMessageText"
    assert "обприскування кукурудзи" not in str(sent[-1][1]["text"])
    assert "план поливу" in str(sent[-1][1]["text"])
    left = await core.pipeline.recall.conversations.window(f"tg:{FARMER}")  # type: ignore[union-attr]
    assert [view.id for view in left] == [kept]
    # Someone else's summary (a forged id) is not the presser's to delete.
    calls = await tg.press(FARMER, MeForgetTalkCD(summary=theirs).pack(), message_id(card))
    assert requests(calls)[0][1].get("text") == catalog.text("uk", "actions.expired")
    others = await core.pipeline.recall.conversations.window(f"tg:{INTRUDER}")  # type: ignore[union-attr]
    assert [view.id for view in others] == [theirs]
