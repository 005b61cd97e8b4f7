"""The deep path reads the conversation memory (issue 11 point 5). Offline, the first
deep reply of a new conversation says, after the opener, where the last one stopped
(in the reader's voice); the replies that continue a conversation do not repeat it.
With an LLM, Stepan's consolidation prompt has the window after the style prefix."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models import ConversationSummaryRow, InteractionRow
from db.uow import Database
from pipeline.handle import Pipeline
from pipeline.language.catalog import Catalog
from pipeline.memory import Memory
from pipeline.privacy.retention import RAW_TEXT_RETENTION, TextRetention
from pipeline.recall import Recall
from tests.fakes.llm import ScriptedLLM
from tests.integration import crew_world
from tests.integration import test_shortcuts as shared
from tests.integration.crew_world import STEPAN
from tests.integration.deep_world import USER, incoming
from tests.integration.learning_world import MovingClock
from tests.integration.test_shortcuts import CountingDeep

Factory = async_sessionmaker[AsyncSession]

# The seeded farm on a clock the test moves, the deep path counted, no internet.
no_internet, clock, pipeline_clock, deep = (
    shared.no_internet,
    shared.clock,
    shared.pipeline_clock,
    shared.deep,
)
use_llm = crew_world.use_llm


async def newest_summary(factory: Factory) -> str:
    async with factory() as session:
        query = select(ConversationSummaryRow.text).order_by(
            ConversationSummaryRow.period_end.desc()
        )
        return (await session.execute(query.limit(1))).scalar_one()


def recall_of(pipeline: Pipeline) -> Recall:
    assert pipeline.recall is not None
    return pipeline.recall


def as_paragraph(summary: str) -> str:
    return " ".join(summary.splitlines())


async def test_a_new_conversation_starts_where_the_last_talk_on_it_stopped(
    pipeline: Pipeline,
    deep: CountingDeep,
    clock: MovingClock,
    catalog: Catalog,
    session_factory: Factory,
    memory: Memory,
) -> None:
    assert await memory.editor.set_expertise(USER, "novice", by_operator=False)
    await pipeline.handle_message(incoming("яка вологість на полі 2"))
    clock.advance(minutes=31)  # silence ends the sensors talk
    await pipeline.handle_message(incoming("запиши полив 20 мм на Північному вчора"))
    sensors_talk = await newest_summary(session_factory)
    clock.advance(minutes=2)
    # Another subject ends the recording talk; the sensors talk is the one to recall.
    moisture = await pipeline.handle_message(incoming("яка вологість на полі 2"))
    request = deep.requests[-1]
    recording_talk = await newest_summary(session_factory)
    assert recording_talk != sensors_talk and "20 мм" in recording_talk
    assert request.recall == (recording_talk, sensors_talk)
    assert request.recalled == sensors_talk
    note = catalog.text("uk", "compose.recall", summary=as_paragraph(sensors_talk))
    # A novice: the note comes with why Stepan keeps them.
    explained = f"{note}\n{catalog.text('uk', 'level.novice.why.recall')}"
    blocks = moisture.text.split("\n\n")
    assert explained in blocks
    # After the opener (the profile's part), before the sensors' part.
    readings = catalog.text("uk", "compose.readings_header")
    assert blocks.index(explained) < next(
        i for i, block in enumerate(blocks) if block.startswith(readings)
    )
    assert as_paragraph(recording_talk) not in moisture.text
    # The same conversation goes on: said once, not again.
    clock.advance(minutes=2)
    again = await pipeline.handle_message(incoming("а на Північному яка вологість?"))
    assert deep.requests[-1].recalled is None
    assert as_paragraph(sensors_talk) not in again.text


async def test_a_talk_on_another_subject_is_not_brought_up(
    pipeline: Pipeline,
    deep: CountingDeep,
    clock: MovingClock,
    catalog: Catalog,
    session_factory: Factory,
) -> None:
    await pipeline.handle_message(incoming("звіт в excel за жовтень"))
    clock.advance(minutes=31)
    reply = await pipeline.handle_message(incoming("яка вологість на полі 2"))
    assert deep.requests[-1].recall == (await newest_summary(session_factory),)
    assert deep.requests[-1].recalled is None
    assert catalog.text("uk", "level.novice.why.recall") not in reply.text


async def test_an_expert_reads_the_note_terse(
    pipeline: Pipeline,
    deep: CountingDeep,
    clock: MovingClock,
    catalog: Catalog,
    memory: Memory,
    session_factory: Factory,
) -> None:
    await memory.editor.set_expertise(USER, "expert", by_operator=True)
    await pipeline.handle_message(incoming("яка вологість на полі 2"))
    clock.advance(minutes=31)  # silence ends it
    reply = await pipeline.handle_message(incoming("яка вологість на Північному"))
    summary = await newest_summary(session_factory)
    note = catalog.text("uk", "level.expert.compose.recall", summary=as_paragraph(summary))
    assert note in reply.text.split("\n\n")
    assert catalog.text("uk", "level.novice.why.recall") not in reply.text
    assert catalog.text("uk", "compose.recall", summary=as_paragraph(summary)) not in reply.text


async def test_the_crew_prompt_has_the_window_after_the_profile(
    pipeline: Pipeline,
    deep: CountingDeep,
    clock: MovingClock,
    catalog: Catalog,
    use_llm: Callable[..., ScriptedLLM],
    session_factory: Factory,
) -> None:
    llm = use_llm()
    await pipeline.handle_message(incoming("яка вологість на полі 2"))
    clock.advance(minutes=31)
    await pipeline.handle_message(incoming("план/факт за квітень"))
    summary = await newest_summary(session_factory)
    system = [call.system for call in llm.calls if STEPAN in call.role][-1]
    profile = catalog.text("uk", "style.level.intermediate")  # the style prefix: the profile
    header = catalog.text("uk", "recall.prompt_header")
    assert profile in system and header in system
    assert system.index(profile) < system.index(header)
    assert "- " + "; ".join(summary.splitlines()) in system


async def test_a_talk_that_just_ended_is_not_recalled(
    pipeline: Pipeline, deep: CountingDeep, clock: MovingClock, session_factory: Factory
) -> None:
    """A question in between ends the talk, but it is still in the farmer's mind: only
    a talk that ended ``silence_minutes`` ago is brought up again."""
    await pipeline.handle_message(incoming("яка вологість на полі 2"))
    clock.advance(minutes=1)
    await pipeline.handle_message(incoming("план/факт за квітень"))  # ends the sensors talk
    clock.advance(minutes=1)
    await pipeline.handle_message(incoming("яка вологість на Північному"))
    # Both talks are in the window (prompts read them), neither is recalled.
    assert len(deep.requests[-1].recall) == 2
    assert await newest_summary(session_factory) in deep.requests[-1].recall
    assert deep.requests[-1].recalled is None


async def test_the_raw_text_goes_after_a_week_and_the_summary_stays(
    pipeline: Pipeline,
    deep: CountingDeep,
    clock: MovingClock,
    catalog: Catalog,
    session_factory: Factory,
    db: Database,
) -> None:
    """AGENT-PLAN's two levels (issue 11 point 5): the nightly retention blanks the
    farmer's words after 7 days; the summary is what Stepan still knows of that talk."""
    await pipeline.handle_message(incoming("яка вологість на Північному? поріг 25 %"))
    clock.advance(minutes=31)
    await recall_of(pipeline).conversations.close_idle()
    summary = await newest_summary(session_factory)
    clock.advance(seconds=(RAW_TEXT_RETENTION + timedelta(hours=1)).total_seconds())
    assert (await TextRetention(db, clock=clock).run()).cleared
    async with session_factory() as session:
        texts = (await session.execute(select(InteractionRow.text))).scalars().all()
    assert texts and all(text is None for text in texts)
    assert await newest_summary(session_factory) == summary and "25 %" in summary
    reply = await pipeline.handle_message(incoming("яка вологість на полі 2"))
    assert deep.requests[-1].recall == (summary,) and deep.requests[-1].recalled == summary
    assert as_paragraph(summary) in reply.text
