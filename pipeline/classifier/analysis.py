"""What the rules see in one message: each intent's score, before any routing.

Scoring follows the "context router" idea: a trigger adds 2, a keyword adds 1 (the
weights are in the rules), and an intent counts as matched from its ``min_score``
up. Phrases are matched first, longest first; the words a trigger phrase matched are
consumed, so no other intent scores them again (a plan/fact comparison is analysis,
not planning).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from pipeline.classifier.index import EMPTY, NO_HITS, BlockRef, Compiled, Hits, TermRef, hits_of
from pipeline.classifier.rules import ClassifierRules
from pipeline.grammar import match_phrase_at
from pipeline.intents import Intent
from pipeline.text import NormalizedText

__all__ = ["DEFAULT_TOKEN_CACHE", "Analysis", "Matcher"]

#: Token lookups remembered per classifier; farm chat reuses a small vocabulary.
DEFAULT_TOKEN_CACHE = 8192


@dataclass(frozen=True, slots=True)
class Analysis:
    """What the rules saw in one text, before any routing decision."""

    word_count: int
    scores: Mapping[Intent, int]
    #: How many trigger terms (not keywords) each intent matched.
    triggers: Mapping[Intent, int]
    fuzzy_terms: Mapping[Intent, int]
    #: Intents that reached their minimum score, best first.
    matched: tuple[Intent, ...]
    lexicons: frozenset[str]
    #: Words that neither a matched intent nor the filler list explain.
    extra_words: int
    #: Intents a blocker term un-matched.
    blocked: frozenset[Intent] = frozenset()


@dataclass(slots=True)
class _Tally:
    seen: set[int] = field(default_factory=set)
    scores: dict[Intent, int] = field(default_factory=dict)
    triggers: dict[Intent, int] = field(default_factory=dict)
    fuzzy: dict[Intent, int] = field(default_factory=dict)
    blocked: set[Intent] = field(default_factory=set)

    def add(self, ref: TermRef, fuzzy: bool = False) -> None:
        if ref.term_id in self.seen:
            return
        self.seen.add(ref.term_id)
        self.scores[ref.intent] = self.scores.get(ref.intent, 0) + ref.weight
        if ref.consumes:
            self.triggers[ref.intent] = self.triggers.get(ref.intent, 0) + 1
        if fuzzy:
            self.fuzzy[ref.intent] = self.fuzzy.get(ref.intent, 0) + 1


def _best_per_intent(terms: Sequence[TermRef]) -> Iterable[TermRef]:
    """One word scores at most once per intent: its strongest term."""
    if len(terms) < 2:
        return terms
    best: dict[Intent, TermRef] = {}
    for ref in terms:
        kept = best.get(ref.intent)
        if kept is None or ref.weight > kept.weight:
            best[ref.intent] = ref
    return best.values()


class Matcher:
    """Scores a normalised message against the compiled rules."""

    def __init__(
        self,
        rules: ClassifierRules,
        compiled: Compiled,
        order: Mapping[Intent, int],
        *,
        token_cache_size: int = DEFAULT_TOKEN_CACHE,
    ) -> None:
        self._rules = rules
        self._index = compiled.index
        self._phrases = compiled.phrases
        self._order = order
        # Longer phrases claim their words first; ties keep the rules file's order.
        phrases = self._phrases
        ranked = sorted(range(len(phrases)), key=lambda p: -len(phrases[p].slots))
        self._phrase_rank = {pid: rank for rank, pid in enumerate(ranked)}
        # Token -> hits. The rules never change after loading, so entries never go
        # stale; the dict is emptied when it reaches its bound.
        self._token_cache: dict[str, Hits] = {}
        self._token_cache_size = token_cache_size
        # Bundle id -> its hits; bundles live as long as the index, so ids stay valid.
        self._single: dict[int, Hits] = {}

    def analyse(self, norm: NormalizedText) -> Analysis:
        tokens = norm.tokens
        hits = [self._token_hits(token) for token in tokens]
        tally = _Tally()
        free = [True] * len(tokens)
        # Which intents account for each word (for the "more than a pleasantry" test).
        explained: list[set[Intent]] = [set() for _ in tokens]
        self._match_phrases(tokens, hits, free, tally, explained)
        lexicons: set[str] = set()
        for i, token_hits in enumerate(hits):
            if token_hits.lexicons:
                lexicons |= token_hits.lexicons
            if token_hits.blocks:
                tally.blocked |= token_hits.blocks
            if free[i] and token_hits.terms:
                for ref in _best_per_intent(token_hits.terms):
                    tally.add(ref, token_hits.fuzzy)
                    explained[i].add(ref.intent)
        for emo in norm.emoji:
            for ref in self._index.emoji.get(emo, EMPTY).terms:
                tally.add(ref)
        frozen_lex = frozenset(lexicons)
        matched = self._matched_intents(tally, frozen_lex)
        return Analysis(
            word_count=norm.word_count,
            scores=tally.scores,
            triggers=tally.triggers,
            fuzzy_terms=tally.fuzzy,
            matched=matched,
            lexicons=frozen_lex,
            extra_words=self._unexplained(hits, explained, set(matched)),
            blocked=frozenset(tally.blocked),
        )

    def with_scores(
        self,
        a: Analysis,
        extra: Mapping[Intent, tuple[int, int]],
        outranked: Iterable[Intent] = (),
    ) -> Analysis:
        """``a`` with more points (score, triggers) per intent from another reader (a
        probe), matched again by the same rules: minimum score, blockers, requirements;
        ``outranked`` intents are un-matched as a blocker would."""
        blocked = a.blocked.union(outranked) if outranked else a.blocked
        tally = _Tally(scores=dict(a.scores), triggers=dict(a.triggers), blocked=set(blocked))
        for name, (score, triggers) in extra.items():
            tally.scores[name] = tally.scores.get(name, 0) + score
            if triggers:
                tally.triggers[name] = tally.triggers.get(name, 0) + triggers
        matched = self._matched_intents(tally, a.lexicons)
        return replace(
            a, scores=tally.scores, triggers=tally.triggers, matched=matched, blocked=blocked
        )

    def _token_hits(self, token: str) -> Hits:
        cached = self._token_cache.get(token)
        if cached is not None:
            return cached
        found = self._index.lookup(token)
        if len(found) == 1:
            # Most words hit one pattern: its merged hits are built once, not per word.
            bundle = found[0]
            hits = self._single.get(id(bundle)) or self._single.setdefault(
                id(bundle), hits_of(found, False)
            )
        elif found:
            hits = hits_of(found, False)
        else:
            fuzzy = self._index.lookup_fuzzy(token)
            hits = hits_of(fuzzy, True) if fuzzy else NO_HITS
        if self._token_cache_size > 0:
            if len(self._token_cache) >= self._token_cache_size:
                self._token_cache.clear()
            self._token_cache[token] = hits
        return hits

    def _match_phrases(
        self,
        tokens: Sequence[str],
        hits: Sequence[Hits],
        free: list[bool],
        tally: _Tally,
        explained: Sequence[set[Intent]],
    ) -> None:
        starts: dict[int, list[int]] = {}
        for pos, token_hits in enumerate(hits):
            for pid in token_hits.phrase_starts:
                starts.setdefault(pid, []).append(pos)
        if not starts:
            return
        fills = [token_hits.slots for token_hits in hits]
        for pid in sorted(starts, key=self._phrase_rank.__getitem__):
            phrase = self._phrases[pid]
            second = phrase.adjacent_second
            for start in starts[pid]:
                if second is not None and (
                    start + 1 >= len(fills) or second not in fills[start + 1]
                ):
                    continue
                positions = match_phrase_at(phrase.slots, pid, start, tokens, fills, free)
                if positions is None:
                    continue
                owner = phrase.owner
                if isinstance(owner, BlockRef):
                    tally.blocked.add(owner.intent)
                    break
                tally.add(owner)
                for pos in positions:
                    free[pos] = free[pos] and not owner.consumes
                    explained[pos].add(owner.intent)

    def _unexplained(
        self, hits: Sequence[Hits], explained: Sequence[set[Intent]], matched: set[Intent]
    ) -> int:
        filler = self._rules.settings.filler_lexicon
        return sum(
            1
            for token_hits, intents in zip(hits, explained, strict=True)
            if not (intents & matched) and filler not in token_hits.lexicons
        )

    def _matched_intents(self, tally: _Tally, lexicons: frozenset[str]) -> tuple[Intent, ...]:
        intents = self._rules.intents
        base = {
            name
            for name, score in tally.scores.items()
            if score >= intents[name].min_score and name not in tally.blocked
        }
        kept = [name for name in base if self._requirements_met(name, base, lexicons)]
        return tuple(
            sorted(
                kept,
                key=lambda n: (-tally.scores[n], -tally.triggers.get(n, 0), self._order[n]),
            )
        )

    def _requirements_met(self, name: Intent, base: set[Intent], lexicons: frozenset[str]) -> bool:
        reqs = self._rules.intents[name].requires_any
        return not reqs or any(
            (req[1:] in lexicons) if req.startswith("@") else (req in base) for req in reqs
        )
