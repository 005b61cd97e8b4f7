"""The deep path with an LLM: the CrewAI crew on a real migrated SQLite database, with a
scripted LLM at CrewAI's BaseLLM boundary and a guard that refuses any connection
beyond loopback (no test talks to a real model)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models import LearningRow
from db.uow import Database
from pipeline.actions import JournalAction, JournalVerb
from pipeline.admin.platform import LlmHealth
from pipeline.crew.context import RunContext
from pipeline.crew.tools import Tool, ToolResult
from pipeline.crew.wiring import standard_tools
from pipeline.handle import Pipeline
from pipeline.learning.feedback import Learnings
from pipeline.memory import Memory
from pipeline.replies.light import LlmResponder
from pipeline.rulebook import Rulebook
from tests.fakes.llm import ScriptedLLM
from tests.integration import crew_world as world
from tests.integration.crew_world import IOT, OPS, SEASON, STEPAN, agent_roles
from tests.integration.deep_world import (
    USER,
    XLSX,
    incoming,
    moisture_on_field_two,
    planned_spraying,
    say,
    seed_farm,
)

#: The crew world's fixtures: no internet, the seeded day, the scripted crew, the farm.
no_internet, pipeline_clock = world.no_internet, world.pipeline_clock
use_llm, farm = world.use_llm, world.farm


# --- light -------------------------------------------------------------------------------


async def test_greeting_in_offline_mode_launches_no_crew_and_no_llm_call(
    pipeline: Pipeline,
    session_factory: async_sessionmaker[AsyncSession],
    use_llm: Callable[..., ScriptedLLM],
) -> None:
    llm = use_llm()
    pipeline.swap(responder=LlmResponder(pipeline.catalog))  # light replies offline
    reply = await say(pipeline, session_factory, "привіт")
    assert reply.mode == "light" and reply.crew == ()
    assert llm.call_count == 0


async def test_greeting_with_an_llm_is_one_short_call_without_a_crew(
    pipeline: Pipeline,
    session_factory: async_sessionmaker[AsyncSession],
    use_llm: Callable[..., ScriptedLLM],
) -> None:
    llm = use_llm(replies={"": "Привіт, Оксано! Як там посіви?"})
    reply = await say(pipeline, session_factory, "привіт")
    assert reply.text.startswith("Привіт, Оксано! Як там посіви?")
    assert llm.call_count == 1 and llm.roles() == set()
    # The style prefix (seed 3.3) went into the prompt.
    assert pipeline.catalog.text("uk", "style.style.conversational") in llm.calls[0].system


async def test_light_reply_falls_back_to_the_template_when_the_llm_fails(
    pipeline: Pipeline,
    session_factory: async_sessionmaker[AsyncSession],
    use_llm: Callable[..., ScriptedLLM],
) -> None:
    use_llm(fail={"": ValueError("model refused")})
    reply = await say(pipeline, session_factory, "дякую")
    thanks = pipeline.catalog.templates("uk", "light.thanks")
    # The template a new user (a novice) reads: with its explanation.
    why = pipeline.catalog.text("uk", "level.novice.why.light.thanks")
    assert any(f"{option.format(name='Оксано')}\n\n{why}" == reply.text for option in thanks)


# --- the crew -----------------------------------------------------------------------------


async def test_plan_the_week_runs_ops_sustainability_and_iot_with_iot(
    pipeline: Pipeline,
    session_factory: async_sessionmaker[AsyncSession],
    use_llm: Callable[..., ScriptedLLM],
    farm: str,
) -> None:
    llm = use_llm(choose={OPS: "planned_operations", SEASON: "season_hints", IOT: "open_alerts"})
    reply = await say(pipeline, session_factory, "сплануй тиждень")
    assert agent_roles(llm) == {OPS, SEASON, IOT}
    agents = [call for call in llm.calls if call.role in {OPS, SEASON, IOT}]
    assert all(call.allow_delegation is False for call in agents)  # seed 11, layer 3
    assert all(call.max_iter is not None and call.max_iter <= 3 for call in agents)
    assert planned_spraying(pipeline.catalog) in reply.text  # ops' tool result
    assert "сівба" in reply.text  # the season hints
    assert "Відкриті тривоги" in reply.text  # iot


async def test_every_agent_prompt_carries_the_learnings_block(
    pipeline: Pipeline,
    db: Database,
    rules: Rulebook,
    session_factory: async_sessionmaker[AsyncSession],
    use_llm: Callable[..., ScriptedLLM],
    farm: str,
) -> None:
    """The LEARNINGS block (from the learnings table) is in the system prompt of each
    CrewAI agent the request runs, as well as in Stepan's own composing call."""
    async with session_factory() as session:
        session.add(LearningRow(source="negative", intent="planning", rule="planning: be brief"))
        await session.commit()
    learnings = Learnings(db, rules.learning)
    block = await learnings.refresh(force=True)
    assert block.startswith(rules.learning.header) and "- planning: be brief" in block
    llm = use_llm(
        choose={OPS: "planned_operations", SEASON: "season_hints", IOT: "open_alerts"},
        learnings=learnings,
    )
    await say(pipeline, session_factory, "сплануй тиждень")
    agents = [call for call in llm.calls if call.role in {OPS, SEASON, IOT}]
    assert {call.role for call in agents} == {OPS, SEASON, IOT}
    assert all(block in call.system for call in agents)
    stepan = [call for call in llm.calls if call.role.startswith(STEPAN)]
    assert stepan and all(block in call.system for call in stepan)


async def test_plan_the_week_without_iot_leaves_iot_out(
    pipeline: Pipeline,
    memory: Memory,
    session_factory: async_sessionmaker[AsyncSession],
    use_llm: Callable[..., ScriptedLLM],
) -> None:
    await seed_farm(pipeline, memory, session_factory, iot=False)
    llm = use_llm(choose={OPS: "planned_operations"})
    reply = await say(pipeline, session_factory, "сплануй тиждень")
    assert reply.crew == ("ops", "sustainability")
    assert agent_roles(llm) == {OPS, SEASON}


async def test_agents_get_a_handoff_contract_without_secrets(
    pipeline: Pipeline,
    session_factory: async_sessionmaker[AsyncSession],
    use_llm: Callable[..., ScriptedLLM],
    farm: str,
) -> None:
    llm = use_llm(tool_args={"latest_readings": {"field": "Поле 2"}})
    message = incoming("яка вологість на полі 2? мій номер +380 67 123 45 67")
    reply = await pipeline.handle_message(message)
    prompts = "\n".join(call.everything for call in llm.calls if call.role == IOT)
    assert "Intent: iot" in prompts and "answer in Ukrainian" in prompts
    assert "fields field:pivnichne (Північне), field:pole-2 (Поле 2)" in prompts
    for secret in ("380 67", USER, farm, message.trace_id, "Оксана"):
        assert secret not in prompts
    assert "[redacted]" in prompts
    assert moisture_on_field_two(pipeline.catalog) in reply.text
    assert "40 %" not in reply.text  # only the field asked about


async def test_recording_keeps_the_consent_card_verbatim(
    pipeline: Pipeline,
    session_factory: async_sessionmaker[AsyncSession],
    use_llm: Callable[..., ScriptedLLM],
    farm: str,
) -> None:
    llm = use_llm(choose={OPS: "journal_card"})
    reply = await say(pipeline, session_factory, "запиши полив 20 мм на Північному вчора")
    assert reply.text.startswith("📝") and "20 мм" in reply.text
    card = reply.buttons[0][0].action
    assert isinstance(card, JournalAction)
    assert [b.action for b in reply.buttons[0]] == [
        JournalAction(verb, card.draft_id)
        for verb in (JournalVerb.WRITE, JournalVerb.EDIT, JournalVerb.CANCEL)
    ]
    # The card is the whole answer (issue 26 point 6): no agent, no LLM call around it.
    assert agent_roles(llm) == set()


async def test_report_is_attached(
    pipeline: Pipeline,
    session_factory: async_sessionmaker[AsyncSession],
    use_llm: Callable[..., ScriptedLLM],
    farm: str,
) -> None:
    use_llm(tool_args={"operations_report": {"period": "за жовтень"}})
    reply = await say(pipeline, session_factory, "звіт в excel за жовтень")
    assert reply.document is not None and reply.document.content.startswith(XLSX)
    assert reply.document.filename.endswith("2024-10-01_2024-10-31.xlsx")


async def test_agents_run_concurrently(
    pipeline: Pipeline,
    session_factory: async_sessionmaker[AsyncSession],
    use_llm: Callable[..., ScriptedLLM],
    db: Database,
    memory: Memory,
    rules: Rulebook,
    farm: str,
) -> None:
    """Each agent's tool waits until all three agents are inside their tools: that
    can only finish if they run side by side."""
    inside = 0
    everyone = asyncio.Event()

    def meeting(tool: Tool) -> Tool:
        async def wait_for_everyone(ctx: RunContext, args: Any) -> ToolResult:
            nonlocal inside
            inside += 1
            if inside == 3:
                everyone.set()
            await asyncio.wait_for(everyone.wait(), 4.0)
            return await tool(ctx, args)

        return wait_for_everyone

    health = LlmHealth(configured=True)
    standard = standard_tools(db, memory.sync, rules=rules, health=health).tools
    use_llm(
        choose={OPS: "planned_operations", SEASON: "season_hints", IOT: "open_alerts"},
        tools={name: meeting(tool) for name, tool in standard.items()},
    )
    reply = await say(pipeline, session_factory, "сплануй тиждень")
    assert everyone.is_set()
    assert planned_spraying(pipeline.catalog) in reply.text
