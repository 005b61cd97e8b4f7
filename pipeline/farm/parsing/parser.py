"""The passes put together: one message in, one :class:`ParsedOperation` (or None) out."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Literal

from pipeline.farm.dictionary import Dictionary
from pipeline.farm.parsing.dates import find_dates, resolve_date
from pipeline.farm.parsing.names import (
    known_names,
    name_result,
    numbered_fields,
    unknown_crops,
    unknown_fields,
    unknown_terms,
)
from pipeline.farm.parsing.operations import (
    choose_operation,
    find_markers,
    find_operations,
    find_product,
    is_blocked,
    is_negated,
    is_question,
    product_hints,
    verb_signals,
)
from pipeline.farm.parsing.quantities import best_quantity, find_quantities
from pipeline.farm.parsing.rules import OperationRules
from pipeline.farm.parsing.scan import Scan

__all__ = ["OperationParser", "ParsedOperation", "Status"]

Status = Literal["planned", "done"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ParsedOperation:
    """One operation read from a message; ids are canonical or None, never made up.

    ``field_id`` is None when several fields are named: they are all in
    ``several_fields`` (canonical ids where known, the phrase otherwise).
    ``unknown_terms`` holds ``(kind, phrase)`` for names that were clearly given
    but are not in the dictionary, e.g. ``("field", "гора")``.
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


class OperationParser:
    """Reads operations with one set of rules (loaded once, in ``bot/factory.py``)."""

    def __init__(self, rules: OperationRules) -> None:
        self.rules = rules

    def parse(self, text: str, dictionary: Dictionary, today: date) -> ParsedOperation | None:
        """The operation ``text`` records or plans, or None when it is about something else."""
        rules = self.rules
        scan = Scan.of(text)
        if not scan.tokens or is_blocked(scan, rules):
            return None
        quantities = find_quantities(scan, rules.units)
        # Numbered fields before dates: "поле 3 тиждень тому" is not three weeks ago.
        fields = numbered_fields(scan, rules, dictionary)
        dates = find_dates(scan, rules.dates, today)
        signals = find_markers(scan, rules)
        fields += known_names(scan, rules, dictionary, "field")
        crops = known_names(scan, rules, dictionary, "crop")
        ops = find_operations(scan, rules, dictionary)
        hints = product_hints(scan, rules)
        quantity = best_quantity(quantities)
        evidence = signals.record or signals.plan or (quantity is not None and quantity.rate)
        op = choose_operation(ops, hints, rules, evidence)
        if op is None or is_question(scan, rules, signals) or is_negated(scan, rules, op.pos):
            return None
        if op.worded:
            verb_signals(scan.norms[op.pos], rules, signals)
        fields += unknown_fields(scan, rules)
        crop_verb = op.pos if op.worded and op.op_type in rules.crop_object_ops else None
        crops += unknown_crops(scan, rules, crop_verb)
        product = find_product(scan, rules, dictionary, hints)
        ahead = signals.plan and not signals.done
        op_date = resolve_date(dates[0] if dates else None, today, ahead)
        field_id, field_phrase, several = name_result(fields)
        crop_id, crop_phrase, _ = name_result(crops[:1])
        return ParsedOperation(
            op_type=op.op_type,
            field_id=field_id,
            field_phrase=field_phrase,
            crop_id=crop_id,
            crop_phrase=crop_phrase,
            quantity=quantity.value if quantity else None,
            unit=quantity.unit if quantity else None,
            product=product,
            op_date=op_date,
            status="planned" if op_date > today or ahead else "done",
            unknown_terms=unknown_terms([*fields, *crops]),
            several_fields=several,
        )
