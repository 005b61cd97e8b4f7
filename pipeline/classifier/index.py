"""The classifier's rules compiled into one word index and a list of phrases.

Words are matched by :mod:`pipeline.grammar`; this module only says what a match
means for the classifier: a score for an intent (a trigger or a keyword), a slot of
a phrase, a lexicon present, or a blocker.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pipeline.classifier.rules import ClassifierRules
from pipeline.grammar import Grammar, Slot, WordIndex, WordIndexBuilder, is_phrase, parse_phrase
from pipeline.intents import Intent

__all__ = ["Compiled", "Hits", "Phrase", "TermRef", "compile_rules", "hits_of"]


@dataclass(frozen=True, slots=True)
class TermRef:
    """A hit scores ``weight`` for ``intent``; each ``term_id`` counts once.

    A phrase that ``consumes`` (a trigger) takes its words away from every other
    term; keyword phrases only add their point.
    """

    intent: Intent
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
class BlockRef:
    intent: Intent


_Ref = TermRef | _SlotRef | _LexRef | BlockRef


@dataclass(frozen=True, slots=True)
class Bundle:
    """Everything one word pattern means, split by kind once at load time."""

    terms: tuple[TermRef, ...]
    slots: frozenset[tuple[int, int]]
    lexicons: frozenset[str]
    blocks: frozenset[Intent]


EMPTY = Bundle((), frozenset(), frozenset(), frozenset())


def _bundle(refs: Iterable[_Ref]) -> Bundle:
    refs = tuple(dict.fromkeys(refs))
    return Bundle(
        terms=tuple(r for r in refs if isinstance(r, TermRef)),
        slots=frozenset((r.phrase, r.slot) for r in refs if isinstance(r, _SlotRef)),
        lexicons=frozenset(r.name for r in refs if isinstance(r, _LexRef)),
        blocks=frozenset(r.intent for r in refs if isinstance(r, BlockRef)),
    )


@dataclass(frozen=True, slots=True)
class Hits:
    """Everything one token hit, merged; ``fuzzy`` when it needed typo tolerance."""

    terms: tuple[TermRef, ...]
    slots: frozenset[tuple[int, int]]
    lexicons: frozenset[str]
    blocks: frozenset[Intent]
    #: Phrases whose first slot this token can fill.
    phrase_starts: tuple[int, ...]
    fuzzy: bool


def hits_of(bundles: Sequence[Bundle], fuzzy: bool) -> Hits:
    slots: frozenset[tuple[int, int]] = frozenset().union(*(b.slots for b in bundles))
    return Hits(
        terms=tuple(dict.fromkeys(t for b in bundles for t in b.terms)),
        slots=slots,
        lexicons=frozenset().union(*(b.lexicons for b in bundles)),
        blocks=frozenset().union(*(b.blocks for b in bundles)),
        phrase_starts=tuple(sorted(pid for pid, slot in slots if slot == 0)),
        fuzzy=fuzzy,
    )


NO_HITS = hits_of((), False)


@dataclass(frozen=True, slots=True)
class Phrase:
    slots: tuple[Slot, ...]
    owner: TermRef | BlockRef
    #: ``(phrase id, 1)`` when the second slot is a word right after the first: most
    #: phrases fail there, and checking it first saves the full match.
    adjacent_second: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class Compiled:
    index: WordIndex[Bundle]
    phrases: tuple[Phrase, ...]


class _Compiler:
    def __init__(self, rules: ClassifierRules, grammar: Grammar) -> None:
        self.grammar = grammar
        self.words: WordIndexBuilder[_Ref] = WordIndexBuilder(grammar, rules.lexicons)
        self.phrases: list[Phrase] = []
        self._next_id = 0

    def new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def add_term(self, spec: str, owner: TermRef | BlockRef) -> None:
        spec = spec.strip()
        if not spec:
            raise ValueError("empty term")
        if not is_phrase(spec):
            self.words.add_word(spec, owner)
            return
        phrase_id = len(self.phrases)
        slots = parse_phrase(spec, self.grammar)
        for number, slot in enumerate(slots):
            for word in slot.words:
                self.words.add_word(word, _SlotRef(phrase_id, number))
        second = slots[1] if len(slots) > 1 else None
        adjacent = second is not None and second.kind == "word" and second.gap_before == 0
        self.phrases.append(Phrase(slots, owner, (phrase_id, 1) if adjacent else None))


def compile_rules(rules: ClassifierRules, grammar: Grammar) -> Compiled:
    """Every lexicon, trigger, keyword and blocker of ``rules`` in one index."""
    compiler = _Compiler(rules, grammar)
    for name, terms in rules.lexicons.items():
        for term in terms:
            compiler.words.add_word(term, _LexRef(name))
    s = rules.settings
    for intent, table in rules.terms.items():
        kinds = (
            (table.triggers, s.trigger_weight, True),
            (table.keywords, s.keyword_weight, False),
        )
        for terms, weight, consumes in kinds:
            for term in terms:
                compiler.add_term(term, TermRef(intent, weight, compiler.new_id(), consumes))
        for term in table.blockers:
            compiler.add_term(term, BlockRef(intent))
    return Compiled(compiler.words.finish(_bundle), tuple(compiler.phrases))
