"""The catalog bound to one reply language.

The language of a reply is decided once per update (pipeline/language/choice.py's
policy); from then on whoever speaks asks the bound catalog for a key, without
threading ``(catalog, lang)`` through every call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pipeline.language.catalog import Catalog
from pipeline.types import Language

__all__ = ["Texts"]


@dataclass(frozen=True, slots=True)
class Texts:
    catalog: Catalog
    lang: Language

    def text(self, key: str, /, **params: Any) -> str:
        return self.catalog.text(self.lang, key, **params)

    def has(self, key: str) -> bool:
        return self.catalog.has(self.lang, key)

    def number(self, value: float) -> str:
        return self.catalog.number(self.lang, value)

    def plural(self, key: str, count: float, /, **params: Any) -> str:
        return self.catalog.plural(self.lang, key, count, **params)

    def variant(self, key: str, seed: int, /, **params: Any) -> str:
        return self.catalog.variant(self.lang, key, seed, **params)

    def templates(self, key: str) -> tuple[str, ...]:
        return self.catalog.templates(self.lang, key)

    def speaking(self, lang: Language) -> Texts:
        """The same catalog in another language (the turn's language once decided)."""
        return self if lang == self.lang else Texts(self.catalog, lang)
