"""The depth classifier (seed section 3.1, routing rules in LABELS.md).

Every word lives in ``pipeline/rules/classifier.toml`` (term syntax:
:mod:`pipeline.grammar`); :mod:`.rules` reads and checks it, :mod:`.index` compiles
it, :mod:`.analysis` scores a message, and this module decides.

Routing (LABELS.md): any matched deep intent makes the message deep (the
primary one by ``deep_priority``, the crew is the union); otherwise the best
light intent; otherwise clarify (short), general (long) or, on first contact,
general with every crew. Low confidence, ``--deep``, ``ctx.force_deep``,
``ctx.recent_alert`` and ``ctx.pending_terms`` force deep and keep the intent.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pipeline.classifier.analysis import DEFAULT_TOKEN_CACHE, Analysis, Matcher
from pipeline.classifier.fallback import LearnedFallback
from pipeline.classifier.index import compile_rules
from pipeline.classifier.model import IntentModel
from pipeline.classifier.rules import DEFAULT_RULES, ClassifierRules, IntentSpec, Settings
from pipeline.grammar import Grammar
from pipeline.intents import Intent
from pipeline.text import NormalizedText, normalize
from pipeline.types import CREW_NAMES, ClassifierContext, DepthDecision

__all__ = ["Classifier", "Probe"]

#: Another reader's score for an intent (``IntentSpec.probe``): 0 when it sees nothing,
#: a trigger's weight when it is sure.
Probe = Callable[[str], int]

logger = logging.getLogger(__name__)


class Classifier:
    """Decides light/deep, the intent and the crew (before the gate) for one message."""

    def __init__(
        self,
        rules: ClassifierRules,
        grammar: Grammar,
        *,
        token_cache_size: int = DEFAULT_TOKEN_CACHE,
        normalizer: Callable[[str], NormalizedText] = normalize,
        probes: Mapping[str, Probe] | None = None,
        model: IntentModel | None = None,
    ) -> None:
        self._rules = rules
        self._model = model
        self._normalize = normalizer
        # An intent whose probe is not given is matched by its terms alone (the
        # rules file alone, as in unit tests of the word rules).
        given = probes or {}
        self._given_probes = dict(given)
        self._probes = {
            name: given[spec.probe]
            for name, spec in rules.intents.items()
            if spec.probe is not None and spec.probe in given
        }
        self._settings = settings = rules.settings
        self._intents = rules.intents
        # Light intents: their position; deep intents: their tier. ``order`` breaks
        # the remaining ties deterministically.
        self._rank: dict[Intent, int] = {
            name: rank for rank, name in enumerate(settings.light_priority)
        }
        order = dict(self._rank)
        position = 0
        for tier_rank, tier in enumerate(settings.deep_priority):
            for name in tier:
                self._rank[name] = tier_rank
                order[name] = position
                position += 1
        self._grammar = grammar
        self._labels = _labels(rules.intents)
        self._matcher = Matcher(
            rules, compile_rules(rules, grammar), order, token_cache_size=token_cache_size
        )
        self._fallback = (
            None
            if model is None
            else LearnedFallback(model, settings, self._labels, self._union_crew)
        )

    # ------------------------------------------------------------------ loading

    @classmethod
    def from_file(
        cls,
        path: Path = DEFAULT_RULES,
        *,
        grammar: Grammar | None = None,
        token_cache_size: int = DEFAULT_TOKEN_CACHE,
    ) -> Classifier:
        """Load rules from ``path`` (default: the packaged ``rules/classifier.toml``)."""
        return cls(
            ClassifierRules.load(path),
            grammar or Grammar.load(),
            token_cache_size=token_cache_size,
        )

    @classmethod
    def from_mapping(
        cls,
        raw: Mapping[str, Any],
        *,
        grammar: Grammar | None = None,
        token_cache_size: int = DEFAULT_TOKEN_CACHE,
    ) -> Classifier:
        """Build from an already parsed rules document (raises ValueError if invalid)."""
        return cls(
            ClassifierRules.from_mapping(raw),
            grammar or Grammar.load(),
            token_cache_size=token_cache_size,
        )

    @property
    def rules(self) -> ClassifierRules:
        return self._rules

    @property
    def probes(self) -> Mapping[str, Probe]:
        """The probes it was given by name (a classifier built from its rules plus
        more terms takes them over)."""
        return self._given_probes

    @property
    def model(self) -> IntentModel | None:
        """The learned fallback it was given (None: the rules route alone)."""
        return self._model

    def with_model(self, model: IntentModel | None) -> Classifier:
        """The same rules and probes with another learned fallback."""
        return Classifier(self._rules, self._grammar, probes=self._given_probes, model=model)

    @property
    def intents(self) -> Mapping[Intent, IntentSpec]:
        return self._intents

    @property
    def light_intents(self) -> frozenset[Intent]:
        """The intents the rules answer light (``mode = "light"``)."""
        return frozenset(name for name, spec in self._intents.items() if spec.mode == "light")

    @property
    def settings(self) -> Settings:
        return self._settings

    # ------------------------------------------------------------------ public API

    def classify(self, text: str, ctx: ClassifierContext) -> DepthDecision:
        """Route one message. Never raises: any failure is the deep fail-safe."""
        try:
            return self._classify(text, ctx)
        except Exception:
            logger.exception("depth classifier failed; using the deep fail-safe")
            return DepthDecision.fail_safe()

    def analyse(self, text: str) -> Analysis:
        """The raw rule matches for ``text`` (debugging aid; may raise)."""
        return self._analyse(self._strip_force_prefix(text)[0])

    # ------------------------------------------------------------------ pipeline

    def _classify(self, text: str, ctx: ClassifierContext) -> DepthDecision:
        body, forced_prefix = self._strip_force_prefix(text)
        normalized = self._normalize(body)
        analysis = self._matcher.analyse(normalized)
        if self._probes and self._worth_probing(analysis):
            analysis = self._probed(analysis, body, ctx)
        decision = self._decide(analysis, ctx)
        if self._fallback is not None:
            decision = self._fallback.decide(decision, analysis, normalized)
        return self._apply_overrides(decision, ctx, forced_prefix)

    def _analyse(self, text: str) -> Analysis:
        return self._matcher.analyse(self._normalize(text))

    def chosen(self, intent: Intent) -> DepthDecision:
        """The decision for a reading the farmer chose (a button under the question that
        asked what the message was about)."""
        spec = self._labels.get(intent)
        if spec is None:
            return DepthDecision.fail_safe("chosen:unknown")
        crew = self._union_crew([spec.name]) if spec.mode == "deep" else ()
        return DepthDecision(spec.mode, intent, crew, 1.0, f"chosen:{intent}", (spec.name,))

    def _worth_probing(self, a: Analysis) -> bool:
        """A pleasantry, small talk or an off-topic question without one farming word
        is not read again: it is most of the light traffic, and a probe costs more
        than the rules."""
        if self._settings.domain_lexicon in a.lexicons:
            return True
        return not any(self._intents[name].mode == "light" for name in a.matched)

    def _probed(self, a: Analysis, text: str, ctx: ClassifierContext) -> Analysis:
        extra: dict[Intent, tuple[int, int]] = {}
        outranked: set[Intent] = set()
        weight = self._settings.trigger_weight
        triggered = a.triggers
        for name, probe in self._probes.items():
            spec = self._intents[name]
            if triggered and self._yields(spec, a):
                continue
            score = probe(text)
            # Words of the outranked intents (a quantity: moisture, a threshold) do not
            # make a question about something else, unless a sensor word says so.
            can_outrank = spec.outranks_unless not in a.lexicons if spec.outranks else False
            if 0 < score < weight and (ctx.recent_advice or ctx.grows_crops):
                score += self._context_bonus(spec, a, ctx, can_outrank=can_outrank)
            if score:
                extra[name] = (score, 1 if score >= weight else 0)
            if score >= weight and can_outrank:
                outranked.update(spec.outranks)
        return self._matcher.with_scores(a, extra, outranked) if extra else a

    def _context_bonus(
        self, spec: IntentSpec, a: Analysis, ctx: ClassifierContext, *, can_outrank: bool
    ) -> int:
        """What the conversation adds to a probe's weak score: the intent's context
        bonus, unless a deep intent it does not yield to in context matched."""
        others = {n for n in a.matched if self._intents[n].mode == "deep"}
        if can_outrank and ctx.recent_advice:
            # Right after an agronomy question, "and the storage moisture?"
            # goes on with it.
            others -= set(spec.outranks)
        if others <= set(spec.context_yields):
            return spec.context_bonus
        return 0

    @staticmethod
    def _yields(spec: IntentSpec, a: Analysis) -> bool:
        """Another intent the probe yields to matched on a trigger."""
        return any(a.triggers.get(other, 0) and other in a.matched for other in spec.yields_to)

    def _strip_force_prefix(self, text: str) -> tuple[str, bool]:
        stripped = text.lstrip()
        lowered = stripped[:16].lower()
        for prefix in self._settings.force_deep_prefixes:
            if lowered.startswith(prefix) and not stripped[len(prefix) : len(prefix) + 1].isalnum():
                return stripped[len(prefix) :], True
        return text, False

    def _decide(self, a: Analysis, ctx: ClassifierContext) -> DepthDecision:
        s = self._settings
        deep = [n for n in a.matched if self._intents[n].mode == "deep"]
        light = [n for n in a.matched if self._intents[n].mode == "light"]
        if s.offtopic_intent in light:
            if self._offtopic_wins(a, deep):
                return self._offtopic(a)
            # Farming words around the film or the recipe: it is about the farm after all.
            light.remove(s.offtopic_intent)
        if deep:
            return self._deep_decision(a, deep, ctx)
        if light:
            return self._light_decision(a, light[0], ctx)
        return self._no_match_decision(a, ctx)

    def _offtopic_wins(self, a: Analysis, deep: Sequence[Intent]) -> bool:
        s = self._settings
        return s.domain_lexicon not in a.lexicons and not s.offtopic_yields_to.intersection(deep)

    def _offtopic(self, a: Analysis) -> DepthDecision:
        name = self._settings.offtopic_intent
        rest = tuple(n for n in a.matched if n != name)
        return DepthDecision(
            "light", name, (), self._settings.conf_offtopic, f"rule:{name}", (name, *rest)
        )

    def _deep_decision(
        self, a: Analysis, deep: Sequence[Intent], ctx: ClassifierContext
    ) -> DepthDecision:
        # The earliest tier wins; inside a tier the best score, then the most
        # triggers, then one of the farm's typical intents (what this farmer does).
        typical = set(ctx.typical_intents)
        primary = min(
            deep,
            key=lambda n: (self._rank[n], -a.scores[n], -a.triggers.get(n, 0), n not in typical),
        )
        others = tuple(n for n in a.matched if n != primary)
        # Other deep intents recruit their crew only on a trigger: two stray keywords
        # ("shows data" in a platform complaint) do not call the IoT agent.
        helpers = [
            n
            for n in deep
            if n != primary and a.triggers.get(n, 0) > 0 and not self._intents[primary].solo_crew
        ]
        return DepthDecision(
            "deep",
            self._intents[primary].label or primary,
            self._union_crew([primary, *helpers]),
            self._confidence(a, primary, ctx),
            f"rule:{primary} score={a.scores[primary]}",
            (primary, *others),
        )

    def _light_decision(
        self, a: Analysis, primary: Intent, ctx: ClassifierContext
    ) -> DepthDecision:
        s = self._settings
        matched = (primary, *(n for n in a.matched if n != primary))
        if primary in s.social_intents:
            first = ctx.interaction_count == 0
            limit = s.first_contact_max_extra_words if first else s.social_max_extra_words
            if a.extra_words > limit:
                return self._general(first, matched, f"more_than_{primary}")
        return DepthDecision(
            "light",
            primary,
            (),
            self._confidence(a, primary, ctx),
            f"rule:{primary} score={a.scores[primary]}",
            matched,
        )

    def _no_match_decision(self, a: Analysis, ctx: ClassifierContext) -> DepthDecision:
        s = self._settings
        if ctx.interaction_count == 0:
            return self._general(True, (), "")
        if a.word_count <= s.clarify_max_words:
            return DepthDecision("light", s.clarify_intent, (), s.conf_clarify, "no_match:short")
        typical = self._typical_deep(ctx)
        if typical and s.typical_general_crew:
            # What this farmer usually asks for is the best guess at what they need.
            reason = "no_match typical:" + ",".join(typical)
            return DepthDecision(
                "deep", s.general_intent, self._union_crew(typical), s.conf_general, reason
            )
        return self._general(False, (), "no_match")

    def _typical_deep(self, ctx: ClassifierContext) -> list[Intent]:
        """The farm's typical intents the rules route deep (unknown names skipped: a
        profile may outlive a renamed intent)."""
        known = [Intent(name) for name in ctx.typical_intents if name in self._intents]
        return [name for name in known if self._intents[name].mode == "deep"]

    def _general(self, first: bool, matched: tuple[Intent, ...], why: str) -> DepthDecision:
        s = self._settings
        if first:
            reason = f"first_contact:{why}" if why else "first_contact"
            crew = s.first_contact_crew
            return DepthDecision(
                "deep", s.general_intent, crew, s.conf_first_contact, reason, matched
            )
        return DepthDecision("deep", s.general_intent, (), s.conf_general, why, matched)

    def _union_crew(self, names: Iterable[Intent]) -> tuple[str, ...]:
        wanted = {member for n in names for member in self._intents[n].crew}
        return tuple(name for name in CREW_NAMES if name in wanted)

    def _confidence(self, a: Analysis, intent: Intent, ctx: ClassifierContext) -> float:
        s = self._settings
        raw = min(s.conf_cap, s.conf_base + s.conf_per_point * a.scores.get(intent, 0))
        raw -= s.conf_fuzzy_penalty * a.fuzzy_terms.get(intent, 0)
        if intent in ctx.typical_intents:
            raw += s.typical_confidence_bonus
        return round(max(0.0, min(1.0, raw)), 3)

    def _apply_overrides(
        self, d: DepthDecision, ctx: ClassifierContext, forced_prefix: bool
    ) -> DepthDecision:
        reasons: list[str] = []
        if d.confidence < self._settings.conf_force_deep_below:
            reasons.append("low_confidence")
        if forced_prefix:
            reasons.append("forced:--deep")
        if ctx.force_deep:
            reasons.append("forced:ctx")
        if ctx.recent_alert:
            reasons.append("forced:recent_alert")
        if ctx.pending_terms > 0 and d.intent not in self._settings.termless_intents:
            reasons.append(f"forced:pending_terms={ctx.pending_terms}")
        if not reasons:
            return d
        reason = " ".join([*reasons, d.reason])
        return DepthDecision(
            "deep", d.intent, d.crew_needed, d.confidence, reason, d.matched_intents
        )


def _labels(intents: Mapping[Intent, IntentSpec]) -> dict[str, IntentSpec]:
    """Each routing label's intent: the one reported under it (``label``: a
    ``decision`` the learned fallback or a farmer's choice names goes to the advisor,
    which answers from its cards or says it has none), else the intent of that name."""
    found: dict[str, IntentSpec] = dict(intents.items())
    for spec in intents.values():
        if spec.label is not None:
            found[spec.label] = spec
    return found
