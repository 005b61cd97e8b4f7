"""The shapes of ``rules/compose.toml`` and ``rules/advice.toml`` as rules-schema
models: a wrong type, a misspelt or missing key is one RulesError line naming the
file and the key (pipeline/rules/schema.py). The phrases are compiled by
pipeline/crew/words.py."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from pipeline.farm.words.periods import DefaultKind
from pipeline.profiles import Phase
from pipeline.rules.schema import RulesModel

__all__ = ["AdviceFile", "ComposeFile"]

Phrases = tuple[str, ...]


class OpenerTable(RulesModel):
    min_lines: int = Field(ge=2)
    conversation_minutes: float


class ChartTable(RulesModel):
    phrases: Phrases


class WinterCropsTable(RulesModel):
    crops: tuple[str, ...]
    #: month -> the phases a farm growing one of ``crops`` may be in then, besides
    #: ``[season.allowed]``'s.
    months: dict[int, tuple[Phase, ...]]


class SeasonTable(RulesModel):
    north: dict[int, Phase]
    allowed: dict[int, tuple[Phase, ...]]
    winter_crops: WinterCropsTable

    @field_validator("north", "allowed")
    @classmethod
    def _every_month(cls, months: dict[int, object]) -> dict[int, object]:
        if sorted(months) != list(range(1, 13)):
            raise ValueError("must name all twelve months")
        return months


class PlanningTable(RulesModel):
    days_ahead: int


class JournalViewTable(RulesModel):
    lines: int = Field(ge=1)
    default_period: DefaultKind
    phrases: Phrases
    totals: Phrases


class ComposeFile(RulesModel):
    version: Literal[1]
    opener: OpenerTable
    chart: ChartTable
    #: sensor type -> its phrases.
    sensors: dict[str, Phrases]
    season: SeasonTable
    planning: PlanningTable
    journal_view: JournalViewTable


class AdviceTopicTable(RulesModel):
    terms: Phrases
    sensor: str | None = None


class AdviceFile(RulesModel):
    version: Literal[1]
    #: In priority order: a pest beats «полив» in one question.
    topics: dict[str, AdviceTopicTable]
