"""The product catalogue (``pipeline/rules/products.toml``): brand -> canonical name,
type, active ingredient, default unit, and the operation its type implies.

Loaded once (``pipeline/rulebook.py``) and handed to the operation parser, which
names every product it reads by its canonical entry, so "аміачною селітрою" and
"аміачної селітри" are one product in the journal and its summaries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field

from pipeline.farm.slugs import make_id
from pipeline.grammar import Grammar, TermSet
from pipeline.rules import RULES_DIR
from pipeline.rules.schema import RulesError, RulesModel, Text, load, parse
from pipeline.text import tokenize

__all__ = ["PRODUCTS_RULES", "Catalogue", "Product"]

PRODUCTS_RULES = RULES_DIR / "products.toml"


@dataclass(frozen=True, slots=True)
class Product:
    """One catalogue entry."""

    id: str
    name: str
    type: str
    #: The operation a product of this type is used in ("spraying" ...), if any.
    implies: str | None = None
    active: str | None = None
    #: The canonical unit a bare dose is in ("Абакус 1,5" is 1.5 l/ha).
    unit: str | None = None
    #: A word for a kind of product ("гербіцид"), not a brand.
    generic: bool = False
    #: False for words that only hint at a kind ("насіння"): no product name.
    named: bool = True
    #: A number written with the name is part of it ("КАС-32", "NPK 16:16:16").
    grade: bool = False
    grade_joiner: str = " "


class Catalogue:
    """Every product the parser knows by name, matched in the term syntax."""

    def __init__(self, products: Sequence[Product], terms: Mapping[str, Sequence[str]],
                 grammar: Grammar) -> None:  # fmt: skip
        self.products = tuple(products)
        self._by_id = {product.id: product for product in self.products}
        self.terms = TermSet.labelled(terms, grammar)

    @classmethod
    def load(cls, grammar: Grammar, path: Path = PRODUCTS_RULES) -> Catalogue:
        return cls._from_file(load(path, _ProductsFile), grammar)

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any], grammar: Grammar) -> Catalogue:
        return cls._from_file(parse(raw, _ProductsFile, source=PRODUCTS_RULES.name), grammar)

    @classmethod
    def _from_file(cls, raw: _ProductsFile, grammar: Grammar) -> Catalogue:
        products: list[Product] = []
        terms: dict[str, tuple[str, ...]] = {}
        for number, item in enumerate(raw.products):
            where = f"products.{number}"
            if item.type not in raw.types:
                raise RulesError(
                    PRODUCTS_RULES.name, where, f"{item.name!r} has an unknown type {item.type!r}"
                )
            product_id = make_id("product", item.name) or item.name
            if product_id in terms:
                raise RulesError(PRODUCTS_RULES.name, where, f"{item.name!r} is listed twice")
            products.append(
                Product(
                    id=product_id,
                    name=item.name,
                    type=item.type,
                    implies=raw.types[item.type],
                    active=item.active,
                    unit=item.unit,
                    generic=item.generic,
                    named=item.product,
                    grade=item.grade,
                    grade_joiner=item.grade_joiner,
                )
            )
            terms[product_id] = item.terms
        return cls(products, terms, grammar)

    def get(self, product_id: str) -> Product | None:
        return self._by_id.get(product_id)

    def match_at(self, tokens: Sequence[str], start: int) -> tuple[Product, int] | None:
        """The product named from token ``start`` on, and how many tokens it takes."""
        hit = self.terms.match_at(tokens, start)
        if hit is None:
            return None
        return self._by_id[hit[0]], hit[1]

    def resolve(self, text: str) -> Product | None:
        """The entry a whole name is ("Roundup", "аміачною селітрою"), or None."""
        tokens = tokenize(text)
        if not tokens:
            return None
        hit = self.match_at(tokens, 0)
        if hit is None or (hit[1] < len(tokens) and not hit[0].grade):
            return None
        return hit[0]

    def __contains__(self, token: object) -> bool:
        return isinstance(token, str) and token in self.terms


class _ProductTable(RulesModel):
    name: Text
    type: str
    active: str | None = None
    unit: str | None = None
    generic: bool = False
    #: False for words that only hint at a kind of product.
    product: bool = True
    grade: bool = False
    grade_joiner: str = " "
    terms: tuple[str, ...] = ()


class _ProductsFile(RulesModel):
    version: int = 1
    #: Product type -> the operation it implies.
    types: dict[str, str] = Field(default_factory=dict)
    products: tuple[_ProductTable, ...] = ()
