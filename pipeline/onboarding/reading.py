"""How onboarding reads a typed message (``pipeline/rules/onboarding.toml``).

Two questions: is this message an answer to the step at all, or a question, a work
record, a report request that must be answered as usual (issue 16 point 1)? And
what does a typed answer to a button question mean («так», «коротко», «15 років»)?
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pipeline.actions import OnboardingAction, OnboardingChoice
from pipeline.grammar import Grammar, TermSet
from pipeline.profiles import EXPERTISE_LEVELS, STYLES, Expertise
from pipeline.rules import RULES_DIR
from pipeline.rules.schema import RulesError, RulesModel, load
from pipeline.text import is_number, tokenize
from pipeline.types import ClassifierContext, DepthDecision

ONBOARDING_RULES = RULES_DIR / "onboarding.toml"


class DepthClassifier(Protocol):
    def classify(self, text: str, ctx: ClassifierContext) -> DepthDecision: ...


def _terms(raw: Mapping[str, Any], labels: tuple[str, ...], grammar: Grammar) -> TermSet:
    missing = [label for label in labels if label not in raw]
    if missing:
        raise ValueError(f"onboarding rules: no terms for {', '.join(missing)}")
    return TermSet.labelled({label: list(raw[label]) for label in labels}, grammar)


class _OnboardingFile(RulesModel):
    """``rules/onboarding.toml``: the term lists are checked by ``_terms`` as they compile."""

    version: int = 1
    answer_intents: tuple[str, ...]
    question_words: tuple[str, ...]
    sensors: dict[str, tuple[str, ...]]
    style: dict[str, tuple[str, ...]]
    experience: _Experience


class _Experience(RulesModel):
    novice_below_years: float
    expert_from_years: float
    novice: tuple[str, ...] = ()
    intermediate: tuple[str, ...] = ()
    expert: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class OnboardingRules:
    answer_intents: frozenset[str]
    question_words: TermSet
    sensors: TermSet
    styles: TermSet
    levels: TermSet
    novice_below_years: float
    expert_from_years: float

    @classmethod
    def load(cls, grammar: Grammar, path: Path = ONBOARDING_RULES) -> OnboardingRules:
        raw = load(path, _OnboardingFile).model_dump()
        experience = raw["experience"]
        rules = cls(
            answer_intents=frozenset(raw["answer_intents"]),
            question_words=TermSet.flat(raw["question_words"], "question", grammar),
            sensors=_terms(raw["sensors"], ("yes", "no"), grammar),
            styles=_terms(raw["style"], STYLES, grammar),
            levels=_terms(experience, EXPERTISE_LEVELS, grammar),
            novice_below_years=experience["novice_below_years"],
            expert_from_years=experience["expert_from_years"],
        )
        if not 0 < rules.novice_below_years <= rules.expert_from_years:
            raise RulesError(
                path.name, "experience", "need 0 < novice_below_years <= expert_from_years"
            )
        return rules

    def level_for_years(self, years: float) -> Expertise:
        if years < self.novice_below_years:
            return "novice"
        return "expert" if years >= self.expert_from_years else "intermediate"


def _first_label(terms: TermSet, tokens: tuple[str, ...]) -> str | None:
    for start in range(len(tokens)):
        found = terms.match_at(tokens, start)
        if found is not None:
            return found[0]
    return None


class OnboardingReader:
    """Reads typed messages during onboarding with the classifier and the rules."""

    def __init__(self, rules: OnboardingRules, classifier: DepthClassifier) -> None:
        self._rules = rules
        self._classifier = classifier

    def interrupts(self, text: str) -> bool:
        """A question or a request the classifier recognises: not an answer to a step."""
        stripped = text.strip()
        if not stripped:
            return False
        if stripped.startswith("/") or stripped.endswith("?"):
            return True
        tokens = tokenize(stripped)
        if tokens and self._rules.question_words.label(tokens[0]) is not None:
            return True
        try:
            decision = self._classifier.classify(stripped, ClassifierContext(interaction_count=0))
        except Exception:
            return False  # unreadable by the classifier: let the step read it
        matched = decision.reason.startswith("rule:")
        return matched and str(decision.intent) not in self._rules.answer_intents

    def sensors(self, text: str) -> OnboardingAction | None:
        label = _first_label(self._rules.sensors, tokenize(text))
        if label is None:
            return None
        yes = label == "yes"
        return OnboardingAction(
            OnboardingChoice.SENSORS_YES if yes else OnboardingChoice.SENSORS_NO
        )

    def style(self, text: str) -> OnboardingAction | None:
        label = _first_label(self._rules.styles, tokenize(text))
        for style in STYLES:
            if style == label:
                return OnboardingAction(OnboardingChoice.STYLE, style=style)
        return None

    def experience(self, text: str) -> OnboardingAction | None:
        """«15 років» by the number; «тільки починаю», «все життя» by the words."""
        tokens = tokenize(text)
        for token in tokens:
            if is_number(token):
                years = float(token.replace(",", "."))
                return OnboardingAction(
                    OnboardingChoice.LEVEL, level=self._rules.level_for_years(years)
                )
        label = _first_label(self._rules.levels, tokens)
        for level in EXPERTISE_LEVELS:
            if level == label:
                return OnboardingAction(OnboardingChoice.LEVEL, level=level)
        return None
