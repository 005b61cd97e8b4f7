"""What a fragment of a message names, without reading it as an operation: the
amounts, fields, dates, operations, products and crops in "не 150, а 120 кг/га", "на
полі 3", "позавчора", "сівба", "Абакус". A correction compares the pieces of what
was wrong with those of what is right (pipeline/farm/journal/edits)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from pipeline.farm.dictionary import Dictionary
from pipeline.farm.journal.parsing.dates import find_dates, resolve_date
from pipeline.farm.journal.parsing.names import NameHit, known_names, numbered_fields
from pipeline.farm.journal.parsing.operations import find_operations
from pipeline.farm.journal.parsing.products import ProductHit, find_products
from pipeline.farm.journal.parsing.quantities import Quantity, find_quantities
from pipeline.farm.journal.parsing.rules import OperationRules
from pipeline.farm.journal.parsing.scan import Scan

__all__ = ["Amount", "Pieces", "read_pieces"]


@dataclass(frozen=True, slots=True)
class Amount:
    """A number, with its unit when one was said ("120 кг/га"; "120" has none)."""

    value: float
    unit: str | None


@dataclass(frozen=True, slots=True)
class Pieces:
    amounts: tuple[Amount, ...] = ()
    fields: tuple[str, ...] = ()  #: field ids the farm's dictionary knows
    dates: tuple[date, ...] = ()  #: resolved as past days ("вчора", "12.05")
    ops: tuple[str, ...] = ()  #: operation types
    products: tuple[str, ...] = ()  #: canonical product names
    crops: tuple[str, ...] = ()  #: crop ids
    #: Fields named by number the dictionary does not hold («поле 9» of another farm).
    other_fields: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not (
            self.amounts or self.fields or self.dates or self.ops or self.products or self.crops
        )


def read_pieces(text: str, rules: OperationRules, dictionary: Dictionary, today: date) -> Pieces:
    """The pieces ``text`` names, in the order the operation parser claims them."""
    scan = Scan.of(text, rules.dates.numbers, rules.is_unit_at)
    if not scan.tokens:
        return Pieces()
    quantities = find_quantities(scan, rules.units, rules.yield_words, rules.each)
    fields = numbered_fields(scan, rules, dictionary)
    dates = find_dates(scan, rules.dates, today)
    fields += known_names(scan, rules, dictionary, "field")
    crops = known_names(scan, rules, dictionary, "crop")
    ops = find_operations(scan, rules, dictionary)
    products = find_products(scan, rules, dictionary)
    return Pieces(
        amounts=_amounts(scan, quantities, products),
        fields=_ids(fields),
        dates=tuple(resolve_date(hit, today, ahead=False, done=True) for hit in dates),
        ops=tuple(dict.fromkeys(hit.op_type for hit in ops if hit.worded)),
        products=tuple(dict.fromkeys(p.name for p in products if p.name and p.known)),
        crops=_ids(crops),
        other_fields=tuple(dict.fromkeys(h.phrase for h in fields if h.entry is None)),
    )


def _ids(hits: Sequence[NameHit]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(h.entry.canonical_id for h in hits if h.entry is not None))


def _amounts(
    scan: Scan, quantities: Sequence[Quantity], products: Sequence[ProductHit]
) -> tuple[Amount, ...]:
    """The amounts with units, the products' doses, then the bare numbers left."""
    amounts = [Amount(q.value, q.unit) for q in sorted(quantities, key=lambda q: q.pos)]
    amounts += [Amount(p.dose.value, p.dose.unit) for p in products if p.dose is not None]
    claimed = {q.pos for q in quantities}
    amounts += [
        Amount(float(scan.norms[i].replace(",", ".")), None)
        for i in range(len(scan))
        if scan.number_at(i) and scan.free(i) and i not in claimed
    ]
    return tuple(amounts)
