"""The deep path with an LLM: the CrewAI crew on a real migrated SQLite database, with a
scripted LLM at CrewAI's BaseLLM boundary and a guard that refuses any connection
beyond loopback (no test talks to a real model)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models import LearningRow
from db.uow import Database
from pipeline import gate
from pipeline.actions import JournalAction, JournalVerb
from pipeline.clock import Clock
from pipeline.crew.config import CrewSpec
from pipeline.crew.context import RunContext
from pipeline.crew.orchestrator import CrewParts
from pipeline.crew.tools import ReadingsArgs, Tool, ToolResult
from pipeline.crew.wiring import build_brains, standard_tools
from pipeline.deep import DeepTemplate
from pipeline.handle import Pipeline
from pipeline.learning.feedback import Learnings
from pipeline.memory import Memory
from pipeline.platform_status import LlmHealth
from pipeline.responder import LlmResponder
from pipeline.rulebook import Rulebook
from pipeline.types import Reply
from tests.fakes.llm import ScriptedLLM, no_outbound_connections, scripted
from tests.integration.test_deep_offline import (
    USER,
    XLSX,
    incoming,
    moisture_on_field_two,
    on_the_seeded_day,
    planned_spraying,
    say,
    seed_farm,
)

OPS, IOT, SEASON, CLERK, PLATFORM = (
    "Farm operations officer",
    "IoT sensor analyst",
    "Season analyst",
    "Farm reporting clerk",
    "Platform reliability engineer",
)
STEPAN = "Stepan, agronomist assistant"


@pytest.fixture(autouse=True)
def no_internet() -> Iterator[list[str]]:
    with no_outbound_connections() as attempts:
        yield attempts
    assert attempts == [], f"tried to connect to {attempts}"


@pytest.fixture
def pipeline_clock() -> Clock:
    """The pipeline lives on the day the seeded farm's data is about."""
    return on_the_seeded_day


def crew_spec(**limits: Any) -> CrewSpec:
    spec = CrewSpec.load()
    quick = {
        "agent_timeout_s": 5.0,
        "stepan_timeout_s": 5.0,
        "reflection_timeout_s": 5.0,
        "light_timeout_s": 5.0,
        "tool_timeout_s": 5.0,
        "retry_backoff_s": 0.0,
    }
    return replace(spec, limits=replace(spec.limits, **{**quick, **limits}))


@pytest.fixture
def use_llm(
    pipeline: Pipeline, db: Database, memory: Memory, rules: Rulebook
) -> Iterator[Callable[..., ScriptedLLM]]:
    """Give the pipeline a crew over a scripted LLM; hung calls are released after."""
    made: list[ScriptedLLM] = []

    def install(
        *,
        crew: CrewSpec | None = None,
        tools: Mapping[str, Tool] | None = None,
        learnings: Learnings | None = None,
        **llm: Any,
    ) -> ScriptedLLM:
        fake = scripted(**llm)
        made.append(fake)
        rulebook = replace(rules, crew=crew or crew_spec())
        farm_tools = None
        if tools is not None:
            health = LlmHealth(configured=True)
            standard = standard_tools(db, memory.sync, rules=rulebook, health=health)
            farm_tools = standard.replacing(**tools)
        brains = build_brains(
            pipeline.catalog,
            pipeline.journal,
            db,
            memory.sync,
            rules=rulebook,
            llm=fake,
            tools=farm_tools,
            learnings=(lambda: learnings.block) if learnings is not None else None,
        )
        pipeline.deep = brains.deep
        pipeline.responder = brains.responder
        return fake

    yield install
    for fake in made:
        fake.release()


@pytest.fixture
async def farm(
    pipeline: Pipeline,
    memory: Memory,
    session_factory: async_sessionmaker[AsyncSession],
) -> str:
    return await seed_farm(pipeline, memory, session_factory)


def agent_roles(llm: ScriptedLLM) -> set[str]:
    return {role for role in llm.roles() if not role.startswith(STEPAN)}


# --- light -------------------------------------------------------------------------------


async def test_greeting_in_offline_mode_launches_no_crew_and_no_llm_call(
    pipeline: Pipeline,
    session_factory: async_sessionmaker[AsyncSession],
    use_llm: Callable[..., ScriptedLLM],
) -> None:
    llm = use_llm()
    pipeline.responder = LlmResponder(pipeline.catalog)  # light replies offline
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
    assert any(option.format(name="Оксана") == reply.text for option in thanks)


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
    assert agent_roles(llm) == {OPS}


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


# --- degradation -----------------------------------------------------------------------------


async def test_a_failing_agent_is_composed_from_its_tools(
    pipeline: Pipeline,
    session_factory: async_sessionmaker[AsyncSession],
    use_llm: Callable[..., ScriptedLLM],
    farm: str,
) -> None:
    llm = use_llm(choose={OPS: "planned_operations"}, fail={IOT: ValueError("bad answer")})
    reply = await say(pipeline, session_factory, "сплануй тиждень")
    assert OPS in llm.roles()
    assert planned_spraying(pipeline.catalog) in reply.text  # ops answered through the crew
    assert "Відкриті тривоги" in reply.text  # iot, composed from its tool
    assert "ValueError" not in reply.text


async def test_a_hanging_agent_does_not_hold_the_answer(
    pipeline: Pipeline,
    session_factory: async_sessionmaker[AsyncSession],
    use_llm: Callable[..., ScriptedLLM],
    farm: str,
) -> None:
    use_llm(crew=crew_spec(agent_timeout_s=1.0), choose={OPS: "planned_operations"}, hang={SEASON})
    reply = await say(pipeline, session_factory, "сплануй тиждень")
    assert planned_spraying(pipeline.catalog) in reply.text  # from the ops agent
    assert "Фаза сезону: сівба" in reply.text  # the hung agent's part, from its tool


async def test_an_agent_and_its_tools_failing_is_named_as_missing(
    pipeline: Pipeline,
    session_factory: async_sessionmaker[AsyncSession],
    use_llm: Callable[..., ScriptedLLM],
    farm: str,
) -> None:
    async def broken(ctx: RunContext, args: object) -> ToolResult:
        raise RuntimeError("season service down")

    use_llm(
        choose={OPS: "planned_operations"},
        fail={SEASON: ValueError("bad")},
        tools={"season_hints": broken},
    )
    reply = await say(pipeline, session_factory, "сплануй тиждень")
    assert planned_spraying(pipeline.catalog) in reply.text
    assert pipeline.catalog.text("uk", "compose.missing", parts="аналітика сезону") in reply.text


async def test_transient_errors_are_retried(
    pipeline: Pipeline,
    session_factory: async_sessionmaker[AsyncSession],
    use_llm: Callable[..., ScriptedLLM],
    farm: str,
) -> None:
    llm = use_llm(flaky={CLERK: 2})
    reply = await say(pipeline, session_factory, "звіт в excel за жовтень")
    clerk_calls = [call for call in llm.calls if call.role == CLERK]
    assert len(clerk_calls) == 4  # two connection errors, then a tool call and an answer
    assert isinstance(pipeline.deep, DeepTemplate)
    assert isinstance(pipeline.deep.producer, CrewParts)
    assert reply.document is not None


async def test_unreachable_llm_gives_an_apology_with_a_code_and_the_data(
    pipeline: Pipeline,
    session_factory: async_sessionmaker[AsyncSession],
    use_llm: Callable[..., ScriptedLLM],
    farm: str,
) -> None:
    llm = use_llm(fail={"*": ConnectionError("connection refused")})
    message = incoming("план/факт за квітень")
    reply = await pipeline.handle_message(message)
    code = message.trace_id[:8]
    assert reply.text.startswith(pipeline.catalog.text("uk", "compose.llm_down", code=code))
    assert "виконано 1 з 2" in reply.text  # the tools still answered
    assert "ConnectionError" not in reply.text and "Traceback" not in reply.text
    assert llm.call_count == 3  # one try and two retries, then no consolidation


async def test_unreachable_llm_without_data_is_a_short_apology(
    pipeline: Pipeline,
    session_factory: async_sessionmaker[AsyncSession],
    use_llm: Callable[..., ScriptedLLM],
    farm: str,
) -> None:
    use_llm(fail={"*": ConnectionError("connection refused")})
    message = incoming("розкажи мені щось про сьогоднішні справи")
    reply = await pipeline.handle_message(message)
    assert reply.mode == "deep" and reply.crew == ()
    code = message.trace_id[:8]
    assert reply.text == pipeline.catalog.text("uk", "compose.llm_down_empty", code=code)


async def test_a_recursion_attempt_from_a_tool_is_refused(
    pipeline: Pipeline,
    session_factory: async_sessionmaker[AsyncSession],
    use_llm: Callable[..., ScriptedLLM],
    farm: str,
) -> None:
    """A tool that calls handle_message again (as a confused agent might) runs on the
    event loop for a CrewAI worker thread, in the request's context: refused."""
    nested: list[Reply] = []

    async def reenter(ctx: RunContext, args: ReadingsArgs) -> ToolResult:
        nested.append(await pipeline.handle_message(incoming("привіт")))
        return ToolResult("latest_readings", "немає даних")

    use_llm(tools={"latest_readings": reenter})
    reply = await say(pipeline, session_factory, "яка вологість на полі 2")
    assert [r.intent for r in nested] == ["refused"]
    assert nested[0].text == pipeline.catalog.text("uk", "errors.recursion")
    assert reply.mode == "deep"
    assert gate.current_depth() == 0


async def test_crewai_keeps_no_farm_data_on_disk(
    pipeline: Pipeline,
    session_factory: async_sessionmaker[AsyncSession],
    use_llm: Callable[..., ScriptedLLM],
    farm: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """CrewAI stores task outputs for `crewai replay` in the user's data directory;
    Stepan's crews store nothing there."""
    data_home = tmp_path / "xdg-data"
    monkeypatch.setenv("XDG_DATA_HOME", str(data_home))
    use_llm(choose={OPS: "planned_operations"})
    reply = await say(pipeline, session_factory, "сплануй тиждень")
    assert planned_spraying(pipeline.catalog) in reply.text
    stored = [p for p in data_home.rglob("*") if p.is_file()] if data_home.exists() else []
    assert stored == []
