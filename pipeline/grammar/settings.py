"""The thresholds of the term syntax, read from ``pipeline/rules/grammar.toml``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.grammar.morphology import Morphology
from pipeline.language.dictionaries import DictionaryLanguage
from pipeline.rules import RULES_DIR
from pipeline.rules.schema import RulesModel, load, parse

__all__ = ["DEFAULT_GRAMMAR", "Grammar"]

#: The thresholds every rules file shares.
DEFAULT_GRAMMAR = RULES_DIR / "grammar.toml"


class _GrammarTable(RulesModel):
    stem_min_len: int
    fuzzy_min_len: int
    fuzzy_min_len_latin: int
    fuzzy_min_prefix_len: int
    fuzzy_min_stem_len: int
    phrase_gap: int
    #: The dictionaries whose word forms a plain term matches (grammar/morphology.py).
    morphology: tuple[DictionaryLanguage, ...] = ()


class _GrammarFile(RulesModel):
    version: int = 1
    grammar: _GrammarTable


@dataclass(frozen=True, slots=True)
class Grammar:
    """The thresholds of the term syntax (documented in :mod:`pipeline.grammar`)."""

    stem_min_len: int = 4
    fuzzy_min_len: int = 5
    fuzzy_min_len_latin: int = 7
    fuzzy_min_prefix_len: int = 6
    fuzzy_min_stem_len: int = 6
    phrase_gap: int = 2
    #: Dictionary forms of plain terms; None: stems and typos only.
    morphology: Morphology | None = field(default=None, compare=False)

    @classmethod
    def load(cls, path: Path = DEFAULT_GRAMMAR) -> Grammar:
        return cls._from_file(load(path, _GrammarFile))

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any]) -> Grammar:
        return cls._from_file(parse(raw, _GrammarFile, source=DEFAULT_GRAMMAR.name))

    @classmethod
    def _from_file(cls, file: _GrammarFile) -> Grammar:
        table = file.grammar.model_dump()
        languages = table.pop("morphology")
        return cls(**table, morphology=Morphology(languages) if languages else None)

    def fuzzy_len(self, word: str) -> int:
        """How long a word must be to tolerate a typo."""
        return self.fuzzy_min_len_latin if word.isascii() else self.fuzzy_min_len
