"""The sanitiser's words (``pipeline/rules/privacy.toml``), loaded once and checked."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

from pipeline.grammar import Grammar, TermSet
from pipeline.privacy.patterns import Kind
from pipeline.rules import RULES_DIR
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


def _strings(raw: Mapping[str, Any], key: str) -> tuple[str, ...]:
    value = raw.get(key)
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise ValueError(f"privacy.toml: [cues] {key} must be a non-empty list of strings")
    return tuple(value)


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
        with path.open("rb") as fh:
            return cls.from_mapping(tomllib.load(fh), grammar)

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any], grammar: Grammar) -> PrivacyRules:
        cues = raw.get("cues")
        if not isinstance(cues, Mapping):
            raise ValueError("privacy.toml: [cues] is missing")
        tags_raw = raw.get("tags", {})
        kinds = get_args(Kind)
        missing = [kind for kind in kinds if not isinstance(tags_raw.get(kind), str)]
        if missing:
            raise ValueError(f"privacy.toml: [tags] lacks {missing}")
        settings = raw.get("settings", {})
        groups = {label: _strings(cues, label) for label in CUE_LABELS}
        return cls(
            cues=TermSet.labelled(groups, grammar),
            objects=_folded(_strings(cues, "secret_objects")),
            separators=_folded(_strings(cues, "separators")),
            street_after=_folded(_strings(cues, "street_after")),
            surname_endings=tuple(e.lower() for e in _strings(cues, "surname_endings")),
            surname_pair_endings=tuple(e.lower() for e in _strings(cues, "surname_pair_endings")),
            not_names=TermSet.flat(_strings(cues, "not_names"), "keep", grammar),
            tags={kind: str(tags_raw[kind]) for kind in kinds},
            max_name_words=int(settings.get("max_name_words", 3)),
            max_value_chars=int(settings.get("max_value_chars", 64)),
        )
