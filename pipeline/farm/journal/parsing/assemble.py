"""Operations from clauses: each clause's names, amounts, products and dates bind to
the operation of that clause.

* A clause with its own operation word starts a new operation, unless it only goes
  on with the one before (the same operation, nothing said twice differently:
  "Раундап 3 л/га на Леваді, обробили 40 га").
* A clause with no operation word continues the operation before it when it adds to
  it ("…; норма 1,5 л/га; дата 13.05") or names more fields for it ("обприскали поле
  3, поле 5 і поле 7 Раундапом"); when it says something the operation already says
  differently it is the same work on something else ("посіяли соняшник на Кургані і
  кукурудзу на Дальньому": a second sowing, of maize, on Дальнє; "6 т/га на полі 1 і
  5,2 на полі 2": the unit left out is the one before).
* A clause ending in ":" is a heading for what follows ("field 2: rolled").
* A product alone implies its operation ("Прима Форте 0,6 л/га на пшениці") when
  something says it is an operation: a place and an amount or a date, a record or
  plan command, or a weak operation word.
* Afterwards an operation without a field takes the one of the operation before it
  ("Вчора на полі 3 дискували, а сьогодні посіяли горох"), or of the next one when its
  clause said nothing else ("дискування і прикатування поля 3") or the next one goes
  on from it ("посіяли горох і овес на полі 5"); a date carries over the same way when
  the tense allows it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date

from pipeline.farm.journal.parsing.clauses import Clause
from pipeline.farm.journal.parsing.drafts import (
    Draft,
    Hits,
    Part,
    Source,
    absorb,
    conflicts,
    derive,
    main_op,
    new_fields,
    part_of,
    start,
    with_elided_units,
)
from pipeline.farm.journal.parsing.operations import Marker, OpHit

__all__ = ["Tense", "assemble", "fill_gaps"]

#: Whether markers and operation words say (ahead, done).
Tense = Callable[[Sequence[Marker], Sequence[OpHit]], tuple[bool, bool]]


@dataclass(frozen=True, slots=True)
class _Context:
    today: date
    tense: Tense
    #: Operations whose object is a crop (sowing, harvest): another crop, another seed.
    crop_object: frozenset[str] = frozenset()


@dataclass(slots=True)
class _State:
    drafts: list[Draft]
    current: Draft | None = None
    #: Clauses before the first operation: they belong to it.
    lead: list[Part] | None = None
    #: Headings after an operation ("field 2:"): the next clause decides whose they are.
    held: list[Part] | None = None


def assemble(
    clauses: Sequence[Clause],
    hits: Hits,
    today: date,
    tense: Tense,
    crop_object: frozenset[str] = frozenset(),
) -> list[Draft]:
    context = _Context(today, tense, crop_object)
    state = _State([], lead=[], held=[])
    for clause in clauses:
        _step(state, part_of(clause, hits), context)
    if state.current is not None:
        for part in state.held or ():
            absorb(state.current, part)
    return state.drafts


def _step(state: _State, part: Part, context: _Context) -> None:
    current = state.current
    if part.clause.elliptic:
        _elliptic(current, part)
        return
    found = main_op(part)
    if found is not None and found[2] and current is not None:
        found = None  # "…, насіння соняшнику": what the operation before was done to
    if found is None:
        _without_operation(state, current, part, context)
        return
    op, source, _ = found
    if current is not None and source == "product" and op.op_type == current.op.op_type:
        _release(state, current)
        state.current = _continue(state.drafts, current, part, context)  # "а на полі 4 — КАС"
        return
    if current is not None and _goes_on(current, part, op, source, context):
        _release(state, current)
        absorb(current, part)
        return
    lead, held = state.lead or [], state.held or []
    draft = start(part, op, source == "product" and not op.worded, [*lead, *held])
    state.drafts.append(draft)
    state.current, state.lead, state.held = draft, [], []


def _elliptic(current: Draft | None, part: Part) -> None:
    """An elliptic negation ("а ми ще ні") negates the operation before it unless it
    names a field or a crop of its own."""
    if current is not None and not (part.fields or part.crops):
        current.negated = True  # "Сусід вже посіяв кукурузу, а ми ще ні"


def _without_operation(state: _State, current: Draft | None, part: Part, context: _Context) -> None:
    """A clause with no operation of its own: held for the next operation, or what the
    current one goes on with."""
    if part.verbs and not (part.quantities or part.products):
        # "…, а сьогодні згрібаємо": another kind of work; "вийшло 5,1 т/га" is a result.
        return
    lead, held = state.lead or [], state.held or []
    if current is None:
        lead.append(part)
    elif part.clause.heading:
        held.append(part)
    elif part.has_content or part.numbers:
        _release(state, current)
        state.current = _continue(state.drafts, current, part, context)
    else:
        current.markers.extend(part.markers)
    state.lead, state.held = lead, held


def _release(state: _State, current: Draft) -> None:
    """Headings held back belong to the operation that goes on."""
    for part in state.held or ():
        absorb(current, part)
    state.held = []


def _continue(drafts: list[Draft], current: Draft, part: Part, context: _Context) -> Draft:
    """A clause with no operation word of its own after ``current``."""
    part = with_elided_units(part, current)
    if conflicts(current, part) or _tense_conflict(current, part, context):
        derived = derive(current, part, sowing=current.op.op_type in context.crop_object)
        drafts.append(derived)
        return derived
    absorb(current, part)
    return current


def _tense_conflict(current: Draft, part: Part, context: _Context) -> bool:
    """ "полили Курган, а Дальнє завтра": a date the operation's tense cannot have."""
    day = next((hit.value for hit in part.dates if hit.value is not None), None)
    if day is None or day == context.today:
        return False
    ahead, done = context.tense(current.markers, current.words)
    if day > context.today:
        return done and not ahead
    return ahead and not done


def _goes_on(current: Draft, part: Part, op: OpHit, source: Source, context: _Context) -> bool:
    """A clause with an operation word that still describes ``current``."""
    if part.clause.negated != current.negated or part.clause.question != current.question:
        return False
    if source != "weak" and op.op_type != current.op.op_type:
        return False
    if conflicts(current, part) or _tense_conflict(current, part, context):
        return False
    # "поле 5 прикатали, поле 12 прикатали": a second word with its own field is a new
    # operation; "обприскали поле 3, поле 5 і поле 7 Раундапом" names more fields.
    return not (source == "strong" and part.fields and current.fields and new_fields(current, part))


# =========================================================================== gaps

#: Whether ``draft`` may take ``source``'s date; ``backward`` when the source comes after.
MayShare = Callable[[Draft, Draft, bool], bool]


def fill_gaps(
    drafts: Sequence[Draft], may_share: MayShare, crop_object: frozenset[str] = frozenset()
) -> None:
    """Fields and dates carried over between the operations of one message (module
    docstring); a sowing or a harvest with no crop of its own is of the crop the
    operation before it in the sentence worked ("скосили горох і обмолотили")."""
    for k, draft in enumerate(drafts):
        if not draft.crops and draft.op.op_type in crop_object and k > 0:
            worked = drafts[k - 1]
            if worked.sentence == draft.sentence and worked.crops:
                draft.crops = list(worked.crops)
        if not draft.fields:
            source = _before(drafts, k, lambda d: bool(d.fields))
            if source is None:
                source = _after(drafts, k, _field_giver(draft.bare))
            if source is not None:
                draft.fields = list(source.fields)
        if draft.date is None:
            before = _before(drafts, k, lambda d: d.date is not None)
            after = _after(drafts, k, lambda d: d.date is not None) if before is None else None
            source, backward = (before, False) if before is not None else (after, True)
            if source is not None and may_share(draft, source, backward):
                draft.date = source.date


def _field_giver(bare: bool) -> Callable[[Draft], bool]:
    """A later operation lends its fields to a bare one ("дискування і прикатування
    поля 3"), and to the one it goes on from ("посіяли горох і овес на полі 5")."""
    return lambda later: bool(later.fields) and (bare or later.derived)


def _before(drafts: Sequence[Draft], k: int, has: Callable[[Draft], bool]) -> Draft | None:
    """The nearest operation before ``k`` that has it."""
    for before in reversed(drafts[:k]):
        if has(before):
            return before
    return None


def _after(drafts: Sequence[Draft], k: int, has: Callable[[Draft], bool]) -> Draft | None:
    """The nearest operation after ``k`` in the same sentence that has it."""
    for after in drafts[k + 1 :]:
        if after.sentence != drafts[k].sentence:
            return None
        if has(after):
            return after
    return None
