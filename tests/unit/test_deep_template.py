"""The deep template alone: plan, agents side by side under a bound, the per-agent
fallback, consolidation. The composer and the producer are fakes passed in."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any, cast

from pipeline.crew.composer import AgentPart, Composer
from pipeline.crew.context import Artifacts
from pipeline.crew.pool import BudgetExceeded
from pipeline.deep import DeepTemplate
from pipeline.profiles import FarmProfile, UserProfile
from pipeline.types import DeepRequest, DepthDecision, Incoming, Reply

CREW = ("iot", "ops", "sustainability")


def _request(crew: tuple[str, ...] = CREW) -> DeepRequest:
    return DeepRequest(
        incoming=Incoming("tg:1", 1, "сплануй тиждень", "trace0123456789"),
        decision=DepthDecision("deep", "planning", crew, 0.9, "test"),
        crew=crew,
        profile=UserProfile(user_id="tg:1"),
        farm=FarmProfile(farm_id="farm:1", user_id="tg:1"),
        lang="uk",
        now=datetime(2026, 5, 14, tzinfo=UTC),
    )


class FakeComposer:
    """The composer's share of the template: a context, fallback parts, own facts."""

    def __init__(self) -> None:
        self.events: list[str] = []

    async def prepare(self, request: DeepRequest, *args: Any) -> SimpleNamespace:
        self.events.append("prepare")
        # A run context with no card read: the agents run (deep.card_only is False).
        return SimpleNamespace(artifacts=Artifacts())

    async def run_agent(self, request: DeepRequest, agent: str, ctx: object) -> AgentPart:
        self.events.append(f"fallback:{agent}")
        return AgentPart(agent, f"{agent} from its tools")

    async def own_facts(self, request: DeepRequest, ctx: object) -> str | None:
        self.events.append("own")
        return "own facts"


class FakeProducer:
    source = "fake"

    def __init__(self, *, fail: dict[str, Exception] | None = None, delay: float = 0.0) -> None:
        self.fail = fail or {}
        self.delay = delay
        self.running = 0
        self.most_at_once = 0
        self.events: list[str] = []
        self.consolidated: list[AgentPart] = []

    async def brief(self, request: DeepRequest, ctx: object) -> None:
        self.events.append("brief")

    async def part(self, request: DeepRequest, agent: str, ctx: object) -> AgentPart:
        self.running += 1
        self.most_at_once = max(self.most_at_once, self.running)
        try:
            await asyncio.sleep(self.delay)
            if agent in self.fail:
                raise self.fail[agent]
            return AgentPart(agent, f"{agent} by the producer", source="fake")
        finally:
            self.running -= 1

    async def consolidate(
        self, request: DeepRequest, ctx: object, parts: Sequence[AgentPart], own: str | None
    ) -> Reply:
        self.events.append("consolidate")
        self.consolidated = list(parts)
        return Reply("\n".join(p.text or "-" for p in parts) + f"\n{own}")


def _template(producer: FakeProducer, max_parallel: int = 5) -> tuple[DeepTemplate, FakeComposer]:
    composer = FakeComposer()
    return DeepTemplate(cast(Composer, composer), producer, max_parallel=max_parallel), composer


async def test_plans_briefs_runs_every_selected_agent_then_consolidates() -> None:
    producer = FakeProducer(delay=0.01)
    template, composer = _template(producer)
    reply = await template.answer(_request())
    assert reply.text == (
        "iot by the producer\nops by the producer\nsustainability by the producer\nown facts"
    )
    assert composer.events == ["prepare", "own"]
    assert producer.events == ["brief", "consolidate"]
    assert [p.agent for p in producer.consolidated] == list(CREW)  # the gate's order
    assert producer.most_at_once == 3  # side by side


async def test_at_most_max_parallel_agents_at_a_time() -> None:
    producer = FakeProducer(delay=0.01)
    template, _ = _template(producer, max_parallel=2)
    await template.answer(_request())
    assert producer.most_at_once == 2


async def test_a_failing_agent_is_composed_from_its_tools_and_the_others_stay() -> None:
    producer = FakeProducer(fail={"ops": ValueError("bad answer")})
    template, composer = _template(producer)
    await template.answer(_request())
    by_agent = {part.agent: part for part in producer.consolidated}
    assert composer.events == ["prepare", "fallback:ops", "own"]
    assert by_agent["ops"] == AgentPart(
        "ops", "ops from its tools", source="composer", error="ValueError"
    )
    assert by_agent["iot"].source == "fake" and by_agent["sustainability"].source == "fake"


async def test_an_unreachable_llm_is_told_apart_from_a_bad_answer() -> None:
    producer = FakeProducer(
        fail={"iot": BudgetExceeded("no result"), "ops": ValueError("bad answer")}
    )
    template, _ = _template(producer)
    await template.answer(_request())
    by_agent = {part.agent: part for part in producer.consolidated}
    assert by_agent["iot"].llm_unavailable and by_agent["iot"].error == "BudgetExceeded"
    assert not by_agent["ops"].llm_unavailable


async def test_no_agents_selected_still_consolidates_stepans_own_facts() -> None:
    producer = FakeProducer()
    template, _ = _template(producer)
    reply = await template.answer(_request(crew=()))
    assert producer.consolidated == [] and reply.text == "\nown facts"
