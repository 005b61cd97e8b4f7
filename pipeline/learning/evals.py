"""Eval rules (Evolving Intelligence seed, pillar 1): binary checks on every reply.

The rules are data (``pipeline/rules/evals.toml``), compiled once when the rulebook
loads and checked after reflection on every reply: no LLM, a handful of compiled
regular expressions and length comparisons (bench/learning.py measures the cost).
A failure never blocks or changes a reply; it is stored with the interaction
(quality statistics, the nightly job) and shown to operators as a footnote.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from pipeline.intents import Intent
from pipeline.rules import RULES_DIR
from pipeline.types import Language, Mode

__all__ = ["DEFAULT_EVALS", "EvalContext", "EvalResult", "EvalRule", "EvalRules", "Severity"]

DEFAULT_EVALS = RULES_DIR / "evals.toml"

RULE_TYPES = frozenset(
    {
        "string_contains",
        "string_not_contains",
        "regex_match",
        "regex_not_match",
        "max_length",
        "min_length",
    }
)
MODES = frozenset({"light", "deep"})
LANGUAGES = frozenset({"uk", "en"})
STYLES = frozenset({"brief", "detailed", "conversational"})
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


def _set(raw: Any, where: str, allowed: Iterable[str] | None = None) -> frozenset[str]:
    if raw is None:
        return frozenset()
    if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw):
        raise ValueError(f"{where}: expected a list of strings")
    values = frozenset(raw)
    if allowed is not None and not values <= frozenset(allowed):
        raise ValueError(f"{where}: unknown {sorted(values - frozenset(allowed))}")
    return values


def _rule(raw: Mapping[str, Any], seen: set[str]) -> EvalRule:
    rule_id = str(raw.get("id", ""))
    if not rule_id or rule_id in seen:
        raise ValueError(f"eval rule id {rule_id!r}: missing or repeated")
    seen.add(rule_id)
    where = f"eval rule {rule_id}"
    kind = str(raw.get("type", ""))
    if kind not in RULE_TYPES:
        raise ValueError(f"{where}: unknown type {kind!r}")
    try:
        severity = Severity(str(raw.get("severity", "warning")))
    except ValueError:
        raise ValueError(f"{where}: severity must be warning or info") from None
    names = raw.get("name", {})
    if not isinstance(names, Mapping) or "uk" not in names:
        raise ValueError(f"{where}: name.uk is required")
    pattern = None
    value = ""
    limit = 0
    if kind.startswith("regex"):
        try:
            pattern = re.compile(str(raw["pattern"]), re.IGNORECASE)
        except (KeyError, re.error) as exc:
            raise ValueError(f"{where}: bad or missing pattern ({exc})") from None
    elif kind.startswith("string"):
        value = str(raw.get("value", ""))
        if not value:
            raise ValueError(f"{where}: value is required")
    else:
        raw_limit = raw.get("limit")
        if not isinstance(raw_limit, int) or raw_limit <= 0:
            raise ValueError(f"{where}: limit must be a positive integer")
        limit = raw_limit
    intents = _set(raw.get("intents"), f"{where}.intents", [str(i) for i in Intent])
    return EvalRule(
        id=rule_id,
        names={lang: str(names[lang]) for lang in _LANGS if lang in names},
        type=kind,
        severity=severity,
        value=value,
        pattern=pattern,
        limit=limit,
        intents=frozenset(Intent(name) for name in intents),
        modes=_set(raw.get("modes"), f"{where}.modes", MODES),
        languages=_set(raw.get("languages"), f"{where}.languages", LANGUAGES),
        styles=_set(raw.get("styles"), f"{where}.styles", STYLES),
    )


@dataclass(frozen=True, slots=True)
class EvalRules:
    rules: tuple[EvalRule, ...]

    @classmethod
    def load(cls, path: Path = DEFAULT_EVALS) -> EvalRules:
        with path.open("rb") as fh:
            return cls.from_mapping(tomllib.load(fh))

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any]) -> EvalRules:
        """Build from a parsed rules document (a ValueError names what is wrong)."""
        seen: set[str] = set()
        return cls(tuple(_rule(rule, seen) for rule in raw.get("rules", [])))

    def check(self, text: str, ctx: EvalContext) -> EvalResult:
        applicable = [rule for rule in self.rules if rule.applies(ctx)]
        failed = tuple(rule for rule in applicable if not rule.passes(text))
        return EvalResult(len(applicable), failed)
