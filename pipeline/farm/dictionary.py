"""Known names of one farm (fields, crops, operations, products), matched leniently.

A farmer writes "на Північному", "північне поле", "Північного", "пвнічному" or
"поле №3", "3-є поле", "field 3"; :meth:`Dictionary.resolve` maps each to the entry
the farm defined, and to nothing when the name is not known: an id is never
invented. Names are not translated either: "на Северном" matches only when a
synonym says so.

How two names compare: both are folded and tokenised (:mod:`pipeline.text`),
prepositions and generic nouns ("поле", "field", "ділянка") are dropped, numbers
are kept as numbers (an ordinal word counts as its number next to a field noun),
and the remaining words are compared stem by stem. Two stems match when equal,
when they differ only by a Ukrainian consonant alternation at the end ("Гірка" /
"на Гірці"), by a letter or two the stemmer left at the end, or by one typo from
the grammar's ``fuzzy_min_len`` letters (:mod:`pipeline.grammar`); the comparison
itself is :mod:`pipeline.farm.words.name_match`.

The vocabulary for this (stopwords, generic nouns, ordinals) lives in
``pipeline/rules/operations.toml`` under ``[names]``, in the term syntax of
:mod:`pipeline.grammar`; the shared crops in ``pipeline/rules/crops.toml``.
:class:`Vocabulary` holds both, loaded once (``bot/wiring/factory.py``), and builds each
farm's :class:`Dictionary`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.farm.words.name_match import (
    KINDS,
    Kind,
    NameRules,
    cores_match,
    name_stem,
)
from pipeline.farm.words.operations_file import (
    CROPS_RULES,
    OPERATIONS_RULES,
    CropsFile,
    OperationsFile,
)
from pipeline.grammar import Grammar
from pipeline.rules.schema import load
from pipeline.text import tokenize

__all__ = [
    "CROPS_RULES",
    "KINDS",
    "OPERATIONS_RULES",
    "Dictionary",
    "DictionaryEntry",
    "Kind",
    "NameRules",
    "OperationsFile",
    "Vocabulary",
    "load_shared_crops",
]

# =========================================================================== dictionary


@dataclass(frozen=True, slots=True)
class DictionaryEntry:
    """A canonical name: ``field:pivnichne`` shown as "Північне", with synonyms."""

    kind: Kind
    canonical_id: str
    display: str
    synonyms: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return (self.display, *self.synonyms)


@dataclass(frozen=True, slots=True)
class _Key:
    core: tuple[str, ...]
    entry: DictionaryEntry
    #: 0 for the farm's own entries, 1 for shared ones: the farm's name wins.
    rank: int


@dataclass(slots=True)
class _KindIndex:
    exact: dict[tuple[str, ...], list[_Key]] = field(default_factory=dict)
    keys: list[_Key] = field(default_factory=list)
    max_words: int = 1


class Dictionary:
    """An in-memory, read-only set of known names for one farm.

    ``shared`` entries (the common crop list) rank below the farm's own: when both
    could match, the farm's entry wins; an entry of the farm with a shared id takes
    the shared synonyms too, so "wheat" still finds a farm's "Пшениця".
    """

    def __init__(
        self,
        entries: Iterable[DictionaryEntry],
        *,
        shared: Iterable[DictionaryEntry] = (),
        rules: NameRules,
    ) -> None:
        self._rules = rules
        merged = self._merge(tuple(entries), tuple(shared))
        self._entries = tuple(entry for entry, _ in merged)
        self._by_id = {entry.canonical_id: entry for entry in self._entries}
        self._index: dict[str, _KindIndex] = {kind: _KindIndex() for kind in KINDS}
        for entry, rank in merged:
            self._add(entry, rank)

    @property
    def rules(self) -> NameRules:
        return self._rules

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[DictionaryEntry]:
        return iter(self._entries)

    def entries(self, kind: Kind | None = None) -> tuple[DictionaryEntry, ...]:
        return tuple(e for e in self._entries if kind is None or e.kind == kind)

    def has(self, kind: Kind) -> bool:
        """Whether any entry of this kind exists."""
        return bool(self._index[kind].keys)

    def own_kind_of(self, entry: DictionaryEntry) -> DictionaryEntry | None:
        """The farm's one entry of which ``entry`` is the general name: a farm that
        grows only "Озима пшениця" means it by "пшениця"."""
        if any(key.entry.canonical_id == entry.canonical_id and key.rank == 0
               for key in self._index[entry.kind].keys):  # fmt: skip
            return None
        cores = {key.core for key in self._index[entry.kind].keys if key.entry == entry}
        found = {
            key.entry.canonical_id: key.entry
            for key in self._index[entry.kind].keys
            if key.rank == 0 and any(_within(core, key.core) for core in cores)
        }
        return next(iter(found.values())) if len(found) == 1 else None

    def get(self, canonical_id: str) -> DictionaryEntry | None:
        return self._by_id.get(canonical_id)

    def max_words(self, kind: Kind) -> int:
        """The longest name of this kind, in tokens, plus room for a generic noun."""
        return min(self._index[kind].max_words + 1, self._rules.max_name_words + 1)

    def resolve(self, kind: Kind, phrase: str) -> DictionaryEntry | None:
        """The entry ``phrase`` names, or None (also when two entries fit equally)."""
        return self.match_words(kind, tokenize(phrase))

    def match_words(
        self, kind: Kind, words: Sequence[str], *, fuzzy: bool = True
    ) -> DictionaryEntry | None:
        """Like :meth:`resolve` for tokens already folded by :func:`pipeline.text.tokenize`.

        ``fuzzy=False`` accepts only the same stems (inflections), no typo.
        """
        core = self._rules.core(kind, words)
        if not core:
            return None
        index = self._index[kind]
        exact = index.exact.get(core)
        if exact or not fuzzy:
            return _best(exact or ())
        typo = self._rules.fuzzy_min_len
        return _best([key for key in index.keys if cores_match(core, key.core, typo)])

    # ------------------------------------------------------------------ building

    @staticmethod
    def _merge(
        own: tuple[DictionaryEntry, ...], shared: tuple[DictionaryEntry, ...]
    ) -> list[tuple[DictionaryEntry, int]]:
        by_id: dict[tuple[str, str], tuple[DictionaryEntry, int]] = {}
        for rank, group in ((0, own), (1, shared)):
            for entry in group:
                key = (entry.kind, entry.canonical_id)
                if key not in by_id:
                    by_id[key] = (entry, rank)
                    continue
                kept, kept_rank = by_id[key]
                extra = tuple(n for n in entry.names if n not in kept.names)
                merged = DictionaryEntry(
                    kept.kind, kept.canonical_id, kept.display, (*kept.synonyms, *extra)
                )
                by_id[key] = (merged, kept_rank)
        return list(by_id.values())

    def _add(self, entry: DictionaryEntry, rank: int) -> None:
        index = self._index[entry.kind]
        seen: set[tuple[str, ...]] = set()
        for name in entry.names:
            words = tokenize(name)
            core = self._rules.core(entry.kind, words) or tuple(name_stem(w) for w in words)
            if not core or core in seen:
                continue
            seen.add(core)
            key = _Key(core, entry, rank)
            index.exact.setdefault(core, []).append(key)
            index.keys.append(key)
            index.max_words = max(index.max_words, len(words))
            if len(words) == 1 and len(core) == 1 and not core[0].isdigit():
                self._add_forms(index, name, key, seen)

    def _add_forms(
        self, index: _KindIndex, name: str, key: _Key, seen: set[tuple[str, ...]]
    ) -> None:
        """The dictionary's forms of a one-word name, matched exactly (never by typo)."""
        for form in self._rules.forms(name):
            core = (name_stem(form),)
            if core not in seen:
                seen.add(core)
                index.exact.setdefault(core, []).append(_Key(core, key.entry, key.rank))


def _within(general: tuple[str, ...], specific: tuple[str, ...]) -> bool:
    """ "пшениця" is the head of "озима пшениця": its words end the longer name."""
    return len(general) < len(specific) and specific[-len(general) :] == general


def _best(keys: Sequence[_Key]) -> DictionaryEntry | None:
    """The one entry of the best rank; None when nothing or several fit."""
    if not keys:
        return None
    top = min(key.rank for key in keys)
    ids = {key.entry.canonical_id: key.entry for key in keys if key.rank == top}
    return next(iter(ids.values())) if len(ids) == 1 else None


def load_shared_crops(path: Path = CROPS_RULES) -> tuple[DictionaryEntry, ...]:
    """The shared crop vocabulary as dictionary entries (``crop:wheat`` ...)."""
    return tuple(
        DictionaryEntry(
            kind="crop", canonical_id=crop.id, display=crop.display, synonyms=crop.synonyms
        )
        for crop in load(path, CropsFile).crops
    )


class Vocabulary:
    """What every farm's :class:`Dictionary` is built from: the name rules and the
    shared crops. Loaded once (``bot/wiring/factory.py``) and passed to who builds one."""

    def __init__(self, rules: NameRules, shared_crops: Sequence[DictionaryEntry]) -> None:
        self.rules = rules
        self.shared_crops = tuple(shared_crops)
        self._shared: Dictionary | None = None

    @classmethod
    def load(
        cls, grammar: Grammar, operations: Path = OPERATIONS_RULES, crops: Path = CROPS_RULES
    ) -> Vocabulary:
        return cls(NameRules.load(grammar, operations), load_shared_crops(crops))

    def dictionary(self, entries: Iterable[DictionaryEntry] = ()) -> Dictionary:
        """A farm's entries plus the shared crops (the farm's names win)."""
        return Dictionary(entries, shared=self.shared_crops, rules=self.rules)

    def shared(self) -> Dictionary:
        """The shared crops alone, built once."""
        if self._shared is None:
            self._shared = self.dictionary()
        return self._shared
