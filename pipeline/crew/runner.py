"""Runs one agent as its own single-agent, single-task CrewAI crew.

Each selected sub-agent gets a fresh crew per request (and per retry): nothing
carries over between farmers. ``allow_delegation=False`` and a small ``max_iter``
keep an agent from wandering (seed section 11, layer 3); CrewAI's memory, cache and
task-output store are off (Stepan's memory is his own, in SQL, and farm data must
not end up in CrewAI's files); CrewAI's own retry loop is off
(``max_retry_limit=0``) so that ours, bounded by the agent's time budget, is the
only one.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from pipeline.crew.config import AgentSpec, CrewSpec
from pipeline.crew.context import RunContext
from pipeline.crew.contract import HandoffContract
from pipeline.crew.env import silence_crewai
from pipeline.crew.llm import LlmClient, retrying
from pipeline.crew.tools import FarmTools

logger = logging.getLogger(__name__)


class EmptyAnswer(RuntimeError):
    """The crew finished without any text."""


def import_crewai() -> None:
    """Import CrewAI (seconds); called in a worker thread, at most once per process."""
    silence_crewai()
    import crewai  # noqa: F401


class CrewRunner:
    def __init__(self, client: LlmClient, crew: CrewSpec, tools: FarmTools) -> None:
        self._client = client
        self._crew = crew
        self._tools = tools
        self._limits = crew.limits

    @property
    def spec(self) -> CrewSpec:
        return self._crew

    def warm_up(self) -> None:
        """Import CrewAI and build the LLM in the background, so the first request
        does not pay for it and a misconfigured LLM shows in the log at start-up."""
        handle = self._client.handle

        def prepare() -> None:
            import_crewai()
            handle.get()

        self._client.pool.submit(prepare)

    async def run_agent(self, contract: HandoffContract, ctx: RunContext) -> str:
        spec = self._crew.agent(contract.target_agent)
        loop = asyncio.get_running_loop()

        def kickoff() -> str:
            from pipeline.crew.crewai_glue import bind_tools

            tools = bind_tools(
                spec.name,
                spec.tools,
                self._crew.tool_descriptions,
                self._tools,
                ctx,
                loop,
                self._limits.tool_timeout_s,
            )
            return self._kickoff(
                spec,
                backstory=self._client.with_learnings(spec.backstory),
                tools=tools,
                description=contract.task_description(self._crew),
                expected_output=contract.expected_output(self._crew),
            )

        return await self._run(kickoff, self._limits.agent_timeout_s, spec.name)

    async def _run(self, kickoff: Any, timeout_s: float, name: str) -> str:
        pool = self._client.pool
        try:
            text: str = await retrying(
                lambda remaining: pool.run(kickoff, timeout_s=remaining),
                timeout_s=timeout_s,
                retries=self._limits.retries,
                backoff_s=self._limits.retry_backoff_s,
            )
        except Exception as exc:
            self._client.record(False, exc)
            raise
        self._client.record(True)
        logger.debug("crew: %s answered %d chars", name, len(text))
        return text

    def _kickoff(
        self,
        spec: AgentSpec,
        *,
        backstory: str,
        tools: list[Any],
        description: str,
        expected_output: str,
    ) -> str:
        """Build and run the crew (in a worker thread: CrewAI's kickoff blocks)."""
        silence_crewai()
        from crewai import Agent, Process, Task

        from pipeline.crew.crewai_glue import PrivateCrew

        agent = Agent(
            role=spec.role,
            goal=spec.goal,
            backstory=backstory,
            llm=self._client.handle.get(),
            tools=tools,
            allow_delegation=False,
            max_iter=self._limits.max_iter,
            max_retry_limit=0,
            cache=False,
            verbose=False,
        )
        task = Task(description=description, expected_output=expected_output, agent=agent)
        crew = PrivateCrew(
            agents=[agent],
            tasks=[task],
            process=Process.sequential,
            memory=False,
            cache=False,
            verbose=False,
            tracing=False,
        )
        output = crew.kickoff()
        text = str(getattr(output, "raw", "") or "").strip()
        if not text:
            raise EmptyAnswer(f"{spec.name} returned no text")
        return text
