"""The classifier's rules file (``pipeline/rules/classifier.toml``), read and checked.

Everything is validated here, once, when the rules load: a mode, a crew member, a
priority list or a requirement that names something unknown is a ``ValueError`` at
start-up; so is an intent the :class:`~pipeline.intents.Intent` enum does not know,
or an enum member the rules do not define.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field, field_validator

from pipeline.intents import RULE_INTENTS, Intent
from pipeline.rules import RULES_DIR
from pipeline.rules.schema import RulesError, RulesModel, load, parse
from pipeline.types import CREW_NAMES, Mode

__all__ = ["DEFAULT_RULES", "ClassifierRules", "IntentSpec", "IntentTerms", "Settings"]

#: The packaged rules.
DEFAULT_RULES = RULES_DIR / "classifier.toml"


@dataclass(frozen=True, slots=True)
class IntentSpec:
    """One intent's routing: its mode, the crew it needs and its match conditions."""

    name: Intent
    mode: Mode
    crew: tuple[str, ...]
    min_score: int
    requires_any: tuple[str, ...]
    #: Its crew only: other matched intents add none (a platform outage that
    #: mentions sensors needs the platform agent, not the IoT one).
    solo_crew: bool = False
    #: Another reader scores the intent too (``"knowledge"``: the agronomy question
    #: reader), given to the classifier by name; its score adds to the terms'.
    probe: str | None = None
    #: Added to a probe's half score (a topic without its subject: "and the depth?")
    #: when the context supplies the subject (the previous message was this intent,
    #: or the farm grows crops) and no deep intent but ``context_yields`` matched.
    context_bonus: int = 0
    context_yields: tuple[Intent, ...] = ()
    #: The routing label (LABELS.md) a primary match of this intent is reported
    #: under; ``matched_intents`` still names the intent itself first. An agronomy
    #: question ("how deep to sow sunflower") is a ``decision`` the knowledge base
    #: answers: the pipeline hands it to the advisor (``pipeline.agronomy.wants_advice``).
    label: Intent | None = None
    #: Intents this one outranks when it is sure (a probe's full score, or its half
    #: made whole right after another such question) and no word of the
    #: ``outranks_unless`` lexicon is in the message: "at what moisture to harvest
    #: soybeans" is about the crop, not a sensor; "what do the moisture sensors show"
    #: is not.
    outranks: tuple[Intent, ...] = ()
    outranks_unless: str | None = None
    #: The probe's score is dropped when one of these intents matched on a trigger:
    #: "statistics of the irrigations" asks for the farm's data, not agronomy.
    yields_to: tuple[Intent, ...] = ()


@dataclass(frozen=True, slots=True)
class IntentTerms:
    """One intent's words in the term syntax of :mod:`pipeline.grammar`."""

    triggers: tuple[str, ...]
    keywords: tuple[str, ...]
    blockers: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Settings:
    """The ``[settings]`` and ``[confidence]`` tables of the rules file."""

    trigger_weight: int
    keyword_weight: int
    min_score: int
    clarify_max_words: int
    social_intents: frozenset[Intent]
    #: Intents that carry no farm term: the farm's pending terms do not force them deep.
    termless_intents: frozenset[Intent]
    social_max_extra_words: int
    first_contact_max_extra_words: int
    first_contact_crew: tuple[str, ...]
    general_intent: Intent
    clarify_intent: Intent
    offtopic_intent: Intent
    greeting_intent: Intent
    domain_lexicon: str
    filler_lexicon: str
    offtopic_yields_to: frozenset[Intent]
    #: Tiers of deep intents: an earlier tier wins; inside a tier the higher score.
    deep_priority: tuple[tuple[Intent, ...], ...]
    light_priority: tuple[Intent, ...]
    force_deep_prefixes: tuple[str, ...]
    conf_base: float
    conf_per_point: float
    conf_cap: float
    conf_fuzzy_penalty: float
    conf_force_deep_below: float
    conf_clarify: float
    conf_general: float
    conf_first_contact: float
    conf_offtopic: float
    #: ``[steering]``: what the farm's typical intents change (optional table).
    typical_confidence_bonus: float = 0.0
    typical_general_crew: bool = False
    #: ``[model]``: when the learned fallback (pipeline/classifier/model.py) decides.
    #: Nothing matched: its best intent at this probability or more.
    model_fallback_p: float = 1.01
    #: A weak match (no trigger, the minimum score): another intent at this or more.
    model_override_p: float = 1.01
    #: A bare trigger (the minimum score): another intent at this or more, while the
    #: model gives the rule's own intent no more than ``model_trigger_rule_p``.
    model_trigger_override_p: float = 1.01
    model_trigger_rule_p: float = 0.0
    #: ... in a message of at least this many words (a shorter one is its trigger).
    model_trigger_min_words: int = 3
    #: Nothing understood: readings from this probability are offered, if two are.
    model_readings_p: float = 1.01
    #: The intents a reading may be (a question "about the weather?" makes sense).
    model_readings: frozenset[Intent] = frozenset()


def _unknown_intent(name: str) -> str:
    return f"unknown intent {name!r} (pipeline.intents.Intent has no such member)"


def _as_intent(name: Any) -> Any:
    if not isinstance(name, str):
        return name
    try:
        return Intent(name)
    except ValueError:
        raise ValueError(_unknown_intent(name)) from None


#: An intent named in the rules: the Intent enum must know it.
IntentName = Annotated[Intent, BeforeValidator(_as_intent)]
Intents = tuple[IntentName, ...]


def _known_crew(crew: tuple[str, ...]) -> tuple[str, ...]:
    unknown = set(crew) - set(CREW_NAMES)
    if unknown:
        raise ValueError(f"unknown crew {sorted(unknown)}")
    return crew


class _SettingsTable(RulesModel):
    trigger_weight: int
    keyword_weight: int
    min_score: int
    clarify_max_words: int
    social_intents: Intents
    termless_intents: Intents
    social_max_extra_words: int
    first_contact_max_extra_words: int
    first_contact_crew: tuple[str, ...]
    general_intent: IntentName
    clarify_intent: IntentName
    offtopic_intent: IntentName
    greeting_intent: IntentName
    domain_lexicon: str
    filler_lexicon: str
    offtopic_yields_to: Intents
    deep_priority: tuple[IntentName | Intents, ...]
    light_priority: Intents
    force_deep_prefixes: tuple[str, ...]

    @field_validator("first_contact_crew")
    @classmethod
    def _first_contact_crew(cls, crew: tuple[str, ...]) -> tuple[str, ...]:
        if set(crew) - set(CREW_NAMES):
            raise ValueError("first_contact_crew names an unknown crew member")
        return crew


class _ConfidenceTable(RulesModel):
    base: float
    per_point: float
    cap: float
    fuzzy_penalty: float
    force_deep_below: float
    clarify: float
    general: float
    first_contact: float
    offtopic: float


class _SteeringTable(RulesModel):
    typical_confidence_bonus: float = Field(default=0.0, ge=0.0, le=1.0)
    typical_general_crew: bool = False


class _ModelTable(RulesModel):
    fallback_probability: float = Field(default=0.5, gt=0.0, le=1.0)
    override_probability: float = Field(default=0.85, gt=0.0, le=1.0)
    trigger_override_probability: float = Field(default=1.0, gt=0.0, le=1.0)
    trigger_rule_probability: float = Field(default=0.0, ge=0.0, le=1.0)
    trigger_min_words: int = Field(default=3, ge=1)
    readings_probability: float = Field(default=0.15, gt=0.0, le=1.0)
    readings: Intents = ()


class _IntentTable(RulesModel):
    mode: Mode
    crew: Annotated[tuple[str, ...], AfterValidator(_known_crew)] = ()
    min_score: int | None = None
    requires_any: tuple[str, ...] = ()
    solo_crew: bool = False
    probe: str | None = None
    context_bonus: int = 0
    context_yields: Intents = ()
    label: IntentName | None = None
    outranks: Intents = ()
    outranks_unless: str | None = None
    yields_to: Intents = ()
    triggers: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    blockers: tuple[str, ...] = ()

    def spec(self, name: Intent, settings: Settings) -> IntentSpec:
        return IntentSpec(
            name=name,
            mode=self.mode,
            crew=self.crew,
            min_score=settings.min_score if self.min_score is None else self.min_score,
            requires_any=self.requires_any,
            solo_crew=self.solo_crew,
            probe=self.probe,
            context_bonus=self.context_bonus,
            context_yields=self.context_yields,
            label=self.label,
            outranks=self.outranks,
            outranks_unless=self.outranks_unless,
            yields_to=self.yields_to,
        )

    def terms(self) -> IntentTerms:
        return IntentTerms(self.triggers, self.keywords, self.blockers)


class _ClassifierFile(RulesModel):
    version: int = 1
    settings: _SettingsTable
    confidence: _ConfidenceTable
    steering: _SteeringTable = _SteeringTable()
    model: _ModelTable = _ModelTable()
    intents: dict[IntentName, _IntentTable]
    lexicon: dict[str, tuple[str, ...]] = Field(default_factory=dict)

    def runtime_settings(self) -> Settings:
        s, c = self.settings, self.confidence
        return Settings(
            trigger_weight=s.trigger_weight,
            keyword_weight=s.keyword_weight,
            min_score=s.min_score,
            clarify_max_words=s.clarify_max_words,
            social_intents=frozenset(s.social_intents),
            termless_intents=frozenset(s.termless_intents),
            social_max_extra_words=s.social_max_extra_words,
            first_contact_max_extra_words=s.first_contact_max_extra_words,
            first_contact_crew=s.first_contact_crew,
            general_intent=s.general_intent,
            clarify_intent=s.clarify_intent,
            offtopic_intent=s.offtopic_intent,
            greeting_intent=s.greeting_intent,
            domain_lexicon=s.domain_lexicon,
            filler_lexicon=s.filler_lexicon,
            offtopic_yields_to=frozenset(s.offtopic_yields_to),
            deep_priority=tuple(
                (tier,) if isinstance(tier, Intent) else tier for tier in s.deep_priority
            ),
            light_priority=s.light_priority,
            force_deep_prefixes=tuple(prefix.lower() for prefix in s.force_deep_prefixes),
            conf_base=c.base,
            conf_per_point=c.per_point,
            conf_cap=c.cap,
            conf_fuzzy_penalty=c.fuzzy_penalty,
            conf_force_deep_below=c.force_deep_below,
            conf_clarify=c.clarify,
            conf_general=c.general,
            conf_first_contact=c.first_contact,
            conf_offtopic=c.offtopic,
            typical_confidence_bonus=self.steering.typical_confidence_bonus,
            typical_general_crew=self.steering.typical_general_crew,
            model_fallback_p=self.model.fallback_probability,
            model_override_p=self.model.override_probability,
            model_trigger_override_p=self.model.trigger_override_probability,
            model_trigger_rule_p=self.model.trigger_rule_probability,
            model_trigger_min_words=self.model.trigger_min_words,
            model_readings_p=self.model.readings_probability,
            model_readings=frozenset(self.model.readings),
        )


def _problem(where: str, what: str) -> RulesError:
    return RulesError(DEFAULT_RULES.name, where, what)


def _validate(settings: Settings, intents: Mapping[Intent, IntentSpec], lexicons: set[str]) -> None:
    """What the models cannot check alone: the intents, lexicons and lists agree."""
    missing_rules = RULE_INTENTS - set(intents)
    if missing_rules:
        raise _problem(
            "intents",
            f"intents missing from the rules (pipeline.intents.Intent has them): "
            f"{sorted(missing_rules)}",
        )
    named = {
        settings.general_intent,
        settings.clarify_intent,
        settings.offtopic_intent,
        settings.greeting_intent,
        *settings.social_intents,
        *settings.offtopic_yields_to,
        *(name for tier in settings.deep_priority for name in tier),
        *settings.light_priority,
    }
    missing = named - set(intents)
    if missing:
        raise _problem("settings", f"settings name unknown intents: {sorted(missing)}")
    for spec in intents.values():
        _check_intent(spec, settings, intents, lexicons)
    for lex in (settings.domain_lexicon, settings.filler_lexicon):
        if lex not in lexicons:
            raise _problem("settings", f"lexicon {lex!r} is not defined")


def _check_intent(
    spec: IntentSpec, settings: Settings, intents: Mapping[Intent, IntentSpec], lexicons: set[str]
) -> None:
    where = f"intents.{spec.name}"
    deep_names = {name for tier in settings.deep_priority for name in tier}
    order = deep_names if spec.mode == "deep" else set(settings.light_priority)
    if spec.name not in order:
        raise _problem(where, f"intent {spec.name} is missing from the {spec.mode} priority list")
    for req in spec.requires_any:
        known = req[1:] in lexicons if req.startswith("@") else req in intents
        if not known:
            raise _problem(where, f"intent {spec.name}: unknown requirement {req!r}")
    if spec.outranks_unless is not None and spec.outranks_unless not in lexicons:
        raise _problem(where, f"intent {spec.name}: unknown lexicon {spec.outranks_unless!r}")
    target = intents.get(spec.label) if spec.label is not None else spec
    if target is None or target.mode != spec.mode:
        raise _problem(where, f"intent {spec.name}: label {spec.label!r} is no {spec.mode} intent")


@dataclass(frozen=True, slots=True)
class ClassifierRules:
    """The whole rules file, validated: settings, intents, their terms, the lexicons."""

    settings: Settings
    intents: Mapping[Intent, IntentSpec]
    terms: Mapping[Intent, IntentTerms]
    lexicons: Mapping[str, tuple[str, ...]]

    @classmethod
    def load(cls, path: Path = DEFAULT_RULES) -> ClassifierRules:
        return cls._from_file(load(path, _ClassifierFile))

    def with_terms(self, added: Iterable[tuple[Intent, str, str]]) -> ClassifierRules:
        """These rules plus ``(intent, "trigger" | "keyword", term)`` additions: the
        routing-rules overlay an operator approved (docs/learning.md)."""
        terms = dict(self.terms)
        for intent, kind, term in added:
            if intent not in terms:
                raise ValueError(f"overlay: unknown intent {intent!r}")
            table = terms[intent]
            if kind == "trigger":
                terms[intent] = replace(table, triggers=(*table.triggers, term))
            elif kind == "keyword":
                terms[intent] = replace(table, keywords=(*table.keywords, term))
            else:
                raise ValueError(f"overlay: unknown term kind {kind!r}")
        return replace(self, terms=terms)

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any]) -> ClassifierRules:
        """Build from an already parsed rules document (raises ValueError if invalid)."""
        return cls._from_file(parse(raw, _ClassifierFile, source=DEFAULT_RULES.name))

    @classmethod
    def _from_file(cls, file: _ClassifierFile) -> ClassifierRules:
        settings = file.runtime_settings()
        intents = {name: table.spec(name, settings) for name, table in file.intents.items()}
        terms = {name: table.terms() for name, table in file.intents.items()}
        lexicons = dict(file.lexicon)
        _validate(settings, intents, set(lexicons))
        return cls(settings, intents, terms, lexicons)
