"""The deep path with an LLM when parts of it fail: an agent that errs or hangs is
composed from its tools, transient errors are retried, an unreachable LLM gives an
apology with a code, a tool's re-entry is refused, and CrewAI keeps nothing on disk
(the scripted crew and the seeded farm are in crew_world.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from pipeline import gate
from pipeline.crew.context import RunContext
from pipeline.crew.orchestrator import CrewParts
from pipeline.crew.tools import ReadingsArgs, ToolResult
from pipeline.deep import DeepTemplate
from pipeline.handle import Pipeline
from pipeline.types import Reply
from tests.fakes.llm import ScriptedLLM
from tests.integration import crew_world as world
from tests.integration.crew_world import CLERK, IOT, OPS, SEASON, crew_spec
from tests.integration.deep_world import incoming, planned_spraying, say

#: The crew world's fixtures: no internet, the seeded day, the scripted crew, the farm.
no_internet, pipeline_clock = world.no_internet, world.pipeline_clock
use_llm, farm = world.use_llm, world.farm


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
