"""Single words of the term syntax (``=word``, ``pref*``, ``word``, ``@lexicon``, emoji)
indexed for lookup: exact, a dictionary form of the word, same stem, prefix, and one
typo as a fallback."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from pipeline.grammar.settings import Grammar
from pipeline.text import extract_emoji, prefix_within_one_edit, stem, tokenize, within_one_edit

__all__ = ["WordIndex", "WordIndexBuilder", "one_token"]

R = TypeVar("R")
P = TypeVar("P")


def one_token(spec: str) -> str:
    tokens = tokenize(spec)
    if len(tokens) != 1:
        raise ValueError(f"term {spec!r} must be exactly one word")
    return tokens[0]


_Bucket = tuple[tuple[str, P], ...]


@dataclass(frozen=True, slots=True)
class WordIndex(Generic[P]):
    """Folded words -> what the terms matching them mean. Read-only once built."""

    grammar: Grammar
    exact: Mapping[str, P]
    #: Dictionary forms of plain words (pipeline/grammar/morphology.py) other than
    #: the word itself.
    forms: Mapping[str, P]
    stems: Mapping[str, P]
    prefixes: Mapping[str, P]
    emoji: Mapping[str, P]
    prefix_lengths: tuple[int, ...]
    fuzzy_words: Mapping[tuple[str, int], _Bucket[P]]
    fuzzy_prefixes: Mapping[tuple[str, int, str], _Bucket[P]]
    fuzzy_prefix_lengths: tuple[int, ...]

    def word_hit(self, token: str) -> P | None:
        """The term this very word is, or one of whose dictionary forms it is."""
        hit = self.exact.get(token)
        return hit if hit is not None else self.forms.get(token)

    def stem_hit(self, token: str) -> P | None:
        # Every indexed stem has stem_min_len letters, so a shorter token has none.
        if len(token) < self.grammar.stem_min_len:
            return None
        return self.stems.get(stem(token))

    def prefix_hits(self, token: str) -> list[P]:
        """Every prefix the token starts with, shortest first."""
        found: list[P] = []
        size = len(token)
        for n in self.prefix_lengths:
            if n > size:
                break
            hit = self.prefixes.get(token[:n])
            if hit is not None:
                found.append(hit)
        return found

    def lookup(self, token: str) -> list[P]:
        """Exact, dictionary-form, same-stem and prefix hits of one folded token, in
        that order."""
        # The classifier's hot path: the helpers above, inlined.
        found: list[P] = []
        hit = self.exact.get(token)
        if hit is not None:
            found.append(hit)
        hit = self.forms.get(token)
        if hit is not None:
            found.append(hit)
        size = len(token)
        if size >= self.grammar.stem_min_len:
            hit = self.stems.get(stem(token))
            if hit is not None:
                found.append(hit)
        for n in self.prefix_lengths:
            if n > size:
                break
            hit = self.prefixes.get(token[:n])
            if hit is not None:
                found.append(hit)
        return found

    def lookup_fuzzy(self, token: str) -> list[P]:
        """Hits one typo away (whole words, their stems and long prefixes)."""
        if len(token) < self.grammar.fuzzy_len(token) or not token.isalpha():
            return []
        found: dict[int, P] = {}
        first = token[0]
        token_stem = stem(token)
        variants = [token]
        if len(token_stem) >= self.grammar.fuzzy_min_stem_len and token_stem != token:
            variants.append(token_stem)
        for variant in variants:
            size = len(variant)
            for n in (size - 1, size, size + 1):
                for word, hit in self.fuzzy_words.get((first, n), ()):
                    if within_one_edit(variant, word):
                        found[id(hit)] = hit
        for n in self.fuzzy_prefix_lengths:
            if n - 1 > len(token):
                break
            for m in (n - 1, n, n + 1):
                if m > len(token):
                    continue
                for prefix, hit in self.fuzzy_prefixes.get((first, n, token[m - 1]), ()):
                    if prefix_within_one_edit(token, prefix):
                        found[id(hit)] = hit
        return list(found.values())


class WordIndexBuilder(Generic[R]):
    """Collects single-word terms with a reference each; :meth:`finish` freezes them."""

    def __init__(
        self, grammar: Grammar, lexicons: Mapping[str, Sequence[str]] | None = None
    ) -> None:
        self.grammar = grammar
        self.lexicons = lexicons or {}
        self._exact: dict[str, list[R]] = {}
        self._forms: dict[str, list[R]] = {}
        self._stems: dict[str, list[R]] = {}
        self._prefixes: dict[str, list[R]] = {}
        self._emoji: dict[str, list[R]] = {}
        self._fuzzy_words: dict[tuple[str, int], dict[str, list[R]]] = {}
        self._fuzzy_prefixes: dict[tuple[str, int, str], dict[str, list[R]]] = {}

    def add_word(self, spec: str, ref: R) -> None:
        """One word pattern (no spaces, no alternatives): ``=w``, ``p*``, ``@lex``, ``w``."""
        if spec.startswith("@"):
            for term in self.lexicons[spec[1:]]:
                self.add_word(term, ref)
        elif spec.startswith("="):
            self._exact.setdefault(one_token(spec[1:]), []).append(ref)
        elif spec.endswith("*") and len(spec) > 1:
            self._add_prefix(one_token(spec[:-1]), ref)
        elif not tokenize(spec) and extract_emoji(spec):
            for emo in extract_emoji(spec):
                self._emoji.setdefault(emo, []).append(ref)
        else:
            word = one_token(spec)
            self._add_plain(word, ref)
            self._add_forms(spec, word, ref)

    def _add_prefix(self, prefix: str, ref: R) -> None:
        self._prefixes.setdefault(prefix, []).append(ref)
        g = self.grammar
        if len(prefix) >= max(g.fuzzy_len(prefix), g.fuzzy_min_prefix_len):
            key = (prefix[0], len(prefix), prefix[-1])
            self._fuzzy_prefixes.setdefault(key, {}).setdefault(prefix, []).append(ref)

    def _add_plain(self, word: str, ref: R) -> None:
        self._exact.setdefault(word, []).append(ref)
        g = self.grammar
        word_stem = stem(word)
        if len(word_stem) >= g.stem_min_len:
            self._stems.setdefault(word_stem, []).append(ref)
        variants = [word]
        if len(word_stem) >= g.fuzzy_min_stem_len:
            variants.append(word_stem)
        for variant in dict.fromkeys(variants):
            if len(variant) >= g.fuzzy_len(variant):
                key = (variant[0], len(variant))
                self._fuzzy_words.setdefault(key, {}).setdefault(variant, []).append(ref)

    def _add_forms(self, spec: str, word: str, ref: R) -> None:
        """Every other form of the word that a dictionary lists (``spec`` unfolded:
        the dictionaries know ``м'ята`` and ``сіють``, not the folded ``мята``, ``сиут``)."""
        morphology = self.grammar.morphology
        if morphology is None:
            return
        for form in morphology.forms(spec):
            if form != word:
                self._forms.setdefault(form, []).append(ref)

    def finish(self, combine: Callable[[Sequence[R]], P]) -> WordIndex[P]:
        """The index, with the references of each word merged by ``combine``."""

        def merged(table: Mapping[str, list[R]]) -> dict[str, P]:
            return {key: combine(refs) for key, refs in table.items()}

        return WordIndex(
            grammar=self.grammar,
            exact=merged(self._exact),
            forms=merged(self._forms),
            stems=merged(self._stems),
            prefixes=merged(self._prefixes),
            emoji=merged(self._emoji),
            prefix_lengths=tuple(sorted({len(p) for p in self._prefixes})),
            fuzzy_words={
                key: tuple((w, combine(refs)) for w, refs in words.items())
                for key, words in self._fuzzy_words.items()
            },
            fuzzy_prefixes={
                key: tuple((p, combine(refs)) for p, refs in prefixes.items())
                for key, prefixes in self._fuzzy_prefixes.items()
            },
            fuzzy_prefix_lengths=tuple(sorted({k[1] for k in self._fuzzy_prefixes})),
        )
