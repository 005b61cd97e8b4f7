"""The classifier's rules file (``pipeline/rules/classifier.toml``), read and checked.

Everything is validated here, once, when the rules load: a mode, a crew member, a
priority list or a requirement that names something unknown is a ``ValueError`` at
start-up; so is an intent the :class:`~pipeline.intents.Intent` enum does not know,
or an enum member the rules do not define.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pipeline.intents import RULE_INTENTS, Intent
from pipeline.rules import RULES_DIR
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


def _str_tuple(raw: Any, where: str) -> tuple[str, ...]:
    if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw):
        raise ValueError(f"{where}: expected a list of strings")
    return tuple(raw)


def intent_of(name: str, where: str) -> Intent:
    try:
        return Intent(name)
    except ValueError:
        raise ValueError(
            f"{where}: unknown intent {name!r} (pipeline.intents.Intent has no such member)"
        ) from None


def _intents(raw: Any, where: str) -> tuple[Intent, ...]:
    return tuple(intent_of(name, where) for name in _str_tuple(raw, where))


def _tiers(raw: Any) -> tuple[tuple[Intent, ...], ...]:
    if not isinstance(raw, list):
        raise ValueError("deep_priority: expected a list")
    return tuple(
        (intent_of(entry, "deep_priority"),)
        if isinstance(entry, str)
        else _intents(entry, "deep_priority")
        for entry in raw
    )


def _parse_settings(raw: Mapping[str, Any]) -> Settings:
    s = raw["settings"]
    c = raw["confidence"]
    steering = raw.get("steering", {})
    bonus = float(steering.get("typical_confidence_bonus", 0.0))
    if not 0.0 <= bonus <= 1.0:
        raise ValueError("steering.typical_confidence_bonus: expected 0..1")
    return Settings(
        trigger_weight=int(s["trigger_weight"]),
        keyword_weight=int(s["keyword_weight"]),
        min_score=int(s["min_score"]),
        clarify_max_words=int(s["clarify_max_words"]),
        social_intents=frozenset(_intents(s["social_intents"], "social_intents")),
        termless_intents=frozenset(_intents(s["termless_intents"], "termless_intents")),
        social_max_extra_words=int(s["social_max_extra_words"]),
        first_contact_max_extra_words=int(s["first_contact_max_extra_words"]),
        first_contact_crew=_str_tuple(s["first_contact_crew"], "first_contact_crew"),
        general_intent=intent_of(str(s["general_intent"]), "general_intent"),
        clarify_intent=intent_of(str(s["clarify_intent"]), "clarify_intent"),
        offtopic_intent=intent_of(str(s["offtopic_intent"]), "offtopic_intent"),
        greeting_intent=intent_of(str(s["greeting_intent"]), "greeting_intent"),
        domain_lexicon=str(s["domain_lexicon"]),
        filler_lexicon=str(s["filler_lexicon"]),
        offtopic_yields_to=frozenset(_intents(s["offtopic_yields_to"], "offtopic_yields_to")),
        deep_priority=_tiers(s["deep_priority"]),
        light_priority=_intents(s["light_priority"], "light_priority"),
        force_deep_prefixes=tuple(
            p.lower() for p in _str_tuple(s["force_deep_prefixes"], "force_deep_prefixes")
        ),
        conf_base=float(c["base"]),
        conf_per_point=float(c["per_point"]),
        conf_cap=float(c["cap"]),
        conf_fuzzy_penalty=float(c["fuzzy_penalty"]),
        conf_force_deep_below=float(c["force_deep_below"]),
        conf_clarify=float(c["clarify"]),
        conf_general=float(c["general"]),
        conf_first_contact=float(c["first_contact"]),
        conf_offtopic=float(c["offtopic"]),
        typical_confidence_bonus=bonus,
        typical_general_crew=bool(steering.get("typical_general_crew", False)),
    )


def _parse_intent(name: Intent, table: Mapping[str, Any], settings: Settings) -> IntentSpec:
    mode = table["mode"]
    if mode not in ("light", "deep"):
        raise ValueError(f"intent {name}: mode must be light or deep")
    crew = _str_tuple(table.get("crew", []), f"{name}.crew")
    unknown = set(crew) - set(CREW_NAMES)
    if unknown:
        raise ValueError(f"intent {name}: unknown crew {sorted(unknown)}")
    return IntentSpec(
        name=name,
        mode=mode,
        crew=crew,
        min_score=int(table.get("min_score", settings.min_score)),
        requires_any=_str_tuple(table.get("requires_any", []), f"{name}.requires_any"),
        solo_crew=bool(table.get("solo_crew", False)),
        probe=str(table["probe"]) if "probe" in table else None,
        context_bonus=int(table.get("context_bonus", 0)),
        context_yields=_intents(table.get("context_yields", []), f"{name}.context_yields"),
        label=_intents([table["label"]], f"{name}.label")[0] if "label" in table else None,
        outranks=_intents(table.get("outranks", []), f"{name}.outranks"),
        outranks_unless=str(table["outranks_unless"]) if "outranks_unless" in table else None,
        yields_to=_intents(table.get("yields_to", []), f"{name}.yields_to"),
    )


def _terms(name: Intent, table: Mapping[str, Any]) -> IntentTerms:
    def words(key: str) -> tuple[str, ...]:
        return _str_tuple(table.get(key, []), f"{name}.{key}")

    return IntentTerms(words("triggers"), words("keywords"), words("blockers"))


def _validate(settings: Settings, intents: Mapping[Intent, IntentSpec], lexicons: set[str]) -> None:
    missing_rules = RULE_INTENTS - set(intents)
    if missing_rules:
        raise ValueError(
            f"intents missing from the rules (pipeline.intents.Intent has them): "
            f"{sorted(missing_rules)}"
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
        raise ValueError(f"settings name unknown intents: {sorted(missing)}")
    if set(settings.first_contact_crew) - set(CREW_NAMES):
        raise ValueError("first_contact_crew names an unknown crew member")
    deep_names = {name for tier in settings.deep_priority for name in tier}
    for spec in intents.values():
        order = deep_names if spec.mode == "deep" else set(settings.light_priority)
        if spec.name not in order:
            raise ValueError(f"intent {spec.name} is missing from the {spec.mode} priority list")
        for req in spec.requires_any:
            known = req[1:] in lexicons if req.startswith("@") else req in intents
            if not known:
                raise ValueError(f"intent {spec.name}: unknown requirement {req!r}")
        if spec.outranks_unless is not None and spec.outranks_unless not in lexicons:
            raise ValueError(f"intent {spec.name}: unknown lexicon {spec.outranks_unless!r}")
        target = intents.get(spec.label) if spec.label is not None else spec
        if target is None or target.mode != spec.mode:
            raise ValueError(f"intent {spec.name}: label {spec.label!r} is no {spec.mode} intent")
    for lex in (settings.domain_lexicon, settings.filler_lexicon):
        if lex not in lexicons:
            raise ValueError(f"lexicon {lex!r} is not defined")


@dataclass(frozen=True, slots=True)
class ClassifierRules:
    """The whole rules file, validated: settings, intents, their terms, the lexicons."""

    settings: Settings
    intents: Mapping[Intent, IntentSpec]
    terms: Mapping[Intent, IntentTerms]
    lexicons: Mapping[str, tuple[str, ...]]

    @classmethod
    def load(cls, path: Path = DEFAULT_RULES) -> ClassifierRules:
        with path.open("rb") as fh:
            return cls.from_mapping(tomllib.load(fh))

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
        settings = _parse_settings(raw)
        intents: dict[Intent, IntentSpec] = {}
        terms: dict[Intent, IntentTerms] = {}
        for name, table in raw["intents"].items():
            intent = intent_of(name, "[intents]")
            intents[intent] = _parse_intent(intent, table, settings)
            terms[intent] = _terms(intent, table)
        lexicons = {
            name: _str_tuple(words, f"lexicon.{name}")
            for name, words in raw.get("lexicon", {}).items()
        }
        _validate(settings, intents, set(lexicons))
        return cls(settings, intents, terms, lexicons)
