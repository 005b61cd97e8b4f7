"""Recording operations: consent card, exactly-once writes, unknown names, the
operators' dictionary review."""

from __future__ import annotations

import asyncio
import uuid
from datetime import date

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models import FarmProfileRow, FieldRow, OperationRow, PendingTermRow
from db.uow import Database
from pipeline.actions import JournalAction, JournalVerb
from pipeline.farm.terms import TermError, TermReview
from pipeline.handle import Pipeline
from pipeline.memory import Memory
from pipeline.types import Incoming, Reply, Shown
from tests.integration.learning_world import add_fields
from tests.shared import rulebook

USER = "tg:77"


@pytest.fixture
def review(db: Database, memory: Memory) -> TermReview:
    """The operators' term review over the pipeline's own memory services."""
    return TermReview(db, memory.editor, rulebook().vocabulary.rules)


def _incoming(text: str, message_id: int | None = None, user: str = USER) -> Incoming:
    return Incoming(
        user, 77, text, uuid.uuid4().hex[:16], first_name="Тарас", message_id=message_id
    )


async def _say(
    pipeline: Pipeline, factory: async_sessionmaker[AsyncSession], text: str, message_id: int
) -> Reply:
    return await pipeline.handle_message(_incoming(text, message_id))


async def _press(
    pipeline: Pipeline,
    factory: async_sessionmaker[AsyncSession],
    action: JournalAction,
    user: str = USER,
) -> Reply:
    return await pipeline.handle_action(action, _incoming("", user=user))


def _action(reply: Reply, verb: JournalVerb) -> JournalAction:
    return next(
        b.action
        for row in reply.buttons
        for b in row
        if isinstance(b.action, JournalAction) and b.action.verb is verb
    )


async def _operations(factory: async_sessionmaker[AsyncSession]) -> list[OperationRow]:
    async with factory() as session:
        return list(
            (await session.execute(select(OperationRow).order_by(OperationRow.id))).scalars()
        )


@pytest.fixture
async def farm_with_fields(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession]
) -> str:
    await _say(pipeline, session_factory, "привіт", 1)
    return await add_fields(session_factory, USER)


async def test_card_then_write_once(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession], farm_with_fields: str
) -> None:
    card = await _say(pipeline, session_factory, "запиши полив 20 мм на Північному вчора", 10)
    assert "Полив" in card.text and "20 мм" in card.text
    assert await _operations(session_factory) == []  # nothing before consent
    written = await _press(pipeline, session_factory, _action(card, JournalVerb.WRITE))
    assert pipeline.catalog.text("uk", "journal.written") in written.text
    again = await _press(pipeline, session_factory, _action(card, JournalVerb.WRITE))
    assert pipeline.catalog.text("uk", "journal.already_written") in again.text
    [operation] = await _operations(session_factory)
    assert (operation.op_type, operation.field_id, operation.quantity, operation.unit) == (
        "irrigation",
        "field:pivnichne",
        20.0,
        "mm",
    )
    assert operation.status == "done" and operation.author == USER


async def test_redelivered_message_writes_once(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession], farm_with_fields: str
) -> None:
    # Telegram redelivers the same message: the same card (one draft, not a second
    # card saying it looks recorded), and it writes once.
    first = await _say(pipeline, session_factory, "внеси обприскування поле 3 2 л/га", 20)
    second = await _say(pipeline, session_factory, "внеси обприскування поле 3 2 л/га", 20)
    assert pipeline.catalog.text("uk", "journal.duplicate") not in second.text
    assert _action(second, JournalVerb.WRITE) == _action(first, JournalVerb.WRITE)
    await _press(pipeline, session_factory, _action(first, JournalVerb.WRITE))
    reply = await _press(pipeline, session_factory, _action(second, JournalVerb.WRITE))
    assert pipeline.catalog.text("uk", "journal.already_written") in reply.text
    assert len(await _operations(session_factory)) == 1


async def test_double_tap_at_once_writes_once(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession], farm_with_fields: str
) -> None:
    card = await _say(pipeline, session_factory, "вчора посіяли кукурудзу на Північному", 30)
    action = _action(card, JournalVerb.WRITE)
    await asyncio.gather(*(_press(pipeline, session_factory, action) for _ in range(5)))
    [operation] = await _operations(session_factory)
    assert operation.op_type == "sowing" and operation.crop_id == "crop:maize"


async def test_cancel_and_edit_write_nothing(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession], farm_with_fields: str
) -> None:
    card = await _say(pipeline, session_factory, "запиши полив 10 мм поле 3", 40)
    cancelled = await _press(pipeline, session_factory, _action(card, JournalVerb.CANCEL))
    assert cancelled.text == pipeline.catalog.text("uk", "journal.cancelled")
    assert await _press(pipeline, session_factory, _action(card, JournalVerb.WRITE))
    card = await _say(pipeline, session_factory, "запиши полив 10 мм поле 3", 41)
    edit = await _press(pipeline, session_factory, _action(card, JournalVerb.EDIT))
    assert edit.text == pipeline.catalog.text("uk", "journal.edit")
    await _press(pipeline, session_factory, _action(card, JournalVerb.WRITE))
    assert await _operations(session_factory) == []


async def test_someone_elses_card_cannot_be_written(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession], farm_with_fields: str
) -> None:
    card = await _say(pipeline, session_factory, "запиши полив 10 мм поле 3", 50)
    forged = await _press(
        pipeline, session_factory, _action(card, JournalVerb.WRITE), user="tg:666"
    )
    # Issue 24: the presser is told it is not theirs, in a pop-up; the card stays.
    assert forged.text == pipeline.catalog.text("uk", "journal.not_yours")
    assert forged.shown is Shown.POPUP
    assert await _operations(session_factory) == []


async def test_unknown_field_waits_for_an_operator_then_completes(
    pipeline: Pipeline,
    review: TermReview,
    session_factory: async_sessionmaker[AsyncSession],
    farm_with_fields: str,
) -> None:
    card = await _say(pipeline, session_factory, "запиши полив 15 мм на полі Гора вчора", 60)
    assert "Гора" in card.text or "гора" in card.text
    assert (
        pipeline.catalog.text("uk", "journal.pending_field", term="гора").split("«")[0] in card.text
    )
    await _press(pipeline, session_factory, _action(card, JournalVerb.WRITE))
    [operation] = await _operations(session_factory)
    assert operation.field_id is None and operation.pending_term_id is not None
    async with session_factory() as session:
        farm = await session.get(FarmProfileRow, farm_with_fields)
        assert farm is not None and farm.dict_pending_count == 1
        term = (await session.execute(select(PendingTermRow))).scalar_one()
    approved = await review.approve(term.id)
    assert approved.canonical_id == "field:hora"
    with pytest.raises(TermError):
        await review.approve(term.id)  # already reviewed
    result = await review.apply()
    assert (result.terms, result.operations) == (1, 1)
    [operation] = await _operations(session_factory)
    assert operation.field_id == "field:hora" and operation.pending_term_id is None
    async with session_factory() as session:
        farm = await session.get(FarmProfileRow, farm_with_fields)
        fields = await session.scalar(select(func.count()).select_from(FieldRow))
    assert farm is not None and "field:hora" in farm.field_ids and farm.dict_pending_count == 0
    assert fields == 3
    # Now the name is known: the next message resolves it without asking anyone.
    card = await _say(pipeline, session_factory, "запиши полив 5 мм на Горі", 61)
    # Called as the card called it, not as the message spelled it («гора»).
    assert "Поле: Гора" in card.text and "⏳" not in card.text


async def test_reject_and_stats(
    pipeline: Pipeline,
    review: TermReview,
    session_factory: async_sessionmaker[AsyncSession],
    farm_with_fields: str,
) -> None:
    for message_id, text in (
        (70, "запиши полив 15 мм на полі Гора"),
        (71, "запиши полив 5 мм на полі Гора"),
    ):
        card = await _say(pipeline, session_factory, text, message_id)
        await _press(pipeline, session_factory, _action(card, JournalVerb.WRITE))
    [term] = await review.pending()
    assert term.times_seen == 2
    await review.reject(term.id)
    assert await review.stats() == {"rejected": 1}
    with pytest.raises(TermError) as error:
        await review.reject(999)
    assert error.value.key == "terms.not_found"


@pytest.mark.parametrize("verb", [None, JournalVerb.CANCEL, JournalVerb.EDIT])
async def test_no_term_to_review_from_a_card_never_confirmed(
    pipeline: Pipeline,
    review: TermReview,
    session_factory: async_sessionmaker[AsyncSession],
    farm_with_fields: str,
    verb: JournalVerb | None,
) -> None:
    """The operators review names from confirmed work only (issue 16 point 5)."""
    card = await _say(pipeline, session_factory, "запиши полив 15 мм на полі Гора", 90)
    assert "⏳" in card.text  # the farmer is told the name will be checked
    if verb is not None:
        await _press(pipeline, session_factory, _action(card, verb))
    assert await review.pending() == []
    async with session_factory() as session:
        farm = await session.get(FarmProfileRow, farm_with_fields)
    assert farm is not None and farm.dict_pending_count == 0
    # Confirmed, the same card's name goes to the review, with the farmer's message.
    card = await _say(pipeline, session_factory, "запиши полив 25 мм на полі Гора", 91)
    await _press(pipeline, session_factory, _action(card, JournalVerb.WRITE))
    [term] = await review.pending()
    assert (term.term, term.first_message) == ("гора", "запиши полив 25 мм на полі Гора")


async def test_not_an_operation_gets_a_hint(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession], farm_with_fields: str
) -> None:
    reply = await _say(pipeline, session_factory, "запиши щось там колись", 80)
    assert reply.text == pipeline.catalog.text("uk", "journal.not_understood")
    assert date.today()  # the card path was not taken


async def test_a_first_ever_message_can_be_an_operation(
    pipeline: Pipeline, memory: Memory, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    """The card needs a farm: the journal asks for one explicitly (ensure_farm), once."""
    card = await _say(pipeline, session_factory, "запиши полив 20 мм на полі 3 вчора", 5)
    assert card.text.startswith("📝") and "20 мм" in card.text
    async with session_factory() as session:
        farms = await session.scalar(
            select(func.count()).select_from(FarmProfileRow).where(FarmProfileRow.user_id == USER)
        )
    assert farms == 1
    assert await memory.editor.ensure_farm(USER) is not None  # idempotent: the same farm
    async with session_factory() as session:
        again = await session.scalar(select(func.count()).select_from(FarmProfileRow))
    assert again == 1
