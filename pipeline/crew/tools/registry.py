"""FarmTools: every tool by name, one validated entry point for both deep paths.

The offline composer calls :meth:`FarmTools.run` directly and the CrewAI agents through
``crewai_glue``; both go through the same argument check. The set of tools is a plain
mapping given to the constructor (:meth:`FarmTools.standard` builds the real one), so
a test or another deployment can swap one tool without touching the others.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pipeline.crew.context import RunContext
from pipeline.crew.tools.base import ARGS, FARMLESS, Tool, ToolResult
from pipeline.crew.tools.farm_data import FarmDataTools
from pipeline.crew.tools.journal_view import JournalViewTools
from pipeline.crew.tools.season import SeasonTools, crop_names, season_phase
from pipeline.crew.tools.sensors import SensorTools
from pipeline.crew.tools.status import PlatformProbe, StatusTools
from pipeline.crew.words import Words
from pipeline.farm.sensors.readings import SensorTypes
from pipeline.farm.words.dates import DateWords
from pipeline.farm.words.units import Units
from pipeline.profiles import Phase


class FarmTools:
    def __init__(self, tools: Mapping[str, Tool], *, words: Words, dates: DateWords) -> None:
        missing, unknown = set(ARGS) - set(tools), set(tools) - set(ARGS)
        if missing or unknown:
            raise ValueError(f"farm tools: missing {sorted(missing)}, unknown {sorted(unknown)}")
        self._tools = dict(tools)
        self._words = words
        self._dates = dates

    @classmethod
    def standard(
        cls,
        platform_probe: PlatformProbe,
        *,
        words: Words,
        dates: DateWords,
        units: Units,
        sensors: SensorTypes,
    ) -> FarmTools:
        """Every tool over the farm's services, with the rules loaded in the factory."""
        tools: dict[str, Tool] = {
            **FarmDataTools(dates=dates, units=units).tools(),
            **JournalViewTools(dates=dates, view=words.journal).tools(),
            **SensorTools(words=words, sensors=sensors, dates=dates).tools(),
            **SeasonTools(words=words).tools(),
            **StatusTools(platform_probe).tools(),
        }
        return cls(tools, words=words, dates=dates)

    def replacing(self, **tools: Tool) -> FarmTools:
        """The same tools with the named ones replaced (an integration's own source,
        a failing one in a degradation test)."""
        return FarmTools({**self._tools, **tools}, words=self._words, dates=self._dates)

    @property
    def tools(self) -> Mapping[str, Tool]:
        return dict(self._tools)

    @property
    def words(self) -> Words:
        return self._words

    @property
    def dates(self) -> DateWords:
        return self._dates

    async def run(self, name: str, ctx: RunContext, args: Mapping[str, Any]) -> ToolResult:
        """Validate ``args`` for tool ``name`` and run it (pydantic.ValidationError or
        KeyError for a bad call, which an agent sees as a failed tool call)."""
        parsed = ARGS[name].model_validate(dict(args))
        if ctx.farm_id is None and name not in FARMLESS:
            return ToolResult(name, ctx.text_of("compose.no_farm"), explained=False)
        return await self._tools[name](ctx, parsed)

    async def crop_names(self, ctx: RunContext) -> list[str]:
        """The farm's crops by name (never by id)."""
        return await crop_names(ctx)

    async def season_phase(self, ctx: RunContext) -> Phase:
        """The farm's phase as the calendar and its crops allow (the prompts say it)."""
        return await season_phase(ctx, self._words.season)
