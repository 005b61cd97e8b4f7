"""The operation words and status markers of a message, and the gates that say a
whole message is no operation to record (a report, a chart, advice, a cancelling
command).

Markers (запиши / заплануй / треба / вже ...) and operation words are found with
their positions, so each operation of a message takes the ones of its own clause
(:mod:`.assemble`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pipeline.farm.dictionary import Dictionary
from pipeline.farm.journal.parsing.names import known_names
from pipeline.farm.journal.parsing.rules import OperationRules
from pipeline.farm.journal.parsing.scan import Scan
from pipeline.grammar import TermSet
from pipeline.text import APOSTROPHES

__all__ = [
    "Marker",
    "OpHit",
    "find_markers",
    "find_operations",
    "is_blocked",
    "verb_tense",
]

MarkerKind = Literal["record", "plan", "future", "done"]
Tense = Literal["past", "future"] | None

# Shorter operation words carry no tense ("sow", "сів").
_MIN_VERB_LEN = 5


@dataclass(frozen=True, slots=True)
class Marker:
    pos: int
    record: bool = False
    #: "заплануй", "plan": a command or a statement that this is a plan.
    plan: bool = False
    #: "треба", "будемо", "will": the operation is ahead.
    future: bool = False
    done: bool = False


def find_markers(scan: Scan, rules: OperationRules) -> list[Marker]:
    found: list[Marker] = []
    for i, norm in enumerate(scan.norms):
        # "відмінили" calls the work off, whatever it looks like.
        if not scan.free(i) or norm in rules.cancel or norm in rules.halt:
            continue
        marker = Marker(
            i,
            record=norm in rules.record,
            plan=norm in rules.plan,
            future=norm in rules.future or _future_suffix(scan.tokens[i].raw, rules),
            done=norm in rules.done,
        )
        if marker.record or marker.plan or marker.future or marker.done:
            found.append(marker)
            scan.claim(i, i + 1, "marker")
    return found


def _future_suffix(raw: str, rules: OperationRules) -> bool:
    """ "we'll", "I’ll": a future written onto a pronoun."""
    written = raw.lower()
    for apostrophe in APOSTROPHES:
        written = written.replace(apostrophe, "'")
    return written.endswith(rules.future_suffixes) and "'" in written


def verb_tense(norm: str, rules: OperationRules) -> Tense:
    """Tense of an operation word: "посіяли" past, "посіємо"/"полити" ahead."""
    if len(norm) < _MIN_VERB_LEN:
        return None
    if norm.endswith(rules.past_endings):
        return "past"
    if norm.endswith(rules.present_endings):
        return None
    if norm.endswith(rules.future_endings):
        return "future"
    return None


@dataclass(frozen=True, slots=True)
class OpHit:
    op_type: str
    pos: int
    strong: bool
    #: Read from the operation's own word (not implied by a product).
    worded: bool = True
    end: int = 0
    #: The word as folded, for its tense ("посіяли", "посіємо").
    word: str = ""


def find_operations(scan: Scan, rules: OperationRules, dictionary: Dictionary) -> list[OpHit]:
    """Every operation word, left to right (the farm's own operation names too). A
    word right after another one is its object, not a second operation ("огляд
    посівів" is scouting)."""
    hits = [
        OpHit(hit.entry.canonical_id, hit.pos, True, end=hit.end, word=scan.norms[hit.pos])
        for hit in known_names(scan, rules, dictionary, "operation")
        if hit.entry is not None
    ]
    for terms, strong in ((rules.ops, True), (rules.weak_ops, False)):
        for i in range(len(scan)):
            # "збиралися посіяти" meant to sow; it harvested nothing.
            wished = scan.norms[i] in rules.wished
            found = _operation_at(scan, rules, terms, i) if scan.free(i) and not wished else None
            if found is None or not scan.all_free(i, i + found[1]):
                continue
            scan.claim(i, i + found[1], "operation")
            # "перед посівом", "после сева": a time, not a second operation.
            if i == 0 or scan.norms[i - 1] not in rules.time_prepositions:
                hits.append(OpHit(found[0], i, strong, end=i + found[1], word=scan.norms[i]))
    hits.sort(key=lambda hit: hit.pos)
    kept: list[OpHit] = []
    for hit in hits:
        if kept and kept[-1].end == hit.pos:
            continue
        kept.append(hit)
    return kept


def _operation_at(
    scan: Scan, rules: OperationRules, terms: TermSet, i: int
) -> tuple[str, int] | None:
    found = terms.match_at(scan.norms, i)
    if found is not None:
        return found
    norm = scan.norms[i]
    if len(norm) < _MIN_VERB_LEN:
        return None
    for written, meant in rules.letter_swaps:
        start = norm.find(written)
        while start >= 0:
            label = terms.label(norm[:start] + meant + norm[start + len(written) :])
            if label is not None:
                return label, 1
            start = norm.find(written, start + 1)
    for prefix in rules.completive_prefixes:
        rest = norm[len(prefix) :]
        if norm.startswith(prefix) and len(rest) >= _MIN_VERB_LEN:
            label = terms.label(rest)
            if label is not None:
                return label, 1
    return None


def is_blocked(scan: Scan, rules: OperationRules) -> bool:
    """A report, a chart, advice, a cancelling command: not an operation to record."""
    return any(rules.blockers.match_at(scan.norms, i) is not None for i in range(len(scan)))
