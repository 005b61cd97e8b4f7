"""The pieces operations are assembled from (:mod:`.assemble`): one clause's hits (a
:class:`Part`), and an operation being put together (a :class:`Draft`), with the
questions asked when a clause meets an operation: does it say something the
operation already says differently, and what does it add.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from pipeline.farm.journal.parsing.clauses import Clause
from pipeline.farm.journal.parsing.dates import DateHit
from pipeline.farm.journal.parsing.names import NameHit
from pipeline.farm.journal.parsing.operations import Marker, OpHit
from pipeline.farm.journal.parsing.products import ProductHit, best_product
from pipeline.farm.journal.parsing.quantities import Quantity, slot_of

__all__ = [
    "Draft",
    "Hits",
    "Part",
    "Source",
    "absorb",
    "conflicts",
    "derive",
    "main_op",
    "part_of",
    "start",
    "with_elided_units",
]

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
    #: Numbers with no unit, left over by every pass: (position, value).
    numbers: Sequence[tuple[int, float]] = ()
    #: Words that look like a verb but name no operation ("згрібаємо", "поїхали").
    verbs: Sequence[int] = ()


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
    numbers: list[tuple[int, float]]
    verbs: list[int]

    @property
    def has_content(self) -> bool:
        return bool(self.fields or self.crops or self.products or self.quantities or self.dates)


@dataclass(slots=True)
class Draft:
    """An operation being put together from one or more clauses."""

    op: OpHit
    #: Only a product implies it: kept only with evidence (see :mod:`.assemble`).
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
        """The crop named after the operation word ("обприскали соняшник"), else the
        first one."""
        after = [hit for hit in self.crops if hit.pos > self.op.pos] or self.crops
        if not after:
            return None
        chosen = after[0]
        # "озимий ріпак": of two names in a row the second is the noun.
        following = [hit for hit in after if hit.pos == chosen.end]
        return following[0] if following else chosen

    @property
    def product(self) -> ProductHit | None:
        return best_product(self.products)


def part_of(clause: Clause, hits: Hits) -> Part:
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
        [(pos, value) for pos, value in hits.numbers if pos in clause],
        [pos for pos in hits.verbs if pos in clause],
    )


def main_op(part: Part) -> tuple[OpHit, Source, bool] | None:
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


def with_elided_units(part: Part, draft: Draft) -> Part:
    """What a clause about something else leaves out of its amount is the operation's:
    "зібрали 6 т/га на полі 1 і 5,2 на полі 2" (5,2 t/ha), "150 кг селітри на гектар на
    Поле 15 і 100 кг на Поле 4" (100 kg/ha)."""
    if len(draft.quantities) != 1 or not (part.fields or part.crops):
        return part  # "тривалість 10 годин" is no second amount
    model = draft.quantities[0]
    if not part.quantities and part.numbers:
        pos, value = part.numbers[0]
        elided = Quantity(value, model.unit, model.priority, pos, model.yield_said)
        return replace(part, quantities=[elided], numbers=part.numbers[1:])
    per, _, area = model.unit.partition("/")
    if len(part.quantities) == 1 and area and part.quantities[0].unit == per:
        said = part.quantities[0]
        return replace(part, quantities=[replace(said, unit=model.unit)])
    return part


def _slots(quantities: Sequence[Quantity], op_type: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for quantity in quantities:
        slot, value, _ = slot_of(quantity, op_type)
        out.setdefault(slot, value)
    return out


def conflicts(draft: Draft, part: Part) -> bool:
    """Whether the clause says something the operation already says differently."""
    if part.crops and draft.crops and part.crops[0].key != draft.crops[0].key:
        return True
    mine, theirs = draft.product, best_product(part.products)
    if (
        mine is not None
        and theirs is not None
        and not (mine.generic or theirs.generic)
        and mine.name != theirs.name
    ):
        return True
    if part.dates and draft.date is not None and part.dates[0].value != draft.date.value:
        return True
    said = _slots(draft.quantities, draft.op.op_type)
    heard = _slots(part.quantities, draft.op.op_type)
    return any(slot in said and said[slot] != value for slot, value in heard.items())


def new_fields(draft: Draft, part: Part) -> bool:
    keys = {hit.key for hit in draft.fields}
    return bool(part.fields) and bool(keys) and any(hit.key not in keys for hit in part.fields)


def absorb(draft: Draft, part: Part) -> None:
    keys = {hit.key for hit in draft.fields}
    draft.fields.extend(hit for hit in part.fields if hit.key not in keys)
    draft.crops.extend(part.crops)
    draft.products.extend(part.products)
    draft.quantities.extend(part.quantities)
    draft.quantities.extend(p.dose for p in part.products if p.dose is not None)
    if draft.date is None and part.dates:
        draft.date = part.dates[0]
    draft.markers.extend(part.markers)
    draft.words.extend(part.ops)
    draft.negated = draft.negated or part.clause.negated or _put_off(part)
    draft.question = draft.question and part.clause.question


def _put_off(part: Part) -> bool:
    """ "полив відклали": put off with no new date, so nothing is planned."""
    return part.clause.postponed and not part.dates


def _plan_of(part: Part) -> list[Marker]:
    """ "обприскування перенесли на понеділок": a plan for that day."""
    if part.clause.postponed and part.dates:
        return [Marker(part.dates[0].pos, plan=True)]
    return []


def start(part: Part, op: OpHit, implied: bool, lead: Sequence[Part]) -> Draft:
    draft = Draft(op, implied, part.clause.sentence)
    draft.bare = not part.has_content
    for earlier in lead:
        absorb(draft, earlier)
    absorb(draft, part)
    if part.dates:  # "вчора почали, а сьогодні закінчили збирати": its own day wins
        draft.date = part.dates[0]
    draft.markers.extend(_plan_of(part))
    draft.question = part.clause.question
    draft.negated = part.clause.negated or _put_off(part)
    return draft


def derive(current: Draft, part: Part, sowing: bool = False) -> Draft:
    """The same work as ``current`` on what this clause names instead: what it does
    not name is the same ("підживили пшеницю карбамідом 100 кг/га, а ячмінь — 80
    кг/га" is carbamide on the barley too), except that another crop is sown from other
    seed at another rate."""
    other_seed = sowing and bool(part.crops)
    keep_amounts = not (part.products or part.crops or part.quantities)
    draft = Draft(
        replace(current.op, worded=False),
        current.implied,
        part.clause.sentence,
        fields=list(part.fields or current.fields),
        crops=list(part.crops or current.crops),
        products=list(part.products or ([] if other_seed else current.products)),
        quantities=list(part.quantities or (current.quantities if keep_amounts else [])),
        date=part.dates[0] if part.dates else current.date,
        markers=[*current.markers, *part.markers, *_plan_of(part)],
        words=list(current.words),
        negated=part.clause.negated or _put_off(part),
        question=part.clause.question,
        derived=True,
    )
    draft.quantities.extend(p.dose for p in part.products if p.dose is not None)
    return draft
