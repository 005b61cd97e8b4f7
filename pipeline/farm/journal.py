"""The farm journal: an operation read from a message becomes a card; only the
user's ✅ writes it (the DAARWIZZ seed's consent rule), and only once.

``propose`` and ``decide`` are use cases: each opens its own short transactions
through the injected ``Database``; parsing runs outside any transaction."""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass
from datetime import date
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from db.models import OperationDraftRow
from db.repositories import farm as repo
from db.uow import Database
from pipeline.actions import JournalAction, JournalVerb
from pipeline.farm.dictionary import Dictionary, DictionaryEntry, Vocabulary
from pipeline.farm.parsing import OperationParser, ParsedOperation
from pipeline.i18n import Catalog
from pipeline.intents import Intent
from pipeline.types import Button, Language, Reply

logger = logging.getLogger(__name__)


class FarmProfiles(Protocol):
    """What the journal needs of the profile editor (``pipeline.memory.ProfileEditor``)."""

    async def ensure_farm(self, user_id: str) -> str | None: ...

    async def update_farm(self, user_id: str, **changes: Any) -> Any: ...


@dataclass(frozen=True, slots=True)
class Decision:
    reply: Reply
    written: int  # operations written by this decision


async def farm_dictionary(
    session: AsyncSession, farm_id: str, vocabulary: Vocabulary
) -> Dictionary:
    """Everything the farm has named: its fields and crops, approved terms, shared crops."""
    entries: list[DictionaryEntry] = []
    for field in await repo.fields(session, farm_id):
        entries.append(DictionaryEntry("field", field.field_id, field.name, ()))
    for crop in await repo.crops(session, farm_id):
        entries.append(DictionaryEntry("crop", crop.crop_id, crop.name, ()))
    for term in await repo.dictionary_terms(session, farm_id):
        entries.append(
            DictionaryEntry(term.kind, term.canonical_id, term.display, tuple(term.synonyms))  # type: ignore[arg-type]
        )
    return vocabulary.dictionary(entries)


def _payload(
    parsed: ParsedOperation, pending: dict[str, int], dictionary: Dictionary
) -> dict[str, Any]:
    body = asdict(parsed)
    body["op_date"] = parsed.op_date.isoformat()
    body["pending"] = pending  # "kind:term" -> pending term id
    # What the card shows: the names the farm uses, not ids.
    body["names"] = {
        item: entry.display
        for item in (*parsed.several_fields, parsed.field_id, parsed.crop_id)
        if item and (entry := dictionary.get(item)) is not None
    }
    return body


class Journal:
    def __init__(
        self,
        catalog: Catalog,
        db: Database,
        farms: FarmProfiles,
        *,
        parser: OperationParser,
        vocabulary: Vocabulary,
    ) -> None:
        self._catalog = catalog
        self._db = db
        self._farms = farms
        self._parser = parser
        self.vocabulary = vocabulary

    async def propose(
        self,
        *,
        user_id: str,
        chat_id: int,
        message_id: int | None,
        text: str,
        lang: Language,
        today: date,
    ) -> Reply | None:
        """A confirmation card for the operation in ``text``; None if there is none."""
        async with self._db.read() as session:
            farm = await repo.farm_of(session, user_id)
            farm_id = farm.farm_id if farm is not None else None
            dictionary = (
                await farm_dictionary(session, farm_id, self.vocabulary) if farm_id else None
            )
        if farm_id is None:
            # Someone's very first message is an operation: the card needs a farm.
            farm_id = await self._farms.ensure_farm(user_id)
            if farm_id is None:
                return None
        if dictionary is None:
            async with self._db.read() as session:
                dictionary = await farm_dictionary(session, farm_id, self.vocabulary)
        parsed = self._parser.parse(text, dictionary, today)
        if parsed is None:
            return None
        pending: dict[str, int] = {}
        async with self._db.write() as session:
            for kind, term in parsed.unknown_terms:
                row = await repo.note_pending_term(session, farm_id, kind, term, text)
                pending[f"{kind}:{term}"] = row.id
            pending_count = await repo.pending_count_of(session, farm_id) if pending else None
            draft = await repo.add_draft(
                session,
                user_id=user_id,
                farm_id=farm_id,
                chat_id=chat_id,
                source_message_id=message_id,
                payload=_payload(parsed, pending, dictionary),
            )
            payload, draft_id = dict(draft.payload), draft.id
        if pending_count is not None:
            # Through the memory layer, so the cache and the memory-service follow.
            await self._farms.update_farm(user_id, dict_pending_count=pending_count)
        return Reply(
            self.card(payload, lang), self._buttons(draft_id, lang), intent=Intent.RECORDING
        )

    async def decide(self, *, user_id: str, action: JournalAction, lang: Language) -> Decision:
        """✅ / ✏️ / ❌ on a card. Only the card's owner may decide it. One transaction:
        the draft is locked, so two taps on ✅ cannot both write."""
        if action.verb not in set(JournalVerb):
            return Decision(Reply(self._catalog.text(lang, "actions.expired")), 0)
        async with self._db.write() as session:
            draft = await repo.draft(session, action.draft_id, lock=True)
            if draft is None or draft.user_id != user_id:
                return Decision(Reply(self._catalog.text(lang, "actions.expired")), 0)
            payload = dict(draft.payload)
            if draft.status == "written":
                return Decision(Reply(self._written_card(payload, lang, again=True)), 0)
            if draft.status == "cancelled" or action.verb is not JournalVerb.WRITE:
                draft.status = "cancelled"
                key = "journal.edit" if action.verb is JournalVerb.EDIT else "journal.cancelled"
                return Decision(Reply(self._catalog.text(lang, key)), 0)
            written = await self._write(session, draft)
            draft.status = "written"
        return Decision(Reply(self._written_card(payload, lang, again=written == 0)), written)

    async def _write(self, session: AsyncSession, draft: OperationDraftRow) -> int:
        body = draft.payload
        pending: dict[str, int] = body.get("pending", {})
        field_ids = list(body.get("several_fields") or []) or [body.get("field_id")]
        pending_term = next(iter(pending.values()), None)
        written = 0
        for field_id in field_ids:
            source = (
                f"{draft.chat_id}:{draft.source_message_id or f'draft{draft.id}'}:{field_id or '-'}"
            )
            inserted = await repo.insert_operation(
                session,
                {
                    "farm_id": draft.farm_id,
                    "op_type": body["op_type"],
                    "field_id": field_id,
                    "crop_id": body.get("crop_id"),
                    "quantity": body.get("quantity"),
                    "unit": body.get("unit"),
                    "product": body.get("product"),
                    "op_date": date.fromisoformat(body["op_date"]),
                    "status": body["status"],
                    "source_chat_id": draft.chat_id,
                    "source_message_id": draft.source_message_id,
                    "source_key": source,
                    "author": draft.user_id,
                    "pending_term_id": pending_term,
                },
            )
            written += int(inserted)
        return written

    def _buttons(self, draft_id: int, lang: Language) -> tuple[tuple[Button, ...], ...]:
        labels = {
            JournalVerb.WRITE: "journal.write",
            JournalVerb.EDIT: "journal.edit_button",
            JournalVerb.CANCEL: "journal.cancel",
        }
        return (
            tuple(
                Button(self._catalog.text(lang, key), JournalAction(verb, draft_id))
                for verb, key in labels.items()
            ),
        )

    def card(self, body: dict[str, Any], lang: Language) -> str:
        text, dash = self._catalog.text, "—"
        names: dict[str, str] = body.get("names", {})
        fields = body.get("several_fields") or ([body["field_id"]] if body.get("field_id") else [])
        fields = [names.get(item, item) for item in fields]
        unit = text(lang, f"unit.{body['unit']}") if body.get("unit") else ""
        amount = f"{body['quantity']:g} {unit}".strip() if body.get("quantity") else dash
        lines = [
            text(
                lang,
                "journal.card",
                operation=text(lang, f"operation.{body['op_type']}"),
                field=", ".join(fields) or body.get("field_phrase") or dash,
                crop=names.get(body.get("crop_id") or "", body.get("crop_id"))
                or body.get("crop_phrase")
                or dash,
                amount=amount,
                product=body.get("product") or dash,
                date=body["op_date"],
                status=text(lang, f"journal.status_{body['status']}"),
            )
        ]
        for key in body.get("pending", {}):
            kind, _, term = key.partition(":")
            lines.append(text(lang, f"journal.pending_{kind}", term=term))
        return "\n".join(lines)

    def _written_card(self, payload: dict[str, Any], lang: Language, *, again: bool) -> str:
        key = "journal.already_written" if again else "journal.written"
        return f"{self.card(payload, lang)}\n\n{self._catalog.text(lang, key)}"
