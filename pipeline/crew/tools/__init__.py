"""The crew's tools over the farm services: one async function per tool.

The same functions serve the offline composer (called directly) and the CrewAI
agents (wrapped in ``crewai_glue``). Every result is text in the farmer's language,
plus a file for reports and charts. By job: ``farm_data`` (journal, plans, reports),
``sensors`` (readings, charts, alerts), ``season`` (phase hints, advice), ``status``
(the platform); ``registry`` puts them under one validated entry point.
"""

from pipeline.crew.tools.base import (
    ARGS,
    ChartArgs,
    DaysArgs,
    NoArgs,
    PeriodArgs,
    ReadingsArgs,
    Tool,
    ToolResult,
)
from pipeline.crew.tools.registry import FarmTools
from pipeline.crew.tools.status import PlatformProbe

__all__ = [
    "ARGS",
    "ChartArgs",
    "DaysArgs",
    "FarmTools",
    "NoArgs",
    "PeriodArgs",
    "PlatformProbe",
    "ReadingsArgs",
    "Tool",
    "ToolResult",
]
