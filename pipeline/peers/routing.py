"""Which part of a message belongs to a peer, and which part Stepan answers itself.

A message is cut into clauses (sentences, and parts joined by "і / та / а також /
and / also ..."). A clause goes to a peer when the directory matches it to one
(:meth:`PeerDirectory.match`: the peer's words outweigh Stepan's own) and the peer's
score also beats the classifier's claim on it for Stepan's own work (a record, a
report, a sensor question, a plan: the score of any deep intent but the catch-all
"general"), so "зроби звіт про продажі сиру" stays a report while "how do we keep
batch records in our co-op" goes to the co-operatives' agent. When
every clause goes to the same peer the whole message is offered; when only some do,
Stepan answers the rest and offers those.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from pipeline.classifier.analysis import Analysis
from pipeline.intents import Intent
from pipeline.peers.directory import Peer, PeerDirectory
from pipeline.types import ClassifierContext, DepthDecision

__all__ = ["PeerRouter", "Route", "classifier_strength", "split_clauses"]

_SENTENCE_BREAK = re.compile(r"[.?!;…]+\s+|\n+")
# Longer joins first: the regex takes the first alternative that fits.
_JOINS = r"(?:а також|а также|а ще|and also|також|также|also|plus|and|а|і|й|та|и)"
_JOIN_BREAK = re.compile(rf",?\s+{_JOINS}\s+", re.IGNORECASE)
_LEADING_JOIN = re.compile(rf"^{_JOINS}\s+", re.IGNORECASE)
# "тел.", "вул.", "кв.", "Mr." end no sentence.
_ABBREVIATION = re.compile(r"(?:^|[\s(])[^\W\d_]{1,4}\.$")


def _depths(text: str) -> list[int]:
    """How deep in brackets each character is: nothing inside "( ... )" is cut."""
    depth, found = 0, []
    for ch in text:
        if ch in "([":
            depth += 1
        found.append(depth)
        if ch in ")]" and depth:
            depth -= 1
    return found


def _cut(text: str, pattern: re.Pattern[str], keep: bool) -> list[str]:
    """``text`` cut at the matches of ``pattern`` outside brackets; ``keep`` leaves the
    match's punctuation on the left part."""
    depths = _depths(text)
    parts, start = [], 0
    for match in pattern.finditer(text):
        if depths[match.start()] or (
            pattern is _SENTENCE_BREAK and _ABBREVIATION.search(text[start : match.start() + 1])
        ):
            continue
        end = match.start() + len(match.group().rstrip()) if keep else match.start()
        parts.append(text[start:end])
        start = match.end()
    parts.append(text[start:])
    return parts


def split_clauses(text: str) -> list[str]:
    clauses: list[str] = []
    for sentence in _cut(text, _SENTENCE_BREAK, keep=True):
        sentence = _LEADING_JOIN.sub("", sentence.strip(" ,;"))
        clauses.extend(part.strip(" ,;") for part in _cut(sentence, _JOIN_BREAK, keep=False))
    return [clause for clause in clauses if clause]


@dataclass(frozen=True, slots=True)
class Route:
    peer: Peer
    #: What would be passed on (before sanitising).
    question: str
    #: Stepan's part of the message; None when all of it is the peer's.
    own_text: str | None

    @property
    def partial(self) -> bool:
        return self.own_text is not None


class _Classifier(Protocol):
    def analyse(self, text: str) -> Analysis: ...

    def classify(self, text: str, ctx: ClassifierContext) -> DepthDecision: ...

    @property
    def intents(self) -> Mapping[Intent, object]: ...


def classifier_strength(classifier: _Classifier) -> Callable[[str], int]:
    """How strongly the classifier claims a text for Stepan's own deep work: the score
    of the intent it routes to, when that is a deep intent other than "general";
    0 otherwise (off-topic, a pleasantry, nothing matched)."""
    own = frozenset(
        intent
        for intent, spec in classifier.intents.items()
        if getattr(spec, "mode", "") == "deep" and intent != Intent.GENERAL
    )
    ctx = ClassifierContext()

    def strength(text: str) -> int:
        try:
            decision = classifier.classify(text, ctx)
            if decision.intent not in own:
                return 0
            return max(1, classifier.analyse(text).scores.get(decision.intent, 0))
        except Exception:
            return 1_000  # when in doubt Stepan keeps the question

    return strength


class PeerRouter:
    def __init__(self, directory: PeerDirectory, strength: Callable[[str], int]) -> None:
        self._directory = directory
        self._strength = strength

    @property
    def directory(self) -> PeerDirectory:
        return self._directory

    def route(self, text: str) -> Route | None:
        clauses = split_clauses(text)
        if not clauses:
            return None
        verdicts: list[tuple[str, Peer | None, int]] = []
        for clause in clauses:
            found = self._directory.match(clause)
            if found is not None and found.score > self._strength(clause):
                verdicts.append((clause, found.peer, found.score))
            else:
                verdicts.append((clause, None, 0))
        scored = [(score, peer) for _, peer, score in verdicts if peer is not None]
        if not scored:
            return None
        best = max(scored, key=lambda pair: pair[0])[1]
        theirs = [clause for clause, peer, _ in verdicts if peer is not None and peer.id == best.id]
        mine = [clause for clause, peer, _ in verdicts if peer is None or peer.id != best.id]
        if not mine:
            return Route(best, text.strip(), None)
        return Route(best, " ".join(theirs), " ".join(mine))
