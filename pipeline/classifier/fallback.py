"""The learned fallback: where the rules are unsure, the intent model may read the
message instead (its bars are ``[model]`` in rules/classifier.toml).

The rules stay the first reader: the model is asked only when nothing matched, when
only keywords matched at the minimum score, or when one bare trigger matched at the
minimum score in a message longer than the trigger itself. A sure rule (more than the
minimum score) always stands."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import NamedTuple

from pipeline.classifier.analysis import Analysis
from pipeline.classifier.model import Guess, IntentModel
from pipeline.classifier.rules import IntentSpec, Settings
from pipeline.intents import Intent
from pipeline.text import NormalizedText
from pipeline.types import DepthDecision

__all__ = ["LearnedFallback"]


class _Bar(NamedTuple):
    """The model's bar for replacing a reading: its guess at ``needed`` or more, the
    rule's own intent at ``rule_at_most`` or less, and (``same_route_stays``) not an
    intent that would route the message the same way."""

    needed: float
    rule_at_most: float = 1.0
    same_route_stays: bool = False


class LearnedFallback:
    """Replaces an unsure rule reading by the model's when the model is sure enough."""

    def __init__(
        self,
        model: IntentModel,
        settings: Settings,
        labels: Mapping[str, IntentSpec],
        union_crew: Callable[[Iterable[Intent]], tuple[str, ...]],
    ) -> None:
        self._model = model
        self._settings = settings
        self._labels = labels
        self._union_crew = union_crew

    def decide(self, rule: DepthDecision, a: Analysis, text: NormalizedText) -> DepthDecision:
        """The model's reading where the rules are unsure: nothing matched (from
        ``model_fallback_p``), a weak match (keywords, the minimum score; another
        intent from ``model_override_p``), or a bare trigger at the minimum score, in a
        message of ``model_trigger_min_words`` or more, that the model finds unlikely
        (another intent from ``model_trigger_override_p`` while the rule's own stays at
        ``model_trigger_rule_p`` or less). A sure rule (more than the minimum score)
        stands, and so does a bare trigger the model would only rename (another intent
        of the same mode and crew: iot or iot_alert)."""
        s = self._settings
        bar = self._bar(a, text)
        if bar is None:
            return rule
        ranked = self._model.ranked(text)
        guess = ranked[0] if ranked else None
        spec = self._labels.get(guess.intent) if guess is not None else None
        if (
            guess is None
            or spec is None
            or guess.probability < bar.needed
            or guess.intent in (rule.intent, s.general_intent, s.clarify_intent)
            or _probability_of(ranked, rule.intent) > bar.rule_at_most
            or (bar.same_route_stays and self._same_route(spec, rule.intent))
        ):
            return self._with_readings(rule, ranked) if not a.matched else rule
        return DepthDecision(
            spec.mode,
            Intent(guess.intent),
            self._union_crew([spec.name]) if spec.mode == "deep" else (),
            round(guess.probability, 3),
            f"model:{guess.intent} p={guess.probability:.2f} {rule.reason}".rstrip(),
            (spec.name, *a.matched),
        )

    def _bar(self, a: Analysis, text: NormalizedText) -> _Bar | None:
        """What the model must show to replace the rules' reading (None: it stands)."""
        s = self._settings
        primary = a.matched[0] if a.matched else None
        if primary is None:
            return _Bar(s.model_fallback_p)
        if a.scores[primary] > s.min_score:
            return None
        if a.triggers.get(primary, 0) == 0:
            return _Bar(s.model_override_p)
        if len(text.tokens) < s.model_trigger_min_words:
            return None  # the message is its trigger (a bare greeting): sure
        return _Bar(s.model_trigger_override_p, s.model_trigger_rule_p, same_route_stays=True)

    def _same_route(self, spec: IntentSpec, intent: Intent) -> bool:
        """``spec`` sends a message where ``intent`` does: the same mode and crew."""
        other = self._labels.get(intent)
        return other is not None and (other.mode, other.crew) == (spec.mode, spec.crew)

    def _with_readings(self, rule: DepthDecision, ranked: Sequence[Guess]) -> DepthDecision:
        """A message nothing understood, on a later contact: the two or three readings
        worth a question (``[model] readings``, from ``readings_probability``)."""
        s = self._settings
        if not rule.reason.startswith("no_match"):
            return rule  # first contact: the welcome, not a question
        readings = tuple(
            Intent(g.intent)
            for g in ranked
            if g.probability >= s.model_readings_p and g.intent in s.model_readings
        )[:3]
        return replace(rule, readings=readings) if len(readings) >= 2 else rule


def _probability_of(ranked: Sequence[Guess], intent: Intent) -> float:
    """The model's probability of ``intent`` (0 when it does not rank it)."""
    return next((g.probability for g in ranked if g.intent == intent), 0.0)
