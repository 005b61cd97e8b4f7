"""Correcting the journal in conversation (issue 26): the open card or the last entry
fixed by a message, a delete and its ↩️, a plan marked done; each change applied once
and kept as a revision; a deleted entry out of every report, kept for a restore."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models import FarmProfileRow, FieldRow, OperationRevisionRow, OperationRow
from db.repositories import farm as farm_repo
from db.uow import Database
from pipeline.actions import EntryAction, EntryVerb, JournalAction, JournalVerb
from pipeline.clock import Clock
from pipeline.farm.journal.edits.reminders import PlanReminders, Reminder
from pipeline.farm.reports import build_operations_workbook
from pipeline.handle import Pipeline
from pipeline.language.texts import Texts
from pipeline.types import Incoming, Reply, Shown
from tests.integration.reports_world import open_sheets
from tests.shared import catalog

USER = "tg:501"
OTHER = "tg:502"
Factory = async_sessionmaker[AsyncSession]
# 10:00 in Kyiv, 14 May 2026: the farm's today.
NOW = datetime(2026, 5, 14, 7, 0, tzinfo=UTC)


class _Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> datetime:
        return self.now


_CLOCK = _Clock()


@pytest.fixture
def pipeline_clock() -> Clock:
    _CLOCK.now = NOW
    return _CLOCK


class Chat:
    def __init__(self, pipeline: Pipeline, factory: Factory, user: str = USER) -> None:
        self.pipeline, self.factory, self.user = pipeline, factory, user
        self.message_id = 0

    def incoming(self, text: str = "", user: str | None = None) -> Incoming:
        self.message_id += 1
        return Incoming(user or self.user, 501, text, uuid.uuid4().hex[:16],
                        message_id=self.message_id, language_code="uk")  # fmt: skip

    async def say(self, text: str) -> Reply:
        return await self.pipeline.handle_message(self.incoming(text))

    async def press(self, reply: Reply, verb: JournalVerb, user: str | None = None) -> Reply:
        action = button(reply, verb)
        return await self.pipeline.handle_action(action, self.incoming(user=user))

    async def entries(self, *, deleted: bool = False) -> list[OperationRow]:
        async with self.factory() as session:
            query = select(OperationRow).order_by(OperationRow.id)
            if deleted:
                query = query.execution_options(include_deleted=True)
            return list((await session.execute(query)).scalars())

    async def revisions(self) -> list[tuple[str, dict[str, Any] | None, dict[str, Any] | None]]:
        async with self.factory() as session:
            rows = await session.execute(
                select(OperationRevisionRow).order_by(OperationRevisionRow.id)
            )
            return [(r.kind, r.before, r.after) for r in rows.scalars()]


def button(reply: Reply, verb: JournalVerb) -> JournalAction:
    return next(
        b.action
        for row in reply.buttons
        for b in row
        if isinstance(b.action, JournalAction) and b.action.verb is verb
    )


def text(key: str, **params: object) -> str:
    return catalog().text("uk", key, **params)


@pytest.fixture
async def chat(pipeline: Pipeline, session_factory: Factory) -> Chat:
    await pipeline.handle_message(Incoming(USER, 501, "привіт", uuid.uuid4().hex[:16]))
    async with session_factory() as session:
        farm = (
            await session.execute(select(FarmProfileRow).where(FarmProfileRow.user_id == USER))
        ).scalar_one()
        session.add_all(
            [
                FieldRow(farm_id=farm.farm_id, field_id="field:levada", name="Левада"),
                FieldRow(farm_id=farm.farm_id, field_id="field:pole-3", name="Поле 3"),
                FieldRow(farm_id=farm.farm_id, field_id="field:kurhan", name="Курган"),
            ]
        )
        await session.commit()
    return Chat(pipeline, session_factory)


async def _written(chat: Chat, message: str) -> Reply:
    card = await chat.say(message)
    return await chat.press(card, JournalVerb.WRITE)


async def test_a_wrong_rate_is_fixed_once_and_kept_as_a_revision(chat: Chat) -> None:
    await _written(chat, "внесли селітру 150 кг/га на Леваді")
    card = await chat.say("ой, помилився: не 150, а 120 кг/га")
    assert card.intent == "correction"
    assert "150 кг/га → 120 кг/га" in card.text
    [entry] = await chat.entries()
    assert entry.rate == 150  # nothing changes before ✅
    applied = await chat.press(card, JournalVerb.APPLY)
    assert applied.text == text("journal_edit.applied") and applied.shown is Shown.EDIT
    again = await chat.press(card, JournalVerb.APPLY)  # a double tap
    assert again.text == text("journal_edit.already")
    [entry] = await chat.entries()
    assert (entry.rate, entry.rate_unit, entry.quantity) == (120, "kg/ha", 120)
    kinds = [
        (kind, (before or {}).get("rate"), (after or {}).get("rate"))
        for kind, before, after in await chat.revisions()
    ]
    assert kinds == [("write", None, 150), ("edit", 150, 120)]


async def test_the_open_card_is_fixed_in_place_and_written_corrected(chat: Chat) -> None:
    card = await chat.say("внесли селітру 150 кг/га на Леваді")
    fixed = await chat.say("ні, не на Леваді, а на Полі 3")
    assert "Левада → Поле 3" in fixed.text
    # The same card: its ✅ writes the corrected operation.
    assert button(fixed, JournalVerb.WRITE) == button(card, JournalVerb.WRITE)
    await chat.press(fixed, JournalVerb.WRITE)
    [entry] = await chat.entries()
    assert (entry.field_id, entry.rate) == ("field:pole-3", 150)


async def test_a_wrong_part_the_entry_does_not_hold_changes_nothing(chat: Chat) -> None:
    await _written(chat, "внесли селітру 150 кг/га на Леваді")
    reply = await chat.say("ой, не 200, а 180")
    assert "150 кг/га" in reply.text and not reply.buttons
    [entry] = await chat.entries()
    assert entry.rate == 150
    assert [kind for kind, _b, _a in await chat.revisions()] == ["write"]


async def test_nothing_to_correct_is_said(chat: Chat) -> None:
    reply = await chat.say("помилився, не 150 а 120")
    assert reply.text == text("journal_edit.nothing")
    assert await chat.entries() == []


async def test_a_delete_asks_hides_the_entry_keeps_it_and_undo_restores(
    chat: Chat, session_factory: Factory
) -> None:
    await _written(chat, "внесли селітру 150 кг/га на Леваді")
    ask = await chat.say("видали останній запис")
    assert text("journal_edit.delete_ask") in ask.text
    assert len(await chat.entries()) == 1
    done = await chat.press(ask, JournalVerb.APPLY)
    assert done.text == text("journal_edit.deleted")
    # Out of the journal, plan/fact and reports; still in the table, restorable.
    assert await chat.entries() == []
    [kept] = await chat.entries(deleted=True)
    assert kept.deleted_at is not None
    async with session_factory() as session:
        farm = await farm_repo.farm_of(session, USER)
        assert farm is not None
        day = date(2026, 5, 14)
        assert list(await farm_repo.operations_between(session, farm.farm_id, day, day)) == []
    back = await chat.press(done, JournalVerb.UNDO)
    assert back.text == text("journal_edit.undone")
    [entry] = await chat.entries()
    assert entry.rate == 150
    twice = await chat.press(done, JournalVerb.UNDO)
    assert twice.text == text("journal_edit.undo_gone")
    assert [kind for kind, _b, _a in await chat.revisions()] == ["write", "delete", "restore"]


async def test_undo_right_after_a_write_takes_it_back(chat: Chat) -> None:
    written = await _written(chat, "внесли селітру 150 кг/га на Леваді")
    back = await chat.press(written, JournalVerb.UNDO)
    assert back.text == text("journal_edit.undone")
    assert await chat.entries() == []
    # ✅ on the card again writes nothing: the card was written, then taken back.
    assert len(await chat.entries(deleted=True)) == 1


async def test_a_correction_is_undone_to_what_it_was(chat: Chat) -> None:
    await _written(chat, "внесли селітру 150 кг/га на Леваді")
    card = await chat.say("дата не сьогодні, а вчора")
    applied = await chat.press(card, JournalVerb.APPLY)
    [entry] = await chat.entries()
    assert entry.op_date == date(2026, 5, 13)
    await chat.press(applied, JournalVerb.UNDO)
    [entry] = await chat.entries()
    assert entry.op_date == date(2026, 5, 14)


async def test_a_plan_done_becomes_done_with_no_second_entry(chat: Chat) -> None:
    await _written(chat, "заплануй обприскування на Кургані на завтра")
    [plan] = await chat.entries()
    assert (plan.status, plan.op_date) == ("planned", date(2026, 5, 15))
    card = await chat.say("обприскування на Кургані виконали")
    assert text("journal_edit.done_ask", date="14.05.2026") in card.text
    await chat.press(card, JournalVerb.APPLY)
    [entry] = await chat.entries()
    assert (entry.id, entry.status, entry.op_date) == (plan.id, "done", date(2026, 5, 14))


async def test_yesterdays_plan_done_is_dated_yesterday(chat: Chat) -> None:
    _CLOCK.now = NOW - timedelta(days=1)
    await _written(chat, "заплануй дискування на Полі 3 на завтра")
    _CLOCK.now = NOW + timedelta(days=1)
    card = await chat.say("зробили, що планували на вчора")
    await chat.press(card, JournalVerb.APPLY)
    [entry] = await chat.entries()
    assert (entry.status, entry.op_date) == ("done", date(2026, 5, 14))


async def test_another_member_cannot_apply_or_undo(chat: Chat) -> None:
    written = await _written(chat, "внесли селітру 150 кг/га на Леваді")
    card = await chat.say("не 150, а 120")
    refused = await chat.press(card, JournalVerb.APPLY, user=OTHER)
    assert refused.text == text("journal.not_yours") and refused.shown is Shown.POPUP
    refused = await chat.press(written, JournalVerb.UNDO, user=OTHER)
    assert refused.shown is Shown.POPUP
    [entry] = await chat.entries()
    assert entry.rate == 150


async def test_ordinary_messages_are_not_taken_for_corrections(chat: Chat) -> None:
    await _written(chat, "полив 20 мм на Левада")
    assert (await chat.say("привіт")).intent == "greeting"
    # More of the same work is a new record, not an edit of the last one.
    card = await chat.say("ще 10 мм полили на Леваді")
    await chat.press(card, JournalVerb.WRITE)
    assert sorted(e.rate for e in await chat.entries()) == [10, 20]


def entry_button(reply: Reply, verb: EntryVerb) -> EntryAction:
    return next(
        b.action
        for row in reply.buttons
        for b in row
        if isinstance(b.action, EntryAction) and b.action.verb is verb
    )


async def test_the_listing_opens_an_entry_to_delete_mark_done_and_read_its_history(
    chat: Chat,
) -> None:
    await _written(chat, "внесли селітру 150 кг/га на Леваді")
    await chat.press(await chat.say("не 150, а 120"), JournalVerb.APPLY)
    await _written(chat, "заплануй обприскування на Кургані на завтра")
    listing = await chat.say("що записано за тиждень?")
    shows = [b.action for row in listing.buttons for b in row if isinstance(b.action, EntryAction)]
    fert, plan = sorted(await chat.entries(), key=lambda e: e.op_type)
    # The week so far lists what was done (the plan is for tomorrow).
    assert shows == [EntryAction(EntryVerb.SHOW, fert.id)]
    card = await chat.pipeline.handle_action(EntryAction(EntryVerb.SHOW, fert.id), chat.incoming())
    assert "Левада" in card.text
    history = await chat.pipeline.handle_action(
        entry_button(card, EntryVerb.HISTORY), chat.incoming()
    )
    lines = history.text.splitlines()
    assert text("journal_edit.kind_write") in lines[1]
    assert text("journal_edit.kind_edit") in lines[2] and "150 кг/га → 120 кг/га" in lines[2]
    ask = await chat.pipeline.handle_action(entry_button(card, EntryVerb.DELETE), chat.incoming())
    await chat.press(ask, JournalVerb.APPLY)
    # The planned entry: ✅ Виконано, dated today.
    card = await chat.pipeline.handle_action(EntryAction(EntryVerb.SHOW, plan.id), chat.incoming())
    done = await chat.pipeline.handle_action(entry_button(card, EntryVerb.DONE), chat.incoming())
    await chat.press(done, JournalVerb.APPLY)
    [entry] = await chat.entries()
    assert (entry.id, entry.status, entry.op_date) == (plan.id, "done", date(2026, 5, 14))


async def test_an_entry_of_another_farm_is_refused(chat: Chat) -> None:
    await _written(chat, "внесли селітру 150 кг/га на Леваді")
    [entry] = await chat.entries()
    stranger = Incoming(OTHER, 502, "", uuid.uuid4().hex[:16])
    for verb in EntryVerb:
        reply = await chat.pipeline.handle_action(EntryAction(verb, entry.id), stranger)
        assert reply.text == text("actions.expired") and not reply.buttons
    assert len(await chat.entries()) == 1


async def test_the_report_has_the_journal_as_it_is_and_a_sheet_of_its_changes(
    chat: Chat, db: Database
) -> None:
    await _written(chat, "внесли селітру 150 кг/га на Леваді")
    await chat.press(await chat.say("не 150, а 120"), JournalVerb.APPLY)
    await _written(chat, "полив 20 мм на Полі 3")
    await chat.press(await chat.say("видали останній запис"), JournalVerb.APPLY)
    [entry] = await chat.entries()
    day = date(2026, 5, 14)
    report = await build_operations_workbook(
        db, entry.farm_id, day, day, texts=Texts(catalog(), "uk")
    )
    sheets = open_sheets(report.content)
    operations = sheets[text("reports.sheet_operations")][1:]
    assert len([row for row in operations if row[0] is not None]) == 1  # the deleted one is out
    changes = sheets[text("reports.sheet_changes")]
    assert changes[0][0] == text("reports.col_when")
    kinds = [row[2] for row in changes[1:]]
    assert kinds == [text(f"reports.kind_{k}") for k in ("write", "edit", "write", "delete")]
    edit = changes[2]
    assert edit[4] == "Левада" and "150 кг/га → 120 кг/га" in str(edit[6])


async def test_a_plan_whose_day_passed_is_offered_once_in_the_morning(
    chat: Chat, db: Database
) -> None:
    await _written(chat, "заплануй обприскування на Кургані на завтра")
    [plan] = await chat.entries()
    reminders = PlanReminders(db, catalog())
    sent: list[Reminder] = []

    async def send(reminder: Reminder) -> bool:
        sent.append(reminder)
        return True

    # The plan's day (15 May) has not passed yet: nothing.
    assert await reminders.due(NOW + timedelta(days=1)) == []
    # 16 May, 02:00 in Kyiv: the day passed, but not at night.
    assert await reminders.due(datetime(2026, 5, 15, 23, 0, tzinfo=UTC)) == []
    morning = datetime(2026, 5, 16, 6, 0, tzinfo=UTC)  # 09:00 in Kyiv
    assert await reminders.run(morning, send) == "sent 1"
    [reminder] = sent
    assert reminder.user_id == USER
    actions = [b.action for row in reminder.reply.buttons for b in row]
    assert actions == [EntryAction(EntryVerb.DONE, plan.id), EntryAction(EntryVerb.DELETE, plan.id)]
    # Once: the next hour asks nothing more.
    assert await reminders.due(morning + timedelta(hours=1)) == []
    # ✅ there opens the "done" card, dated the plan's day.
    _CLOCK.now = morning
    card = await chat.pipeline.handle_action(actions[0], chat.incoming())
    assert text("journal_edit.done_ask", date="15.05.2026") in card.text
    await chat.press(card, JournalVerb.APPLY)
    [entry] = await chat.entries()
    assert (entry.status, entry.op_date) == ("done", date(2026, 5, 15))


async def test_a_correction_that_fits_no_entry_offers_the_last_ones_and_follows_the_choice(
    chat: Chat,
) -> None:
    await _written(chat, "внесли селітру 150 кг/га на Леваді")
    await _written(chat, "полив 20 мм на Полі 3")
    fert, water = await chat.entries()
    refused = await chat.say("ой, не 200, а 180")
    assert text("journal_edit.pick") in refused.text
    picks = [b.action for row in refused.buttons for b in row]
    assert picks == [EntryAction(EntryVerb.SHOW, water.id), EntryAction(EntryVerb.SHOW, fert.id)]
    # Each entry by its operation's one name, as the listing's buttons call it (issue 30).
    shown = [b.text for row in refused.buttons for b in row]
    assert shown[0].endswith(" Полив") and shown[1].endswith(" Внесення добрив"), shown
    # The farmer opens the older one; the next correction is about it, not the newest.
    opened = await chat.pipeline.handle_action(picks[1], chat.incoming())
    assert "Левада" in opened.text
    card = await chat.say("виправ: норма 180 кг/га")
    await chat.press(card, JournalVerb.APPLY)
    fert, water = await chat.entries()
    assert (fert.rate, water.rate) == (180, 20)


@pytest.mark.parametrize(
    ("message", "intent"),
    [
        ("ой, дякую", "thanks"),
        ("не знаю, а ти як думаєш?", None),
        ("чи буде дощ не сьогодні, а завтра?", "weather"),
    ],
)
async def test_words_of_a_correction_in_other_talk_change_nothing(
    chat: Chat, message: str, intent: str | None
) -> None:
    await _written(chat, "внесли селітру 150 кг/га на Леваді")
    reply = await chat.say(message)
    assert reply.intent != "correction"
    if intent is not None:
        assert reply.intent == intent
    assert not any(isinstance(b.action, JournalAction) for row in reply.buttons for b in row)
    [entry] = await chat.entries()
    assert (entry.rate, entry.op_date) == (150, date(2026, 5, 14))
    assert [kind for kind, _b, _a in await chat.revisions()] == ["write"]
