"""Eval rules (Evolving Intelligence seed, pillar 1): binary checks on every reply.

The rules are data (``pipeline/rules/evals.toml``), compiled once when the rulebook
loads and checked after reflection on every reply: no LLM, a handful of compiled
regular expressions and length comparisons (bench/learning.py measures the cost).
A failure never blocks or changes a reply; it is stored with the interaction
(quality statistics, the nightly job) and shown to operators as a footnote.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

from pydantic import AfterValidator, Field, model_validator

from pipeline.intents import Intent
from pipeline.profiles import Style
from pipeline.rules import RULES_DIR
from pipeline.rules.schema import RulesModel, Text, load, parse
from pipeline.types import Language, Mode

__all__ = ["DEFAULT_EVALS", "EvalContext", "EvalResult", "EvalRule", "EvalRules", "Severity"]

DEFAULT_EVALS = RULES_DIR / "evals.toml"

RuleType = Literal[
    "string_contains",
    "string_not_contains",
    "regex_match",
    "regex_not_match",
    "max_length",
    "min_length",
]
RULE_TYPES = frozenset(get_args(RuleType))
_LANGS: tuple[Language, ...] = ("uk", "en")


class Severity(StrEnum):
    WARNING = "warning"
    INFO = "info"

    @property
    def icon(self) -> str:
        return "⚠️" if self is Severity.WARNING else "ℹ️"


@dataclass(frozen=True, slots=True)
class EvalContext:
    """What a rule's scope may depend on."""

    mode: Mode
    intent: str
    language: Language
    style: str


@dataclass(frozen=True, slots=True)
class EvalRule:
    id: str
    names: Mapping[Language, str]
    type: str
    severity: Severity
    value: str = ""
    pattern: re.Pattern[str] | None = None
    limit: int = 0
    intents: frozenset[Intent] = frozenset()
    modes: frozenset[str] = frozenset()
    languages: frozenset[str] = frozenset()
    styles: frozenset[str] = frozenset()

    def applies(self, ctx: EvalContext) -> bool:
        return (
            (not self.intents or ctx.intent in self.intents)
            and (not self.modes or ctx.mode in self.modes)
            and (not self.languages or ctx.language in self.languages)
            and (not self.styles or ctx.style in self.styles)
        )

    def passes(self, text: str) -> bool:
        match self.type:
            case "string_contains":
                return self.value.casefold() in text.casefold()
            case "string_not_contains":
                return self.value.casefold() not in text.casefold()
            case "regex_match":
                return self.pattern is not None and self.pattern.search(text) is not None
            case "regex_not_match":
                return self.pattern is None or self.pattern.search(text) is None
            case "max_length":
                return len(text) <= self.limit
            case "min_length":
                return len(text.strip()) >= self.limit
        return True  # unreachable: the type is checked when the rules load

    def name(self, lang: Language) -> str:
        return self.names.get(lang) or self.names.get("uk") or self.id


@dataclass(frozen=True, slots=True)
class EvalResult:
    """The rules that applied to one reply and the ones it failed."""

    checked: int
    failed: tuple[EvalRule, ...] = ()

    @property
    def warnings(self) -> int:
        return sum(rule.severity is Severity.WARNING for rule in self.failed)

    @property
    def infos(self) -> int:
        return sum(rule.severity is Severity.INFO for rule in self.failed)

    @property
    def failed_ids(self) -> tuple[str, ...]:
        return tuple(rule.id for rule in self.failed)

    @property
    def passed(self) -> bool:
        """No warning failed (an info is advice, not a failure of the reply)."""
        return self.warnings == 0

    def footnote(self, lang: Language) -> str:
        """The operator's footnote: one short line per failed rule, warnings first."""
        ordered = sorted(self.failed, key=lambda rule: rule.severity is not Severity.WARNING)
        return "\n".join(f"{rule.severity.icon} {rule.name(lang)}" for rule in ordered)


def _compiles(pattern: str | None) -> str | None:
    if pattern is not None:
        try:
            re.compile(pattern, re.IGNORECASE)
        except re.error as exc:
            raise ValueError(f"bad pattern ({exc})") from None
    return pattern


def _has_uk(names: dict[str, str]) -> dict[str, str]:
    if "uk" not in names:
        raise ValueError("name.uk is required")
    return names


class _RuleTable(RulesModel):
    id: Text
    name: Annotated[dict[str, str], AfterValidator(_has_uk)]
    type: RuleType
    severity: Severity = Severity.WARNING
    value: str = ""
    pattern: Annotated[str | None, AfterValidator(_compiles)] = None
    limit: Annotated[int | None, Field(strict=True, gt=0)] = None
    intents: frozenset[Intent] = frozenset()
    modes: frozenset[Mode] = frozenset()
    languages: frozenset[Language] = frozenset()
    styles: frozenset[Style] = frozenset()

    @model_validator(mode="after")
    def _what_the_type_needs(self) -> _RuleTable:
        if self.type.startswith("regex") and self.pattern is None:
            raise ValueError("pattern is required")
        if self.type.startswith("string") and not self.value:
            raise ValueError("value is required")
        if self.type.endswith("length") and self.limit is None:
            raise ValueError("limit must be a positive integer")
        return self

    def runtime(self) -> EvalRule:
        regex = self.type.startswith("regex")
        return EvalRule(
            id=self.id,
            names={lang: self.name[lang] for lang in _LANGS if lang in self.name},
            type=self.type,
            severity=self.severity,
            value=self.value if self.type.startswith("string") else "",
            pattern=re.compile(self.pattern, re.IGNORECASE) if regex and self.pattern else None,
            limit=(self.limit or 0) if self.type.endswith("length") else 0,
            intents=self.intents,
            modes=frozenset(self.modes),
            languages=frozenset(self.languages),
            styles=frozenset(self.styles),
        )


def _unique(rules: tuple[_RuleTable, ...]) -> tuple[_RuleTable, ...]:
    seen: set[str] = set()
    for rule in rules:
        if rule.id in seen:
            raise ValueError(f"eval rule id {rule.id!r} is repeated")
        seen.add(rule.id)
    return rules


class _EvalsFile(RulesModel):
    version: int = 1
    rules: Annotated[tuple[_RuleTable, ...], AfterValidator(_unique)] = ()


@dataclass(frozen=True, slots=True)
class EvalRules:
    rules: tuple[EvalRule, ...]

    @classmethod
    def load(cls, path: Path = DEFAULT_EVALS) -> EvalRules:
        return cls._from_file(load(path, _EvalsFile))

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any]) -> EvalRules:
        """Build from a parsed rules document (a ValueError names what is wrong)."""
        return cls._from_file(parse(raw, _EvalsFile, source=DEFAULT_EVALS.name))

    @classmethod
    def _from_file(cls, file: _EvalsFile) -> EvalRules:
        return cls(tuple(rule.runtime() for rule in file.rules))

    def check(self, text: str, ctx: EvalContext) -> EvalResult:
        applicable = [rule for rule in self.rules if rule.applies(ctx)]
        failed = tuple(rule for rule in applicable if not rule.passes(text))
        return EvalResult(len(applicable), failed)
