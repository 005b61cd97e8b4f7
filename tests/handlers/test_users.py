"""A farmer's updates through the dispatcher: the exact requests sent, the rows written."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from unittest.mock import ANY

import pytest
from sqlalchemy import select

from bot.keyboards.me import ForgetCD
from bot.keyboards.pipeline import JournalCD, OnboardingCD, StyleCD
from bot.local.session import LocalBot
from bot.wiring.factory import Core
from db.models import TelegramOutboxRow
from db.repositories import telegram_outbox
from pipeline.actions import JournalVerb, OnboardingChoice
from pipeline.language.catalog import Catalog
from tests.handlers.conftest import FARMER, INTRUDER, keyboard, message_id, requests, user_row

OTHER = INTRUDER  # another chat, whose kept reply stays


async def test_start_greets_a_new_farmer_and_offers_onboarding(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    calls = await tg.say(FARMER, "/start", first_name="Марія")

    greeting = "\n\n".join(
        [
            catalog.text("uk", "light.greeting_new", name="Маріє"),  # the vocative
            # A new user is a novice (issue 11 point 2): what an operation is, and why.
            catalog.text("uk", "level.novice.why.light.greeting_new"),
        ]
    )
    offer = catalog.text("uk", "onboarding.offer")
    buttons = keyboard(
        [
            (
                catalog.text("uk", "onboarding.start"),
                OnboardingCD(choice=OnboardingChoice.START).pack(),
            ),
            (
                catalog.text("uk", "onboarding.later"),
                OnboardingCD(choice=OnboardingChoice.LATER).pack(),
            ),
        ]
    )
    assert requests(calls) == [
        (
            "sendMessage",
            {"chat_id": FARMER, "text": f"{greeting}\n\n{offer}", "reply_markup": buttons},
        )
    ]
    row = await user_row(core, FARMER)
    assert row is not None
    assert (row.name, row.interaction_count, row.known_intents) == ("Марія", 1, ["greeting"])
    assert (row.expertise_level, row.expertise_locked) == ("novice", False)


async def test_onboarding_later_then_the_next_message_goes_to_the_pipeline(
    tg: LocalBot, catalog: Catalog
) -> None:
    [offer] = await tg.say(FARMER, "привіт")
    data = OnboardingCD(choice=OnboardingChoice.LATER).pack()
    calls = await tg.press(FARMER, data, message_id(offer))
    assert requests(calls) == [
        ("answerCallbackQuery", {"callback_query_id": ANY}),
        ("sendMessage", {"chat_id": FARMER, "text": catalog.text("uk", "onboarding.later_reply")}),
    ]


async def test_style_button_sets_the_style(tg: LocalBot, core: Core, catalog: Catalog) -> None:
    await tg.say(FARMER, "привіт")
    [card] = await tg.say(FARMER, "/me")
    calls = await tg.press(FARMER, StyleCD(style="brief").pack(), message_id(card))
    adverb = catalog.text("uk", "actions.adverb.brief")
    assert requests(calls) == [
        ("answerCallbackQuery", {"callback_query_id": ANY}),
        (
            "sendMessage",
            {"chat_id": FARMER, "text": catalog.text("uk", "actions.style_set", style=adverb)},
        ),
    ]
    row = await user_row(core, FARMER)
    assert row is not None and row.preferred_style == "brief"


@pytest.mark.parametrize(
    "data",
    [
        "st:loud",  # a style that does not exist
        "st:",  # no style
        "jr:write:abc",  # a draft id that is not a number
        "jr:steal:1",  # a verb that does not exist
        "ob:nonsense",  # an onboarding choice that does not exist
        "p:style:brief",  # the data of an older version of Stepan
        "drop:table",  # of no kind at all
    ],
)
async def test_forged_or_malformed_callbacks_get_the_expired_answer(
    tg: LocalBot, core: Core, catalog: Catalog, data: str
) -> None:
    [reply] = await tg.say(FARMER, "дякую")
    calls = await tg.press(FARMER, data, message_id(reply))
    assert requests(calls) == [
        ("answerCallbackQuery", {"callback_query_id": ANY}),
        ("sendMessage", {"chat_id": FARMER, "text": catalog.text("uk", "actions.expired")}),
    ]
    row = await user_row(core, FARMER)
    assert row is not None and row.preferred_style == "conversational"


async def test_a_journal_card_is_answered_in_place(tg: LocalBot, catalog: Catalog) -> None:
    [card] = await tg.say(FARMER, "запиши полив 20 мм на полі 3")
    markup = card.params["reply_markup"]["inline_keyboard"][0]
    draft = JournalCD.unpack(markup[0]["callback_data"]).draft
    assert [b["callback_data"] for b in markup] == [
        JournalCD(verb=verb, draft=draft).pack()
        for verb in (JournalVerb.WRITE, JournalVerb.EDIT, JournalVerb.CANCEL)
    ]
    cancel = JournalCD(verb=JournalVerb.CANCEL, draft=draft).pack()
    calls = await tg.press(FARMER, cancel, message_id(card))
    assert requests(calls) == [
        ("answerCallbackQuery", {"callback_query_id": ANY}),
        (
            "editMessageText",
            {
                "chat_id": FARMER,
                "message_id": message_id(card),
                "text": catalog.text("uk", "journal.cancelled"),
            },
        ),
    ]
    # Pressed again: the same text, which Telegram refuses as "not modified" and the
    # bot takes in its stride.
    again = await tg.press(FARMER, cancel, message_id(card))
    assert [(call.method, call.params.get("text")) for call in again] == [
        ("answerCallbackQuery", None),
        ("editMessageText", catalog.text("uk", "journal.cancelled")),
    ]
    assert again[1].error is not None and "message is not modified" in again[1].error


async def test_forget_asks_first_and_keep_deletes_nothing(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    await tg.say(FARMER, "привіт")
    [confirm] = await tg.say(FARMER, "/forget")
    assert confirm.params == {
        "chat_id": FARMER,
        "text": catalog.text("uk", "me.forget_confirm"),
        "reply_markup": keyboard(
            [
                (catalog.text("uk", "me.forget_yes"), ForgetCD(confirm=True).pack()),
                (catalog.text("uk", "me.forget_no"), ForgetCD(confirm=False).pack()),
            ]
        ),
    }
    calls = await tg.press(FARMER, ForgetCD(confirm=False).pack(), message_id(confirm))
    assert requests(calls) == [
        ("answerCallbackQuery", {"callback_query_id": ANY}),
        (
            "editMessageText",
            {
                "chat_id": FARMER,
                "message_id": message_id(confirm),
                "text": catalog.text("uk", "me.kept"),
            },
        ),
    ]
    assert await user_row(core, FARMER) is not None
    calls = await tg.press(FARMER, ForgetCD(confirm=True).pack(), message_id(confirm))
    assert requests(calls)[-1][1]["text"] == catalog.text("uk", "me.forgotten")
    assert await user_row(core, FARMER) is None


async def test_forget_also_drops_the_replies_kept_for_the_farmer(tg: LocalBot, core: Core) -> None:
    """Replies waiting out flood control (and one sent whose delete did not commit) hold
    the farmer's words: /forget takes them, another chat's stay."""
    await tg.say(FARMER, "привіт")
    now = datetime.now(UTC)
    async with core.db.write() as session:
        for chat, text in ((FARMER, "Полив 20 мм записано"), (FARMER, "sent"), (OTHER, "інше")):
            await telegram_outbox.keep(
                session, method="SendMessage", payload=json.dumps({"chat_id": chat, "text": text}),
                chat_id=chat, update_id=None, not_before=now + timedelta(minutes=5),
                owner="someone", until=now + timedelta(minutes=6),
            )  # fmt: skip
    [confirm] = await tg.say(FARMER, "/forget")
    await tg.press(FARMER, ForgetCD(confirm=True).pack(), message_id(confirm))
    async with core.db.read() as session:
        left = (await session.execute(select(TelegramOutboxRow.chat_id))).scalars().all()
    assert left == [OTHER]


async def test_a_sticker_gets_the_polite_line(tg: LocalBot, catalog: Catalog) -> None:
    sticker = {"file_id": "x", "file_unique_id": "y", "type": "regular", "width": 1, "height": 1}
    update = tg.telegram.message_update(
        FARMER, {"sticker": sticker | {"is_animated": False, "is_video": False}}
    )
    calls = await tg.feed(update)
    assert requests(calls) == [
        ("sendMessage", {"chat_id": FARMER, "text": catalog.text("uk", "bot.non_text")})
    ]


async def test_a_button_answers_in_the_conversations_language(
    tg: LocalBot, catalog: Catalog
) -> None:
    """A farmer whose Telegram speaks Ukrainian writes in English: the card's button
    and a short follow-up answer in English too (the conversation's language), not
    in the client's or the not-yet-switched profile's."""
    [card] = await tg.say(FARMER, "record irrigation 20 mm on field 3 today", language_code="uk")
    markup = card.params["reply_markup"]["inline_keyboard"][0]
    assert markup[0]["text"] == catalog.text("en", "journal.write")
    draft = JournalCD.unpack(markup[0]["callback_data"]).draft
    cancel = JournalCD(verb=JournalVerb.CANCEL, draft=draft).pack()
    calls = await tg.press(FARMER, cancel, message_id(card))
    assert calls[1].params["text"] == catalog.text("en", "journal.cancelled")
    [reply] = await tg.say(FARMER, "thanks", language_code="uk")
    assert reply.params["text"].startswith(("Always glad", "You're welcome", "Any time"))
