"""``rules/learning.toml``: the learnings' prompt block, the section-15 targets and the
nightly job's thresholds, read and checked once (the rulebook loads it)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field, field_validator

from pipeline.rules import RULES_DIR
from pipeline.rules.schema import RulesModel, load, parse

__all__ = ["DEFAULT_LEARNING", "LearningRules", "NightlyRules", "Targets"]

DEFAULT_LEARNING = RULES_DIR / "learning.toml"
RULE_KINDS = ("negative", "fixit", "wrong", "not_asked", "too_long", "language", "correction")


@dataclass(frozen=True, slots=True)
class Targets:
    """Seed plan section 15."""

    light_share_min: float
    light_p50_ms_max: float
    deep_p50_ms_max: float
    deep_1_2_crew_share_min: float
    eval_pass_rate_min: float
    feedback_ratio_min: float


@dataclass(frozen=True, slots=True)
class NightlyRules:
    hour: int
    minute: int
    min_replies: int
    success_rate_min: float
    max_proposals: int
    min_support: int


@dataclass(frozen=True, slots=True)
class LearningRules:
    prompt_chars: int
    header: str
    #: Rule templates by kind (RULE_KINDS), with {intent} (and {was} for corrections).
    templates: Mapping[str, str]
    targets: Targets
    nightly: NightlyRules
    #: «ні, я хотів …»: a farmer correcting the previous reply (lowercase, no punctuation).
    correction_cues: tuple[str, ...] = ()

    def rule(self, kind: str, intent: str, was: str = "") -> str:
        return self.templates[kind].format(intent=intent or "general", was=was or "general")

    @classmethod
    def load(cls, path: Path = DEFAULT_LEARNING) -> LearningRules:
        return load(path, _LearningFile).runtime()

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any]) -> LearningRules:
        return parse(raw, _LearningFile, source=DEFAULT_LEARNING.name).runtime()


class _Learnings(RulesModel):
    prompt_chars: int = Field(gt=0)
    header: str
    rules: dict[str, str]

    @field_validator("rules")
    @classmethod
    def _every_kind(cls, rules: dict[str, str]) -> dict[str, str]:
        missing = set(RULE_KINDS) - set(rules)
        if missing:
            raise ValueError(f"learnings.rules lacks {sorted(missing)}")
        return rules


class _Targets(RulesModel):
    light_share_min: float
    light_p50_ms_max: float
    deep_p50_ms_max: float
    deep_1_2_crew_share_min: float
    eval_pass_rate_min: float
    feedback_ratio_min: float


class _Nightly(RulesModel):
    hour: int = Field(ge=0, lt=24)
    minute: int = Field(ge=0, lt=60)
    min_replies: int
    success_rate_min: float
    max_proposals: int
    min_support: int


class _Corrections(RulesModel):
    cues: tuple[str, ...] = ()


class _LearningFile(RulesModel):
    version: int = 1
    learnings: _Learnings
    targets: _Targets
    nightly: _Nightly
    corrections: _Corrections = _Corrections()

    def runtime(self) -> LearningRules:
        return LearningRules(
            prompt_chars=self.learnings.prompt_chars,
            header=self.learnings.header,
            templates=dict(self.learnings.rules),
            targets=Targets(**self.targets.model_dump()),
            nightly=NightlyRules(**self.nightly.model_dump()),
            correction_cues=self.corrections.cues,
        )
