"""The peer directory (``rules/peers.toml``): who the other agents are, what they
answer, and how a question is matched to one of them through the one grammar.

Loaded once through the Rulebook and checked as it loads (:meth:`PeerDirectory.load`):
ids, handles, languages, formats, time budgets and context facts must be valid, every
term must parse, and every example phrase must route to its own entry, so a data
edit that breaks routing stops start-up instead of sending questions astray.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from pipeline.grammar import Grammar, TermSet
from pipeline.rules import RULES_DIR
from pipeline.text import tokenize

__all__ = [
    "CONTEXT_FACTS",
    "DEFAULT_PEERS",
    "FORMATS",
    "Peer",
    "PeerDirectory",
    "PeerMatch",
    "Scoring",
]

DEFAULT_PEERS = RULES_DIR / "peers.toml"

Format = Literal["short", "medium", "detailed"]
Role = Literal["specialist", "coordinator"]
FORMATS: tuple[str, ...] = get_args(Format)
#: What a peer may be told about the asker's farm (each entry lists its share).
CONTEXT_FACTS = ("crops", "season_phase", "field_count")
#: The languages Stepan's catalogs speak: every entry describes itself in both.
CATALOG_LANGUAGES = ("uk", "en")
MAX_TIME_BUDGET_S = 120

_ID = re.compile(r"^[a-z][a-z0-9_-]{1,31}$")
# Telegram usernames: 5..32 characters, letters, digits, underscores; a bot's ends in "bot".
_HANDLE = re.compile(r"^@[A-Za-z][A-Za-z0-9_]{3,30}[Bb][Oo][Tt]$")
_LANGUAGE = re.compile(r"^[a-z]{2}$")


@dataclass(frozen=True, slots=True)
class Scoring:
    trigger_weight: int
    keyword_weight: int
    min_score: int


@dataclass(frozen=True, slots=True)
class Peer:
    id: str
    name: str
    role: Role
    domain: str
    intent: str
    #: "@handle", or "" where none is known.
    telegram: str
    languages: tuple[str, ...]
    format: Format
    time_budget_s: int
    context: tuple[str, ...]
    about: Mapping[str, str]
    examples: tuple[str, ...]
    terms: TermSet

    @property
    def username(self) -> str:
        return self.telegram.removeprefix("@")

    def score(self, tokens: Sequence[str], scoring: Scoring) -> tuple[int, int]:
        """(score, trigger hits) of this entry's terms in ``tokens``; each word counts once."""
        score = triggers = 0
        i = 0
        while i < len(tokens):
            hit = self.terms.match_at(tokens, i)
            if hit is None:
                i += 1
                continue
            label, length = hit
            if label == "trigger":
                score += scoring.trigger_weight
                triggers += 1
            else:
                score += scoring.keyword_weight
            i += length
        return score, triggers

    def card(self, *, invoke_subject: str) -> dict[str, Any]:
        """The directory entry as JSON, published on ``agent.{id}.card``."""
        return {
            "agent_id": self.id,
            "name": self.name,
            "role": self.role,
            "domain": self.domain,
            "intent": self.intent,
            "telegram": self.telegram or None,
            "languages": list(self.languages),
            "formats": list(FORMATS),
            "max_response_time": self.time_budget_s,
            "about": dict(self.about),
            "examples": list(self.examples),
            "invoke": invoke_subject,
        }


@dataclass(frozen=True, slots=True)
class PeerMatch:
    peer: Peer
    score: int
    #: What Stepan's own entry scored on the same words.
    own_score: int


@dataclass(frozen=True, slots=True)
class PeerDirectory:
    me: Peer
    peers: tuple[Peer, ...]
    scoring: Scoring
    invoke_subject_template: str
    card_subject_template: str
    deep_link_template: str
    summary_template: str
    summary_facts_template: str

    def get(self, agent_id: str) -> Peer | None:
        return next((peer for peer in self.peers if peer.id == agent_id), None)

    @property
    def coordinator(self) -> Peer | None:
        return next((peer for peer in self.peers if peer.role == "coordinator"), None)

    def invoke_subject(self, agent_id: str) -> str:
        return self.invoke_subject_template.format(agent_id=agent_id)

    def card_subject(self, agent_id: str) -> str:
        return self.card_subject_template.format(agent_id=agent_id)

    def deep_link(self, peer: Peer) -> str | None:
        return self.deep_link_template.format(username=peer.username) if peer.telegram else None

    def match(self, text: str) -> PeerMatch | None:
        """The peer whose words the text is about more than Stepan's, if any.

        The best peer must reach ``min_score`` and score more than Stepan's own entry;
        a tie stays with Stepan. Among peers the higher score wins, then more
        triggers, then the order of the file.
        """
        tokens = tokenize(text)
        if not tokens:
            return None
        own, _ = self.me.score(tokens, self.scoring)
        best: tuple[int, int, int] | None = None
        for index, peer in enumerate(self.peers):
            score, triggers = peer.score(tokens, self.scoring)
            if score < self.scoring.min_score or score <= own:
                continue
            key = (score, triggers, -index)
            if best is None or key > best:
                best = key
        if best is None:
            return None
        return PeerMatch(self.peers[-best[2]], best[0], own)

    # ------------------------------------------------------------------ loading

    @classmethod
    def load(cls, grammar: Grammar, path: Path = DEFAULT_PEERS) -> PeerDirectory:
        with path.open("rb") as fh:
            return cls.from_mapping(tomllib.load(fh), grammar)

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any], grammar: Grammar) -> PeerDirectory:
        """Build and check the directory; a ValueError names the entry at fault."""
        if raw.get("version") != 1:
            raise ValueError("peers.toml: version must be 1")
        settings = _table(raw, "settings", "peers.toml")
        scoring = Scoring(
            trigger_weight=_int(settings, "trigger_weight", "settings", 1, 10),
            keyword_weight=_int(settings, "keyword_weight", "settings", 1, 10),
            min_score=_int(settings, "min_score", "settings", 1, 100),
        )
        me = _peer("self", _table(raw, "self", "peers.toml"), grammar, own=True)
        peers_raw = _table(raw, "peers", "peers.toml")
        peers = tuple(
            _peer(name, _table(peers_raw, name, "peers"), grammar, own=False) for name in peers_raw
        )
        if not peers:
            raise ValueError("peers.toml: [peers] lists no peer")
        _unique((me, *peers))
        templates = {
            key: _template(settings, key, placeholder)
            for key, placeholder in (
                ("invoke_subject", "{agent_id}"),
                ("card_subject", "{agent_id}"),
                ("deep_link", "{username}"),
                ("summary", "{domain}"),
                ("summary_facts", "{facts}"),
            )
        }
        directory = cls(
            me=me,
            peers=peers,
            scoring=scoring,
            invoke_subject_template=templates["invoke_subject"],
            card_subject_template=templates["card_subject"],
            deep_link_template=templates["deep_link"],
            summary_template=templates["summary"],
            summary_facts_template=templates["summary_facts"],
        )
        directory.check_examples()
        return directory

    def check_examples(self) -> None:
        """Every example phrase routes to its own entry (Stepan's stay with Stepan)."""
        for peer in self.peers:
            for example in peer.examples:
                found = self.match(example)
                if found is None or found.peer.id != peer.id:
                    got = found.peer.id if found else "nobody (Stepan keeps it)"
                    raise ValueError(
                        f"peers.toml: example {example!r} of {peer.id} routes to {got}"
                    )
        for example in self.me.examples:
            found = self.match(example)
            if found is not None:
                raise ValueError(
                    f"peers.toml: Stepan's example {example!r} routes to {found.peer.id}"
                )


def _table(raw: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
    value = raw.get(key)
    if not isinstance(value, Mapping):
        raise ValueError(f"{where}: [{key}] is missing or not a table")
    return value


def _int(raw: Mapping[str, Any], key: str, where: str, low: int, high: int) -> int:
    value = raw.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ValueError(f"peers.toml: {where}.{key} must be a whole number {low}..{high}")
    return value


def _str(raw: Mapping[str, Any], key: str, where: str, *, empty: bool = False) -> str:
    value = raw.get(key)
    if not isinstance(value, str) or (not empty and not value.strip()):
        raise ValueError(f"peers.toml: {where}.{key} must be a non-empty string")
    return value.strip()


def _strings(
    raw: Mapping[str, Any], key: str, where: str, *, empty: bool = False
) -> tuple[str, ...]:
    value = raw.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError(f"peers.toml: {where}.{key} must be a list of non-empty strings")
    if not empty and not value:
        raise ValueError(f"peers.toml: {where}.{key} must not be empty")
    return tuple(v.strip() for v in value)


def _template(settings: Mapping[str, Any], key: str, placeholder: str) -> str:
    value = _str(settings, key, "settings")
    if placeholder not in value:
        raise ValueError(f"peers.toml: settings.{key} must contain {placeholder}")
    return value


def _peer(name: str, raw: Mapping[str, Any], grammar: Grammar, *, own: bool) -> Peer:
    where = "self" if own else f"peers.{name}"
    agent_id = _str(raw, "id", where) if own else name
    if not _ID.match(agent_id):
        raise ValueError(f"peers.toml: {where}: id {agent_id!r} must be a lowercase slug")
    telegram = _str(raw, "telegram", where, empty=True)
    if telegram and not _HANDLE.match(telegram):
        raise ValueError(f"peers.toml: {where}.telegram {telegram!r} is not a bot's @handle")
    if not telegram and not own:
        raise ValueError(f"peers.toml: {where}.telegram is required for a peer")
    languages = _strings(raw, "languages", where)
    if not all(_LANGUAGE.match(lang) for lang in languages):
        raise ValueError(f"peers.toml: {where}.languages must be two-letter codes")
    role = _str(raw, "role", where)
    if role not in get_args(Role):
        raise ValueError(f"peers.toml: {where}.role must be one of {get_args(Role)}")
    fmt = _str(raw, "format", where)
    if fmt not in FORMATS:
        raise ValueError(f"peers.toml: {where}.format must be one of {FORMATS}")
    context = _strings(raw, "context", where, empty=True)
    unknown = sorted(set(context) - set(CONTEXT_FACTS))
    if unknown:
        raise ValueError(f"peers.toml: {where}.context names unknown facts {unknown}")
    about = raw.get("about")
    if not isinstance(about, Mapping) or any(
        not isinstance(about.get(lang), str) or not about[lang] for lang in CATALOG_LANGUAGES
    ):
        raise ValueError(f"peers.toml: {where}.about needs uk and en")
    domain = _str(raw, "domain", where)
    if not _ID.match(domain):
        raise ValueError(f"peers.toml: {where}.domain must be a lowercase slug")
    return Peer(
        id=agent_id,
        name=_str(raw, "name", where),
        role=role,  # type: ignore[arg-type]  # checked against Role above
        domain=domain,
        intent=_str(raw, "intent", where),
        telegram=telegram,
        languages=languages,
        format=fmt,  # type: ignore[arg-type]  # checked against FORMATS above
        time_budget_s=_int(raw, "time_budget_s", where, 1, MAX_TIME_BUDGET_S),
        context=context,
        about={lang: str(about[lang]) for lang in CATALOG_LANGUAGES},
        examples=_strings(raw, "examples", where),
        terms=_terms(raw, where, grammar),
    )


def _terms(raw: Mapping[str, Any], where: str, grammar: Grammar) -> TermSet:
    triggers = _strings(raw, "triggers", where)
    keywords = _strings(raw, "keywords", where, empty=True)
    try:
        return TermSet(_labelled(triggers, keywords), grammar)
    except (ValueError, KeyError) as exc:
        raise ValueError(f"peers.toml: {where}: a term cannot be read: {exc}") from None


def _labelled(triggers: Iterable[str], keywords: Iterable[str]) -> list[tuple[str, str]]:
    return [*((t, "trigger") for t in triggers), *((k, "keyword") for k in keywords)]


def _unique(entries: Sequence[Peer]) -> None:
    for attr in ("id", "domain"):
        seen: set[str] = set()
        for entry in entries:
            value = getattr(entry, attr)
            if value in seen:
                raise ValueError(f"peers.toml: {attr} {value!r} is listed twice")
            seen.add(value)
