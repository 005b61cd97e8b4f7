"""How two names of a farm's things compare, and what is never part of a name.

Both are folded and tokenised (:mod:`pipeline.text`), prepositions and generic nouns
("поле", "field", "ділянка") are dropped, numbers are kept as numbers (an ordinal
word counts as its number next to a field noun), and the remaining words are
compared stem by stem (:func:`stems_match`). The vocabulary (stopwords, generic
nouns, ordinals) is ``[names]`` in ``pipeline/rules/operations.toml``, in the term
syntax of :mod:`pipeline.grammar`. :mod:`pipeline.farm.dictionary` uses this.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pipeline.farm.words.operations_file import OPERATIONS_RULES, OperationsFile
from pipeline.grammar import Grammar, TermSet
from pipeline.grammar.morphology import Morphology
from pipeline.text import is_number, stem, within_one_edit

Kind = Literal["field", "crop", "operation", "product"]
KINDS: tuple[Kind, ...] = ("field", "crop", "operation", "product")

#: Stems that differ by trailing letters the stemmer left ("озим"/"озимо") match from
#: this length, one more letter for each extra one ("картоф"/"картофел"), up to a max.
_NAME_TRAILING_MIN = 4
_NAME_TRAILING_MAX = 2
#: Final consonants that alternate before -і in Ukrainian: Гірка → на Гірці.
_ALTERNATIONS = frozenset({("к", "ц"), ("г", "з"), ("х", "с")})
_VOWELS = frozenset("аеиіоуяю")
_RUSSIAN_I, _UKRAINIAN_I = "и", "і"
#: Case endings of Ukrainian and Russian nouns and adjectives, folded (є→е, ї→і, no ь).
_NOUN_ENDINGS = frozenset(
    {
        "ами", "ями", "ого", "его", "ому", "ему", "ими", "іми", "ах", "ях", "ам", "ям",
        "ов", "ев", "ей", "ий", "ій", "ой", "ая", "яя", "ое", "ее", "ие", "их", "іх", "ою",
        "ею", "ом", "ем", "им", "ім", "ую", "юю", "ів", "а", "я", "о", "е", "и", "і", "у", "ю",
        "й",
    }
)  # fmt: skip
_NOUN_ENDING_MAX = 3
#: A name keeps at least this many letters of stem.
_NAME_STEM_MIN = 3


# =========================================================================== names


def field_name(phrase: str, nominative_endings: Sequence[tuple[str, str]]) -> str:
    """A field the farm's profile does not have yet, as its name reads: capitalised,
    and a single adjective in the nominative («північному» -> «Північне», the longest
    matching ending of ``nominative_endings`` replaced). The one rule for the consent
    card, the operators' /pending list, the journal and the reports."""
    words = phrase.split()
    if len(words) == 1:
        lowered = phrase.casefold()
        for old, new in sorted(nominative_endings, key=lambda pair: -len(pair[0])):
            if lowered.endswith(old) and len(lowered) > len(old) + 2:
                phrase = phrase[: -len(old)] + new
                break
    return phrase[:1].upper() + phrase[1:]


@dataclass(frozen=True, slots=True)
class NameRules:
    """What is never part of a name, and how numbered names are spelled."""

    stopwords: TermSet
    generic: Mapping[str, TermSet]
    ordinal_suffixes: TermSet
    ordinals: TermSet
    max_name_words: int = 4
    #: A name's stem tolerates one typo from this many letters, whatever its script
    #: (the grammar's ``fuzzy_min_len``: names are compared stem to stem).
    fuzzy_min_len: int = 5
    #: ``[fields] nominative_endings``: how an adjective field name is called.
    nominative_endings: tuple[tuple[str, str], ...] = ()
    #: The grammar's dictionaries: a one-word name matches every form of its lexeme
    #: ("Паї" -> "на Паях", "Ярок" -> "на Ярку"), beyond what the stems catch.
    morphology: Morphology | None = field(default=None, compare=False)

    @classmethod
    def load(cls, grammar: Grammar, path: Path = OPERATIONS_RULES) -> NameRules:
        return cls.from_rules(OperationsFile.load(path), grammar)

    @classmethod
    def from_rules(cls, raw: OperationsFile, grammar: Grammar) -> NameRules:
        names = raw.names
        ordinals = {str(number): words for number, words in enumerate(names.ordinals, start=1)}
        return cls(
            stopwords=TermSet.flat(names.stopwords, "stop", grammar),
            generic={
                kind: TermSet.flat(getattr(names.generic, kind), kind, grammar) for kind in KINDS
            },
            ordinal_suffixes=TermSet.flat(names.ordinal_suffixes, "suffix", grammar),
            ordinals=TermSet.labelled(ordinals, grammar),
            max_name_words=raw.settings.max_name_words,
            fuzzy_min_len=grammar.fuzzy_min_len,
            nominative_endings=raw.fields.nominative_endings,
            morphology=grammar.morphology,
        )

    def forms(self, word: str) -> frozenset[str]:
        """Every folded dictionary form of a name's word (none for an unknown word)."""
        return self.morphology.forms(word) if self.morphology is not None else frozenset()

    def field_name(self, phrase: str) -> str:
        """A field Stepan does not know yet, as it is called (:func:`field_name`)."""
        return field_name(phrase, self.nominative_endings)

    def is_generic(self, kind: str, token: str) -> bool:
        terms = self.generic.get(kind)
        return terms is not None and token in terms

    def is_stopword(self, token: str) -> bool:
        return token in self.stopwords

    def core(self, kind: str, words: Sequence[str]) -> tuple[str, ...]:
        """The words of a name that identify it: numbers and stems, no filler."""
        has_noun = any(self.is_generic(kind, word) for word in words)
        out: list[str] = []
        after_number = False
        for word in words:
            if is_number(word):
                out.append(_canonical_number(word))
                after_number = True
                continue
            if after_number and word in self.ordinal_suffixes:
                continue
            after_number = False
            if self.is_stopword(word) or self.is_generic(kind, word):
                continue
            ordinal = self.ordinals.label(word) if kind == "field" and has_noun else None
            out.append(ordinal if ordinal is not None else name_stem(word))
        return tuple(out)


def _canonical_number(token: str) -> str:
    """``03`` and ``3`` name the same field; decimals stay as written (dot form)."""
    text = token.replace(",", ".")
    if text.isdigit():
        return str(int(text))
    return text


def _noun_stem(token: str) -> str:
    """Names are nouns and adjectives: only their case endings go ("Бурти", "на
    Буртах" and "з Бурт" are one name; a verb's "-ти" is no ending here)."""
    for size in range(min(_NOUN_ENDING_MAX, len(token) - _NAME_STEM_MIN), 0, -1):
        if token[-size:] in _NOUN_ENDINGS:
            return token[:-size]
    return token


def name_stem(token: str) -> str:
    """A stem for name matching; 3-letter words lose a final vowel (соя/сою/сої)."""
    if is_number(token):
        return _canonical_number(token)
    result = stem(token) if token.isascii() else _noun_stem(token)
    if result == token and len(token) == 3 and token[-1] in _VOWELS:
        return token[:-1]
    return result


def stems_match(said: str, known: str, fuzzy_min_len: int) -> bool:
    """Two name stems that are the same word, inflected or with one typo."""
    if said == known:
        return True
    # A Ukrainian name spelled the Russian way: "на Гирке" is "на Гірці" (і written и).
    if _RUSSIAN_I in said and said.replace(_RUSSIAN_I, _UKRAINIAN_I) == known:
        return True
    if said.isdigit() or known.isdigit() or is_number(said) or is_number(known):
        return False
    if len(said) == len(known):
        if len(said) >= 3 and _alternated(said, known):
            return True
    elif _extended(said, known):
        return True
    return len(known) >= fuzzy_min_len and within_one_edit(said, known)


def _alternated(said: str, known: str) -> bool:
    """Stems of one length that differ only in an alternating last letter."""
    return said[:-1] == known[:-1] and (
        (known[-1], said[-1]) in _ALTERNATIONS or (said[-1], known[-1]) in _ALTERNATIONS
    )


def _extended(said: str, known: str) -> bool:
    """One stem is the other with a few letters more at the end."""
    extra = abs(len(said) - len(known))
    shorter = min(len(said), len(known))
    if shorter >= _NAME_TRAILING_MIN + extra - 1 and extra <= _NAME_TRAILING_MAX:
        longer, short = (said, known) if len(said) > len(known) else (known, said)
        return longer.startswith(short)
    return False


def cores_match(said: tuple[str, ...], known: tuple[str, ...], fuzzy_min_len: int) -> bool:
    return len(said) == len(known) and all(
        stems_match(a, b, fuzzy_min_len) for a, b in zip(said, known, strict=True)
    )
