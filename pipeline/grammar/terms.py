"""Labelled terms: which label a word or a phrase of a message carries."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from pipeline.grammar.index import WordIndexBuilder
from pipeline.grammar.phrases import Slot, is_phrase, match_phrase_at, parse_phrase
from pipeline.grammar.settings import Grammar
from pipeline.text import is_number

__all__ = ["TermSet"]

_TOKEN_CACHE_SIZE = 4096


def _first(refs: Sequence[tuple[int, str]]) -> tuple[int, str]:
    return min(refs)


def _slot_refs(refs: Sequence[tuple[int, int]]) -> frozenset[tuple[int, int]]:
    return frozenset(refs)


class TermSet:
    """Terms of the grammar, each with a label: which label a word or phrase carries.

    Phrases are tried before single words, longest first; a single word takes the
    label of its best term (see the module docstring).
    """

    def __init__(self, terms: Iterable[tuple[str, str]], grammar: Grammar) -> None:
        words: WordIndexBuilder[tuple[int, str]] = WordIndexBuilder(grammar)
        slot_words: WordIndexBuilder[tuple[int, int]] = WordIndexBuilder(grammar)
        phrases: list[tuple[tuple[Slot, ...], str]] = []
        for seq, (term, label) in enumerate(terms):
            spec = term.strip()
            if not spec:
                continue
            if is_phrase(spec):
                slots = parse_phrase(spec, grammar)
                for number, slot in enumerate(slots):
                    for word in slot.words:
                        slot_words.add_word(word, (len(phrases), number))
                phrases.append((slots, label))
            else:
                words.add_word(spec, (seq, label))
        self._words = words.finish(_first)
        self._slots = slot_words.finish(_slot_refs)
        # Longest first; ties keep the order they were listed in.
        order = sorted(range(len(phrases)), key=lambda p: -len(phrases[p][0]))
        self._phrases = tuple((pid, *phrases[pid]) for pid in order)
        self._labels: dict[str, str | None] = {}
        self._slot_hits: dict[str, frozenset[tuple[int, int]]] = {}

    @classmethod
    def flat(cls, terms: Iterable[str], label: str, grammar: Grammar) -> TermSet:
        """Every term with the same label."""
        return cls(((term, label) for term in terms), grammar)

    @classmethod
    def labelled(cls, groups: Mapping[str, Iterable[str]], grammar: Grammar) -> TermSet:
        """``{label: [terms]}``; the first group listing a term keeps it."""
        return cls(((term, label) for label, terms in groups.items() for term in terms), grammar)

    def label(self, token: str) -> str | None:
        """The label of a single folded token, or None."""
        try:
            return self._labels[token]
        except KeyError:
            pass
        found = self._lookup(token)
        if len(self._labels) >= _TOKEN_CACHE_SIZE:
            self._labels.clear()
        self._labels[token] = found
        return found

    def __contains__(self, token: object) -> bool:
        return isinstance(token, str) and self.label(token) is not None

    def _lookup(self, token: str) -> str | None:
        if not token or is_number(token):
            return None
        index = self._words
        hit = index.word_hit(token)
        if hit is None:
            hit = index.stem_hit(token)
        if hit is None:
            prefixes = index.prefix_hits(token)
            hit = prefixes[-1] if prefixes else None
        if hit is None:
            fuzzy = index.lookup_fuzzy(token)
            hit = min(fuzzy) if fuzzy else None
        return hit[1] if hit is not None else None

    def _fills(self, token: str) -> frozenset[tuple[int, int]]:
        """The phrase slots a token fills (a typo only when nothing fits exactly)."""
        try:
            return self._slot_hits[token]
        except KeyError:
            pass
        index = self._slots
        hits = index.lookup(token) or index.lookup_fuzzy(token)
        found: frozenset[tuple[int, int]] = frozenset().union(*hits)
        if len(self._slot_hits) >= _TOKEN_CACHE_SIZE:
            self._slot_hits.clear()
        self._slot_hits[token] = found
        return found

    def match_at(self, tokens: Sequence[str], start: int) -> tuple[str, int] | None:
        """The label and length in tokens of the term that starts at ``start``."""
        if start >= len(tokens):
            return None
        if self._phrases:
            fills = _LazyFills(self, tokens)
            first = fills[start]
            # Most words start no phrase: skip the loop over every phrase for them.
            starts = first and any(slot == 0 for _, slot in first)
            for pid, slots, label in self._phrases if starts else ():
                if (pid, 0) not in first or len(slots) > len(tokens) - start:
                    continue
                positions = match_phrase_at(slots, pid, start, tokens, fills, _ALL_FREE)
                if positions is not None:
                    return label, positions[-1] - start + 1
        found = self.label(tokens[start])
        return (found, 1) if found is not None else None


class _AllFree(Sequence[bool]):
    def __len__(self) -> int:
        return 0

    def __getitem__(self, i: int) -> bool:  # type: ignore[override]
        return True


_ALL_FREE = _AllFree()


class _LazyFills(Sequence[frozenset[tuple[int, int]]]):
    """The phrase slots each token fills, looked up only for the tokens a phrase reaches."""

    def __init__(self, terms: TermSet, tokens: Sequence[str]) -> None:
        self._terms = terms
        self._tokens = tokens

    def __len__(self) -> int:
        return len(self._tokens)

    def __getitem__(self, i: int) -> frozenset[tuple[int, int]]:  # type: ignore[override]
        return self._terms._fills(self._tokens[i])
