"""Conversation memory (issue 11 point 5) through the pipeline on a migrated SQLite
database with a seeded farm: a deep conversation ends after 30 minutes of silence or
a change of subject and is compacted into 3-5 lines; the window feeds the next deep
request; the weekly fold keeps 20 and turns the rest into bounded context notes;
deleting one, /forget and the memory-service copy."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from datetime import datetime, timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models import ConversationSummaryRow, OutboxRow, UserProfileRow
from db.uow import Database
from pipeline.handle import Pipeline
from pipeline.language.catalog import Catalog
from pipeline.memory import Memory
from pipeline.recall import Recall
from pipeline.recall import conversations as conversations_module
from tests.integration import test_shortcuts as shared
from tests.integration.deep_world import USER, incoming
from tests.integration.learning_world import MovingClock
from tests.integration.test_shortcuts import CountingDeep

Factory = async_sessionmaker[AsyncSession]


# The seeded farm on a clock the test moves, the deep path counted, no internet
# (the shortcut tests' fixtures).
no_internet, clock, pipeline_clock, deep = (
    shared.no_internet,
    shared.clock,
    shared.pipeline_clock,
    shared.deep,
)


def recall_of(pipeline: Pipeline) -> Recall:
    assert pipeline.recall is not None
    return pipeline.recall


async def one_finished_conversation(pipeline: Pipeline, clock: MovingClock) -> None:
    """One deep question, then half an hour of silence and the job."""
    await pipeline.handle_message(incoming("яка вологість на полі 2"))
    clock.advance(minutes=31)
    assert await recall_of(pipeline).conversations.close_idle() == 1


async def summaries(factory: Factory) -> list[ConversationSummaryRow]:
    async with factory() as session:
        query = select(ConversationSummaryRow).order_by(ConversationSummaryRow.period_end)
        return list((await session.execute(query)).scalars())


async def test_silence_ends_a_conversation_and_the_summary_has_its_facts(
    pipeline: Pipeline,
    deep: CountingDeep,
    clock: MovingClock,
    catalog: Catalog,
    session_factory: Factory,
) -> None:
    await pipeline.handle_message(incoming("яка вологість на полі 2"))
    clock.advance(minutes=3)
    await pipeline.handle_message(incoming("а на Північному? там поріг 25 %"))
    clock.advance(minutes=10)
    assert await recall_of(pipeline).conversations.close_idle() == 0  # not silent long enough
    clock.advance(minutes=25)
    assert await recall_of(pipeline).conversations.close_idle() == 1
    (row,) = await summaries(session_factory)
    lines = row.text.splitlines()
    assert 3 <= len(lines) <= 5
    assert row.message_count == 2 and row.source == "extractive"
    # One subject (the sensors): «поріг» reads as an alert question, same group.
    assert row.intents[0] == "iot" and set(row.intents) <= {"iot", "iot_alert"}
    assert lines[0] == catalog.text(
        "uk",
        "recall.summary.when",
        date="14.05",
        start="13:00",
        end="13:03",
        messages=catalog.plural("uk", "plural.messages", 2),
    )
    assert catalog.text("uk", "me.topic.iot") in lines[1]
    assert "Поле 2" in lines[2] and "Північне" in lines[2]
    assert "25 %" in row.text
    # The farmer's words are not quoted: the summary outlives the raw text.
    assert "поріг" not in row.text
    # Running the job again makes nothing twice.
    assert await recall_of(pipeline).conversations.close_idle() == 0


async def test_a_change_of_subject_ends_it_and_the_next_request_reads_it(
    pipeline: Pipeline, deep: CountingDeep, clock: MovingClock, session_factory: Factory
) -> None:
    await pipeline.handle_message(incoming("запиши полив 20 мм на Північному вчора"))
    clock.advance(minutes=2)
    await pipeline.handle_message(incoming("сплануй тиждень"))  # same subject group
    assert await summaries(session_factory) == []
    clock.advance(minutes=2)
    await pipeline.handle_message(incoming("яка вологість на полі 2"))
    (row,) = await summaries(session_factory)
    assert row.message_count == 2 and set(row.intents) == {"recording", "planning"}
    # The moisture question got the window in its request (prompts, composer context).
    assert deep.requests[-1].recall == (row.text,)


async def test_a_conversation_going_on_builds_nothing_to_compact_with(
    pipeline: Pipeline, deep: CountingDeep, clock: MovingClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The usual deep message (the same subject, no silence) ends no conversation, so
    the farm's dictionary, only needed to compact one, is not built for it."""
    conversations = recall_of(pipeline).conversations
    await pipeline.handle_message(incoming("яка вологість на полі 2"))

    async def no_context(*_: object) -> None:
        raise AssertionError("a compaction context was built with nothing to compact")

    monkeypatch.setattr(conversations, "_context", no_context)
    clock.advance(minutes=3)
    assert await conversations.close_ended(USER, "iot") == 0


class CountingReads:
    """A Database that counts its read transactions."""

    def __init__(self, db: Database) -> None:
        self.db, self.reads = db, 0

    def read(self) -> AbstractAsyncContextManager[AsyncSession]:
        self.reads += 1
        return self.db.read()

    def write(self) -> AbstractAsyncContextManager[AsyncSession]:
        return self.db.write()


async def test_a_deep_message_in_a_conversation_reads_its_memory_once(
    pipeline: Pipeline,
    deep: CountingDeep,
    clock: MovingClock,
    session_factory: Factory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Nothing ends: what ended and the prompt's summaries are one read transaction
    (on SQLite every transaction waits its turn), and the summaries still come."""
    await one_finished_conversation(pipeline, clock)
    (row,) = await summaries(session_factory)
    conversations = recall_of(pipeline).conversations
    await pipeline.handle_message(incoming("яка вологість на полі 3"))
    counting = CountingReads(conversations._db)
    monkeypatch.setattr(conversations, "_db", counting)
    clock.advance(minutes=2)
    reply = await pipeline.handle_message(incoming("яка вологість на полі 2"))
    assert reply.mode == "deep" and len(deep.requests) == 3
    assert counting.reads == 1
    assert deep.requests[-1].recall == (row.text,)


async def test_decisions_written_in_a_conversation_are_in_its_summary(
    pipeline: Pipeline, deep: CountingDeep, clock: MovingClock, session_factory: Factory
) -> None:
    card = await pipeline.handle_message(incoming("запиши полив 20 мм на Північному вчора"))
    (write, *_), *_ = card.buttons
    await pipeline.handle_action(write.action, incoming(""))
    clock.advance(minutes=31)
    await recall_of(pipeline).conversations.close_idle()
    (row,) = await summaries(session_factory)
    assert "записано — полив" in row.text and "20 мм" in row.text


async def test_the_weekly_fold_keeps_the_window_and_bounds_the_notes(
    pipeline: Pipeline,
    deep: CountingDeep,
    clock: MovingClock,
    memory: Memory,
    session_factory: Factory,
) -> None:
    recall = recall_of(pipeline)
    rules = recall.conversations.rules
    questions = ("яка вологість на полі 2", "план/факт за квітень")
    for n in range(rules.window + rules.notes_max + 3):
        # Alternating subjects, a minute apart: every message ends the one before.
        clock.advance(minutes=1)
        await pipeline.handle_message(incoming(questions[n % 2]))
    clock.advance(minutes=31)
    await recall.conversations.close_idle()
    made = await summaries(session_factory)
    assert len(made) == rules.window + rules.notes_max + 3
    assert len(await recall.conversations.window(USER)) == rules.window

    folded = await recall.conversations.fold()
    assert folded == rules.notes_max + 3
    left = await summaries(session_factory)
    assert [r.id for r in left] == [r.id for r in made[-rules.window :]]
    async with session_factory() as session:
        user = await session.get(UserProfileRow, USER)
    assert user is not None and len(user.context_notes) == rules.notes_max
    assert all(len(note) <= rules.note_chars for note in user.context_notes)
    # The newest folded summary is the last note; the profile cache sees the change.
    assert user.context_notes[-1].startswith(f"{made[-rules.window - 1].period_end:%d.%m.%Y}")
    assert (await memory.profiles.load(USER)).profile.context_notes == user.context_notes
    assert await recall.conversations.fold() == 0


async def test_one_summary_is_deleted_only_by_its_owner(
    pipeline: Pipeline, deep: CountingDeep, clock: MovingClock, session_factory: Factory
) -> None:
    await one_finished_conversation(pipeline, clock)
    (row,) = await summaries(session_factory)
    conversations = recall_of(pipeline).conversations
    assert not await conversations.delete("tg:999", row.id)
    assert await conversations.delete(USER, row.id)
    assert await summaries(session_factory) == []
    assert not await conversations.delete(USER, row.id)


async def test_forget_removes_the_summaries(
    pipeline: Pipeline,
    deep: CountingDeep,
    clock: MovingClock,
    memory: Memory,
    session_factory: Factory,
) -> None:
    await one_finished_conversation(pipeline, clock)
    assert len(await summaries(session_factory)) == 1
    await memory.editor.forget(USER)
    assert await summaries(session_factory) == []
    async with session_factory() as session:
        # SQL only here: no memory-service, so nothing waits to be sent.
        assert (await session.execute(select(OutboxRow))).scalars().all() == []


async def test_history_older_than_the_lookback_is_not_summarised(
    pipeline: Pipeline, deep: CountingDeep, clock: MovingClock, session_factory: Factory
) -> None:
    await pipeline.handle_message(incoming("яка вологість на полі 2"))
    rules = recall_of(pipeline).conversations.rules
    clock.advance(seconds=(rules.lookback + timedelta(minutes=1)).total_seconds())
    assert await recall_of(pipeline).conversations.close_idle() == 0
    assert await summaries(session_factory) == []


async def test_ended_talks_are_found_across_batches_of_farmers(
    pipeline: Pipeline, clock: MovingClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The candidates' summaries are read a batch at a time; none is lost or doubled
    at a batch's edge, and a compacted farmer who speaks again is a candidate again."""
    monkeypatch.setattr(conversations_module, "ENDED_TALK_BATCH", 2)
    farmers = [f"tg:90{n}" for n in range(5)]
    for farmer in farmers:
        await pipeline.handle_message(incoming("яка вологість на полі 2", user=farmer))
    clock.advance(minutes=35)
    conversations = recall_of(pipeline).conversations
    since, quiet = clock() - timedelta(hours=24), clock() - timedelta(minutes=30)
    assert await conversations.users_with_ended_talk(since, quiet) == farmers
    assert await conversations.close_idle() == 5
    for farmer in (farmers[1], farmers[4]):
        await pipeline.handle_message(incoming("а на полі 3?", user=farmer))
    clock.advance(minutes=35)
    since, quiet = clock() - timedelta(hours=24), clock() - timedelta(minutes=30)
    assert await conversations.users_with_ended_talk(since, quiet) == [farmers[1], farmers[4]]


async def test_the_job_visits_only_farmers_with_an_ended_talk_not_yet_compacted(
    pipeline: Pipeline, clock: MovingClock
) -> None:
    """The 10-minute job must not walk every farmer who spoke in the last day: one
    whose talk is compacted, or still going, is not a candidate (issue 17 point 4)."""
    await one_finished_conversation(pipeline, clock)
    conversations = recall_of(pipeline).conversations

    def window() -> tuple[datetime, datetime]:
        now = clock()
        return now - timedelta(hours=24), now - timedelta(minutes=30)

    assert await conversations.users_with_ended_talk(*window()) == []  # compacted
    await pipeline.handle_message(incoming("яка вологість на полі 3"))
    clock.advance(minutes=5)
    assert await conversations.users_with_ended_talk(*window()) == []  # still going
    clock.advance(minutes=30)
    assert await conversations.users_with_ended_talk(*window()) == [USER]
    assert await conversations.close_idle() == 1


async def test_a_thanks_sent_deep_neither_makes_nor_ends_a_conversation(
    pipeline: Pipeline,
    deep: CountingDeep,
    clock: MovingClock,
    memory: Memory,
    session_factory: Factory,
) -> None:
    """A recent sensor alert sends every message deep, «дякую» too; a social
    message is no part of the conversation memory (no summary of «Теми: не
    називались»), and it does not end the talk it interrupts."""
    await memory.editor.update_farm(USER, last_alert=clock())
    await pipeline.handle_message(incoming("яка вологість на полі 2"))
    clock.advance(minutes=1)
    thanks = await pipeline.handle_message(incoming("дякую"))
    assert thanks.mode == "deep"
    clock.advance(minutes=1)
    await pipeline.handle_message(incoming("а на Північному яка вологість?"))
    clock.advance(minutes=31)
    assert await recall_of(pipeline).conversations.close_idle() == 1
    (row,) = await summaries(session_factory)
    assert row.message_count == 2 and row.intents == ["iot"]
