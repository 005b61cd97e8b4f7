"""The farm journal: the operations read from a message become one card; only the
user's ✅ writes them (the DAARWIZZ seed's consent rule), and only once.

A card lists every operation of the message, each with its own field, crop,
product, amounts, date and status; ✅ writes all of them, "✅ 2" only the second
(the card is edited in place and keeps the buttons of what is left). A question or
a negation ("не встигли обприскати", "відміняється") writes nothing. The same
operation sent again within ``duplicates.WINDOW`` is shown as «схоже, це вже
записано» with «записати ще раз» instead of a second silent record.

``propose`` and ``decide`` are use cases: each opens its own short transactions
through the injected ``Database``; parsing runs outside any transaction."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, date, datetime
from typing import Any, Literal, Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from db.models import OperationDraftRow
from db.repositories import farm as repo
from db.uow import Database
from pipeline.actions import JournalAction, JournalVerb
from pipeline.farm.dictionary import Dictionary, DictionaryEntry, Vocabulary
from pipeline.farm.journal import duplicates
from pipeline.farm.journal.card import CardWriter, op_names, quantity_text
from pipeline.farm.journal.field_areas import FieldArea, read_areas
from pipeline.farm.journal.parsing import Mood, OperationParser, ParsedOperation
from pipeline.farm.localtime import local_today
from pipeline.intents import Intent
from pipeline.language.catalog import Catalog
from pipeline.types import Button, Language, Reply

logger = logging.getLogger(__name__)

#: The values of one operation row a card's operation fills.
_ROW_KEYS = (
    "op_type", "crop_id", "quantity", "unit", "product", "rate", "rate_unit", "amount",
    "amount_unit", "area_ha", "yield_t_ha", "status",
)  # fmt: skip


class FarmProfiles(Protocol):
    """What the journal needs of the profile editor (``pipeline.memory.ProfileEditor``)."""

    async def ensure_farm(self, user_id: str) -> str | None: ...

    async def update_farm(self, user_id: str, **changes: Any) -> Any: ...


class JournalLearner(Protocol):
    """What the journal teaches the farm profile (``pipeline.memory.ProfileLearner``)."""

    async def journal_written(
        self, user_id: str, *, fields: Iterable[str | None], crops: Iterable[str | None]
    ) -> Any: ...


@dataclass(frozen=True, slots=True)
class Decision:
    reply: Reply
    written: int  # operations written by this decision


@dataclass(frozen=True, slots=True)
class Proposal:
    """What a message is to the journal: a card (``reply`` with buttons), a note that
    nothing is written (a negation), or nothing (``reply`` None)."""

    reply: Reply | None
    #: The parser's mood, or "areas" when the message gave fields' areas.
    mood: Mood | Literal["areas"]


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


def _op_payload(
    parsed: ParsedOperation, text: str, dictionary: Dictionary, lang: Language
) -> dict[str, Any]:
    body = asdict(parsed)
    body["op_date"] = parsed.op_date.isoformat()
    body["unknown_terms"] = [list(item) for item in parsed.unknown_terms]
    # "kind:term" -> pending term id, for this operation's unknown names. 0 until the
    # farmer confirms the card: only then does the name go to the operators' review
    # (issue 16 point 5), so a cancelled or ignored card leaves nothing to review.
    body["pending"] = {f"{kind}:{term}": 0 for kind, term in parsed.unknown_terms}
    body["message"] = text[:500]
    # What the card shows: the names the farm uses, not ids.
    body["names"] = op_names(body, dictionary, lang)
    return body


def _ops(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The card's operations (a card of an older version held one, inline)."""
    ops = payload.get("ops")
    if isinstance(ops, list):
        return [dict(op) for op in ops]
    return [dict(payload)]


class Journal:
    def __init__(
        self,
        catalog: Catalog,
        db: Database,
        farms: FarmProfiles,
        *,
        parser: OperationParser,
        vocabulary: Vocabulary,
        learner: JournalLearner | None = None,
    ) -> None:
        self._catalog = catalog
        #: Fields, crops and the season of written operations join the farm profile.
        self._learner = learner
        self._db = db
        self._farms = farms
        self._parser = parser
        self._cards = CardWriter(catalog, parser.rules.nominative_endings)
        self.vocabulary = vocabulary

    async def owner_of(self, draft_id: int) -> str | None:
        """Whose card this is (None: no such card): a press by anyone else is refused
        before the card is touched."""
        async with self._db.read() as session:
            draft = await repo.draft(session, draft_id)
            return None if draft is None else draft.user_id

    async def propose(
        self,
        *,
        user_id: str,
        chat_id: int,
        message_id: int | None,
        text: str,
        lang: Language,
        now: datetime,
    ) -> Proposal:
        """A confirmation card for the operations in ``text``."""
        async with self._db.read() as session:
            farm = await repo.farm_of(session, user_id)
            farm_id = farm.farm_id if farm is not None else None
            tz = farm.timezone if farm is not None else None
            dictionary = (
                await farm_dictionary(session, farm_id, self.vocabulary) if farm_id else None
            )
        if dictionary is None:
            dictionary = self.vocabulary.dictionary()
        parsed = self._parser.parse_all(text, dictionary, local_today(now, tz))
        # Areas only when no operation was read: «посіяли … на полі 5 45 га» ends like
        # «поле 5 — 45 га» but is a sowing.
        if (
            farm_id is not None
            and not parsed.record
            and (areas := read_areas(text, self._parser.rules.units, dictionary))
        ):
            return Proposal(await self._set_areas(farm_id, user_id, text, areas, lang), "areas")
        if parsed.mood == "negated":
            return Proposal(Reply(self._catalog.text(lang, "journal.negated")), parsed.mood)
        if not parsed.record:
            return Proposal(None, parsed.mood)
        if farm_id is None:
            # Someone's very first message is an operation: the card needs a farm.
            farm_id = await self._farms.ensure_farm(user_id)
            if farm_id is None:
                return Proposal(None, "none")
        async with self._db.write() as session:
            ops = [_op_payload(op, text, dictionary, lang) for op in parsed.operations]
            seen = await self._recent(session, user_id, now)
            for body in ops:
                body["duplicate"] = duplicates.is_repeat(body, seen)
            draft = await repo.add_draft(
                session,
                user_id=user_id,
                farm_id=farm_id,
                chat_id=chat_id,
                source_message_id=message_id,
                payload={"ops": ops},
                created_at=now,
            )
            draft_id = draft.id
        reply = Reply(
            self._cards.card(ops, lang),
            self._buttons(draft_id, ops, lang),
            intent=Intent.RECORDING,
        )
        return Proposal(reply, "record")

    async def _set_areas(
        self, farm_id: str, user_id: str, text: str, areas: Sequence[FieldArea], lang: Language
    ) -> Reply:
        """«поле 3 — 85 га»: the area of a field the farm has; a name it does not have
        goes to the operators' review as a field."""
        lines: list[str] = []
        async with self._db.write() as session:
            for item in areas:
                if item.field_id is not None:
                    await repo.set_field_area(session, farm_id, item.field_id, item.area_ha)
                    key = "journal.area_set"
                else:
                    await repo.note_pending_term(session, farm_id, "field", item.name.lower(), text)
                    key = "journal.area_unknown"
                area = quantity_text(self._catalog, lang, item.area_ha, "ha")
                lines.append(self._catalog.text(lang, key, field=item.name, area=area))
            pending = await repo.pending_count_of(session, farm_id)
        if any(item.field_id is None for item in areas):
            await self._farms.update_farm(user_id, dict_pending_count=pending)
        return Reply("\n".join(lines), intent=Intent.RECORDING)

    async def _recent(
        self,
        session: AsyncSession,
        user_id: str,
        now: datetime,
        *,
        drafts: bool = True,
    ) -> set[duplicates.Signature]:
        """Signatures of what this user wrote (and, with ``drafts``, put on a card)
        within the duplicate window."""
        since = now.astimezone(UTC) - duplicates.WINDOW
        seen = {
            duplicates.signature(_row_values(row), row.field_id)
            for row in await repo.recent_operations(session, user_id, since)
        }
        if drafts:
            for draft in await repo.recent_drafts(session, user_id, since):
                for body in _ops(draft.payload):
                    seen |= duplicates.signatures(body)
        return seen

    async def decide(
        self, *, user_id: str, action: JournalAction, lang: Language, now: datetime | None = None
    ) -> Decision:
        """✅ / ✅ n / «записати ще раз» / ✏️ / ❌ on a card. Only the card's owner may
        decide it. One transaction: the draft is locked, so two taps cannot both write."""
        now = now or datetime.now(UTC)
        expired = Decision(Reply(self._catalog.text(lang, "actions.expired")), 0)
        if action.verb not in set(JournalVerb):
            return expired
        async with self._db.write() as session:
            draft = await repo.draft(session, action.draft_id, lock=True)
            if draft is None or draft.user_id != user_id:
                return expired
            ops = _ops(draft.payload)
            if action.item is not None and not 0 <= action.item < len(ops):
                return expired
            if draft.status == "written":
                return Decision(Reply(self._closing(ops, lang, "journal.already_written")), 0)
            if draft.status == "cancelled" or action.verb in (JournalVerb.CANCEL, JournalVerb.EDIT):
                draft.status = "cancelled"
                key = "journal.edit" if action.verb is JournalVerb.EDIT else "journal.cancelled"
                return Decision(Reply(self._catalog.text(lang, key)), 0)
            chosen = [action.item] if action.item is not None else range(len(ops))
            todo = [i for i in chosen if not ops[i].get("written")]
            if action.verb is JournalVerb.WRITE:
                seen = await self._recent(session, user_id, now, drafts=False)
                for i in todo:
                    ops[i]["duplicate"] = duplicates.is_repeat(ops[i], seen)
                todo = [i for i in todo if not ops[i]["duplicate"]]
            written = 0
            noted = False
            for i in todo:
                noted = await self._note_terms(session, draft.farm_id, ops[i]) or noted
                written += await self._write(session, draft, i, ops[i], now)
                ops[i]["written"], ops[i]["duplicate"] = True, False
            pending_count = await repo.pending_count_of(session, draft.farm_id) if noted else None
            done = all(op.get("written") for op in ops)
            draft.payload = {"ops": ops}  # a new object: the JSON column sees the change
            if done:
                draft.status = "written"
            draft_id = draft.id
        if written and self._learner is not None:
            # After the commit, through the memory layer: the cache and the
            # memory-service follow; a failed lesson never undoes the record.
            ops_written = [ops[i] for i in todo]
            await self._learner.journal_written(
                user_id,
                fields=[field for op in ops_written for field in duplicates.op_fields(op)],
                crops=[op.get("crop_id") for op in ops_written],
            )
        if pending_count is not None:
            # Through the memory layer, so the cache and the memory-service follow.
            await self._farms.update_farm(user_id, dict_pending_count=pending_count)
        if done and todo and not written:
            # The rows were there already (the same message, redelivered, on another card).
            return Decision(Reply(self._closing(ops, lang, "journal.already_written")), 0)
        return Decision(self._after(draft_id, ops, lang, done=done), written)

    def _after(
        self, draft_id: int, ops: list[dict[str, Any]], lang: Language, *, done: bool
    ) -> Reply:
        """The card after a press: closed when all is written, else what is left (an
        operation written just now by another card says so, with «записати ще раз»)."""
        if done:
            return Reply(self._closing(ops, lang, "journal.written"))
        return Reply(self._cards.card(ops, lang), self._buttons(draft_id, ops, lang))

    @staticmethod
    async def _note_terms(session: AsyncSession, farm_id: str, body: dict[str, Any]) -> bool:
        """The confirmed operation's unknown names go to the operators' review now."""
        pending: dict[str, int] = dict(body.get("pending", {}))
        noted = False
        for key, term_id in pending.items():
            if term_id:
                continue  # a card of an older version noted it when it was shown
            kind, _, term = key.partition(":")
            row = await repo.note_pending_term(
                session, farm_id, kind, term, str(body.get("message", ""))
            )
            pending[key], noted = row.id, True
        body["pending"] = pending
        return noted

    async def _write(
        self,
        session: AsyncSession,
        draft: OperationDraftRow,
        index: int,
        body: Mapping[str, Any],
        now: datetime,
    ) -> int:
        pending: dict[str, int] = body.get("pending", {})
        pending_term = next(iter(pending.values()), None)
        message = draft.source_message_id or f"draft{draft.id}"
        written = 0
        for field_id in duplicates.op_fields(body):
            values = {key: body.get(key) for key in _ROW_KEYS}
            # Unique per message, operation and field: a redelivered update, a second
            # card of the same message or a second tap writes nothing more.
            source = f"{draft.chat_id}:{message}:{index}:{field_id or '-'}"
            values.update(
                farm_id=draft.farm_id,
                field_id=field_id,
                op_date=date.fromisoformat(body["op_date"]),
                source_chat_id=draft.chat_id,
                source_message_id=draft.source_message_id,
                source_key=source[:96],
                author=draft.user_id,
                pending_term_id=pending_term,
                created_at=now,
            )
            written += int(await repo.insert_operation(session, values))
        return written

    def _buttons(
        self, draft_id: int, ops: Sequence[Mapping[str, Any]], lang: Language
    ) -> tuple[tuple[Button, ...], ...]:
        text = self._catalog.text
        left = [i for i, op in enumerate(ops) if not op.get("written")]
        repeat = bool(left) and all(ops[i].get("duplicate") for i in left)
        main = JournalVerb.AGAIN if repeat else JournalVerb.WRITE
        labels = {
            main: "journal.again" if repeat else "journal.write",
            JournalVerb.EDIT: "journal.edit_button",
            JournalVerb.CANCEL: "journal.cancel",
        }
        rows = [
            tuple(
                Button(text(lang, key), JournalAction(verb, draft_id))
                for verb, key in labels.items()
            )
        ]
        if len(ops) > 1 and len(left) > 1:
            # Each operation of the card can be written on its own.
            verb_of = {
                i: JournalVerb.AGAIN if ops[i].get("duplicate") else JournalVerb.WRITE for i in left
            }
            rows.append(
                tuple(
                    Button(
                        text(lang, "journal.write_one", number=i + 1),
                        JournalAction(verb_of[i], draft_id, i),
                    )
                    for i in left
                )
            )
        return tuple(rows)

    def card(self, payload: Mapping[str, Any], lang: Language) -> str:
        return self._cards.card(_ops(payload), lang)

    def _closing(self, ops: Sequence[Mapping[str, Any]], lang: Language, key: str) -> str:
        shown = [{**op, "written": False, "duplicate": False} for op in ops]
        return f"{self._cards.card(shown, lang)}\n\n{self._catalog.text(lang, key)}"


def _row_values(row: Any) -> dict[str, Any]:
    values = {key: getattr(row, key) for key in _ROW_KEYS}
    values["op_date"] = row.op_date.isoformat()
    return values
