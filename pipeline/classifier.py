"""Rule-based depth classifier (seed section 3.1, routing rules in LABELS.md).

Every word lives in ``pipeline/rules/classifier.toml``; this module only knows
how to match them. Scoring follows the "context router" idea: a trigger adds 2,
a keyword adds 1, and an intent counts as matched from ``min_score`` (2) up.

Term syntax (in the TOML; all spellings are folded by :mod:`pipeline.text`):

``word``
    A whole word. Words longer than ``short_word_max_len`` also match any
    inflection with the same stem and, from ``fuzzy_min_len`` letters, one typo.
``=word``
    Exactly this word: no stemming, no typo tolerance.
``pref*``
    Any word starting with ``pref`` (one typo allowed in long prefixes).
``a b c``
    A phrase of consecutive words. A slot may list alternatives ``a|b``
    (``=a|b`` makes them all exact), ``#`` (a number), ``*`` (any word) or
    ``@lexicon``; ``~`` lets up to ``phrase_gap`` other words sit between two
    slots. The words a phrase matched are consumed: no other intent scores them
    again, so a plan/fact comparison is analysis and not planning.
``@lexicon``
    Every term of a ``[lexicon]`` list, counted once.

Routing (LABELS.md): any matched deep intent makes the message deep (the
primary one by ``deep_priority``, the crew is the union); otherwise the best
light intent; otherwise clarify (short), general (long) or, on first contact,
general with every crew. Low confidence, ``--deep``, ``ctx.force_deep``,
``ctx.recent_alert`` and ``ctx.pending_terms`` force deep and keep the intent.
"""

from __future__ import annotations

import logging
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.text import (
    NormalizedText,
    extract_emoji,
    is_number,
    normalize,
    prefix_within_one_edit,
    stem,
    tokenize,
    within_one_edit,
)
from pipeline.types import CREW_NAMES, ClassifierContext, DepthDecision, Mode

__all__ = ["DEFAULT_RULES", "Analysis", "Classifier", "IntentSpec", "Settings"]

logger = logging.getLogger(__name__)

#: Token lookups remembered per classifier; farm chat reuses a small vocabulary.
DEFAULT_TOKEN_CACHE = 8192

#: The packaged rules, found next to this module.
DEFAULT_RULES = Path(__file__).resolve().parent / "rules" / "classifier.toml"


# =========================================================================== config


@dataclass(frozen=True, slots=True)
class IntentSpec:
    """One intent's routing: its mode, the crew it needs and its match conditions."""

    name: str
    mode: Mode
    crew: tuple[str, ...]
    min_score: int
    requires_any: tuple[str, ...]
    #: Its crew only: other matched intents add none (a platform outage that
    #: mentions sensors needs the platform agent, not the IoT one).
    solo_crew: bool = False


@dataclass(frozen=True, slots=True)
class Settings:
    """The ``[settings]`` and ``[confidence]`` tables of the rules file."""

    trigger_weight: int
    keyword_weight: int
    min_score: int
    short_word_max_len: int
    fuzzy_min_len: int
    fuzzy_min_len_latin: int
    fuzzy_min_prefix_len: int
    fuzzy_min_stem_len: int
    phrase_gap: int
    clarify_max_words: int
    social_intents: frozenset[str]
    social_max_extra_words: int
    first_contact_max_extra_words: int
    first_contact_crew: tuple[str, ...]
    general_intent: str
    clarify_intent: str
    offtopic_intent: str
    greeting_intent: str
    domain_lexicon: str
    filler_lexicon: str
    offtopic_yields_to: frozenset[str]
    #: Tiers of deep intents: an earlier tier wins; inside a tier the higher score.
    deep_priority: tuple[tuple[str, ...], ...]
    light_priority: tuple[str, ...]
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


def _str_tuple(raw: Any, where: str) -> tuple[str, ...]:
    if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw):
        raise ValueError(f"{where}: expected a list of strings")
    return tuple(raw)


def _tiers(raw: Any) -> tuple[tuple[str, ...], ...]:
    if not isinstance(raw, list):
        raise ValueError("deep_priority: expected a list")
    return tuple(
        (entry,) if isinstance(entry, str) else _str_tuple(entry, "deep_priority") for entry in raw
    )


def _parse_settings(raw: Mapping[str, Any]) -> Settings:
    s = raw["settings"]
    c = raw["confidence"]
    return Settings(
        trigger_weight=int(s["trigger_weight"]),
        keyword_weight=int(s["keyword_weight"]),
        min_score=int(s["min_score"]),
        short_word_max_len=int(s["short_word_max_len"]),
        fuzzy_min_len=int(s["fuzzy_min_len"]),
        fuzzy_min_len_latin=int(s["fuzzy_min_len_latin"]),
        fuzzy_min_prefix_len=int(s["fuzzy_min_prefix_len"]),
        fuzzy_min_stem_len=int(s["fuzzy_min_stem_len"]),
        phrase_gap=int(s["phrase_gap"]),
        clarify_max_words=int(s["clarify_max_words"]),
        social_intents=frozenset(_str_tuple(s["social_intents"], "social_intents")),
        social_max_extra_words=int(s["social_max_extra_words"]),
        first_contact_max_extra_words=int(s["first_contact_max_extra_words"]),
        first_contact_crew=_str_tuple(s["first_contact_crew"], "first_contact_crew"),
        general_intent=str(s["general_intent"]),
        clarify_intent=str(s["clarify_intent"]),
        offtopic_intent=str(s["offtopic_intent"]),
        greeting_intent=str(s["greeting_intent"]),
        domain_lexicon=str(s["domain_lexicon"]),
        filler_lexicon=str(s["filler_lexicon"]),
        offtopic_yields_to=frozenset(_str_tuple(s["offtopic_yields_to"], "offtopic_yields_to")),
        deep_priority=_tiers(s["deep_priority"]),
        light_priority=_str_tuple(s["light_priority"], "light_priority"),
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
    )


def _parse_intents(raw: Mapping[str, Any], settings: Settings) -> dict[str, IntentSpec]:
    specs: dict[str, IntentSpec] = {}
    for name, table in raw["intents"].items():
        mode = table["mode"]
        if mode not in ("light", "deep"):
            raise ValueError(f"intent {name}: mode must be light or deep")
        crew = _str_tuple(table.get("crew", []), f"{name}.crew")
        unknown = set(crew) - set(CREW_NAMES)
        if unknown:
            raise ValueError(f"intent {name}: unknown crew {sorted(unknown)}")
        specs[name] = IntentSpec(
            name=name,
            mode=mode,
            crew=crew,
            min_score=int(table.get("min_score", settings.min_score)),
            requires_any=_str_tuple(table.get("requires_any", []), f"{name}.requires_any"),
            solo_crew=bool(table.get("solo_crew", False)),
        )
    return specs


def _validate(settings: Settings, intents: Mapping[str, IntentSpec], lexicons: set[str]) -> None:
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
    for lex in (settings.domain_lexicon, settings.filler_lexicon):
        if lex not in lexicons:
            raise ValueError(f"lexicon {lex!r} is not defined")


# =========================================================================== index


@dataclass(frozen=True, slots=True)
class _TermRef:
    """A hit scores ``weight`` for ``intent``; each ``term_id`` counts once.

    A phrase that ``consumes`` (a trigger) takes its words away from every other
    term; keyword phrases only add their point.
    """

    intent: str
    weight: int
    term_id: int
    consumes: bool = False


@dataclass(frozen=True, slots=True)
class _SlotRef:
    phrase: int
    slot: int


@dataclass(frozen=True, slots=True)
class _LexRef:
    name: str


@dataclass(frozen=True, slots=True)
class _BlockRef:
    intent: str


_Ref = _TermRef | _SlotRef | _LexRef | _BlockRef


@dataclass(frozen=True, slots=True)
class _Bundle:
    """Everything one word pattern means, split by kind once at load time."""

    terms: tuple[_TermRef, ...]
    slots: frozenset[tuple[int, int]]
    lexicons: frozenset[str]
    blocks: frozenset[str]


_EMPTY = _Bundle((), frozenset(), frozenset(), frozenset())


@dataclass(frozen=True, slots=True)
class _Hits:
    """Everything one token hit, merged; ``fuzzy`` when it needed typo tolerance."""

    terms: tuple[_TermRef, ...]
    slots: frozenset[tuple[int, int]]
    lexicons: frozenset[str]
    blocks: frozenset[str]
    #: Phrases whose first slot this token can fill.
    phrase_starts: tuple[int, ...]
    fuzzy: bool


def _hits(bundles: Sequence[_Bundle], fuzzy: bool) -> _Hits:
    slots: frozenset[tuple[int, int]] = frozenset().union(*(b.slots for b in bundles))
    return _Hits(
        terms=tuple(dict.fromkeys(t for b in bundles for t in b.terms)),
        slots=slots,
        lexicons=frozenset().union(*(b.lexicons for b in bundles)),
        blocks=frozenset().union(*(b.blocks for b in bundles)),
        phrase_starts=tuple(sorted(pid for pid, slot in slots if slot == 0)),
        fuzzy=fuzzy,
    )


_NO_HITS = _hits((), False)


def _bundle(refs: Iterable[_Ref]) -> _Bundle:
    refs = tuple(dict.fromkeys(refs))
    return _Bundle(
        terms=tuple(r for r in refs if isinstance(r, _TermRef)),
        slots=frozenset((r.phrase, r.slot) for r in refs if isinstance(r, _SlotRef)),
        lexicons=frozenset(r.name for r in refs if isinstance(r, _LexRef)),
        blocks=frozenset(r.intent for r in refs if isinstance(r, _BlockRef)),
    )


@dataclass(frozen=True, slots=True)
class _Slot:
    kind: str  # "word" | "num" | "any"
    gap_before: int


@dataclass(frozen=True, slots=True)
class _Phrase:
    slots: tuple[_Slot, ...]
    owner: _TermRef | _BlockRef


_FuzzyBucket = tuple[tuple[str, _Bundle], ...]


@dataclass(frozen=True, slots=True)
class _Index:
    """Word patterns -> bundles. Built once per rules file, read-only afterwards."""

    exact: Mapping[str, _Bundle]
    stems: Mapping[str, _Bundle]
    prefixes: Mapping[str, _Bundle]
    emoji: Mapping[str, _Bundle]
    prefix_lengths: tuple[int, ...]
    fuzzy_words: Mapping[tuple[str, int], _FuzzyBucket]
    fuzzy_prefixes: Mapping[tuple[str, int, str], _FuzzyBucket]
    fuzzy_prefix_lengths: tuple[int, ...]
    fuzzy_min_stem_len: int

    def lookup(self, token: str) -> list[_Bundle]:
        """Exact, same-stem and prefix hits of one folded token."""
        found: list[_Bundle] = []
        hit = self.exact.get(token)
        if hit is not None:
            found.append(hit)
        if len(token) > 3:
            hit = self.stems.get(stem(token))
            if hit is not None:
                found.append(hit)
        size = len(token)
        for n in self.prefix_lengths:
            if n > size:
                break
            hit = self.prefixes.get(token[:n])
            if hit is not None:
                found.append(hit)
        return found

    def lookup_fuzzy(self, token: str) -> list[_Bundle]:
        """Hits one typo away (whole words, their stems and long prefixes)."""
        found: dict[int, _Bundle] = {}
        first = token[0]
        token_stem = stem(token)
        variants = [token]
        if len(token_stem) >= self.fuzzy_min_stem_len and token_stem != token:
            variants.append(token_stem)
        for variant in variants:
            size = len(variant)
            for n in (size - 1, size, size + 1):
                for word, bundle in self.fuzzy_words.get((first, n), ()):
                    if within_one_edit(variant, word):
                        found[id(bundle)] = bundle
        for n in self.fuzzy_prefix_lengths:
            if n - 1 > len(token):
                break
            for m in (n - 1, n, n + 1):
                if m > len(token):
                    continue
                for prefix, bundle in self.fuzzy_prefixes.get((first, n, token[m - 1]), ()):
                    if prefix_within_one_edit(token, prefix):
                        found[id(bundle)] = bundle
        return list(found.values())


class _Builder:
    """Compiles the TOML term lists into an :class:`_Index` and phrases."""

    def __init__(self, settings: Settings, lexicons: Mapping[str, tuple[str, ...]]) -> None:
        self.settings = settings
        self.lexicons = lexicons
        self.phrases: list[_Phrase] = []
        self._exact: dict[str, list[_Ref]] = {}
        self._stems: dict[str, list[_Ref]] = {}
        self._prefixes: dict[str, list[_Ref]] = {}
        self._emoji: dict[str, list[_Ref]] = {}
        self._fuzzy_words: dict[tuple[str, int], dict[str, list[_Ref]]] = {}
        self._fuzzy_prefixes: dict[tuple[str, int, str], dict[str, list[_Ref]]] = {}
        self._next_id = 0

    def new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    # ---- single word patterns

    def add_word(self, spec: str, ref: _Ref) -> None:
        """Register one word pattern (no spaces, no alternatives)."""
        if spec.startswith("@"):
            for term in self.lexicons[spec[1:]]:
                self.add_word(term, ref)
        elif spec.startswith("="):
            self._exact.setdefault(self._one_token(spec[1:]), []).append(ref)
        elif spec.endswith("*") and len(spec) > 1:
            self._add_prefix(self._one_token(spec[:-1]), ref)
        elif not tokenize(spec) and extract_emoji(spec):
            for emo in extract_emoji(spec):
                self._emoji.setdefault(emo, []).append(ref)
        else:
            self._add_plain(self._one_token(spec), ref)

    @staticmethod
    def _one_token(spec: str) -> str:
        tokens = tokenize(spec)
        if len(tokens) != 1:
            raise ValueError(f"term {spec!r} must be exactly one word")
        return tokens[0]

    def _fuzzy_ok(self, word: str) -> bool:
        s = self.settings
        return len(word) >= (s.fuzzy_min_len_latin if word.isascii() else s.fuzzy_min_len)

    def _add_prefix(self, prefix: str, ref: _Ref) -> None:
        self._prefixes.setdefault(prefix, []).append(ref)
        if self._fuzzy_ok(prefix) and len(prefix) >= self.settings.fuzzy_min_prefix_len:
            key = (prefix[0], len(prefix), prefix[-1])
            self._fuzzy_prefixes.setdefault(key, {}).setdefault(prefix, []).append(ref)

    def _add_plain(self, word: str, ref: _Ref) -> None:
        self._exact.setdefault(word, []).append(ref)
        if len(word) <= self.settings.short_word_max_len:
            return
        word_stem = stem(word)
        self._stems.setdefault(word_stem, []).append(ref)
        variants = [word]
        if len(word_stem) >= self.settings.fuzzy_min_stem_len:
            variants.append(word_stem)
        for variant in dict.fromkeys(variants):
            if self._fuzzy_ok(variant):
                key = (variant[0], len(variant))
                self._fuzzy_words.setdefault(key, {}).setdefault(variant, []).append(ref)

    # ---- terms (single words or phrases)

    def add_term(self, spec: str, owner: _TermRef | _BlockRef) -> None:
        spec = spec.strip()
        if not spec:
            raise ValueError("empty term")
        if " " in spec or "|" in spec or self._splits(spec):
            self._add_phrase(spec, owner)
        else:
            self.add_word(spec, owner)

    @staticmethod
    def _splits(spec: str) -> bool:
        """``l/ha`` or ``plan-fact`` written as one term is really a phrase."""
        if spec in ("#", "~", "*") or spec.startswith("@") or spec.endswith("*"):
            return False
        return len(tokenize(spec.removeprefix("="))) > 1

    def _add_phrase(self, spec: str, owner: _TermRef | _BlockRef) -> None:
        phrase_id = len(self.phrases)
        slots: list[_Slot] = []
        gap = 0
        for part in self._phrase_parts(spec):
            if part == "~":
                gap = self.settings.phrase_gap
                continue
            kind = "num" if part == "#" else "any" if part == "*" else "word"
            if kind == "word":
                self._add_alternatives(part, _SlotRef(phrase_id, len(slots)))
            slots.append(_Slot(kind, gap))
            gap = 0
        if slots[0].kind != "word":
            raise ValueError(f"phrase {spec!r} must start with a word")
        self.phrases.append(_Phrase(tuple(slots), owner))

    def _add_alternatives(self, part: str, ref: _SlotRef) -> None:
        exact = part.startswith("=")
        for alt in part.removeprefix("=").split("|"):
            self.add_word("=" + alt if exact and alt[:1] not in "=@" else alt, ref)

    def _phrase_parts(self, spec: str) -> list[str]:
        parts: list[str] = []
        for chunk in spec.split():
            if "|" in chunk or not self._splits(chunk):
                parts.append(chunk)
            else:
                mark = "=" if chunk.startswith("=") else ""
                parts.extend(mark + tok for tok in tokenize(chunk.removeprefix("=")))
        return parts

    def finish(self) -> tuple[_Index, tuple[_Phrase, ...]]:
        def bundles(table: Mapping[str, list[_Ref]]) -> dict[str, _Bundle]:
            return {key: _bundle(refs) for key, refs in table.items()}

        index = _Index(
            exact=bundles(self._exact),
            stems=bundles(self._stems),
            prefixes=bundles(self._prefixes),
            emoji=bundles(self._emoji),
            prefix_lengths=tuple(sorted({len(p) for p in self._prefixes})),
            fuzzy_words={
                key: tuple((w, _bundle(refs)) for w, refs in words.items())
                for key, words in self._fuzzy_words.items()
            },
            fuzzy_prefixes={
                key: tuple((p, _bundle(refs)) for p, refs in prefixes.items())
                for key, prefixes in self._fuzzy_prefixes.items()
            },
            fuzzy_prefix_lengths=tuple(sorted({k[1] for k in self._fuzzy_prefixes})),
            fuzzy_min_stem_len=self.settings.fuzzy_min_stem_len,
        )
        return index, tuple(self.phrases)


# =========================================================================== analysis


@dataclass(frozen=True, slots=True)
class Analysis:
    """What the rules saw in one text, before any routing decision."""

    word_count: int
    scores: Mapping[str, int]
    #: How many trigger terms (not keywords) each intent matched.
    triggers: Mapping[str, int]
    fuzzy_terms: Mapping[str, int]
    #: Intents that reached their minimum score, best first.
    matched: tuple[str, ...]
    lexicons: frozenset[str]
    #: Words that neither a matched intent nor the filler list explain.
    extra_words: int


@dataclass(slots=True)
class _Tally:
    seen: set[int] = field(default_factory=set)
    scores: dict[str, int] = field(default_factory=dict)
    triggers: dict[str, int] = field(default_factory=dict)
    fuzzy: dict[str, int] = field(default_factory=dict)
    blocked: set[str] = field(default_factory=set)

    def add(self, ref: _TermRef, fuzzy: bool = False) -> None:
        if ref.term_id in self.seen:
            return
        self.seen.add(ref.term_id)
        self.scores[ref.intent] = self.scores.get(ref.intent, 0) + ref.weight
        if ref.consumes:
            self.triggers[ref.intent] = self.triggers.get(ref.intent, 0) + 1
        if fuzzy:
            self.fuzzy[ref.intent] = self.fuzzy.get(ref.intent, 0) + 1


def _best_per_intent(terms: Sequence[_TermRef]) -> Iterable[_TermRef]:
    """One word scores at most once per intent: its strongest term."""
    if len(terms) < 2:
        return terms
    best: dict[str, _TermRef] = {}
    for ref in terms:
        kept = best.get(ref.intent)
        if kept is None or ref.weight > kept.weight:
            best[ref.intent] = ref
    return best.values()


def _match_phrase_at(
    phrase: _Phrase,
    pid: int,
    start: int,
    tokens: Sequence[str],
    hits: Sequence[_Hits],
    free: Sequence[bool],
) -> list[int] | None:
    """Token positions of the phrase's slots when its first slot is at ``start``."""
    if not free[start]:
        return None
    positions = [start]
    last = len(tokens) - 1
    for i in range(1, len(phrase.slots)):
        slot = phrase.slots[i]
        pos = positions[-1] + 1
        key = (pid, i)
        for j in range(pos, min(pos + slot.gap_before, last) + 1):
            if not free[j]:
                continue
            if slot.kind == "word":
                ok = key in hits[j].slots
            else:
                ok = slot.kind == "any" or is_number(tokens[j])
            if ok:
                positions.append(j)
                break
        else:
            return None
    return positions


# =========================================================================== classifier


class Classifier:
    """Decides light/deep, the intent and the crew (before the gate) for one message."""

    def __init__(
        self,
        settings: Settings,
        intents: Mapping[str, IntentSpec],
        index: _Index,
        phrases: Sequence[_Phrase],
        *,
        token_cache_size: int = DEFAULT_TOKEN_CACHE,
    ) -> None:
        self._settings = settings
        self._intents = dict(intents)
        self._index = index
        self._phrases = tuple(phrases)
        # Longer phrases claim their words first; ties keep the rules file's order.
        order = sorted(range(len(phrases)), key=lambda p: -len(phrases[p].slots))
        self._phrase_rank = {pid: rank for rank, pid in enumerate(order)}
        # Light intents: their position; deep intents: their tier. ``_order`` breaks
        # the remaining ties deterministically.
        self._rank = {name: rank for rank, name in enumerate(settings.light_priority)}
        self._order = dict(self._rank)
        position = 0
        for tier_rank, tier in enumerate(settings.deep_priority):
            for name in tier:
                self._rank[name] = tier_rank
                self._order[name] = position
                position += 1
        # Token -> hits. The rules never change after loading, so entries never go
        # stale; the dict is emptied when it reaches its bound.
        self._token_cache: dict[str, _Hits] = {}
        self._token_cache_size = token_cache_size

    # ------------------------------------------------------------------ loading

    @classmethod
    def from_file(
        cls, path: Path | None = None, *, token_cache_size: int = DEFAULT_TOKEN_CACHE
    ) -> Classifier:
        """Load rules from ``path`` (default: the packaged ``rules/classifier.toml``)."""
        with (path or DEFAULT_RULES).open("rb") as fh:
            raw = tomllib.load(fh)
        return cls.from_mapping(raw, token_cache_size=token_cache_size)

    @classmethod
    def from_mapping(
        cls, raw: Mapping[str, Any], *, token_cache_size: int = DEFAULT_TOKEN_CACHE
    ) -> Classifier:
        """Build from an already parsed rules document (raises ValueError if invalid)."""
        settings = _parse_settings(raw)
        intents = _parse_intents(raw, settings)
        lexicons = {
            name: _str_tuple(terms, f"lexicon.{name}")
            for name, terms in raw.get("lexicon", {}).items()
        }
        _validate(settings, intents, set(lexicons))
        builder = _Builder(settings, lexicons)
        for name, terms in lexicons.items():
            for term in terms:
                builder.add_word(term, _LexRef(name))
        for name, table in raw["intents"].items():
            cls._register_intent(builder, name, table, settings)
        index, phrases = builder.finish()
        return cls(settings, intents, index, phrases, token_cache_size=token_cache_size)

    @staticmethod
    def _register_intent(
        builder: _Builder, name: str, table: Mapping[str, Any], settings: Settings
    ) -> None:
        kinds = (
            ("triggers", settings.trigger_weight, True),
            ("keywords", settings.keyword_weight, False),
        )
        for key, weight, consumes in kinds:
            for term in _str_tuple(table.get(key, []), f"{name}.{key}"):
                builder.add_term(term, _TermRef(name, weight, builder.new_id(), consumes))
        for term in _str_tuple(table.get("blockers", []), f"{name}.blockers"):
            builder.add_term(term, _BlockRef(name))

    @property
    def intents(self) -> Mapping[str, IntentSpec]:
        return self._intents

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
        return self._analyse(normalize(self._strip_force_prefix(text)[0]))

    # ------------------------------------------------------------------ pipeline

    def _classify(self, text: str, ctx: ClassifierContext) -> DepthDecision:
        body, forced_prefix = self._strip_force_prefix(text)
        analysis = self._analyse(normalize(body))
        decision = self._decide(analysis, ctx)
        return self._apply_overrides(decision, ctx, forced_prefix)

    def _strip_force_prefix(self, text: str) -> tuple[str, bool]:
        stripped = text.lstrip()
        lowered = stripped[:16].lower()
        for prefix in self._settings.force_deep_prefixes:
            if lowered.startswith(prefix) and not stripped[len(prefix) : len(prefix) + 1].isalnum():
                return stripped[len(prefix) :], True
        return text, False

    # ---- matching

    def _analyse(self, norm: NormalizedText) -> Analysis:
        tokens = norm.tokens
        hits = [self._token_hits(token) for token in tokens]
        tally = _Tally()
        free = [True] * len(tokens)
        # Which intents account for each word (for the "more than a pleasantry" test).
        explained: list[set[str]] = [set() for _ in tokens]
        self._match_phrases(tokens, hits, free, tally, explained)
        lexicons: set[str] = set()
        for i, token_hits in enumerate(hits):
            if token_hits.lexicons:
                lexicons |= token_hits.lexicons
            if token_hits.blocks:
                tally.blocked |= token_hits.blocks
            if free[i] and token_hits.terms:
                for ref in _best_per_intent(token_hits.terms):
                    tally.add(ref, token_hits.fuzzy)
                    explained[i].add(ref.intent)
        for emo in norm.emoji:
            for ref in self._index.emoji.get(emo, _EMPTY).terms:
                tally.add(ref)
        frozen_lex = frozenset(lexicons)
        matched = self._matched_intents(tally, frozen_lex)
        return Analysis(
            word_count=norm.word_count,
            scores=tally.scores,
            triggers=tally.triggers,
            fuzzy_terms=tally.fuzzy,
            matched=matched,
            lexicons=frozen_lex,
            extra_words=self._unexplained(hits, explained, set(matched)),
        )

    def _token_hits(self, token: str) -> _Hits:
        cached = self._token_cache.get(token)
        if cached is not None:
            return cached
        hits = self._lookup(token)
        if self._token_cache_size > 0:
            if len(self._token_cache) >= self._token_cache_size:
                self._token_cache.clear()
            self._token_cache[token] = hits
        return hits

    def _lookup(self, token: str) -> _Hits:
        found = self._index.lookup(token)
        if found:
            return _hits(found, False)
        s = self._settings
        min_len = s.fuzzy_min_len_latin if token.isascii() else s.fuzzy_min_len
        if len(token) < min_len or not token.isalpha():
            return _NO_HITS
        fuzzy = self._index.lookup_fuzzy(token)
        return _hits(fuzzy, True) if fuzzy else _NO_HITS

    def _match_phrases(
        self,
        tokens: Sequence[str],
        hits: Sequence[_Hits],
        free: list[bool],
        tally: _Tally,
        explained: Sequence[set[str]],
    ) -> None:
        starts: dict[int, list[int]] = {}
        for pos, token_hits in enumerate(hits):
            for pid in token_hits.phrase_starts:
                starts.setdefault(pid, []).append(pos)
        if not starts:
            return
        for pid in sorted(starts, key=self._phrase_rank.__getitem__):
            phrase = self._phrases[pid]
            for start in starts[pid]:
                positions = _match_phrase_at(phrase, pid, start, tokens, hits, free)
                if positions is None:
                    continue
                owner = phrase.owner
                if isinstance(owner, _BlockRef):
                    tally.blocked.add(owner.intent)
                    break
                tally.add(owner)
                for pos in positions:
                    free[pos] = free[pos] and not owner.consumes
                    explained[pos].add(owner.intent)

    def _unexplained(
        self, hits: Sequence[_Hits], explained: Sequence[set[str]], matched: set[str]
    ) -> int:
        filler = self._settings.filler_lexicon
        return sum(
            1
            for token_hits, intents in zip(hits, explained, strict=True)
            if not (intents & matched) and filler not in token_hits.lexicons
        )

    def _matched_intents(self, tally: _Tally, lexicons: frozenset[str]) -> tuple[str, ...]:
        base = {
            name
            for name, score in tally.scores.items()
            if score >= self._intents[name].min_score and name not in tally.blocked
        }
        kept = [name for name in base if self._requirements_met(name, base, lexicons)]
        return tuple(
            sorted(
                kept,
                key=lambda n: (-tally.scores[n], -tally.triggers.get(n, 0), self._order[n]),
            )
        )

    def _requirements_met(self, name: str, base: set[str], lexicons: frozenset[str]) -> bool:
        reqs = self._intents[name].requires_any
        return not reqs or any(
            (req[1:] in lexicons) if req.startswith("@") else (req in base) for req in reqs
        )

    # ---- routing

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
            return self._deep_decision(a, deep)
        if light:
            return self._light_decision(a, light[0], ctx)
        return self._no_match_decision(a, ctx)

    def _offtopic_wins(self, a: Analysis, deep: Sequence[str]) -> bool:
        s = self._settings
        return s.domain_lexicon not in a.lexicons and not s.offtopic_yields_to.intersection(deep)

    def _offtopic(self, a: Analysis) -> DepthDecision:
        name = self._settings.offtopic_intent
        rest = tuple(n for n in a.matched if n != name)
        return DepthDecision(
            "light", name, (), self._settings.conf_offtopic, f"rule:{name}", (name, *rest)
        )

    def _deep_decision(self, a: Analysis, deep: Sequence[str]) -> DepthDecision:
        # ``deep`` is sorted by score, so min() keeps the best score inside a tier.
        primary = min(deep, key=self._rank.__getitem__)
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
            primary,
            self._union_crew([primary, *helpers]),
            self._confidence(a, primary),
            f"rule:{primary} score={a.scores[primary]}",
            (primary, *others),
        )

    def _light_decision(self, a: Analysis, primary: str, ctx: ClassifierContext) -> DepthDecision:
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
            self._confidence(a, primary),
            f"rule:{primary} score={a.scores[primary]}",
            matched,
        )

    def _no_match_decision(self, a: Analysis, ctx: ClassifierContext) -> DepthDecision:
        s = self._settings
        if ctx.interaction_count == 0:
            return self._general(True, (), "")
        if a.word_count <= s.clarify_max_words:
            return DepthDecision("light", s.clarify_intent, (), s.conf_clarify, "no_match:short")
        return self._general(False, (), "no_match")

    def _general(self, first: bool, matched: tuple[str, ...], why: str) -> DepthDecision:
        s = self._settings
        if first:
            reason = f"first_contact:{why}" if why else "first_contact"
            crew = s.first_contact_crew
            return DepthDecision(
                "deep", s.general_intent, crew, s.conf_first_contact, reason, matched
            )
        return DepthDecision("deep", s.general_intent, (), s.conf_general, why, matched)

    def _union_crew(self, names: Iterable[str]) -> tuple[str, ...]:
        wanted = {member for n in names for member in self._intents[n].crew}
        return tuple(name for name in CREW_NAMES if name in wanted)

    def _confidence(self, a: Analysis, intent: str) -> float:
        s = self._settings
        raw = min(s.conf_cap, s.conf_base + s.conf_per_point * a.scores.get(intent, 0))
        raw -= s.conf_fuzzy_penalty * a.fuzzy_terms.get(intent, 0)
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
        if ctx.pending_terms > 0:
            reasons.append(f"forced:pending_terms={ctx.pending_terms}")
        if not reasons:
            return d
        reason = " ".join([*reasons, d.reason])
        return DepthDecision(
            "deep", d.intent, d.crew_needed, d.confidence, reason, d.matched_intents
        )
