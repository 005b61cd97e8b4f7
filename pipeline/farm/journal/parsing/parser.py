"""The passes put together: one message in, a :class:`ParsedMessage` (its operations,
each with its own field, crop, product, amounts, date and status) out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Literal

from pipeline.farm.dictionary import Dictionary
from pipeline.farm.journal.parsing.assemble import assemble, fill_gaps
from pipeline.farm.journal.parsing.clauses import split_clauses
from pipeline.farm.journal.parsing.dates import DateHit, find_dates, resolve_date
from pipeline.farm.journal.parsing.drafts import Draft, Hits
from pipeline.farm.journal.parsing.names import (
    NameHit,
    known_names,
    name_result,
    numbered_fields,
    plain_word,
    unknown_crops,
    unknown_fields,
    unknown_terms,
)
from pipeline.farm.journal.parsing.operations import (
    Marker,
    OpHit,
    find_markers,
    find_operations,
    is_blocked,
    verb_tense,
)
from pipeline.farm.journal.parsing.ordinals import ordinal_fields
from pipeline.farm.journal.parsing.products import find_products, unknown_products
from pipeline.farm.journal.parsing.quantities import find_quantities, slot_of
from pipeline.farm.journal.parsing.rules import OperationRules
from pipeline.farm.journal.parsing.scan import Scan

__all__ = ["Mood", "OperationParser", "ParsedMessage", "ParsedOperation", "Status"]

Status = Literal["planned", "done"]
#: What a message is: operations to record, a question, an operation that did not or
#: will not happen here ("ще не посіяли", "обприскування відміняється", "збирання
#: стоїть", "сусід посіяв", "купили селітру"), or nothing of the kind.
Mood = Literal["record", "question", "negated", "none"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ParsedOperation:
    """One operation read from a message; ids are canonical or None, never made up.

    ``field_id`` is None when several fields are named: they are all in
    ``several_fields`` (canonical ids where known, the phrase otherwise), and
    ``field_names`` names each as the farm does ("Поле 3", or "поле 5" when unknown).
    ``unknown_terms`` holds ``(kind, phrase)`` for names that were clearly given
    but are not in the dictionary, e.g. ``("field", "гора")``.

    Amounts are kept apart: ``rate`` per hectare (or per tonne of seed, or a depth of
    water in mm) with ``rate_unit``, the ``amount`` in total with ``amount_unit``, the
    ``area_ha`` treated and the ``yield_t_ha`` of a harvest. ``quantity``/``unit``
    repeat the first of rate, yield, amount, area (what one number on a card shows).
    ``product`` is the canonical name (the catalogue's, the farm's, or the words as
    written when neither knows it); ``product_phrase`` as written.
    """

    op_type: str
    field_id: str | None = None
    field_phrase: str | None = None
    crop_id: str | None = None
    crop_phrase: str | None = None
    quantity: float | None = None
    unit: str | None = None
    product: str | None = None
    op_date: date
    status: Status
    unknown_terms: tuple[tuple[str, str], ...] = ()
    several_fields: tuple[str, ...] = ()
    field_names: tuple[str, ...] = ()
    crop_name: str | None = None
    product_phrase: str | None = None
    product_type: str | None = None
    rate: float | None = None
    rate_unit: str | None = None
    amount: float | None = None
    amount_unit: str | None = None
    area_ha: float | None = None
    yield_t_ha: float | None = None


@dataclass(frozen=True, slots=True)
class ParsedMessage:
    """Every operation a message records or plans, in the order written."""

    operations: tuple[ParsedOperation, ...] = ()
    mood: Mood = "none"

    @property
    def record(self) -> bool:
        return bool(self.operations)

    @property
    def first(self) -> ParsedOperation | None:
        return self.operations[0] if self.operations else None


_NOTHING = ParsedMessage()
_MIN_VERB = 5


@dataclass(frozen=True, slots=True)
class _Signals:
    plan: bool
    done: bool
    record: bool

    @property
    def ahead(self) -> bool:
        return self.plan and not self.done


class OperationParser:
    """Reads operations with one set of rules (loaded once, in ``bot/wiring/factory.py``)."""

    def __init__(self, rules: OperationRules) -> None:
        self.rules = rules

    def parse(self, text: str, dictionary: Dictionary, today: date) -> ParsedOperation | None:
        """The first operation ``text`` records or plans (see :meth:`parse_all`)."""
        return self.parse_all(text, dictionary, today).first

    def parse_all(self, text: str, dictionary: Dictionary, today: date) -> ParsedMessage:
        """Every operation ``text`` records or plans; none when it asks, negates,
        cancels, or is about something else."""
        rules = self.rules
        scan = Scan.of(text, rules.dates.numbers, rules.is_unit_at)
        if not scan.tokens or is_blocked(scan, rules):
            return _NOTHING
        quantities = find_quantities(scan, rules.units, rules.yield_words, rules.each)
        # Numbered fields before dates: "поле 3 тиждень тому" is not three weeks ago.
        fields = numbered_fields(scan, rules, dictionary)
        fields += ordinal_fields(scan, rules, dictionary)
        dates = find_dates(scan, rules.dates, today)
        markers = find_markers(scan, rules)
        fields += known_names(scan, rules, dictionary, "field")
        crops = known_names(scan, rules, dictionary, "crop")
        # Operations before products: "обробили насіння" is a seed treatment, not seed.
        ops = find_operations(scan, rules, dictionary)
        products = find_products(scan, rules, dictionary)
        if not ops and not any(product.implies for product in products):
            return _NOTHING
        clauses = split_clauses(scan, rules, ops, markers)
        products += unknown_products(scan, rules, products, quantities)
        quantities += [p.dose for p in products if p.dose is not None]
        _add_worded_unknowns(scan, rules, ops, fields, crops)
        numbers = _bare_numbers(scan)
        others = [i for i in range(len(scan)) if _other_verb(scan, rules, i)]
        hits = Hits(ops, fields, crops, products, quantities, dates, markers, numbers, others)
        drafts = assemble(clauses, hits, today, self._tense, rules.crop_object_ops)
        signals = [self._signals(draft, markers, today) for draft in drafts]
        by_draft = {id(draft): found for draft, found in zip(drafts, signals, strict=True)}

        def may_share(draft: Draft, source: Draft, backward: bool) -> bool:
            mine, theirs = by_draft[id(draft)], by_draft[id(source)]
            # A date said after an operation is its own only in the same mood:
            # "обприскування Фалькон, посів запланували на 20.05" plans the sowing only.
            same_mood = (mine.plan, mine.done) == (theirs.plan, theirs.done)
            if backward and not (draft.bare or source.derived) and not same_mood:
                return False
            return source.date is not None and _date_fits(source.date, mine, today)

        fill_gaps(drafts, may_share, rules.crop_object_ops)
        return _verdict(self._kept(drafts, by_draft, bool(markers), today), drafts)

    def _kept(
        self,
        drafts: Sequence[Draft],
        by_draft: dict[int, _Signals],
        any_marker: bool,
        today: date,
    ) -> list[ParsedOperation]:
        """The operations of the drafts that neither ask nor negate and are evident."""
        return [
            self._operation(draft, by_draft[id(draft)], today)
            for draft in drafts
            if not (draft.negated or draft.question)
            and _evident(draft, any_marker, any(self._moods([], draft.words)[1:]))
        ]

    def _tense(self, markers: Sequence[Marker], words: Sequence[OpHit]) -> tuple[bool, bool]:
        """(ahead, done) as markers and operation words say it."""
        said_ahead, verb_ahead, done = self._moods(markers, words)
        return said_ahead or verb_ahead, done

    def _moods(self, markers: Sequence[Marker], words: Sequence[OpHit]) -> tuple[bool, bool, bool]:
        """(ahead by a word like "треба", ahead by the verb's ending, done)."""
        said_ahead = any(m.plan or m.future for m in markers)
        done = any(m.done for m in markers)
        verb_ahead = False
        for op in words:
            tense = verb_tense(op.word, self.rules) if op.worded else None
            verb_ahead |= tense == "future"
            done |= tense == "past"
        return said_ahead, verb_ahead, done

    def _signals(self, draft: Draft, markers: Sequence[Marker], today: date) -> _Signals:
        said_ahead, verb_ahead, done = self._moods(draft.markers, draft.words)
        # "сьогодні косимо люцерну": the present, which looks like a future, is today's.
        today_said = draft.date is not None and draft.date.value == today
        plan = said_ahead or (verb_ahead and not today_said)
        # "заплануй обприскування поле 3 і полив поле 5": a plan command covers what
        # follows it unless an operation says it is done.
        commands = [m.pos for m in markers if m.plan]
        if commands and min(commands) <= draft.op.pos and not done:
            plan = True
        record = any(m.record for m in draft.markers)
        return _Signals(plan, done, record)

    def _op_type(self, draft: Draft) -> str:
        """Between operations that apply a product, the product's type decides."""
        op_type = draft.op.op_type
        product = draft.product
        implied = product.implies if product is not None else None
        application = self.rules.application_ops
        if implied is not None and op_type in application and implied in application:
            return implied
        return op_type

    def _operation(self, draft: Draft, signals: _Signals, today: date) -> ParsedOperation:
        op_date = resolve_date(draft.date, today, signals.ahead, signals.done)
        field_id, field_phrase, several = name_result(draft.fields)
        crop = draft.crop
        crop_id, crop_phrase, _ = name_result([crop] if crop is not None else [])
        product = draft.product
        amounts = _amounts(draft, self.rules.bare_rates)
        primary = _primary(amounts)
        return ParsedOperation(
            op_type=self._op_type(draft),
            field_id=field_id,
            field_phrase=field_phrase,
            crop_id=crop_id,
            crop_phrase=crop_phrase,
            quantity=primary[0] if primary else None,
            unit=primary[1] if primary else None,
            product=product.name if product else None,
            op_date=op_date,
            status="planned" if op_date > today or signals.ahead else "done",
            unknown_terms=unknown_terms([*draft.fields, *draft.crops[:1]]),
            several_fields=several,
            field_names=_names(draft.fields),
            crop_name=_names([crop])[0] if crop is not None else None,
            product_phrase=product.phrase if product else None,
            product_type=product.type if product else None,
            rate=amounts.get("rate", (None, None))[0],
            rate_unit=amounts.get("rate", (None, None))[1],
            amount=amounts.get("amount", (None, None))[0],
            amount_unit=amounts.get("amount", (None, None))[1],
            area_ha=amounts.get("area", (None, None))[0],
            yield_t_ha=amounts.get("yield", (None, None))[0],
        )


def _verdict(kept: list[ParsedOperation], drafts: Sequence[Draft]) -> ParsedMessage:
    """Operations to record, else a question or a negation if a draft was one."""
    if kept:
        return ParsedMessage(tuple(kept), "record")
    if any(draft.question for draft in drafts):
        return ParsedMessage((), "question")
    if any(draft.negated for draft in drafts):
        return ParsedMessage((), "negated")
    return _NOTHING


def _add_worded_unknowns(
    scan: Scan,
    rules: OperationRules,
    ops: Sequence[OpHit],
    fields: list[NameHit],
    crops: list[NameHit],
) -> None:
    """Adds, in place, the fields the dictionary lacks (a capitalised name right after
    an operation word: "полили Північне 20 мм") and the unknown crops a sowing or
    harvest verb takes as object ("посіяли люпин")."""
    worded = [op for op in ops if op.worded and op.strong]
    fields += unknown_fields(scan, rules, [op.end for op in worded])
    for op in worded:
        if op.op_type in rules.crop_object_ops:
            crops += unknown_crops(scan, rules, op.end - 1)


def _bare_numbers(scan: Scan) -> list[tuple[int, float]]:
    """Every number token with its value: (position, value)."""
    return [
        (i, float(scan.norms[i].replace(",", "."))) for i in range(len(scan)) if scan.number_at(i)
    ]


def _other_verb(scan: Scan, rules: OperationRules, i: int) -> bool:
    """A word no pass took that ends like a verb: some other work ("згрібаємо")."""
    norm = scan.norms[i]
    endings = (*rules.past_endings, *rules.future_endings, *rules.present_endings,
               *rules.not_crop_endings)  # fmt: skip
    return (
        plain_word(scan, rules, i)
        and len(norm) >= _MIN_VERB
        and not scan.capitalised(i)
        and norm.endswith(endings)
    )


def _amounts(
    draft: Draft, bare_rates: dict[str, dict[str, float]]
) -> dict[str, tuple[float | None, str | None]]:
    found: dict[str, tuple[float | None, str | None]] = {}
    for quantity in sorted(draft.quantities, key=lambda q: q.pos):
        slot, value, unit = slot_of(quantity, draft.op.op_type, bare_rates)
        found.setdefault(slot, (value, unit))
    return found


def _primary(amounts: dict[str, tuple[float | None, str | None]]) -> tuple[float, str] | None:
    for slot in ("rate", "yield", "amount", "area"):
        value, unit = amounts.get(slot, (None, None))
        if value is not None and unit is not None:
            return value, unit
    return None


def _names(hits: Sequence[NameHit]) -> tuple[str, ...]:
    seen: dict[str, str] = {}
    for hit in hits:
        name = hit.entry.display if hit.entry is not None else (hit.unknown or hit.phrase)
        seen.setdefault(hit.key, name)
    return tuple(seen.values())


def _date_fits(hit: DateHit, signals: _Signals, today: date) -> bool:
    """A date carried over from another operation must not contradict this one's
    tense ("завтра обприскаємо поле 3, а поле 5 вже полили")."""
    if hit.value is None:
        return True
    if hit.value > today:
        return not (signals.done and not signals.plan)
    if hit.value < today:
        return not signals.ahead
    return True


def _evident(draft: Draft, any_marker: bool, tensed: bool) -> bool:
    """Something must say an operation happened (or will): an operation word alone
    ("обприскування", "Полив — наш головний біль") needs a tense, a marker or
    anything it was done to or with; one implied by a product alone needs a record or
    plan word, or a place with an amount or a date."""
    place = bool(draft.fields or draft.crops)
    if not draft.implied:
        said = place or draft.products or draft.quantities or draft.date is not None
        return bool(said or draft.markers or tensed)
    if any_marker:
        return True
    return place and bool(draft.quantities or draft.date is not None)
