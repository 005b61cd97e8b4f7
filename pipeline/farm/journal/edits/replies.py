"""The edit stage's own replies: why a correction changes nothing (with the last
entries to choose from), and an entry as a button."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from db.repositories import journal as repo
from pipeline.actions import EntryAction, EntryVerb
from pipeline.farm.dictionary import Dictionary
from pipeline.farm.journal.card import date_text, quantity_text
from pipeline.farm.journal.edits.changes import Change, Mismatch
from pipeline.farm.journal.edits.render import shown_value
from pipeline.farm.reports import op_label
from pipeline.intents import Intent
from pipeline.language.texts import Texts
from pipeline.types import Button, Reply

__all__ = ["PICK", "day_of", "entry_button", "refusal", "say"]

#: How many of the last entries «оберіть запис» offers.
PICK = 4


def refusal(
    texts: Texts,
    found: Change | Mismatch | None,
    dictionary: Dictionary,
    entries: Sequence[repo.Entry],
) -> Reply:
    """Why a correction changes nothing: what the entry holds instead, and the last
    entries to choose from."""
    if not isinstance(found, Mismatch):
        return say(texts, "not_understood")
    if found.kind == "amounts":
        value, unit = found.held
        if value is None:
            return say(texts, "mismatch_none")
        held = quantity_text(texts, float(value), unit)
        what = "rate"
    else:
        what = {"fields": "field", "dates": "date", "ops": "op", "products": "product",
                "crops": "crop"}[found.kind]  # fmt: skip
        column = {"field": "field_id", "date": "op_date", "op": "op_type",
                  "product": "product", "crop": "crop_id"}[what]  # fmt: skip
        held = shown_value(column, {column: found.held}, dictionary, texts)
    reply = say(texts, "mismatch", what=texts.text(f"journal_edit.what_{what}"), held=held)
    return _pick(reply, entries, texts)


def _pick(reply: Reply, entries: Sequence[repo.Entry], texts: Texts) -> Reply:
    """«Або оберіть запис»: the last few entries, a tap away from their cards."""
    if len(entries) < 2:
        return reply
    buttons = tuple((entry_button(texts, e),) for e in entries[:PICK])
    return Reply(f"{reply.text}\n{texts.text('journal_edit.pick')}", buttons, intent=reply.intent)


def say(texts: Texts, key: str, **params: object) -> Reply:
    return Reply(texts.text(f"journal_edit.{key}", **params), intent=Intent.CORRECTION)


def entry_button(texts: Texts, entry: repo.Entry) -> Button:
    """ "✏️ 15.05 Полив" (a deleted one "🗑 …"): the entry's card a tap away."""
    key = "journal_edit.deleted_button" if entry.deleted else "journal_edit.entry_button"
    # The operation's one name, as the listing's and the reminder's buttons call it.
    operation = op_label(texts, str(entry.values["op_type"]))
    label = texts.text(key, date=date_text(day_of(entry))[:5], operation=operation)
    return Button(label, EntryAction(EntryVerb.SHOW, entry.id))


def day_of(entry: repo.Entry) -> date:
    value = entry.values["op_date"]
    return value if isinstance(value, date) else date.fromisoformat(str(value))
