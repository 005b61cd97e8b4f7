"""The sanitiser's words (``pipeline/rules/privacy.toml``), loaded once and checked."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

from pipeline.grammar import Grammar, TermSet
from pipeline.privacy.patterns import Kind
from pipeline.rules import RULES_DIR
from pipeline.rules.schema import NonEmptyStrings, RulesModel, load, parse
from pipeline.text import tokenize

__all__ = ["CUE_LABELS", "DEFAULT_PRIVACY", "PrivacyRules"]

DEFAULT_PRIVACY = RULES_DIR / "privacy.toml"

#: The cue lists of [cues] matched by one TermSet, in this order (the first list
#: naming a word keeps it).
CUE_LABELS = (
    "private",
    "secret",
    "login",
    "id",
    "account",
    "card",
    "phone",
    "name",
    "honorific",
    "relation",
    "street",
    "unit",
    "postal",
    "given",
)


def _folded(words: tuple[str, ...]) -> frozenset[str]:
    return frozenset(" ".join(tokenize(word.removeprefix("="))) for word in words)


@dataclass(frozen=True, slots=True)
class PrivacyRules:
    cues: TermSet
    #: Words between a secret cue and its value ("пароль від пошти").
    objects: frozenset[str]
    #: Words that separate a cue from its value ("is", "це").
    separators: frozenset[str]
    street_after: frozenset[str]
    surname_endings: tuple[str, ...]
    surname_pair_endings: tuple[str, ...]
    #: Capitalised phrases that are never names ("John Deere", "Massey Ferguson").
    not_names: TermSet
    tags: Mapping[Kind, str]
    max_name_words: int
    max_value_chars: int

    @classmethod
    def load(cls, grammar: Grammar, path: Path = DEFAULT_PRIVACY) -> PrivacyRules:
        return load(path, _PrivacyFile).runtime(grammar)

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any], grammar: Grammar) -> PrivacyRules:
        return parse(raw, _PrivacyFile, source=DEFAULT_PRIVACY.name).runtime(grammar)


class _Cues(RulesModel):
    private: NonEmptyStrings
    secret: NonEmptyStrings
    login: NonEmptyStrings
    id: NonEmptyStrings
    account: NonEmptyStrings
    card: NonEmptyStrings
    phone: NonEmptyStrings
    name: NonEmptyStrings
    honorific: NonEmptyStrings
    relation: NonEmptyStrings
    street: NonEmptyStrings
    unit: NonEmptyStrings
    postal: NonEmptyStrings
    given: NonEmptyStrings
    secret_objects: NonEmptyStrings
    separators: NonEmptyStrings
    street_after: NonEmptyStrings
    surname_endings: NonEmptyStrings
    surname_pair_endings: NonEmptyStrings
    not_names: NonEmptyStrings


class _Tags(RulesModel):
    name: str
    phone: str
    email: str
    id: str
    secret: str
    iban: str
    card: str
    address: str
    private: str


class _Settings(RulesModel):
    max_name_words: int = 3
    max_value_chars: int = 64


class _PrivacyFile(RulesModel):
    version: int = 1
    settings: _Settings = _Settings()
    tags: _Tags
    cues: _Cues

    def runtime(self, grammar: Grammar) -> PrivacyRules:
        cues = self.cues
        groups = {label: getattr(cues, label) for label in CUE_LABELS}
        tags = self.tags.model_dump()
        return PrivacyRules(
            cues=TermSet.labelled(groups, grammar),
            objects=_folded(cues.secret_objects),
            separators=_folded(cues.separators),
            street_after=_folded(cues.street_after),
            surname_endings=tuple(e.lower() for e in cues.surname_endings),
            surname_pair_endings=tuple(e.lower() for e in cues.surname_pair_endings),
            not_names=TermSet.flat(cues.not_names, "keep", grammar),
            tags={kind: tags[kind] for kind in get_args(Kind)},
            max_name_words=self.settings.max_name_words,
            max_value_chars=self.settings.max_value_chars,
        )
