"""The agronomist desk through the dispatcher: the button under an unsure answer,
the card to the operators on yes, /answer back to the farmer, /questions, and the
refusal of the operators' commands to anyone else."""

from __future__ import annotations

from sqlalchemy import select

from bot.factory import Core
from bot.keyboards.pipeline import AgronomistCD
from bot.local_session import ApiCall, LocalBot
from db.models import AgronomistQuestionRow
from pipeline.actions import HandoffChoice
from pipeline.i18n import Catalog
from tests.handlers.conftest import FARMER, INTRUDER, OPERATOR, message_id, requests

#: A crop the knowledge base has no card for: the answer is honest about it.
UNSURE = "яка норма висіву кавунів? дзвоніть +380501234567"


async def ask(tg: LocalBot) -> tuple[ApiCall, AgronomistCD]:
    [sent] = await tg.say(FARMER, UNSURE)
    rows = sent.params["reply_markup"]["inline_keyboard"]
    [[button]] = [row for row in rows if AgronomistCD.__prefix__ + ":" in row[0]["callback_data"]]
    return sent, AgronomistCD.unpack(button["callback_data"])


def messages(calls: list[ApiCall]) -> list[tuple[int, str]]:
    """The messages the bot sent: (chat, text)."""
    return [(p["chat_id"], p["text"]) for m, p in requests(calls) if m == "sendMessage"]


async def stored(core: Core) -> list[tuple[str, str, str | None]]:
    async with core.db.read() as session:
        rows = (await session.execute(select(AgronomistQuestionRow))).scalars()
        return [(row.user_id, row.status, row.answer) for row in rows]


async def consent(tg: LocalBot) -> tuple[int, list[ApiCall]]:
    sent, button = await ask(tg)
    calls = await tg.press(FARMER, button.pack(), message_id(sent))
    return button.question, calls


async def test_an_unsure_answer_offers_the_agronomist(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    sent, button = await ask(tg)
    assert catalog.text("uk", "knowledge.unsure.offer") in sent.params["text"]
    labels = [b["text"] for row in sent.params["reply_markup"]["inline_keyboard"] for b in row]
    assert catalog.text("uk", "agronomist.button") in labels
    assert button.choice == HandoffChoice.YES
    assert await stored(core) == [(f"tg:{FARMER}", "offered", None)]
    # Somebody else pressing (forging) the farmer's button sends nothing anywhere.
    calls = await tg.press(INTRUDER, button.pack(), message_id(sent))
    assert messages(calls) == [(INTRUDER, catalog.text("uk", "actions.expired"))]
    assert await stored(core) == [(f"tg:{FARMER}", "offered", None)]


async def test_consent_sends_a_sanitised_card_to_the_operators(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    number, calls = await consent(tg)
    sent = messages(calls)
    to_operator = [text for chat, text in sent if chat == OPERATOR]
    assert len(to_operator) == 1
    assert f"#{number}" in to_operator[0] and "кавун" in to_operator[0]
    assert "380501234567" not in to_operator[0]  # the phone number never leaves
    assert (FARMER, catalog.text("uk", "agronomist.sent", id=number)) in sent
    assert await stored(core) == [(f"tg:{FARMER}", "pending", None)]
    # A second press sends nothing again.
    again = await tg.press(
        FARMER, AgronomistCD(choice=HandoffChoice.YES, question=number).pack(), 1
    )
    assert all(chat != OPERATOR for chat, _ in messages(again))


async def test_answer_reaches_the_farmer_labelled_and_is_stored(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    number, _ = await consent(tg)
    calls = await tg.say(OPERATOR, f"/answer {number} 6–8 тис. насінин на гектар")
    sent = messages(calls)
    [to_farmer] = [text for chat, text in sent if chat == FARMER]
    assert to_farmer == catalog.text(
        "uk", "agronomist.answer", question=UNSURE, text="6–8 тис. насінин на гектар"
    )
    assert (OPERATOR, catalog.text("uk", "agronomist.delivered", id=number)) in sent
    assert await stored(core) == [(f"tg:{FARMER}", "answered", "6–8 тис. насінин на гектар")]
    # A number no table holds is a typo: the usage, not a database error.
    huge = await tg.say(OPERATOR, "/answer 99999999999999999999999 текст")
    assert [text for _, text in messages(huge)] == [catalog.text("uk", "agronomist.usage")]
    # Answered once: a second /answer is refused.
    twice = await tg.say(OPERATOR, f"/answer {number} ще раз")
    assert [text for _, text in messages(twice)] == [
        catalog.text("uk", "agronomist.missing", id=number)
    ]


async def test_operator_commands_are_refused_to_a_farmer(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    number, _ = await consent(tg)
    for text in (f"/answer {number} моя відповідь", "/questions"):
        calls = await tg.say(INTRUDER, text)
        assert all(chat == INTRUDER and "кавун" not in text for chat, text in messages(calls))
    assert await stored(core) == [(f"tg:{FARMER}", "pending", None)]
    # Somebody else's question cannot be sent by pressing its button.
    forged = AgronomistCD(choice=HandoffChoice.YES, question=number).pack()
    calls = await tg.press(INTRUDER, forged, 1)
    assert [chat for chat, _ in messages(calls)] == [INTRUDER]
    assert await stored(core) == [(f"tg:{FARMER}", "pending", None)]


async def test_questions_lists_the_pending_ones(tg: LocalBot, core: Core, catalog: Catalog) -> None:
    assert messages(await tg.say(OPERATOR, "/questions")) == [
        (OPERATOR, catalog.text("uk", "agronomist.none"))
    ]
    number, _ = await consent(tg)
    [(_, text)] = messages(await tg.say(OPERATOR, "/questions"))
    assert text.startswith(catalog.text("uk", "agronomist.header"))
    assert f"#{number}" in text and "кавун" in text
