"""What the crew tests share (test_deep_crew.py, test_deep_crew_degradation.py): the
agents' roles and a crew over a scripted LLM installed in the pipeline, with the seeded
farm's fixtures of deep_world.py."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from typing import Any

import pytest

from db.uow import Database
from pipeline.admin.platform import LlmHealth
from pipeline.crew.config import CrewSpec
from pipeline.crew.tools import Tool
from pipeline.crew.wiring import build_brains, standard_tools
from pipeline.handle import Pipeline
from pipeline.learning.feedback import Learnings
from pipeline.memory import Memory
from pipeline.rulebook import Rulebook
from tests.fakes.llm import ScriptedLLM, scripted
from tests.integration import deep_world

OPS, IOT, SEASON, CLERK = (
    "Farm operations officer",
    "IoT sensor analyst",
    "Season analyst",
    "Farm reporting clerk",
)
STEPAN = "Stepan, agronomist assistant"

#: The deep world's fixtures: no internet, the seeded day, the seeded farm.
no_internet, pipeline_clock = deep_world.no_internet, deep_world.pipeline_clock
farm = deep_world.farm


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
        pipeline.swap(deep=brains.deep, responder=brains.responder)
        return fake

    yield install
    for fake in made:
        fake.release()


def agent_roles(llm: ScriptedLLM) -> set[str]:
    return {role for role in llm.roles() if not role.startswith(STEPAN)}
