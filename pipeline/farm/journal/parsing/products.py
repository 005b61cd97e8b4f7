"""The product pass: which products a message names, each by its canonical name.

A product is named by the farm's dictionary (its own approved names win), by the
catalogue (``products.toml``: brands, fertilisers, and the words for a kind of
product, "гербіцид"), or, when neither knows it, by a word that carries a product's
marks: right after a kind ("гербіцидом Ксеркс", "гібрид ДКС"), a code ("DKC 3939",
"П64ЛЕ137"), or a word with a dose right after it ("Ксеркс 1 л/га"). A capitalised
word alone is not a product: "полили Північне 20 мм" names a field.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.farm.dictionary import Dictionary
from pipeline.farm.journal.parsing.names import known_names, plain_word
from pipeline.farm.journal.parsing.quantities import Quantity
from pipeline.farm.journal.parsing.rules import OperationRules
from pipeline.farm.journal.parsing.scan import Scan
from pipeline.farm.products import Product

__all__ = ["ProductHit", "best_product", "find_products", "unknown_products"]

# Between a product word and the number that belongs to it: "КАС-32", "16:16:16".
_NUMBER_GLUE = frozenset({"", "-", ":", "‑", "–", "/"})
_PRODUCT_NUMBER_DIGITS = 2
_DOSE_PRIORITY = 2
_MIN_CODE_LETTERS = 2


@dataclass(frozen=True, slots=True)
class ProductHit:
    pos: int
    end: int
    #: The canonical name (catalogue or dictionary), else the words as written.
    name: str | None
    phrase: str
    entry: Product | None = None
    #: Known to the catalogue or the farm's dictionary.
    known: bool = True
    #: A bare number after it, in the product's default unit ("Абакус 1,5").
    dose: Quantity | None = None

    @property
    def generic(self) -> bool:
        return self.entry is not None and self.entry.generic

    @property
    def implies(self) -> str | None:
        return self.entry.implies if self.entry is not None else None

    @property
    def type(self) -> str | None:
        return self.entry.type if self.entry is not None else None


def find_products(scan: Scan, rules: OperationRules, dictionary: Dictionary) -> list[ProductHit]:
    """Products the farm's dictionary or the catalogue knows, left to right."""
    hits = [
        _hit(scan, rules, hit.pos, hit.end, hit.entry.display, None)
        for hit in known_names(scan, rules, dictionary, "product")
        if hit.entry is not None
    ]
    catalogue = rules.catalogue
    i = 0
    while i < len(scan):
        found = catalogue.match_at(scan.norms, i) if scan.free(i) else None
        if found is None or not scan.all_free(i, i + found[1]):
            i += 1
            continue
        product, length = found
        end = i + length
        scan.claim(i, end, "product")
        name: str | None = product.name if product.named else None
        while product.named and scan.free(end) and scan.norms[end] in rules.brand_suffixes:
            scan.claim(end, end + 1, "product")
            end += 1
        if product.grade:
            end, grade = _grade(scan, rules, end)
            if grade and name is not None:
                name = f"{name}{product.grade_joiner}{grade}"
        hits.append(_hit(scan, rules, i, end, name, product))
        i = end
    return sorted(hits, key=lambda hit: hit.pos)


def _hit(
    scan: Scan, rules: OperationRules, pos: int, end: int, name: str | None, entry: Product | None
) -> ProductHit:
    unit = entry.unit if entry is not None else None
    dose = _bare_dose(scan, rules, end, unit) if unit is not None else None
    return ProductHit(pos, end, name, scan.raw(pos, end), entry, True, dose)


def _bare_dose(scan: Scan, rules: OperationRules, i: int, unit: str) -> Quantity | None:
    """ "Абакус 1,5": a number right after a product, with no unit of its own."""
    if not scan.number_at(i) or scan.gap(i) not in ("", "-", "—", "–", ":"):
        return None
    following = scan.norm(i + 1)
    if rules.units.measure_at(scan.norms, i + 1) is not None or rules.names.is_generic(
        "field", following
    ):
        return None
    scan.claim(i, i + 1, "quantity")
    return Quantity(float(scan.norms[i].replace(",", ".")), unit, _DOSE_PRIORITY, i)


def _grade(scan: Scan, rules: OperationRules, i: int) -> tuple[int, str]:
    """ "КАС-32", "NPK 16:16:16", "КАС 28": the numbers that are part of the name; a
    number with a unit after it is a dose ("КАС 100 л/га")."""
    start = i
    while scan.number_at(i) and not _unit_follows(scan, rules, i):
        if not _glued(scan, i) and (i > start or len(scan.norms[i]) < _PRODUCT_NUMBER_DIGITS):
            break
        scan.claim(i, i + 1, "product")
        i += 1
    if i == start:
        return i, ""
    return i, scan.text[scan.tokens[start].start : scan.tokens[i - 1].end]


def _unit_follows(scan: Scan, rules: OperationRules, i: int) -> bool:
    return rules.units.measure_at(scan.norms, i + 1) is not None


def unknown_products(
    scan: Scan,
    rules: OperationRules,
    known: Sequence[ProductHit],
    quantities: Sequence[Quantity],
) -> list[ProductHit]:
    """Brands no list knows, found by a product's marks (see the module docstring)."""
    kinds = {hit.end for hit in known if hit.generic or (hit.entry and not hit.entry.named)}
    doses = {q.pos for q in quantities if q.unit in rules.product_doses}
    found: list[ProductHit] = []
    i = 0
    while i < len(scan):
        end = _unknown_end(scan, rules, i, kinds, doses)
        if end is None:
            i += 1
            continue
        end = _attach_numbers(scan, rules, end)
        scan.claim(i, end, "product")
        found.append(ProductHit(i, end, scan.raw(i, end), scan.raw(i, end), None, False))
        i = end
    return found


def _unknown_end(
    scan: Scan, rules: OperationRules, i: int, kinds: set[int], doses: set[int]
) -> int | None:
    """Where an unknown product starting at ``i`` ends: a code, or a plain name after a
    product kind or with a product's marks; None when none starts there."""
    end = _code_end(scan, rules, i)
    if end is not None and i in kinds:
        end = max(end, _name_end(scan, rules, i))  # "гібрид НК Неома"
    if (
        end is None
        and plain_word(scan, rules, i)
        and not rules.names.is_generic("crop", scan.norms[i])
        and (i in kinds or _marked(scan, rules, i, doses))
    ):
        end = _name_end(scan, rules, i)
    return end


def _marked(scan: Scan, rules: OperationRules, i: int, doses: set[int]) -> bool:
    """A name with a dose after it ("Ксеркс 1 л/га", "Xantos at 1 l/ha") or "with"
    before it ("sprayed field 10 with Xantos")."""
    if not _styled(scan, i):
        return False
    if i > 0 and scan.norms[i - 1] in rules.product_before:
        return True
    end = _name_end(scan, rules, i)
    return end in doses or (scan.norm(end) in rules.dose_joiners and end + 1 in doses)


def _styled(scan: Scan, i: int) -> bool:
    """Written as a name: capitalised, or Latin among Cyrillic ("Ксеркс 1 л/га",
    "Xyzzor 1 л/га")."""
    return scan.capitalised(i) or (scan.latin(i) and scan.mostly_cyrillic())


def _name_end(scan: Scan, rules: OperationRules, i: int) -> int:
    """A brand runs over capitalised or Latin words after its first: "Дуал Голд"."""
    end = i + 1
    while plain_word(scan, rules, end) and (scan.capitalised(end) or scan.latin(end)):
        end += 1
    return end


def _code_end(scan: Scan, rules: OperationRules, i: int) -> int | None:
    """ "DKC 3939", "П64ЛЕ137", "ДКС": a code, all in capitals or letters glued to digits."""
    token = scan.tokens[i]
    if not (scan.free(i) and token.word) or rules.is_vocabulary(token.norm):
        return None
    letters = sum(ch.isalpha() for ch in token.raw)
    if token.raw.isupper() and letters >= _MIN_CODE_LETTERS and len(scan.norms) > 1:
        return i + 1
    if scan.number_at(i + 1) and _glued(scan, i + 1):
        return i + 1
    return None


def _attach_numbers(scan: Scan, rules: OperationRules, i: int) -> int:
    """ "DKC 3939", "Bi-58", "П64ЛЕ137": numbers and codes that are part of the name."""
    while scan.free(i):
        number = scan.number_at(i)
        if number and _unit_follows(scan, rules, i):
            break
        glued = _glued(scan, i)
        if number and not glued and len(scan.norms[i]) < _PRODUCT_NUMBER_DIGITS:
            break
        if not number and not (glued and scan.tokens[i].word):
            break
        scan.claim(i, i + 1, "product")
        i += 1
    return i


def _glued(scan: Scan, i: int) -> bool:
    """Token ``i`` follows token ``i - 1`` with no space (a hyphen or colon at most)."""
    if i <= 0 or i >= len(scan.tokens):
        return False
    between = scan.text[scan.tokens[i - 1].end : scan.tokens[i].start]
    return between in _NUMBER_GLUE


def best_product(hits: Sequence[ProductHit]) -> ProductHit | None:
    """A named brand beats a kind ("фунгіцид Абакус" is Абакус); the first wins a tie."""
    named = [hit for hit in hits if hit.name is not None]
    specific = [hit for hit in named if not hit.generic]
    if specific:
        return specific[0]
    return named[0] if named else None
