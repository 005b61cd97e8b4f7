"""The seed's section-9 shortcuts (issue 11 point 4) through the whole pipeline on a
migrated SQLite database with a seeded farm: the same question again within five
minutes is answered from the previous answer (marked, with a refresh button), a
status question from an answer younger than an hour; both are recorded light with
their reason, and the deep path is not run for them."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models import AnswerCacheRow, InteractionRow
from db.uow import Database
from pipeline.actions import RefreshAction
from pipeline.handle import Pipeline
from pipeline.language.catalog import Catalog
from pipeline.memory import Memory
from pipeline.types import DeepRequest, Reply
from tests.integration import deep_world
from tests.integration import learning_world as world
from tests.integration.deep_world import (
    NOW,
    USER,
    incoming,
    moisture_on_field_two,
    seed_farm,
)
from tests.integration.learning_world import MovingClock

Factory = async_sessionmaker[AsyncSession]
#: The pipeline on this module's ``clock``; no internet.
pipeline_clock, no_internet = world.pipeline_clock, deep_world.no_internet


class CountingDeep:
    """The pipeline's deep path, counted (and the requests it got kept)."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.requests: list[DeepRequest] = []

    async def answer(self, request: DeepRequest) -> Reply:
        self.requests.append(request)
        return await self.inner.answer(request)  # type: ignore[attr-defined, no-any-return]


@pytest.fixture
def clock() -> MovingClock:
    return MovingClock(NOW)


@pytest.fixture
async def deep(pipeline: Pipeline, memory: Memory, session_factory: Factory) -> CountingDeep:
    await seed_farm(pipeline, memory, session_factory)
    counting = CountingDeep(pipeline.deep)
    pipeline.swap(deep=counting)
    return counting


async def last_interaction(factory: Factory) -> InteractionRow:
    async with factory() as session:
        query = select(InteractionRow).order_by(InteractionRow.id.desc()).limit(1)
        return (await session.execute(query)).scalar_one()


def refresh_of(reply: Reply) -> RefreshAction:
    (action,) = [
        b.action for row in reply.buttons for b in row if isinstance(b.action, RefreshAction)
    ]
    return action


async def test_the_same_question_within_five_minutes_reuses_the_answer(
    pipeline: Pipeline,
    deep: CountingDeep,
    clock: MovingClock,
    catalog: Catalog,
    session_factory: Factory,
) -> None:
    first = await pipeline.handle_message(incoming("яка вологість на полі 2"))
    assert first.mode == "deep" and moisture_on_field_two(catalog) in first.text
    assert len(deep.requests) == 1

    clock.advance(minutes=2)
    again = await pipeline.handle_message(incoming("а яка вологість на полі 2?"))
    assert len(deep.requests) == 1  # the crew did not run again
    assert again.mode == "light" and again.crew == ()
    note = catalog.text("uk", "recall.repeat_note", time="13:00")  # 10:00 UTC in Kyiv
    assert again.text.startswith(note)
    assert first.text in again.text
    row = await last_interaction(session_factory)
    assert (row.mode, row.reason, row.crew) == ("light", "shortcut:repeat", [])

    # The refresh button asks the same question through the deep path.
    refreshed = await pipeline.handle_action(refresh_of(again), incoming(""))
    assert len(deep.requests) == 2 and refreshed.mode == "deep"
    assert moisture_on_field_two(catalog) in refreshed.text
    assert not refreshed.text.startswith(note)


async def test_another_subject_or_an_older_answer_runs_the_crew(
    pipeline: Pipeline, deep: CountingDeep, clock: MovingClock
) -> None:
    await pipeline.handle_message(incoming("яка вологість на полі 2"))
    clock.advance(minutes=1)
    other_field = await pipeline.handle_message(incoming("яка вологість на Північному"))
    assert other_field.mode == "deep" and len(deep.requests) == 2
    clock.advance(minutes=1)
    other_intent = await pipeline.handle_message(incoming("план/факт за квітень"))
    assert other_intent.mode == "deep" and len(deep.requests) == 3
    clock.advance(minutes=1)
    # The last answer is the plan/fact one: moisture again is a new question.
    await pipeline.handle_message(incoming("яка вологість на полі 2"))
    assert len(deep.requests) == 4
    clock.advance(minutes=5, seconds=1)
    stale = await pipeline.handle_message(incoming("яка вологість на полі 2"))
    assert stale.mode == "deep" and len(deep.requests) == 5


async def test_a_card_is_never_reused(
    pipeline: Pipeline, deep: CountingDeep, clock: MovingClock, session_factory: Factory
) -> None:
    """Recording writes: a second «запиши …» is its own card (the journal decides
    about repeats), never an old reply."""
    first = await pipeline.handle_message(incoming("запиши полив 20 мм на Північному вчора"))
    assert first.buttons
    clock.advance(minutes=1)
    await pipeline.handle_message(incoming("запиши полив 20 мм на Північному вчора"))
    assert len(deep.requests) == 2
    async with session_factory() as session:
        assert (await session.execute(select(AnswerCacheRow))).scalars().all() == []


async def test_a_card_in_between_forgets_the_remembered_answers(
    pipeline: Pipeline, deep: CountingDeep, clock: MovingClock
) -> None:
    """A plan asked again after an operation was recorded is planned again: the
    recorded operation may be in it."""
    await pipeline.handle_message(incoming("сплануй тиждень"))
    await pipeline.handle_message(incoming("який статус"))
    clock.advance(minutes=1)
    card = await pipeline.handle_message(incoming("запиши обприскування на полі 2 завтра"))
    assert card.buttons
    clock.advance(minutes=1)
    again = await pipeline.handle_message(incoming("сплануй тиждень"))
    status = await pipeline.handle_message(incoming("що зараз?"))
    assert again.mode == status.mode == "deep" and len(deep.requests) == 5


class CountingWrites:
    """The shortcuts' Database, counting its write transactions."""

    def __init__(self, db: Database) -> None:
        self.db, self.writes = db, 0

    def read(self) -> AbstractAsyncContextManager[AsyncSession]:
        return self.db.read()

    def write(self) -> AbstractAsyncContextManager[AsyncSession]:
        self.writes += 1
        return self.db.write()


async def test_a_card_forgets_in_the_transaction_that_records_it(
    pipeline: Pipeline, deep: CountingDeep, session_factory: Factory
) -> None:
    """A card reply takes no write transaction of its own to drop the remembered
    answers: the interaction's record drops them."""
    await pipeline.handle_message(incoming("сплануй тиждень"))
    async with session_factory() as session:
        assert (await session.execute(select(AnswerCacheRow))).scalars().all() != []
    assert pipeline.recall is not None
    shortcuts = pipeline.recall.shortcuts
    counting = CountingWrites(shortcuts._db)
    shortcuts._db = counting  # type: ignore[assignment]
    card = await pipeline.handle_message(incoming("запиши обприскування на полі 2 завтра"))
    assert card.buttons and counting.writes == 0
    async with session_factory() as session:
        assert (await session.execute(select(AnswerCacheRow))).scalars().all() == []
    assert (await last_interaction(session_factory)).mode == "deep"


async def test_a_status_question_is_answered_from_a_fresh_status(
    pipeline: Pipeline,
    deep: CountingDeep,
    clock: MovingClock,
    catalog: Catalog,
    session_factory: Factory,
) -> None:
    first = await pipeline.handle_message(incoming("який статус"))
    # No status yet: the journal's plans and the sensors, through the deep path.
    assert first.mode == "deep" and len(deep.requests) == 1
    assert set(deep.requests[0].crew) == {"iot", "ops"}
    assert moisture_on_field_two(catalog) in first.text
    assert (await last_interaction(session_factory)).reason == "status"

    clock.advance(minutes=40)
    cached = await pipeline.handle_message(incoming("що зараз?"))
    assert len(deep.requests) == 1 and cached.mode == "light"
    assert cached.text.startswith(catalog.text("uk", "recall.status_note", time="13:00"))
    assert first.text in cached.text and refresh_of(cached)
    assert (await last_interaction(session_factory)).reason == "shortcut:status"

    clock.advance(minutes=21)  # 61 minutes after the status was gathered
    fresh = await pipeline.handle_message(incoming("Який зараз статус?"))
    assert fresh.mode == "deep" and len(deep.requests) == 2


async def test_a_status_question_with_a_farming_intent_is_that_intent(
    pipeline: Pipeline, deep: CountingDeep
) -> None:
    """«статус сервісів» is the platform's status, not the farm's."""
    reply = await pipeline.handle_message(incoming("статус сервісів"))
    assert reply.intent == "platform"
    assert deep.requests[-1].decision.reason != "status"


async def test_a_refresh_of_someone_elses_message_is_refused(
    pipeline: Pipeline, deep: CountingDeep, catalog: Catalog
) -> None:
    asked = incoming("яка вологість на полі 2")
    await pipeline.handle_message(asked)
    stranger = incoming("", user="tg:999")
    reply = await pipeline.handle_action(RefreshAction(asked.trace_id), stranger)
    assert reply.text == catalog.text("uk", "recall.refresh_gone")
    assert len(deep.requests) == 1


async def test_forget_drops_the_remembered_answers(
    pipeline: Pipeline, deep: CountingDeep, memory: Memory, session_factory: Factory
) -> None:
    await pipeline.handle_message(incoming("який статус"))
    await pipeline.handle_message(incoming("яка вологість на полі 2"))
    async with session_factory() as session:
        assert len((await session.execute(select(AnswerCacheRow))).scalars().all()) == 2
    await memory.editor.forget(USER)
    async with session_factory() as session:
        assert (await session.execute(select(AnswerCacheRow))).scalars().all() == []
