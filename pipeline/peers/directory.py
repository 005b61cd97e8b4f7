"""The peer directory (``rules/peers.toml``): who the other agents are, what they
answer, and how a question is matched to one of them through the one grammar.

Loaded once through the Rulebook and checked as it loads (:meth:`PeerDirectory.load`):
ids, handles, languages, formats, time budgets and context facts must be valid, every
term must parse, and every example phrase must route to its own entry, so a data
edit that breaks routing stops start-up instead of sending questions astray.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

from pydantic import AfterValidator, Field, StringConstraints, field_validator

from pipeline.grammar import Grammar, TermSet
from pipeline.rules import RULES_DIR
from pipeline.rules.schema import RulesError, RulesModel, load, parse
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
        return load(path, _PeersFile).runtime(grammar)

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any], grammar: Grammar) -> PeerDirectory:
        """Build and check the directory; a ValueError names the entry at fault."""
        return parse(raw, _PeersFile, source=DEFAULT_PEERS.name).runtime(grammar)

    def check_examples(self) -> None:
        """Every example phrase routes to its own entry (Stepan's stay with Stepan)."""
        for peer in self.peers:
            for example in peer.examples:
                found = self.match(example)
                if found is None or found.peer.id != peer.id:
                    got = found.peer.id if found else "nobody (Stepan keeps it)"
                    raise _problem(
                        f"peers.{peer.id}.examples", f"example {example!r} routes to {got}"
                    )
        for example in self.me.examples:
            found = self.match(example)
            if found is not None:
                raise _problem(
                    "self.examples", f"Stepan's example {example!r} routes to {found.peer.id}"
                )


def _problem(where: str, what: str) -> RulesError:
    return RulesError(DEFAULT_PEERS.name, where, what)


def _slug(value: str) -> str:
    if not _ID.match(value):
        raise ValueError(f"{value!r} must be a lowercase slug")
    return value


def _handle(value: str) -> str:
    if value and not _HANDLE.match(value):
        raise ValueError(f"telegram {value!r} is not a bot's @handle")
    return value


def _languages(value: tuple[str, ...]) -> tuple[str, ...]:
    if not all(_LANGUAGE.match(lang) for lang in value):
        raise ValueError("languages must be two-letter codes")
    return value


def _facts(value: tuple[str, ...]) -> tuple[str, ...]:
    unknown = sorted(set(value) - set(CONTEXT_FACTS))
    if unknown:
        raise ValueError(f"context names unknown facts {unknown}")
    return value


def _about(value: dict[str, str]) -> dict[str, str]:
    if any(not value.get(lang) for lang in CATALOG_LANGUAGES):
        raise ValueError("about needs uk and en")
    return {lang: value[lang] for lang in CATALOG_LANGUAGES}


def _placeholder(name: str) -> AfterValidator:
    def check(value: str) -> str:
        if name not in value:
            raise ValueError(f"must contain {name}")
        return value

    return AfterValidator(check)


#: A string with something in it (surrounding blanks dropped).
_Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
_Names = tuple[_Name, ...]
_Weight = Annotated[int, Field(strict=True, ge=1, le=10)]


class _EntryTable(RulesModel):
    name: _Name
    role: Role
    domain: Annotated[_Name, AfterValidator(_slug)]
    intent: _Name
    telegram: Annotated[str, StringConstraints(strip_whitespace=True), AfterValidator(_handle)]
    languages: Annotated[_Names, Field(min_length=1), AfterValidator(_languages)]
    format: Format
    time_budget_s: Annotated[int, Field(strict=True, ge=1, le=MAX_TIME_BUDGET_S)]
    context: Annotated[_Names, AfterValidator(_facts)] = ()
    about: Annotated[dict[str, str], AfterValidator(_about)]
    examples: Annotated[_Names, Field(min_length=1)]
    triggers: Annotated[_Names, Field(min_length=1)]
    keywords: _Names = ()

    def runtime(self, agent_id: str, where: str, grammar: Grammar) -> Peer:
        return Peer(
            id=agent_id,
            name=self.name,
            role=self.role,
            domain=self.domain,
            intent=self.intent,
            telegram=self.telegram,
            languages=self.languages,
            format=self.format,
            time_budget_s=self.time_budget_s,
            context=self.context,
            about=self.about,
            examples=self.examples,
            terms=self._terms(where, grammar),
        )

    def _terms(self, where: str, grammar: Grammar) -> TermSet:
        try:
            return TermSet(_labelled(self.triggers, self.keywords), grammar)
        except (ValueError, KeyError) as exc:
            raise _problem(where, f"a term cannot be read: {exc}") from None


class _SelfTable(_EntryTable):
    id: Annotated[_Name, AfterValidator(_slug)]


class _PeerTable(_EntryTable):
    @field_validator("telegram")
    @classmethod
    def _required(cls, value: str) -> str:
        if not value:
            raise ValueError("telegram is required for a peer")
        return value


class _SettingsTable(RulesModel):
    trigger_weight: _Weight
    keyword_weight: _Weight
    min_score: Annotated[int, Field(strict=True, ge=1, le=100)]
    invoke_subject: Annotated[_Name, _placeholder("{agent_id}")]
    card_subject: Annotated[_Name, _placeholder("{agent_id}")]
    deep_link: Annotated[_Name, _placeholder("{username}")]
    summary: Annotated[_Name, _placeholder("{domain}")]
    summary_facts: Annotated[_Name, _placeholder("{facts}")]


class _PeersFile(RulesModel):
    version: Literal[1]
    settings: _SettingsTable
    own: _SelfTable = Field(alias="self")
    peers: Annotated[dict[Annotated[str, AfterValidator(_slug)], _PeerTable], Field(min_length=1)]

    def runtime(self, grammar: Grammar) -> PeerDirectory:
        me = self.own.runtime(self.own.id, "self", grammar)
        peers = tuple(
            table.runtime(name, f"peers.{name}", grammar) for name, table in self.peers.items()
        )
        _unique((me, *peers))
        s = self.settings
        directory = PeerDirectory(
            me=me,
            peers=peers,
            scoring=Scoring(s.trigger_weight, s.keyword_weight, s.min_score),
            invoke_subject_template=s.invoke_subject,
            card_subject_template=s.card_subject,
            deep_link_template=s.deep_link,
            summary_template=s.summary,
            summary_facts_template=s.summary_facts,
        )
        directory.check_examples()
        return directory


def _labelled(triggers: Iterable[str], keywords: Iterable[str]) -> list[tuple[str, str]]:
    return [*((t, "trigger") for t in triggers), *((k, "keyword") for k in keywords)]


def _unique(entries: Sequence[Peer]) -> None:
    for attr in ("id", "domain"):
        seen: set[str] = set()
        for entry in entries:
            value = getattr(entry, attr)
            if value in seen:
                raise _problem("peers", f"{attr} {value!r} is listed twice")
            seen.add(value)
