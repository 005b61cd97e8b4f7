"""The rules profiles learn by (``pipeline/rules/profiles.toml``), read and checked.

Each part is a frozen pydantic model: a misspelt intent or phase, a negative window
or an unknown key stops Stepan at start-up instead of silently learning nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field

from pipeline.intents import Intent
from pipeline.profiles import Phase
from pipeline.rules import RULES_DIR
from pipeline.rules.schema import RulesModel, load, parse

RULES_FILE = RULES_DIR / "profiles.toml"


class TypicalIntentRules(RulesModel):
    window_days: int = Field(gt=0)
    keep: int = Field(gt=0)
    min_count: int = Field(gt=0)
    refresh_every: int = Field(gt=0)
    ignore: frozenset[Intent]


class SeasonRules(RulesModel):
    window_days: int = Field(gt=0)
    ahead_days: int = Field(ge=0)
    keep_operations: int = Field(gt=0)
    phase_of_operation: dict[str, Phase]


class IntegrationRules(RulesModel):
    default: str = Field(min_length=1, max_length=32)
    operator: str = Field(min_length=1, max_length=32)
    sources: dict[str, str]

    def of_source(self, source: str) -> str:
        """The integration a reading's source means."""
        return self.sources.get(source, self.default)

    @property
    def sensor_integrations(self) -> frozenset[str]:
        """Every integration a reading or an operator's switch may have added."""
        return frozenset({self.default, self.operator, *self.sources.values()})


class LearningRules(RulesModel):
    version: int
    typical_intents: TypicalIntentRules
    season: SeasonRules
    integrations: IntegrationRules

    @classmethod
    def load(cls, path: Path = RULES_FILE) -> LearningRules:
        return load(path, cls)

    @classmethod
    def from_mapping(cls, raw: dict[str, Any]) -> LearningRules:
        """A one-line RulesError (a ValueError naming the key) for anything invalid."""
        return parse(raw, cls, source=RULES_FILE.name)
