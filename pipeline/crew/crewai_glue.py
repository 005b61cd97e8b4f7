"""CrewAI glue: the farm tools as CrewAI tools, and a crew that keeps nothing on disk.
Imports CrewAI: only ``runner`` imports this module, from a worker thread.

CrewAI calls a tool's ``_run`` synchronously in the crew's worker thread, while the
farm services are async and bound to the bot's event loop (the database engine lives
there). So ``_run`` hands the call to the loop and waits for it, with a timeout. The
farm, the user and the database come from the runner's RunContext; the LLM only
supplies the arguments, which the tool's pydantic model checks.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from collections.abc import Callable, Mapping
from typing import Any

from crewai import Crew
from crewai.tools import BaseTool
from pydantic import BaseModel, PrivateAttr, ValidationError

from pipeline.crew.context import RunContext
from pipeline.crew.tools import ARGS, FarmTools

logger = logging.getLogger(__name__)

#: What an agent reads when a tool breaks: enough to say the data is unavailable.
TOOL_FAILED = "The tool failed; tell Stepan this data is unavailable right now."
TOOL_TIMED_OUT = "The tool did not answer in time; tell Stepan this data is unavailable."


class _NoTaskOutputs:
    """Stands in for CrewAI's task-output store.

    CrewAI writes every task's output (the farmer's question, the farm's figures) to a
    SQLite file in the user's data directory so ``crewai replay`` can re-run it, behind
    a file lock that also makes concurrent crews wait for each other. Stepan replays
    nothing, and farm data must not land in a file nobody cleans up.
    """

    def update(self, task_index: int, log: Mapping[str, Any]) -> None:
        return None

    def add(self, *args: Any, **kwargs: Any) -> None:
        return None

    def reset(self) -> None:
        return None

    def load(self) -> None:
        return None


class PrivateCrew(Crew):
    """A Crew whose task outputs stay in memory (see ``_NoTaskOutputs``)."""

    _task_output_handler: Any = PrivateAttr(default_factory=_NoTaskOutputs)


class FarmTool(BaseTool):
    """One farm tool bound to one request."""

    name: str
    description: str
    args_schema: type[BaseModel]
    _call: Callable[[Mapping[str, Any]], str] = PrivateAttr()

    def bind(self, call: Callable[[Mapping[str, Any]], str]) -> FarmTool:
        self._call = call
        return self

    def _run(self, **kwargs: Any) -> str:
        return self._call(kwargs)


def bind_tools(
    agent: str,
    names: tuple[str, ...],
    descriptions: Mapping[str, str],
    tools: FarmTools,
    ctx: RunContext,
    loop: asyncio.AbstractEventLoop,
    timeout_s: float,
) -> list[BaseTool]:
    return [
        FarmTool(name=name, description=descriptions[name], args_schema=ARGS[name]).bind(
            _caller(agent, name, tools, ctx, loop, timeout_s)
        )
        for name in names
    ]


def _caller(
    agent: str,
    name: str,
    tools: FarmTools,
    ctx: RunContext,
    loop: asyncio.AbstractEventLoop,
    timeout_s: float,
) -> Callable[[Mapping[str, Any]], str]:
    async def invoke(args: Mapping[str, Any]) -> str:
        ctx.artifacts.tools_run.append((agent, name))
        try:
            return (await tools.run(name, ctx, args)).text
        except ValidationError as exc:
            # The model asked for something out of bounds: say what, so it can fix it.
            problems = "; ".join(
                f"{'.'.join(str(p) for p in error['loc']) or 'arguments'}: {error['msg']}"
                for error in exc.errors(include_url=False, include_input=False)
            )
            return f"Invalid arguments ({problems})."
        except Exception:
            logger.exception("crew tool %s of %s failed", name, agent)
            return TOOL_FAILED

    def call(args: Mapping[str, Any]) -> str:
        future = asyncio.run_coroutine_threadsafe(invoke(dict(args)), loop)
        try:
            return future.result(timeout=timeout_s)
        except concurrent.futures.TimeoutError:
            future.cancel()
            return TOOL_TIMED_OUT

    return call
