"""The operation itself: status markers (запиши / заплануй / вже ...), the operation
word, the gates that say a message is no operation to record (a question, a report
request, a negation), and the product as written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.farm.dictionary import Dictionary
from pipeline.farm.parsing.names import known_names, plain_word
from pipeline.farm.parsing.rules import OperationRules
from pipeline.farm.parsing.scan import Scan

__all__ = [
    "OpHit",
    "Signals",
    "choose_operation",
    "find_markers",
    "find_operations",
    "find_product",
    "is_blocked",
    "is_negated",
    "is_question",
    "product_hints",
    "verb_signals",
]

# Between a product word and the number that belongs to it: "КАС-32", "16:16:16".
_NUMBER_GLUE = frozenset({"", "-", ":", "‑", "–", "/"})
_PRODUCT_NUMBER_DIGITS = 2
# Shorter operation words carry no tense ("sow", "сів").
_MIN_VERB_LEN = 5


# =========================================================================== markers


@dataclass(slots=True)
class Signals:
    record: bool = False
    plan: bool = False
    done: bool = False


def find_markers(scan: Scan, rules: OperationRules) -> Signals:
    signals = Signals()
    for i, norm in enumerate(scan.norms):
        if not scan.free(i):
            continue
        record, plan = norm in rules.record, norm in rules.plan or norm in rules.future
        done = norm in rules.done
        if record or plan or done:
            signals.record |= record
            signals.plan |= plan
            signals.done |= done
            scan.claim(i, i + 1, "marker")
    return signals


def verb_signals(norm: str, rules: OperationRules, signals: Signals) -> None:
    """Tense of the operation word itself: "посіяли" done, "посіємо"/"полити" ahead."""
    if len(norm) < _MIN_VERB_LEN:
        return
    if norm.endswith(rules.past_endings):
        signals.done = True
    elif norm.endswith(rules.future_endings):
        signals.plan = True


# =========================================================================== operation


@dataclass(frozen=True, slots=True)
class OpHit:
    op_type: str
    pos: int
    strong: bool
    #: Read from the operation's own word (not implied by a product).
    worded: bool = True


def find_operations(scan: Scan, rules: OperationRules, dictionary: Dictionary) -> list[OpHit]:
    hits = [
        OpHit(hit.entry.canonical_id, hit.pos, True)
        for hit in known_names(scan, rules, dictionary, "operation")
        if hit.entry is not None
    ]
    for terms, strong in ((rules.ops, True), (rules.weak_ops, False)):
        for i in range(len(scan)):
            found = terms.match_at(scan.norms, i) if scan.free(i) else None
            if found is not None and scan.all_free(i, i + found[1]):
                scan.claim(i, i + found[1], "operation")
                hits.append(OpHit(found[0], i, strong))
    return sorted(hits, key=lambda hit: (not hit.strong, hit.pos))


def product_hints(scan: Scan, rules: OperationRules) -> list[tuple[int, str]]:
    found = [
        (i, label)
        for i, norm in enumerate(scan.norms)
        if scan.free(i) and (label := rules.products.label(norm)) is not None
    ]
    for i, _ in found:
        scan.claim(i, i + 1, "hint")
    return found


def choose_operation(
    ops: Sequence[OpHit],
    hints: Sequence[tuple[int, str]],
    rules: OperationRules,
    evidence: bool,
) -> OpHit | None:
    """A strong word; else what a product implies; else a weak word.

    A product alone ("селітра 150 кг/га") makes an operation only with evidence:
    a weak word, a record/plan marker or a rate.
    """
    if ops and ops[0].strong:
        return ops[0]
    implied = [
        (pos, rules.product_implies[cat]) for pos, cat in hints if cat in rules.product_implies
    ]
    if implied and (ops or evidence):
        pos, op_type = implied[0]
        return OpHit(op_type, ops[0].pos if ops else pos, False, worded=bool(ops))
    return ops[0] if ops else None


# =========================================================================== gates


def is_question(scan: Scan, rules: OperationRules, signals: Signals) -> bool:
    if signals.record:
        return False
    if "?" in scan.text:
        return True
    i = 0
    while i < len(scan) and scan.norms[i] in rules.lead_fillers:
        i += 1
    if i >= len(scan):
        return False
    if scan.norms[i] in rules.questions:
        return True
    return (
        scan.norms[i] in rules.auxiliaries
        and i + 1 < len(scan)
        and (scan.norms[i + 1] in rules.pronouns)
    )


def is_blocked(scan: Scan, rules: OperationRules) -> bool:
    """A report, a chart, advice, a cancellation: not an operation to record."""
    return any(rules.blockers.match_at(scan.norms, i) is not None for i in range(len(scan)))


def is_negated(scan: Scan, rules: OperationRules, op_pos: int) -> bool:
    j = op_pos - 1
    while j >= 0 and scan.norms[j] in rules.negation_gap:
        j -= 1
    return j >= 0 and scan.norms[j] in rules.negations


# =========================================================================== products


def find_product(
    scan: Scan,
    rules: OperationRules,
    dictionary: Dictionary,
    hints: Sequence[tuple[int, str]],
) -> str | None:
    """The brand as written ("Абакус"); else the product words ("аміачною селітрою").

    A product the farm's dictionary knows is given by its display name.
    """
    known = known_names(scan, rules, dictionary, "product")
    if known and known[0].entry is not None:
        return known[0].entry.display
    brands = _brand_positions(scan, rules, {pos for pos, _ in hints})
    if brands:
        return _join_groups(scan, brands)
    if hints:
        return _join_groups(scan, [pos for pos, _ in hints])
    return None


def _brand_positions(scan: Scan, rules: OperationRules, hints: set[int]) -> list[int]:
    """Words that name a product: right after a hint ("фунгіцид абакус"), capitalised
    inside a sentence ("Абакус"), Latin in a Cyrillic message ("Roundup"), and the
    capitalised words that follow one of those ("Дуал Голд")."""
    cyrillic = scan.mostly_cyrillic()
    brands: list[int] = []
    for i in range(len(scan)):
        if not plain_word(scan, rules, i):
            continue
        styled = scan.capitalised(i) or scan.latin(i)
        if (
            (i - 1) in hints
            or ((i - 1) in brands and styled)
            or (scan.capitalised(i) and not scan.starts_sentence(i))
            or (cyrillic and scan.latin(i))
        ):
            brands.append(i)
    for i in brands:
        scan.claim(i, i + 1, "product")
    return brands


def _join_groups(scan: Scan, positions: Sequence[int]) -> str:
    """Adjacent product words as one written phrase; separate phrases joined by ", "."""
    groups: list[tuple[int, int]] = []
    for pos in sorted(positions):
        start, end = _glued_span(scan, pos)
        end = _attach_numbers(scan, end)
        if groups and groups[-1][1] >= start:
            groups[-1] = (groups[-1][0], max(end, groups[-1][1]))
        else:
            groups.append((start, end))
    return ", ".join(scan.raw(start, end) for start, end in groups)


def _glued_span(scan: Scan, pos: int) -> tuple[int, int]:
    """A code written without spaces is one name: "П64ЛЕ137", "Bi-58"."""
    start, end = pos, pos + 1
    while start > 0 and scan.free(start - 1) and _glued(scan, start):
        start -= 1
    while scan.free(end) and _glued(scan, end):
        end += 1
    scan.claim(start, end, "product")
    return start, end


def _glued(scan: Scan, i: int) -> bool:
    """Token ``i`` follows token ``i - 1`` with no space (a hyphen at most)."""
    between = scan.text[scan.tokens[i - 1].end : scan.tokens[i].start]
    return between in ("", "-")


def _attach_numbers(scan: Scan, i: int) -> int:
    """ "КАС-32", "NPK 16:16:16", "Дуал Голд 960": numbers that are part of the name."""
    while scan.number_at(i):
        glued = scan.gap(i) in _NUMBER_GLUE and scan.text[scan.tokens[i - 1].end] != " "
        if not glued and len(scan.norms[i]) < _PRODUCT_NUMBER_DIGITS:
            break
        scan.claim(i, i + 1, "product")
        i += 1
    return i
