"""The journal's confirmation card: what a farmer reads before ✅, in their language.

A draft (:class:`~pipeline.farm.journal.draft.JournalDraft`) holds every operation
read from one message; the card lists each with its own field, crop, product,
amounts, date and status. Names are the farm's (never an id), units and numbers as
the language writes them (the decimal comma in Ukrainian), dates as dd.mm.yyyy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from pipeline.farm.dictionary import Dictionary, Vocabulary
from pipeline.farm.journal.draft import DraftOperation
from pipeline.farm.words.name_match import field_name
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.text import capitalised
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


def unit_text(texts: Texts, unit: str | None) -> str:
    if not unit:
        return ""
    key = f"unit.{unit}"
    return texts.text(key) if texts.has(key) else unit


def quantity_text(texts: Texts, value: float, unit: str | None) -> str:
    return f"{decimal(value, texts.lang)} {unit_text(texts, unit)}".strip()


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
    English name; never ``crop:…``; always with a capital, as the shared list writes
    every crop, so a farm's own «ясон» reads «Ясон» beside «Соняшник» (issue 30)."""
    if not crop_id:
        return None
    entry = dictionary.get(crop_id) if dictionary is not None else None
    if entry is None:
        return capitalised(crop_id.partition(":")[2].replace("-", " ") or crop_id)
    if lang == "en":
        english = [name for name in entry.names if name.isascii()]
        if english:
            return english[0].capitalize()
    return capitalised(entry.display)


def op_names(operation: DraftOperation, dictionary: Dictionary, lang: Language) -> dict[str, str]:
    """Field and crop ids of one operation -> the names the farm uses."""
    names: dict[str, str] = {}
    for item in (*operation.several_fields, operation.field_id):
        if item and (entry := dictionary.get(item)) is not None:
            names[item] = entry.display
    crop = crop_label(dictionary, operation.crop_id, lang)
    if crop is not None and operation.crop_id:
        names[operation.crop_id] = crop
    return names


def weather_line(texts: Texts, weather: Mapping[str, Any]) -> str:
    """ "Погода: 14 °C, вітер 2,5 м/с, вологість 60 %, дощ за 6 год після — 0 мм": what
    the forecast cache had for the hour (a figure it lacked is a dash)."""

    def figure(key: str, unit: str) -> str:
        value = weather.get(key)
        return DASH if value is None else f"{decimal(float(value), texts.lang)} {unit}"

    return texts.text(
        "journal.line_weather",
        temperature=figure("temperature", "°C"),
        wind=figure("wind_speed", unit_text(texts, "m/s")),
        humidity=figure("humidity", "%"),
        rain=figure("rain_after_mm", unit_text(texts, "mm")),
    )


class CardWriter:
    """Renders a draft's operations as the card's text."""

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

    def fields_of(self, operation: DraftOperation) -> str:
        names = operation.names
        ids = operation.several_fields or ((operation.field_id,) if operation.field_id else ())
        shown = [names.get(item) for item in ids]
        if ids and all(shown):
            return ", ".join(name for name in shown if name)
        # An unknown field: the words the farmer wrote, never an id.
        phrases = [self.field_name(name) for name in operation.field_names if name]
        phrase = operation.field_phrase
        return ", ".join(phrases) or (self.field_name(phrase) if phrase else DASH)

    def crop_of(self, operation: DraftOperation) -> str:
        crop_id = operation.crop_id
        if crop_id and crop_id in operation.names:
            return operation.names[crop_id]
        return capitalised(operation.crop_name or operation.crop_phrase or DASH)

    def amounts(self, operation: DraftOperation, lang: Language) -> list[tuple[str, str]]:
        """(slot, "3 л/га") for each amount the operation has."""
        texts = Texts(self._catalog, lang)
        found = []
        for key, unit_key, slot in AMOUNT_SLOTS:
            value = getattr(operation, key)
            if value is None:
                continue
            unit = getattr(operation, unit_key) if unit_key else _FIXED_UNITS[key]
            found.append((slot, quantity_text(texts, float(value), unit)))
        if not found and operation.quantity is not None:
            found.append(("amount", quantity_text(texts, operation.quantity, operation.unit)))
        return found

    def _status(self, operation: DraftOperation, lang: Language) -> str:
        return self._t(lang, f"status_{operation.status}")

    def _operation(self, operation: DraftOperation, lang: Language) -> str:
        """The operation's one name, starting its line as the report's cell starts."""
        return capitalised(self._catalog.text(lang, f"operation.{operation.op_type}"))

    def _marks(self, operation: DraftOperation, lang: Language) -> str:
        if operation.written:
            return f" — {self._t(lang, 'mark_written')}"
        if operation.duplicate:
            return f" — {self._t(lang, 'mark_duplicate')}"
        return ""

    def single(self, operation: DraftOperation, lang: Language) -> list[str]:
        lines = [
            self._t(lang, "line_operation", operation=self._operation(operation, lang)),
            self._t(lang, "line_field", field=self.fields_of(operation)),
            self._t(lang, "line_crop", crop=self.crop_of(operation)),
        ]
        if operation.product:
            lines.append(self._t(lang, "line_product", product=operation.product))
        lines += [
            self._t(lang, f"line_{slot}", value=value)
            for slot, value in self.amounts(operation, lang)
        ]
        lines.append(self._t(lang, "line_date", date=date_text(operation.op_date)))
        lines.append(self._t(lang, "line_status", status=self._status(operation, lang)))
        if operation.weather:
            lines.append(weather_line(Texts(self._catalog, lang), operation.weather))
        return lines

    def line(self, number: int, operation: DraftOperation, lang: Language) -> str:
        """One operation of several: "2. Сівба — Поле 3, горох; 250 кг/га; 12.05.2025, виконано"."""
        where = [self.fields_of(operation)]
        crop = self.crop_of(operation)
        if crop != DASH:
            where.append(crop)
        what = [operation.product] if operation.product else []
        what += [
            self._t(lang, f"short_{slot}", value=value)
            for slot, value in self.amounts(operation, lang)
        ]
        parts = [", ".join(where)]
        if what:
            parts.append(", ".join(what))
        when = f"{date_text(operation.op_date)}, {self._status(operation, lang)}"
        parts.append(when)
        text = f"{number}. {self._operation(operation, lang)} — {'; '.join(parts)}"
        return text + self._marks(operation, lang)

    def card(self, ops: Sequence[DraftOperation], lang: Language) -> str:
        if len(ops) == 1:
            lines = [self._t(lang, "card_one"), *self.single(ops[0], lang)]
        else:
            lines = [self._t(lang, "card_many", count=len(ops))]
            lines += [self.line(number, operation, lang) for number, operation in enumerate(ops, 1)]
        if any(operation.duplicate and not operation.written for operation in ops):
            lines.append(self._t(lang, "duplicate"))
        for key in _pending(ops):
            kind, _, term = key.partition(":")
            shown = self.field_name(term) if kind == "field" else term
            lines.append(self._t(lang, f"pending_{kind}", term=shown))
        return "\n".join(lines)


def _pending(ops: Sequence[DraftOperation]) -> list[str]:
    seen: dict[str, None] = {}
    for operation in ops:
        for key in operation.pending:
            seen.setdefault(key, None)
    return list(seen)
