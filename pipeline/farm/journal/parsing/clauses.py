"""Clauses: where one statement of a message ends and the next begins, and what mood
each is in (said, asked, negated, called off, stuck, someone else's).

A message is split at sentence ends, commas, semicolons, colons and dashes, at the
conjunctions of ``[clauses]`` in ``operations.toml`` ("і", "а", "and", "потім" ...)
and before a second operation word; never inside one hit of an earlier pass ("на
полях 2, 6 і 9", "03.06.2026", "1,5 л/га" stay whole).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from pipeline.farm.journal.parsing.operations import Marker, OpHit, verb_tense
from pipeline.farm.journal.parsing.rules import OperationRules
from pipeline.farm.journal.parsing.scan import Scan
from pipeline.grammar import TermSet

__all__ = ["Clause", "split_clauses"]

_SENTENCE_END = frozenset(".!?\n")
# Not dashes: "а Поле 5 — Децисом" leaves the verb out, it does not start a statement.
_CLAUSE_BREAK = frozenset(",;:")


@dataclass(frozen=True, slots=True)
class Clause:
    start: int
    end: int
    sentence: int
    #: A question, not a statement ("did we spray field 3?", "коли полив?").
    question: bool = False
    #: The operation in it did not (or will not) happen, or is someone else's.
    negated: bool = False
    #: Nothing but a negation and words like "ще", "ми": "а ми ще ні".
    elliptic: bool = False
    #: Put off ("перенесли", "відклали"): a plan if it names a date, else nothing.
    postponed: bool = False
    #: Ends with ":": a heading for what follows ("field 2: rolled").
    heading: bool = False

    def __contains__(self, pos: object) -> bool:
        return isinstance(pos, int) and self.start <= pos < self.end


def _breaks(scan: Scan, i: int) -> tuple[bool, bool]:
    """(a new clause, a new sentence) before token ``i``."""
    if i == 0 or scan.joined(i):
        return False, False
    between = scan.text[scan.tokens[i - 1].end : scan.tokens[i].start]
    if any(ch in _SENTENCE_END for ch in between):
        return True, True
    if any(ch in _CLAUSE_BREAK for ch in between):
        return True, False
    return False, False


def _conjunctions(scan: Scan, rules: OperationRules) -> set[int]:
    """Free conjunctions, claimed so no later pass takes them for a name."""
    found: set[int] = set()
    for i in range(len(scan)):
        hit = rules.conjunctions.match_at(scan.norms, i) if scan.free(i) else None
        if hit is not None and scan.all_free(i, i + hit[1]):
            scan.claim(i, i + hit[1], "conjunction")
            found.add(i)
    return found


def _second_operations(ops: Sequence[OpHit], start: int, end: int) -> list[int]:
    """Inside one clause, a strong operation word of another type than the one before
    it opens a clause of its own ("культивація посів поле 3")."""
    starts: list[int] = []
    previous: OpHit | None = None
    for op in ops:
        if not op.strong or not start <= op.pos < end:
            continue
        if previous is not None and op.op_type != previous.op_type:
            starts.append(op.pos)
        previous = op
    return starts


def split_clauses(
    scan: Scan, rules: OperationRules, ops: Sequence[OpHit], markers: Sequence[Marker]
) -> list[Clause]:
    conjunctions = _conjunctions(scan, rules)
    bounds: list[tuple[int, int, int]] = []
    start, sentence = 0, 0
    for i in range(1, len(scan) + 1):
        clause, new_sentence = _breaks(scan, i) if i < len(scan) else (True, False)
        if clause or i in conjunctions:
            for cut in _second_operations(ops, start, i):
                bounds.append((start, cut, sentence))
                start = cut
            bounds.append((start, i, sentence))
            start = i
            sentence += int(new_sentence)
    if not bounds:
        return []
    record_sentences = {
        sentence
        for s, e, sentence in bounds
        if s == _sentence_start(bounds, sentence)
        and _starts_with_record(scan, rules, markers, s, e)
    }
    questions = _question_clauses(scan, rules, bounds, record_sentences)
    clauses = [
        _with_mood(
            scan,
            rules,
            Clause(s, e, sentence, question=k in questions, heading=":" in _tail(scan, e)),
            ops,
        )
        for k, (s, e, sentence) in enumerate(bounds)
    ]
    return _abandoned(scan, rules, clauses)


def _abandoned(scan: Scan, rules: OperationRules, clauses: list[Clause]) -> list[Clause]:
    """An intention that a later clause of its sentence contradicts was not carried
    out ("планували культивувати Хутір, але перенесли"): its clause is negated."""
    out: list[Clause] = []
    for k, clause in enumerate(clauses):
        intended = any(
            rules.intended.match_at(scan.norms, i) is not None
            for i in range(clause.start, clause.end)
        )
        contradicted = intended and any(
            later.sentence == clause.sentence and scan.norms[later.start] in rules.contrast
            for later in clauses[k + 1 :]
        )
        out.append(replace(clause, negated=True) if contradicted else clause)
    return out


# =========================================================================== questions

#: Names a question may put before its question word ("гречку коли косити").
_TOPICS = frozenset({"crop", "field"})
#: How far after that question word the operation asked about may stand.
_REACH = 2


def _sentence_start(bounds: Sequence[tuple[int, int, int]], sentence: int) -> int:
    return min(s for s, _, k in bounds if k == sentence)


def _starts_with_record(
    scan: Scan, rules: OperationRules, markers: Sequence[Marker], start: int, end: int
) -> bool:
    """ "Запиши ...", "log ...": a sentence that opens with a record command."""
    records = {m.pos for m in markers if m.record}
    i = _first_word(scan, rules, start, end)
    return i is not None and i in records


def _question_clauses(
    scan: Scan,
    rules: OperationRules,
    bounds: Sequence[tuple[int, int, int]],
    record_sentences: set[int],
) -> set[int]:
    """Clauses that ask:

    * every clause of a sentence that starts with a question word ("did we ...",
      "коли ...", "добрий день, підкажіть ...");
    * in a sentence ending in "?" (unless it opens with "запиши"), the clauses with a
      question word and all after the first of them ("Посіяли кукурудзу, коли краще
      прикатати?" asks only the second), or all of it when none has one;
    * elsewhere a clause that starts with a question word ("Сусід питає, чим ми
      обприскували поле 3").
    """
    found: set[int] = set()
    by_sentence: dict[int, list[int]] = {}
    for k, (_, _, sentence) in enumerate(bounds):
        by_sentence.setdefault(sentence, []).append(k)
    for sentence, members in by_sentence.items():
        first, last = bounds[members[0]], bounds[members[-1]]
        if _starts_question(scan, rules, first[0], last[1]):
            found.update(members)
            continue
        if sentence in record_sentences:
            continue
        if "?" in _tail(scan, last[1]):
            asking = [k for k in members if _has_question_word(scan, rules, *bounds[k][:2])]
            start = asking[0] if asking else members[0]
            found.update(k for k in members if k >= start)
            continue
        found.update(k for k in members if _starts_question(scan, rules, *bounds[k][:2]))
    return found


def _has_question_word(scan: Scan, rules: OperationRules, start: int, end: int) -> bool:
    return any(scan.norms[i] in rules.questions for i in range(start, end))


def _tail(scan: Scan, end: int) -> str:
    """What follows the last token of a clause, up to the next token."""
    stop = scan.tokens[end].start if end < len(scan) else len(scan.text)
    return scan.text[scan.tokens[end - 1].end : stop]


def _first_word(scan: Scan, rules: OperationRules, start: int, end: int) -> int | None:
    """The first token after greetings, fillers and conjunctions."""
    i = start
    while i < end and (scan.norms[i] in rules.lead_fillers or scan.claimed[i] == "conjunction"):
        i += 1
    return i if i < end else None


def _starts_question(scan: Scan, rules: OperationRules, start: int, end: int) -> bool:
    i = _first_word(scan, rules, start, end)
    if i is None:
        return False
    if scan.norms[i] in rules.questions:
        return True
    if _asks_about_topic(scan, rules, i, end):
        return True
    return scan.norms[i] in rules.auxiliaries and scan.norm(i + 1) in rules.pronouns


def _asks_about_topic(scan: Scan, rules: OperationRules, i: int, end: int) -> bool:
    """ "гречку коли косити", "поле 3 чим обробити": a crop or a field put first, then
    a question word right before the operation asked about (not a past one)."""
    j = i
    while j < end and scan.claimed[j] in _TOPICS:
        j += 1
    if j == i or j >= end or scan.norms[j] not in rules.questions:
        return False
    # "кукурудзу як завжди обприскали": a past operation is told, not asked about.
    return any(
        scan.claimed[k] == "operation" and verb_tense(scan.norms[k], rules) != "past"
        for k in range(j + 1, min(end, j + 1 + _REACH))
    )


# =========================================================================== mood


def _with_mood(scan: Scan, rules: OperationRules, clause: Clause, ops: Sequence[OpHit]) -> Clause:
    own_ops = [op for op in ops if op.pos in clause]
    op_positions = {op.pos for op in own_ops}
    negated = postponed = False
    negations = 0
    for i in range(clause.start, clause.end):
        if scan.claimed[i] is not None:
            continue  # only words no pass took carry the mood
        norm = scan.norms[i]
        if _said(rules.postpone, scan, i):
            postponed = True
            continue
        if norm in rules.negations:
            if scan.norm(i + 1) not in rules.partial:
                negated, negations = True, negations + 1
        elif norm in rules.answers:
            negations += 1
            negated = negated or (i + 1) in op_positions
        elif _called_off(scan, rules, i):
            negated = True
    negated = negated or _should_have(scan, rules, clause)
    elliptic = bool(negations) and not own_ops and _only_elliptic(scan, rules, clause)
    return Clause(
        clause.start,
        clause.end,
        clause.sentence,
        question=clause.question,
        negated=negated,
        elliptic=elliptic,
        postponed=postponed,
        heading=clause.heading,
    )


def _should_have(scan: Scan, rules: OperationRules, clause: Clause) -> bool:
    """ "треба було підживити": a plan word that says the work was not done."""
    return any(
        scan.claimed[i] == "marker" and _said(rules.wished, scan, i)
        for i in range(clause.start, clause.end)
    )


def _called_off(scan: Scan, rules: OperationRules, i: int) -> bool:
    """A cancel, wish, halt, someone-else or trade word or phrase starts at ``i``."""
    return any(
        _said(terms, scan, i)
        for terms in (rules.cancel, rules.wished, rules.halt, rules.others, rules.trade)
    )


def _said(terms: TermSet, scan: Scan, i: int) -> bool:
    """A word or a phrase ("on hold", "called off") of ``terms`` starts at token ``i``."""
    return terms.match_at(scan.norms, i) is not None


def _only_elliptic(scan: Scan, rules: OperationRules, clause: Clause) -> bool:
    """ "а ми ще ні", "but we haven't yet", "а на полі 5 ще ні" (names allowed)."""
    for i in range(clause.start, clause.end):
        norm, role = scan.norms[i], scan.claimed[i]
        if role in ("conjunction", "field", "crop", "marker", "date"):
            continue
        if norm in rules.negations or norm in rules.answers or norm in rules.elliptic:
            continue
        if rules.names.is_stopword(norm):
            continue
        return False
    return True
