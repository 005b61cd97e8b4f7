"""Operations from clauses: each clause's names, amounts, products and dates bind to
the operation of that clause.

* A clause with its own operation word starts a new operation, unless it only goes
  on with the one before (the same operation, nothing said twice differently:
  "Раундап 3 л/га на Леваді, обробили 40 га").
* A clause with no operation word continues the operation before it when it adds to
  it ("…; норма 1,5 л/га; дата 13.05"), names more fields for it ("Поле 3 та Поле
  7"), or is the same work on something else ("посіяли соняшник на Кургані і
  кукурудзу на Дальньому": a second sowing, of maize, on Дальнє).
* A product alone implies its operation ("Прима Форте 0,6 л/га на пшениці") when
  something says it is an operation: a place and an amount or a date, a record or
  plan command, or a weak operation word.
* Afterwards an operation without a field takes the one of the operation before it
  ("Вчора на полі 3 дискували, а сьогодні посіяли горох"), or of the next one when
  its clause said nothing else ("дискування і прикатування поля 3"); a date carries
  forward the same way unless the tense says otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Literal

from pipeline.farm.parsing.clauses import Clause
from pipeline.farm.parsing.dates import DateHit
from pipeline.farm.parsing.names import NameHit
from pipeline.farm.parsing.operations import Marker, OpHit
from pipeline.farm.parsing.products import ProductHit, best_product
from pipeline.farm.parsing.quantities import Quantity, slot_of

__all__ = ["Draft", "Hits", "assemble", "fill_gaps"]

#: What named a clause's operation: its own word, a product, or a weak word
#: ("обробили") that may go on with any operation before it.
Source = Literal["strong", "product", "weak"]


@dataclass(frozen=True, slots=True)
class Hits:
    """Everything the passes found in a message, with positions."""

    ops: Sequence[OpHit]
    fields: Sequence[NameHit]
    crops: Sequence[NameHit]
    products: Sequence[ProductHit]
    quantities: Sequence[Quantity]
    dates: Sequence[DateHit]
    markers: Sequence[Marker]


@dataclass(slots=True)
class Part:
    """One clause's hits."""

    clause: Clause
    ops: list[OpHit]
    fields: list[NameHit]
    crops: list[NameHit]
    products: list[ProductHit]
    quantities: list[Quantity]
    dates: list[DateHit]
    markers: list[Marker]

    @property
    def has_content(self) -> bool:
        return bool(self.fields or self.crops or self.products or self.quantities or self.dates)

    @property
    def only_fields(self) -> bool:
        return bool(self.fields) and not (
            self.ops or self.crops or self.products or self.quantities
        )


@dataclass(slots=True)
class Draft:
    """An operation being put together from one or more clauses."""

    op: OpHit
    #: Only a product implies it: kept only with evidence (module docstring).
    implied: bool
    sentence: int
    fields: list[NameHit] = field(default_factory=list)
    crops: list[NameHit] = field(default_factory=list)
    products: list[ProductHit] = field(default_factory=list)
    quantities: list[Quantity] = field(default_factory=list)
    date: DateHit | None = None
    markers: list[Marker] = field(default_factory=list)
    words: list[OpHit] = field(default_factory=list)
    negated: bool = False
    question: bool = False
    #: Its own clause said nothing but the operation (and markers).
    bare: bool = False
    #: Continues the operation before it on something else (no operation word).
    derived: bool = False

    @property
    def crop(self) -> NameHit | None:
        return self.crops[0] if self.crops else None

    @property
    def product(self) -> ProductHit | None:
        return best_product(self.products)


def _part(clause: Clause, hits: Hits) -> Part:
    def inside(items: Sequence[object]) -> list[object]:
        return [item for item in items if getattr(item, "pos", -1) in clause]

    return Part(
        clause,
        inside(hits.ops),  # type: ignore[arg-type]
        inside(hits.fields),  # type: ignore[arg-type]
        inside(hits.crops),  # type: ignore[arg-type]
        inside(hits.products),  # type: ignore[arg-type]
        inside(hits.quantities),  # type: ignore[arg-type]
        inside(hits.dates),  # type: ignore[arg-type]
        inside(hits.markers),  # type: ignore[arg-type]
    )


def _main_op(part: Part) -> tuple[OpHit, Source, bool] | None:
    """The clause's operation: a strong word; else what its product implies (a weak
    word with it, "внесли гербіцид", makes it said); else a weak word. The flag says
    only a word for a kind ("насіння", "препарат") implies it."""
    strong = [op for op in part.ops if op.strong]
    if strong:
        return strong[0], "strong", False
    weak = [op for op in part.ops if not op.strong]
    implying = [p for p in part.products if p.implies is not None]
    specific = [p for p in implying if not p.generic] or implying
    if specific:
        product = specific[0]
        pos = weak[0].pos if weak else product.pos
        hint = product.name is None and not weak
        return OpHit(str(product.implies), pos, False, worded=bool(weak)), "product", hint
    if weak:
        return weak[0], "weak", False
    return None


def _slots(draft: Draft) -> dict[str, float]:
    out: dict[str, float] = {}
    for quantity in draft.quantities:
        slot, value, _ = slot_of(quantity, draft.op.op_type)
        out.setdefault(slot, value)
    return out


def _conflicts(draft: Draft, part: Part, op_type: str) -> bool:
    """Whether the clause says something the operation already says differently."""
    if part.crops and draft.crops and part.crops[0].key != draft.crops[0].key:
        return True
    mine, theirs = draft.product, best_product(part.products)
    named = mine is not None and theirs is not None and not (mine.generic or theirs.generic)
    if named and mine is not None and theirs is not None and mine.name != theirs.name:
        return True
    if part.dates and draft.date is not None and part.dates[0].value != draft.date.value:
        return True
    return _amounts_differ(draft, part, op_type)


def _amounts_differ(draft: Draft, part: Part, op_type: str) -> bool:
    said = _slots(draft)
    probe = Draft(replace(draft.op, op_type=op_type), False, 0, quantities=part.quantities)
    return any(slot in said and said[slot] != value for slot, value in _slots(probe).items())


def _new_fields(draft: Draft, part: Part) -> bool:
    keys = {hit.key for hit in draft.fields}
    return bool(part.fields) and bool(keys) and any(hit.key not in keys for hit in part.fields)


def _absorb(draft: Draft, part: Part) -> None:
    draft.fields.extend(hit for hit in part.fields if hit.key not in {f.key for f in draft.fields})
    draft.crops.extend(part.crops)
    draft.products.extend(part.products)
    draft.quantities.extend(part.quantities)
    draft.quantities.extend(p.dose for p in part.products if p.dose is not None)
    if draft.date is None and part.dates:
        draft.date = part.dates[0]
    draft.markers.extend(part.markers)
    draft.words.extend(part.ops)
    draft.negated = draft.negated or part.clause.negated
    draft.question = draft.question and part.clause.question


def _start(part: Part, op: OpHit, implied: bool, lead: list[Part]) -> Draft:
    draft = Draft(op, implied, part.clause.sentence, question=part.clause.question)
    draft.bare = not part.has_content
    for earlier in lead:
        _absorb(draft, earlier)
    draft.question = part.clause.question
    _absorb(draft, part)
    draft.negated = part.clause.negated
    return draft


def _derive(current: Draft, part: Part) -> Draft:
    """The same work as ``current`` on what this clause names instead."""
    own_thing = bool(part.products or part.crops or part.quantities)
    draft = Draft(
        replace(current.op, worded=False),
        current.implied,
        part.clause.sentence,
        fields=list(part.fields or current.fields),
        crops=list(part.crops or current.crops),
        products=list(part.products or ([] if own_thing else current.products)),
        quantities=list(part.quantities or ([] if own_thing else current.quantities)),
        date=part.dates[0] if part.dates else current.date,
        markers=[*current.markers, *part.markers],
        words=list(current.words),
        negated=part.clause.negated,
        question=part.clause.question,
        derived=True,
    )
    draft.quantities.extend(p.dose for p in part.products if p.dose is not None)
    return draft


Tense = Callable[[Sequence[Marker], Sequence[OpHit]], tuple[bool, bool]]


@dataclass(frozen=True, slots=True)
class _Context:
    """What the assembly needs besides the hits: the day and how to read a tense
    (whether markers and operation words say "ahead" and "done")."""

    today: date
    tense: Tense


def assemble(clauses: Sequence[Clause], hits: Hits, today: date, tense: Tense) -> list[Draft]:
    context = _Context(today, tense)
    drafts: list[Draft] = []
    lead: list[Part] = []
    current: Draft | None = None
    for clause in clauses:
        part = _part(clause, hits)
        if clause.elliptic:
            if current is not None and not (part.fields or part.crops):
                current.negated = True  # "Сусід вже посіяв кукурудзу, а ми ще ні"
            continue
        found = _main_op(part)
        if found is not None and found[2] and current is not None:
            found = None  # "…, насіння соняшнику": what the operation before was done to
        if found is None:
            if current is None:
                lead.append(part)
            elif part.has_content:
                current = _continue(drafts, current, part, context)
            else:
                current.markers.extend(part.markers)
            continue
        op, source, _ = found
        if current is not None and _goes_on(current, part, op, source, context):
            _absorb(current, part)
            continue
        current = _start(part, op, source == "product" and not op.worded, lead)
        lead = []
        drafts.append(current)
    return drafts


def _continue(drafts: list[Draft], current: Draft, part: Part, context: _Context) -> Draft:
    """A clause with no operation word after ``current``: more of it, more fields for
    it ("поле 3, поле 5 і поле 7 Раундапом"), or the same work on something else."""
    if _conflicts(current, part, current.op.op_type) or _tense_conflict(current, part, context):
        derived = _derive(current, part)
        drafts.append(derived)
        return derived
    _absorb(current, part)
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
    if _conflicts(current, part, current.op.op_type) or _tense_conflict(current, part, context):
        return False
    # "поле 5 прикатали, поле 12 прикатали": a second word with its own field is a new
    # operation; "обприскали поле 3, поле 5 і поле 7 Раундапом" names more fields.
    return not (source == "strong" and part.fields and current.fields)


def fill_gaps(drafts: Sequence[Draft], date_fits: Callable[[Draft, DateHit], bool]) -> None:
    """Fields and dates carried over between the operations of one message (module
    docstring); ``date_fits`` says whether a date suits an operation's tense."""
    for k, draft in enumerate(drafts):
        if not draft.fields:
            source = _before(drafts, k, lambda d: bool(d.fields))
            if source is None:
                source = _after(drafts, k, _field_giver(draft.bare))
            if source is not None:
                draft.fields = list(source.fields)
        if draft.date is None:
            for found in (_before, _after):
                source = found(drafts, k, lambda d: d.date is not None)
                if source is not None and source.date is not None:
                    if date_fits(draft, source.date):
                        draft.date = source.date
                    break


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
