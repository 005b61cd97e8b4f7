"""When a forecast hazard is worth a message (rules/weather_warnings.toml)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from pydantic import Field, model_validator

from pipeline.rules import RULES_DIR
from pipeline.rules.schema import RulesModel, load

DEFAULT_WARNINGS = RULES_DIR / "weather_warnings.toml"


class FrostRule(RulesModel):
    max_c: float = Field(ge=-10, le=5)
    hours_ahead: int = Field(ge=6, le=168)
    months: tuple[int, ...] = Field(min_length=1)
    after_sowing_days: int = Field(ge=0, le=366)

    @property
    def ahead(self) -> timedelta:
        return timedelta(hours=self.hours_ahead)


class HeatRule(RulesModel):
    min_c: float = Field(ge=25, le=50)
    hours_ahead: int = Field(ge=6, le=168)

    @property
    def ahead(self) -> timedelta:
        return timedelta(hours=self.hours_ahead)


class RainRule(RulesModel):
    heavy_mm: float = Field(gt=0, le=200)
    days_ahead: int = Field(ge=0, le=6)


class WarningRules(RulesModel):
    version: int = Field(ge=1, le=1)
    send_hours: tuple[int, int]
    frost: FrostRule
    heat: HeatRule
    rain: RainRule

    @model_validator(mode="after")
    def _sensible(self) -> WarningRules:
        start, end = self.send_hours
        if not 0 <= start < end <= 24:
            raise ValueError("send_hours: [from, to) within 0..24, from before to")
        if any(not 1 <= month <= 12 for month in self.frost.months):
            raise ValueError("frost.months: months are 1..12")
        return self

    @classmethod
    def load(cls, path: Path = DEFAULT_WARNINGS) -> WarningRules:
        return load(path, cls)

    def may_send_at(self, local_hour: int) -> bool:
        return self.send_hours[0] <= local_hour < self.send_hours[1]
