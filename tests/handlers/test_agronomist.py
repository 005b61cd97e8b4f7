"""The agronomist desk through the dispatcher: the button under an unsure answer,
the card to the operators on yes, /answer (or a reply to the card) back to the
farmer, /questions, expiry of what nobody answers, and the refusal of the
operators' commands to anyone else."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select, update

from bot.keyboards.pipeline import AgronomistCD
from bot.local.session import ApiCall, LocalBot
from bot.wiring.factory import Core
from bot.wiring.scheduler import JobSpec, default_jobs
from db.models import AgronomistQuestionRow
from pipeline.actions import HandoffChoice
from pipeline.language.catalog import Catalog
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


async def test_a_farmer_sees_the_state_of_their_questions(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    assert messages(await tg.say(FARMER, "/myquestions")) == [
        (FARMER, catalog.text("uk", "agronomist.mine_none"))
    ]
    number, _ = await consent(tg)
    pending = catalog.text("uk", "agronomist.mine_pending", id=number, question=UNSURE)
    header = catalog.text("uk", "agronomist.mine_header")
    assert messages(await tg.say(FARMER, "/myquestions")) == [(FARMER, f"{header}\n{pending}")]
    # Nobody else sees it.
    assert messages(await tg.say(INTRUDER, "/myquestions")) == [
        (INTRUDER, catalog.text("uk", "agronomist.mine_none"))
    ]
    await tg.say(OPERATOR, f"/answer {number} 6–8 тис. насінин на гектар")
    answered = catalog.text("uk", "agronomist.mine_answered", id=number, question=UNSURE)
    assert messages(await tg.say(FARMER, "/myquestions")) == [(FARMER, f"{header}\n{answered}")]


async def test_a_reply_to_the_card_answers_its_question(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    number, calls = await consent(tg)
    [card] = [c for c in calls if c.method == "sendMessage" and c.params["chat_id"] == OPERATOR]
    # A reply to somebody else's message naming «#N» is no answer: the pipeline has it.
    other = tg.telegram.message_update(FARMER, {"text": f"дивіться #{number}"})
    stray = tg.telegram.message_update(
        OPERATOR, {"text": "це не відповідь", "reply_to_message": other["message"]}
    )
    assert all(chat == OPERATOR for chat, _ in messages(await tg.feed(stray)))
    assert await stored(core) == [(f"tg:{FARMER}", "pending", None)]

    reply = tg.telegram.message_update(
        OPERATOR, {"text": "Сійте 6–8 тис. насінин на гектар", "reply_to_message": card.result}
    )
    sent = messages(await tg.feed(reply))

    assert (
        FARMER,
        catalog.text(
            "uk", "agronomist.answer", question=UNSURE, text="Сійте 6–8 тис. насінин на гектар"
        ),
    ) in sent
    assert (OPERATOR, catalog.text("uk", "agronomist.delivered", id=number)) in sent
    assert await stored(core) == [(f"tg:{FARMER}", "answered", "Сійте 6–8 тис. насінин на гектар")]


async def _asked_hours_ago(core: Core, hours: float) -> None:
    async with core.db.write() as session:
        await session.execute(
            update(AgronomistQuestionRow).values(
                asked_at=datetime.now(UTC) - timedelta(hours=hours)
            )
        )


def _expiry_job(core: Core, told: list[tuple[int, str]]) -> JobSpec:
    async def notify(chat: int, text: str) -> None:
        told.append((chat, text))

    desk = core.pipeline.advisor.desk if core.pipeline.advisor else None
    specs = default_jobs(
        core.db,
        sweep=core.memory.sweep,
        cache=core.memory.cache,
        sync=core.memory.sync,
        agronomist=desk,
        notify=notify,
    )
    [job] = [spec for spec in specs if spec.job_id == "agronomist_expiry"]
    return job


async def test_a_question_nobody_answers_expires_and_the_farmer_is_told(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    number, _ = await consent(tg)
    told: list[tuple[int, str]] = []
    job = _expiry_job(core, told)
    await _asked_hours_ago(core, 71)  # the default expiry is 72 hours
    assert await job.func() == "expired 0, told 0"
    assert await stored(core) == [(f"tg:{FARMER}", "pending", None)]

    await _asked_hours_ago(core, 73)
    assert await job.func() == "expired 1, told 1"
    assert told == [
        (
            FARMER,
            catalog.text("uk", "agronomist.expired", id=number, question=UNSURE, hours=72),
        )
    ]
    assert await job.func() == "expired 0, told 0"  # told once
    header = catalog.text("uk", "agronomist.mine_header")
    expired = catalog.text("uk", "agronomist.mine_expired", id=number, question=UNSURE)
    assert messages(await tg.say(FARMER, "/myquestions")) == [(FARMER, f"{header}\n{expired}")]
    assert messages(await tg.say(OPERATOR, "/questions")) == [
        (OPERATOR, catalog.text("uk", "agronomist.none"))
    ]
    # The agronomist's late answer still reaches the farmer.
    sent = messages(await tg.say(OPERATOR, f"/answer {number} краще пізно"))
    assert (
        FARMER,
        catalog.text("uk", "agronomist.answer", question=UNSURE, text="краще пізно"),
    ) in sent
    assert await stored(core) == [(f"tg:{FARMER}", "answered", "краще пізно")]
