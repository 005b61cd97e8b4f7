"""Which part of a message belongs to a peer, and which part Stepan answers itself.

A message is cut into clauses (sentences, and parts joined by "і / та / а також /
and / also ..."). A clause goes to a peer when the directory matches it to one
(:meth:`PeerDirectory.match`: the peer's words outweigh Stepan's own) and the
classifier does not claim it for Stepan's own work (a record, a report, a sensor
question, a plan: any intent of the deep path but the catch-all "general"). When
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

__all__ = ["PeerRouter", "Route", "classifier_owns", "split_clauses"]

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


class _Analyser(Protocol):
    def analyse(self, text: str) -> Analysis: ...

    @property
    def intents(self) -> Mapping[Intent, object]: ...


def classifier_owns(classifier: _Analyser) -> Callable[[str], bool]:
    """True for text the classifier routes to Stepan's own deep work."""
    own = frozenset(
        intent
        for intent, spec in classifier.intents.items()
        if getattr(spec, "mode", "") == "deep" and intent != Intent.GENERAL
    )

    def owns(text: str) -> bool:
        try:
            return bool(own.intersection(classifier.analyse(text).matched))
        except Exception:
            return True  # when in doubt Stepan keeps the question

    return owns


class PeerRouter:
    def __init__(self, directory: PeerDirectory, owns: Callable[[str], bool]) -> None:
        self._directory = directory
        self._owns = owns

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
            if found is not None and not self._owns(clause):
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
