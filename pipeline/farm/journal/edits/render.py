"""How an edit card reads: the entry as the journal's card shows it, and what
changes ("норма 150 кг/га → 120 кг/га")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from db.repositories.journal import Revision
from pipeline.farm.dictionary import Dictionary
from pipeline.farm.journal.card import (
    DASH,
    CardWriter,
    crop_label,
    date_text,
    op_names,
    quantity_text,
)
from pipeline.farm.journal.draft import DraftOperation
from pipeline.language.texts import Texts

__all__ = ["change_lines", "entry_card", "entry_operation", "history_text", "shown_value"]

#: Column -> (what it is called, its unit column or fixed unit).
_AMOUNTS: dict[str, tuple[str, str | None, str | None]] = {
    "rate": ("rate", "rate_unit", None),
    "amount": ("amount", "amount_unit", None),
    "area_ha": ("area", None, "ha"),
    "yield_t_ha": ("yield", None, "t/ha"),
}
#: The columns a history line compares, in the order it lists them.
_COLUMNS = ("op_type", "field_id", "crop_id", "product", "rate", "amount", "area_ha",
            "yield_t_ha", "op_date")  # fmt: skip
_NAMED = {"field_id": "field", "op_date": "date", "op_type": "op", "product": "product",
          "crop_id": "crop"}  # fmt: skip


def _as_date(value: Any) -> date:
    return value if isinstance(value, date) else date.fromisoformat(str(value))


def entry_operation(
    values: Mapping[str, Any], dictionary: Dictionary, texts: Texts
) -> DraftOperation:
    """An entry's values as a card's operation (with the farm's names)."""
    operation = DraftOperation.model_validate({**values, "op_date": _as_date(values["op_date"])})
    return operation.named(op_names(operation, dictionary, texts.lang))


def entry_card(
    cards: CardWriter, values: Mapping[str, Any], dictionary: Dictionary, texts: Texts
) -> str:
    """The entry's lines, as its journal card showed them (without the card's title)."""
    return "\n".join(cards.single(entry_operation(values, dictionary, texts), texts.lang))


def shown_value(
    column: str, values: Mapping[str, Any], dictionary: Dictionary, texts: Texts
) -> str:
    value = values.get(column)
    if column in _AMOUNTS:
        _what, unit_column, fixed = _AMOUNTS[column]
        unit = values.get(unit_column) if unit_column else fixed
        return DASH if value is None else quantity_text(texts, float(value), unit)
    if value is None:
        return DASH
    if column == "field_id":
        entry = dictionary.get(str(value))
        return entry.display if entry is not None else DASH
    if column == "op_date":
        return date_text(_as_date(value))
    if column == "op_type":
        return texts.text(f"operation.{value}")
    if column == "crop_id":
        return crop_label(dictionary, str(value), texts.lang) or DASH
    return str(value)


def change_lines(
    columns: tuple[str, ...],
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    dictionary: Dictionary,
    texts: Texts,
    *,
    bare: bool = False,
) -> str:
    """ "Змінюю: норма 150 кг/га → 120 кг/га; поле Левада → Поле 3" (``bare``: without
    the "Змінюю:")."""
    parts = []
    for column in columns:
        what = _AMOUNTS[column][0] if column in _AMOUNTS else _NAMED.get(column)
        if what is None:
            continue
        parts.append(
            texts.text(
                "journal_edit.change",
                what=texts.text(f"journal_edit.what_{what}"),
                old=shown_value(column, before, dictionary, texts),
                new=shown_value(column, after, dictionary, texts),
            )
        )
    joined = "; ".join(parts)
    return joined if bare else texts.text("journal_edit.changed", changes=joined)


def history_text(revisions: Sequence[Revision], dictionary: Dictionary, texts: Texts) -> str:
    """An entry's revisions, oldest first: "14.05.2026 10:02 — змінено: норма 150 → 120"."""
    lines = [texts.text("journal_edit.history")]
    for revision in revisions:
        when = revision.created_at.strftime("%d.%m.%Y %H:%M")
        what = texts.text(f"journal_edit.kind_{revision.kind}")
        line = f"{when} — {what}"
        if revision.before and revision.after:
            changed = tuple(c for c in _COLUMNS if revision.before.get(c) != revision.after.get(c))
            if changed:
                line += ": " + change_lines(
                    changed, revision.before, revision.after, dictionary, texts, bare=True
                )
        lines.append(line)
    return "\n".join(lines)
