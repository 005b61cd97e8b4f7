"""The journal's confirmation card: what a farmer reads before ✅, in their language.

A draft's payload holds every operation read from one message (``ops``); the card
lists each with its own field, crop, product, amounts, date and status. Names are
the farm's (never an id), units and numbers as the language writes them (the decimal
comma in Ukrainian), dates as dd.mm.yyyy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from pipeline.farm.dictionary import Dictionary, Vocabulary
from pipeline.farm.words.name_match import field_name
from pipeline.language.catalog import Catalog
from pipeline.types import Language

DASH = "—"
#: What an operation's amounts are called on a card, in the order shown.
AMOUNT_SLOTS = (
    ("rate", "rate_unit", "rate"),
    ("amount", "amount_unit", "amount"),
    ("area_ha", None, "area"),
    ("yield_t_ha", None, "yield"),
)
_FIXED_UNITS = {"area_ha": "ha", "yield_t_ha": "t/ha"}


def decimal(value: float, lang: Language) -> str:
    """0.6 -> "0,6" (uk) / "0.6" (en); 250.0 -> "250"; 1.25 -> "1,25"; 12500 -> "12 500"."""
    text = f"{value:,.3f}".rstrip("0").rstrip(".")
    if lang == "uk":
        return text.replace(",", "\u00a0").replace(".", ",")
    return text


def unit_text(catalog: Catalog, lang: Language, unit: str | None) -> str:
    if not unit:
        return ""
    key = f"unit.{unit}"
    return catalog.text(lang, key) if catalog.has(lang, key) else unit


def quantity_text(catalog: Catalog, lang: Language, value: float, unit: str | None) -> str:
    return f"{decimal(value, lang)} {unit_text(catalog, lang, unit)}".strip()


def date_text(value: date) -> str:
    return value.strftime("%d.%m.%Y")


def shared_crop_labels(vocabulary: Vocabulary, lang: Language) -> dict[str, str]:
    """The shared crops' labels by canonical id, as :func:`crop_label` writes them (the
    reports name a crop the farm has no row for by these)."""
    shared = vocabulary.shared()
    return {
        entry.canonical_id: crop_label(shared, entry.canonical_id, lang) or entry.display
        for entry in vocabulary.shared_crops
    }


def crop_label(dictionary: Dictionary | None, crop_id: str | None, lang: Language) -> str | None:
    """A crop as the farmer calls it: the farm's name; in English the shared list's
    English name; never ``crop:…``."""
    if not crop_id:
        return None
    entry = dictionary.get(crop_id) if dictionary is not None else None
    if entry is None:
        return crop_id.partition(":")[2].replace("-", " ") or crop_id
    if lang == "en":
        english = [name for name in entry.names if name.isascii()]
        if english:
            return english[0].capitalize()
    return entry.display


def op_names(body: Mapping[str, Any], dictionary: Dictionary, lang: Language) -> dict[str, str]:
    """Field and crop ids of one operation -> the names the farm uses."""
    names: dict[str, str] = {}
    for item in (*body.get("several_fields", ()), body.get("field_id")):
        if item and (entry := dictionary.get(item)) is not None:
            names[item] = entry.display
    crop = crop_label(dictionary, body.get("crop_id"), lang)
    if crop is not None:
        names[body["crop_id"]] = crop
    return names


class CardWriter:
    """Renders a draft's operations (payload ``ops``) as the card's text."""

    def __init__(
        self, catalog: Catalog, nominative_endings: Sequence[tuple[str, str]] = ()
    ) -> None:
        self._catalog = catalog
        self._nominative = tuple(nominative_endings)

    def field_name(self, phrase: str) -> str:
        """An unknown field as its name reads («північному» -> «Північне»)."""
        return field_name(phrase, self._nominative)

    def _t(self, lang: Language, key: str, **params: object) -> str:
        return self._catalog.text(lang, f"journal.{key}", **params)

    def fields_of(self, body: Mapping[str, Any]) -> str:
        names: Mapping[str, str] = body.get("names", {})
        ids = body.get("several_fields") or ([body["field_id"]] if body.get("field_id") else [])
        shown = [names.get(item) for item in ids]
        if ids and all(shown):
            return ", ".join(name for name in shown if name)
        # An unknown field: the words the farmer wrote, never an id.
        phrases = [self.field_name(name) for name in body.get("field_names") or () if name]
        phrase = body.get("field_phrase")
        return ", ".join(phrases) or (self.field_name(phrase) if phrase else DASH)

    def crop_of(self, body: Mapping[str, Any]) -> str:
        names: Mapping[str, str] = body.get("names", {})
        crop_id = body.get("crop_id")
        if crop_id and crop_id in names:
            return names[crop_id]
        return body.get("crop_name") or body.get("crop_phrase") or DASH

    def amounts(self, body: Mapping[str, Any], lang: Language) -> list[tuple[str, str]]:
        """(slot, "3 л/га") for each amount the operation has."""
        found = []
        for key, unit_key, slot in AMOUNT_SLOTS:
            value = body.get(key)
            if value is None:
                continue
            unit = body.get(unit_key) if unit_key else _FIXED_UNITS[key]
            found.append((slot, quantity_text(self._catalog, lang, float(value), unit)))
        if not found and body.get("quantity") is not None:
            found.append(
                ("amount", quantity_text(self._catalog, lang, body["quantity"], body.get("unit")))
            )
        return found

    def _status(self, body: Mapping[str, Any], lang: Language) -> str:
        return self._t(lang, f"status_{body['status']}")

    def _operation(self, body: Mapping[str, Any], lang: Language) -> str:
        return self._catalog.text(lang, f"operation.{body['op_type']}")

    def _marks(self, body: Mapping[str, Any], lang: Language) -> str:
        if body.get("written"):
            return f" — {self._t(lang, 'mark_written')}"
        if body.get("duplicate"):
            return f" — {self._t(lang, 'mark_duplicate')}"
        return ""

    def single(self, body: Mapping[str, Any], lang: Language) -> list[str]:
        lines = [
            self._t(lang, "line_operation", operation=self._operation(body, lang)),
            self._t(lang, "line_field", field=self.fields_of(body)),
            self._t(lang, "line_crop", crop=self.crop_of(body)),
        ]
        if body.get("product"):
            lines.append(self._t(lang, "line_product", product=body["product"]))
        lines += [
            self._t(lang, f"line_{slot}", value=value) for slot, value in self.amounts(body, lang)
        ]
        lines.append(
            self._t(lang, "line_date", date=date_text(date.fromisoformat(body["op_date"])))
        )
        lines.append(self._t(lang, "line_status", status=self._status(body, lang)))
        return lines

    def line(self, number: int, body: Mapping[str, Any], lang: Language) -> str:
        """One operation of several: "2. Сівба — Поле 3, горох; 250 кг/га; 12.05.2025, виконано"."""
        where = [self.fields_of(body)]
        crop = self.crop_of(body)
        if crop != DASH:
            where.append(crop)
        what = [body["product"]] if body.get("product") else []
        what += [
            self._t(lang, f"short_{slot}", value=value) for slot, value in self.amounts(body, lang)
        ]
        parts = [", ".join(where)]
        if what:
            parts.append(", ".join(what))
        when = f"{date_text(date.fromisoformat(body['op_date']))}, {self._status(body, lang)}"
        parts.append(when)
        text = f"{number}. {self._operation(body, lang)} — {'; '.join(parts)}"
        return text + self._marks(body, lang)

    def card(self, ops: Sequence[Mapping[str, Any]], lang: Language) -> str:
        if len(ops) == 1:
            lines = [self._t(lang, "card_one"), *self.single(ops[0], lang)]
        else:
            lines = [self._t(lang, "card_many", count=len(ops))]
            lines += [self.line(number, body, lang) for number, body in enumerate(ops, 1)]
        if any(body.get("duplicate") and not body.get("written") for body in ops):
            lines.append(self._t(lang, "duplicate"))
        for key in _pending(ops):
            kind, _, term = key.partition(":")
            shown = self.field_name(term) if kind == "field" else term
            lines.append(self._t(lang, f"pending_{kind}", term=shown))
        return "\n".join(lines)


def _pending(ops: Sequence[Mapping[str, Any]]) -> list[str]:
    seen: dict[str, None] = {}
    for body in ops:
        for key in body.get("pending", {}):
            seen.setdefault(key, None)
    return list(seen)
