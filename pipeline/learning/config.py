"""``rules/learning.toml``: the learnings' prompt block, the section-15 targets and the
nightly job's thresholds, read and checked once (the rulebook loads it)."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.rules import RULES_DIR

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
        with path.open("rb") as fh:
            return cls.from_mapping(tomllib.load(fh))

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any]) -> LearningRules:
        learnings = raw["learnings"]
        templates = {str(k): str(v) for k, v in learnings["rules"].items()}
        missing = set(RULE_KINDS) - set(templates)
        if missing:
            raise ValueError(f"learning.toml: learnings.rules lacks {sorted(missing)}")
        chars = int(learnings["prompt_chars"])
        if chars <= 0:
            raise ValueError("learning.toml: prompt_chars must be positive")
        t, n = raw["targets"], raw["nightly"]
        nightly = NightlyRules(
            hour=int(n["hour"]),
            minute=int(n["minute"]),
            min_replies=int(n["min_replies"]),
            success_rate_min=float(n["success_rate_min"]),
            max_proposals=int(n["max_proposals"]),
            min_support=int(n["min_support"]),
        )
        if not (0 <= nightly.hour < 24 and 0 <= nightly.minute < 60):
            raise ValueError("learning.toml: nightly hour/minute out of range")
        return cls(
            prompt_chars=chars,
            header=str(learnings["header"]),
            templates=templates,
            targets=Targets(**{key: float(value) for key, value in t.items()}),
            nightly=nightly,
            correction_cues=tuple(str(cue) for cue in raw.get("corrections", {}).get("cues", [])),
        )
