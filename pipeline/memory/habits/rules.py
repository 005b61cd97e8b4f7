"""The rules profiles learn by (``pipeline/rules/profiles.toml``), read and checked.

Each part is a frozen pydantic model: a misspelt intent or phase, a negative window
or an unknown key stops Stepan at start-up instead of silently learning nothing."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from pipeline.intents import Intent
from pipeline.profiles import Phase
from pipeline.rules import RULES_DIR

RULES_FILE = RULES_DIR / "profiles.toml"


class _Rules(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TypicalIntentRules(_Rules):
    window_days: int = Field(gt=0)
    keep: int = Field(gt=0)
    min_count: int = Field(gt=0)
    refresh_every: int = Field(gt=0)
    ignore: frozenset[Intent]


class SeasonRules(_Rules):
    window_days: int = Field(gt=0)
    ahead_days: int = Field(ge=0)
    keep_operations: int = Field(gt=0)
    phase_of_operation: dict[str, Phase]


class IntegrationRules(_Rules):
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


class LearningRules(_Rules):
    version: int
    typical_intents: TypicalIntentRules
    season: SeasonRules
    integrations: IntegrationRules

    @classmethod
    def load(cls, path: Path = RULES_FILE) -> LearningRules:
        with path.open("rb") as handle:
            return cls.from_mapping(tomllib.load(handle))

    @classmethod
    def from_mapping(cls, raw: dict[str, Any]) -> LearningRules:
        """ValueError (pydantic's, naming the key) for anything invalid."""
        return cls.model_validate(raw)
