"""The journal through its use cases, on a real database: several operations per
card, plans, questions and negations, duplicates within ten minutes, each operation
confirmable on its own, amounts kept apart."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models import FarmProfileRow, FieldRow, OperationRow
from pipeline.actions import JournalAction, JournalVerb
from pipeline.farm.journal.service import Journal
from pipeline.handle import Pipeline
from pipeline.types import Incoming, Reply

USER = "tg:78"
# 23:30 UTC on 11 May is already 12 May in Kyiv: the farm's day, not UTC's.
NOW = datetime(2025, 5, 11, 23, 30, tzinfo=UTC)
TODAY = date(2025, 5, 12)


@pytest.fixture
async def journal(pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession]) -> Journal:
    await pipeline.handle_message(Incoming(USER, 78, "привіт", uuid.uuid4().hex[:16]))
    async with session_factory() as session:
        farm = (
            await session.execute(select(FarmProfileRow).where(FarmProfileRow.user_id == USER))
        ).scalar_one()
        session.add_all(
            [
                FieldRow(farm_id=farm.farm_id, field_id="field:pole-3", name="Поле 3"),
                FieldRow(farm_id=farm.farm_id, field_id="field:pole-5", name="Поле 5"),
                FieldRow(farm_id=farm.farm_id, field_id="field:pole-12", name="Поле 12"),
                FieldRow(farm_id=farm.farm_id, field_id="field:levada", name="Левада"),
            ]
        )
        await session.commit()
    return pipeline.journal


async def _card(
    journal: Journal, text: str, message_id: int, *, now: datetime = NOW, lang: str = "uk"
) -> Reply | None:
    proposal = await journal.propose(
        user_id=USER,
        chat_id=78,
        message_id=message_id,
        text=text,
        lang=lang,
        now=now,  # type: ignore[arg-type]
    )
    return proposal.reply


def _action(reply: Reply, verb: JournalVerb, item: int | None = None) -> JournalAction:
    return next(
        b.action
        for row in reply.buttons
        for b in row
        if isinstance(b.action, JournalAction) and b.action.verb is verb and b.action.item == item
    )


async def _press(journal: Journal, action: JournalAction, now: datetime = NOW) -> Reply:
    return (await journal.decide(user_id=USER, action=action, lang="uk", now=now)).reply


async def _rows(factory: async_sessionmaker[AsyncSession]) -> list[OperationRow]:
    async with factory() as session:
        result = await session.execute(select(OperationRow).order_by(OperationRow.id))
        return list(result.scalars())


async def test_two_operations_one_card_each_with_its_own_values(
    journal: Journal, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    card = await _card(journal, "Вчора на полі 3 дискували, а сьогодні посіяли горох 250 кг/га", 1)
    assert card is not None
    lines = card.text.splitlines()
    assert lines[1].startswith("1. Обробіток ґрунту — Поле 3") and "11.05.2025" in lines[1]
    assert lines[2].startswith("2. Сівба — Поле 3") and "250 кг/га" in lines[2]
    assert "250" not in lines[1]
    await _press(journal, _action(card, JournalVerb.WRITE))
    tillage, sowing = await _rows(session_factory)
    assert (tillage.op_type, tillage.field_id, tillage.op_date, tillage.rate) == (
        "tillage",
        "field:pole-3",
        date(2025, 5, 11),
        None,
    )
    assert (sowing.op_type, sowing.field_id, sowing.op_date) == ("sowing", "field:pole-3", TODAY)
    assert (sowing.rate, sowing.rate_unit, sowing.crop_id) == (250.0, "kg/ha", "crop:peas")


async def test_each_operation_can_be_confirmed_alone(
    journal: Journal, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    card = await _card(journal, "поле 5 прикатали, поле 12 заборонували", 2)
    assert card is not None
    after = await _press(journal, _action(card, JournalVerb.WRITE, 1))
    [row] = await _rows(session_factory)
    assert (row.op_type, row.field_id) == ("tillage", "field:pole-12")
    # The card stays, with the operation left; the written one is marked.
    assert "✅ записано" in after.text.splitlines()[2]
    assert [
        b.action.item for row_ in after.buttons for b in row_ if isinstance(b.action, JournalAction)
    ] == [None, None, None]  # type: ignore[union-attr]
    closed = await _press(journal, _action(after, JournalVerb.WRITE))
    # Closed: only ↩️ is left, which takes back what the card wrote.
    assert [b.action for row_ in closed.buttons for b in row_] == [
        JournalAction(JournalVerb.UNDO, after.buttons[0][0].action.draft_id)  # type: ignore[union-attr]
    ]
    rolling, tillage = sorted(await _rows(session_factory), key=lambda r: r.op_type)
    assert (rolling.op_type, rolling.field_id) == ("rolling", "field:pole-5")
    assert tillage.field_id == "field:pole-12"


async def test_plans_land_as_planned(
    journal: Journal, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    card = await _card(journal, "заплануй обприскування Поле 3 на 20.05", 3)
    assert card is not None and "заплановано" in card.text
    await _press(journal, _action(card, JournalVerb.WRITE))
    [row] = await _rows(session_factory)
    assert (row.status, row.op_date, row.field_id) == ("planned", date(2025, 5, 20), "field:pole-3")


@pytest.mark.parametrize(
    "text",
    [
        "дощ, тому обприскування на полі 3 відміняється",
        "не встигли обприскати поле 3, дощ",
        "Сусід вже посіяв кукурудзу, а ми ще ні",
        "комбайн зламався, збирання стоїть",
    ],
)
async def test_negations_write_nothing(
    journal: Journal, session_factory: async_sessionmaker[AsyncSession], text: str
) -> None:
    reply = await _card(journal, text, 4)
    assert reply is not None and reply.buttons == ()
    assert reply.text == journal._catalog.text("uk", "journal.negated")


async def test_a_question_is_no_card(journal: Journal) -> None:
    assert await _card(journal, "did you record the spraying on field 3?", 5) is None


async def test_amounts_are_kept_apart(
    journal: Journal, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    card = await _card(journal, "Раундап 3 л/га по стерні на Леваді, обробили 40 га", 6)
    assert card is not None and "Норма: 3 л/га" in card.text and "Площа: 40 га" in card.text
    await _press(journal, _action(card, JournalVerb.WRITE))
    card = await _card(journal, "зібрали 320 т кукурудзи з поля 12, 9,8 т/га", 7)
    assert card is not None and "Урожайність: 9,8 т/га" in card.text
    await _press(journal, _action(card, JournalVerb.WRITE))
    spraying, harvest = await _rows(session_factory)
    assert (spraying.product, spraying.rate, spraying.rate_unit, spraying.area_ha) == (
        "Раундап",
        3.0,
        "l/ha",
        40.0,
    )
    assert (harvest.amount, harvest.amount_unit, harvest.yield_t_ha) == (320.0, "t", 9.8)


async def test_the_same_operation_within_ten_minutes_is_a_repeat(
    journal: Journal, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    text = "обприскали поле 3 Раундапом 2 л/га"
    first = await _card(journal, text, 10)
    second = await _card(journal, text, 11, now=NOW + timedelta(minutes=1))
    assert first is not None and second is not None
    duplicate = journal._catalog.text("uk", "journal.duplicate")
    assert duplicate not in first.text and duplicate in second.text
    # The repeat offers «записати ще раз», not a plain ✅.
    assert [b.action.verb for b in second.buttons[0]] == [  # type: ignore[union-attr]
        JournalVerb.AGAIN,
        JournalVerb.EDIT,
        JournalVerb.CANCEL,
    ]
    await _press(journal, _action(first, JournalVerb.WRITE), NOW + timedelta(minutes=2))
    # ✅ twice (a plain ✅ forged on the second card) never writes twice ...
    forged = JournalAction(JournalVerb.WRITE, _action(second, JournalVerb.AGAIN).draft_id)
    reply = await _press(journal, forged, NOW + timedelta(minutes=3))
    assert duplicate in reply.text and len(await _rows(session_factory)) == 1
    # ... only «записати ще раз» does.
    await _press(journal, _action(reply, JournalVerb.AGAIN), NOW + timedelta(minutes=3))
    assert len(await _rows(session_factory)) == 2


async def test_after_ten_minutes_it_is_new_work(
    journal: Journal, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    text = "обприскали поле 3 Раундапом 2 л/га"
    first = await _card(journal, text, 12)
    assert first is not None
    await _press(journal, _action(first, JournalVerb.WRITE))
    later = await _card(journal, text, 13, now=NOW + timedelta(minutes=11))
    assert later is not None
    assert journal._catalog.text("uk", "journal.duplicate") not in later.text
    await _press(journal, _action(later, JournalVerb.WRITE), NOW + timedelta(minutes=11))
    assert len(await _rows(session_factory)) == 2


async def test_other_amounts_are_not_a_repeat(journal: Journal) -> None:
    first = await _card(journal, "обприскали поле 3 Раундапом 2 л/га", 14)
    assert first is not None
    await _press(journal, _action(first, JournalVerb.WRITE))
    other = await _card(journal, "обприскали поле 3 Раундапом 3 л/га", 15)
    assert other is not None
    assert journal._catalog.text("uk", "journal.duplicate") not in other.text


async def test_english_card_names_units_and_numbers(journal: Journal) -> None:
    card = await _card(journal, "sprayed field 3 with Roundup 1.5 l/ha yesterday", 16, lang="en")
    assert card is not None
    assert "Rate: 1.5 l/ha" in card.text and "Field: Поле 3" in card.text
    uk = await _card(journal, "обприскали поле 5 Раундапом 1,5 л/га", 17)
    assert uk is not None and "Норма: 1,5 л/га" in uk.text
    assert "field:" not in card.text + uk.text and "crop:" not in card.text + uk.text


async def _say(pipeline: Pipeline, text: str, message_id: int) -> Reply:
    return await pipeline.handle_message(
        Incoming(USER, 78, text, uuid.uuid4().hex[:16], message_id=message_id)
    )


async def test_a_field_area_said_in_chat_is_stored(
    journal: Journal, pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    reply = await _say(pipeline, "поле 3 — 85 га", 30)
    assert "«Поле 3»: 85 га" in reply.text
    assert not any(isinstance(b.action, JournalAction) for row in reply.buttons for b in row)
    reply = await _say(pipeline, "площа поля 5: 40,5 га, Левада 12 га", 31)
    assert "40,5 га" in reply.text and "Левада" in reply.text
    async with session_factory() as session:
        rows = {r.field_id: r.area_ha for r in (await session.execute(select(FieldRow))).scalars()}
    assert rows["field:pole-3"] == 85.0 and rows["field:pole-5"] == 40.5
    assert rows["field:levada"] == 12.0 and rows["field:pole-12"] is None
    assert await _rows(session_factory) == []


async def test_an_operation_ending_in_an_area_is_an_operation_not_a_field_area(
    journal: Journal, pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    """«… на полі Поле 5 45 га» ends like an area statement, but the message is a sowing:
    the card comes, and no field named by the whole sentence gets an area."""
    reply = await _say(pipeline, "вчора посіяли соняшник на полі 5 45 га", 32)
    assert reply.text.startswith("📝"), reply.text
    assert any(isinstance(b.action, JournalAction) for row in reply.buttons for b in row)
    async with session_factory() as session:
        rows = {r.field_id: r.area_ha for r in (await session.execute(select(FieldRow))).scalars()}
    assert set(rows) == {"field:pole-3", "field:pole-5", "field:pole-12", "field:levada"}
    assert all(area is None for area in rows.values())


@pytest.mark.parametrize(
    "text",
    [
        "треба обприскати поле 3 завтра",
        "завтра будемо сіяти кукурудзу на полі 5",
        "Прима Форте 0,6 л/га на пшениці, поле 12",
    ],
)
async def test_operations_in_other_words_still_get_a_card(
    journal: Journal, pipeline: Pipeline, text: str
) -> None:
    reply = await _say(pipeline, text, 40)
    assert reply.text.startswith("📝"), reply.text
    assert any(isinstance(b.action, JournalAction) for row in reply.buttons for b in row)


async def test_a_planning_question_gets_no_card(journal: Journal, pipeline: Pipeline) -> None:
    reply = await _say(pipeline, "що заплановано на цей тиждень?", 41)
    assert not reply.text.startswith("📝")
    assert not any(isinstance(b.action, JournalAction) for row in reply.buttons for b in row)
