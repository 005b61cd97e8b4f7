"""Routing proposals learned from stored corrections, each verified before it is
offered (issue 13 point 5, docs/learning.md).

A correction is a labelled example: the message and the intent it should have had.
Words that recur in corrected messages of one intent, and in none of another's,
become candidate terms for that intent (a trigger first, else a keyword). A candidate
is kept only if the routing accuracy, measured with and without it on the labelled
dev corpus packaged with Stepan AND on all stored corrections, falls on neither and
rises on the corrections. Pure computation: no database, no LLM.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pipeline.classifier import Classifier, ClassifierRules
from pipeline.grammar import Grammar
from pipeline.intents import Intent
from pipeline.learning.config import NightlyRules
from pipeline.learning.overlay import OverlayTerm, TermKind, compile_overlay
from pipeline.text import normalize
from pipeline.types import ClassifierContext

__all__ = [
    "DEV_CORPUS", "Example", "Proposal", "accuracy", "load_examples", "propose", "stored_examples",
]  # fmt: skip

DEV_CORPUS = Path(__file__).resolve().parent / "data" / "routing-dev.jsonl"
#: Shorter words are mostly prepositions and particles («на», «по», «для»).
MIN_WORD = 4
#: Candidates compiled and measured per night, at most (a compile is ~0.1-0.5 s).
CANDIDATES_PER_PROPOSAL = 3


@dataclass(frozen=True, slots=True)
class Example:
    text: str
    intent: Intent


@dataclass(frozen=True, slots=True)
class Proposal:
    term: OverlayTerm
    support: int  # corrected messages behind it
    dev_before: float
    dev_after: float
    corrections_before: float
    corrections_after: float


def load_examples(path: Path = DEV_CORPUS) -> list[Example]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            out.append(Example(row["text"], Intent(row["intent"])))
    return out


def stored_examples(rows: Iterable[tuple[str, str]]) -> list[Example]:
    """The stored corrections (text, intent) as examples; an intent this version no
    longer knows is left out."""
    return [Example(text, Intent(i)) for text, i in rows if i in Intent._value2member_map_]


def accuracy(classifier: Classifier, examples: Sequence[Example]) -> float:
    if not examples:
        return 1.0
    ctx = ClassifierContext()
    hits = sum(classifier.classify(e.text, ctx).intent == e.intent for e in examples)
    return round(hits / len(examples), 4)


def _words(text: str) -> set[str]:
    return {t for t in normalize(text).tokens if len(t) >= MIN_WORD and t.isalpha()}


def _candidates(
    current: Classifier, corrections: Sequence[Example], min_support: int
) -> list[tuple[Intent, str, int]]:
    ctx = ClassifierContext()
    missed = [c for c in corrections if current.classify(c.text, ctx).intent != c.intent]
    support: Counter[tuple[Intent, str]] = Counter()
    intents_of: defaultdict[str, set[Intent]] = defaultdict(set)
    for example in corrections:
        for word in _words(example.text):
            intents_of[word].add(example.intent)
    for example in missed:
        for word in _words(example.text):
            support[(example.intent, word)] += 1
    ranked = [
        (intent, word, n)
        for (intent, word), n in support.items()
        if n >= min_support and intents_of[word] == {intent}  # one meaning only
    ]
    ranked.sort(key=lambda item: (-item[2], item[1]))
    return ranked


def propose(
    base: ClassifierRules,
    grammar: Grammar,
    overlay: Iterable[OverlayTerm],
    corrections: Sequence[Example],
    dev: Sequence[Example],
    rules: NightlyRules,
) -> list[Proposal]:
    """Verified proposals, best supported first, at most ``rules.max_proposals``."""
    in_force = list(overlay)
    current = compile_overlay(base, grammar, in_force)
    dev_before = accuracy(current, dev)
    corr_before = accuracy(current, corrections)
    out: list[Proposal] = []
    tried = 0
    for intent, word, support in _candidates(current, corrections, rules.min_support):
        if (
            len(out) >= rules.max_proposals
            or tried >= rules.max_proposals * CANDIDATES_PER_PROPOSAL
        ):
            break
        tried += 1
        kinds: tuple[TermKind, ...] = ("trigger", "keyword")
        for kind in kinds:
            term = OverlayTerm(intent, kind, word)
            trial = compile_overlay(base, grammar, [*in_force, term])
            corr_after = accuracy(trial, corrections)
            if corr_after <= corr_before:
                continue
            dev_after = accuracy(trial, dev)
            if dev_after < dev_before:
                continue  # a change that lowers accuracy is never offered
            out.append(Proposal(term, support, dev_before, dev_after, corr_before, corr_after))
            break
    return out
