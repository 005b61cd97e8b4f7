"""A journal card says only what it is about (issue 26 point 6), through the pipeline
on a real database, on Wednesday 2 December 2026:

* a planned-work message gets its card and nothing else: not the week's plan, the
  alerts or the season's phase besides;
* the season's phase follows the calendar: a farm whose profile learned "growing" in
  the autumn hears «зимовий спокій» in December, never «вегетація»;
* a report of a period with no records says so, with the period, and sends no file.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.config import Settings
from bot.wiring.factory import build_pipeline
from db.models import FarmProfileRow
from db.uow import Database
from pipeline.actions import JournalAction
from pipeline.clock import Clock
from pipeline.handle import Pipeline
from pipeline.language.catalog import Catalog
from pipeline.memory import build_memory
from pipeline.rulebook import Rulebook
from pipeline.types import Incoming, Reply
from tests.integration.learning_world import add_fields

USER = "tg:926"
CHAT = 926
#: Wednesday 2 December 2026, morning in Kyiv.
NOW = datetime(2026, 12, 2, 8, 0, tzinfo=UTC)


@pytest.fixture
def pipeline_clock() -> Clock:
    return lambda: NOW


async def _say(pipeline: Pipeline, text: str, message_id: int) -> Reply:
    return await pipeline.handle_message(
        Incoming(USER, CHAT, text, uuid.uuid4().hex[:16], message_id=message_id)
    )


@pytest.fixture
async def farm(pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession]) -> str:
    await _say(pipeline, "привіт", 1)
    return await add_fields(session_factory, USER)


async def test_a_planned_work_card_is_the_plan_entry_alone(
    pipeline: Pipeline, catalog: Catalog, farm: str
) -> None:
    reply = await _say(pipeline, "заплануй обприскування на Північному на п'ятницю", 10)
    card, *rest = reply.text.split("\n\n")
    assert "Обприскування" in card and "Північне" in card and "04.12.2026" in card
    assert catalog.text("uk", "journal.status_planned") in card
    # Under the card only what a novice reads about the card itself.
    assert rest == [catalog.text("uk", "level.novice.why.journal_card")]
    for other in ("Фаза сезону", "Тривог", "нічого не заплановано", "План"):
        assert other not in reply.text, other
    assert reply.buttons  # ✅ / ✏️ / ❌


async def test_a_plan_request_without_an_operation_still_gets_the_plan(
    pipeline: Pipeline, farm: str
) -> None:
    reply = await _say(pipeline, "сплануй тиждень", 11)
    assert "02.12–08.12" in reply.text


async def _learned_phase(
    factory: async_sessionmaker[AsyncSession], phase: str, *, locked: bool = False
) -> None:
    """As the profile learner leaves it: the phase of the autumn's last sprayings."""
    async with factory() as session:
        row = (
            await session.execute(select(FarmProfileRow).where(FarmProfileRow.user_id == USER))
        ).scalar_one()
        row.seasonal_context = {**row.seasonal_context, "current_phase": phase}
        row.phase_locked = locked
        await session.commit()


def _fresh(
    settings: Settings, db: Database, catalog: Catalog, rules: Rulebook, clock: Clock
) -> Pipeline:
    """A pipeline with an empty profile cache, reading the profile just changed."""
    return build_pipeline(settings, db, catalog, memory=build_memory(db), rules=rules, clock=clock)


async def test_december_is_winter_whatever_the_profile_learned(
    farm: str,
    settings: Settings,
    db: Database,
    catalog: Catalog,
    rules: Rulebook,
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    await _learned_phase(session_factory, "growing")
    pipeline = _fresh(settings, db, catalog, rules, lambda: NOW)
    reply = await _say(pipeline, "сплануй тиждень", 12)
    assert "Фаза сезону: зимовий спокій." in reply.text
    assert "вегетація" not in reply.text.replace("(сівба, вегетація, збирання)", "")


async def test_a_phase_an_operator_set_is_kept(
    farm: str,
    settings: Settings,
    db: Database,
    catalog: Catalog,
    rules: Rulebook,
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    """A greenhouse grows in winter: the operator said so."""
    await _learned_phase(session_factory, "growing", locked=True)
    pipeline = _fresh(settings, db, catalog, rules, lambda: NOW)
    reply = await _say(pipeline, "сплануй тиждень", 13)
    assert "Фаза сезону: вегетація." in reply.text


def test_the_calendar_and_the_crops(rules: Rulebook) -> None:
    season = rules.words.season
    # Learned in the autumn, read in December: the month's phase.
    assert season.phase("growing", 12) == "dormant"
    assert season.phase("harvest", 1) == "dormant"
    assert season.phase("planning", 12) == "planning"
    assert season.phase(None, 12) == "dormant"
    assert season.phase("growing", 6) == "growing"
    # Spring crops are not growing in October; winter wheat is.
    assert season.phase("growing", 10) == "post_harvest"
    assert season.phase("growing", 10, crops={"crop:winter-wheat"}) == "growing"
    assert season.phase("growing", 12, crops={"crop:winter-wheat"}) == "dormant"
    # The south is six months off: its June is the north's December.
    assert season.phase("growing", 6, "south") == "dormant"
    assert season.phase("growing", 12, locked=True) == "growing"


async def test_an_empty_week_report_says_so_and_sends_no_file(
    pipeline: Pipeline, farm: str
) -> None:
    reply = await _say(pipeline, "зроби звіт в excel за тиждень", 20)
    assert reply.document is None
    assert "За 26.11–02.12.2026 записів немає." in reply.text
    assert "Excel" not in reply.text


async def test_a_week_with_a_record_gets_its_workbook(pipeline: Pipeline, farm: str) -> None:
    card = await _say(pipeline, "вчора полили Північне 20 мм", 21)
    action = next(
        b.action for row in card.buttons for b in row if isinstance(b.action, JournalAction)
    )
    await pipeline.journal.decide(user_id=USER, action=action, lang="uk", now=NOW)
    reply = await _say(pipeline, "зроби звіт в excel за тиждень", 22)
    assert reply.document is not None


async def test_an_empty_plan_fact_is_said_without_a_file(pipeline: Pipeline, farm: str) -> None:
    reply = await _say(pipeline, "план/факт за тиждень", 23)
    assert reply.document is None
    assert "немає ні запланованих, ні виконаних операцій" in reply.text
