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
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, Protocol

from db.models import OperationDraftRow
from db.repositories import farm as repo
from db.repositories import journal as drafts
from db.states import DraftStatus
from db.uow import Database, Session
from pipeline.actions import JournalAction, JournalVerb
from pipeline.farm.dictionary import Dictionary, Vocabulary
from pipeline.farm.journal import duplicates
from pipeline.farm.journal.card import CardWriter, op_names, quantity_text
from pipeline.farm.journal.draft import DraftOperation, JournalDraft
from pipeline.farm.journal.edits.payload import is_edit
from pipeline.farm.journal.edits.service import JournalEdits, undo_button
from pipeline.farm.journal.edits.words import EditWords
from pipeline.farm.journal.farm_words import farm_dictionary
from pipeline.farm.journal.field_areas import FieldArea, read_areas
from pipeline.farm.journal.parsing import Mood, OperationParser, ParsedOperation
from pipeline.farm.journal.spray_weather import (
    Conditions,
    PlannedSpraying,
    planned_in,
    sprayings_weather,
)
from pipeline.farm.journal.writing import note_terms, recent_signatures, write_operation
from pipeline.farm.localtime import local_today
from pipeline.intents import Intent
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.types import Button, Language, Reply

logger = logging.getLogger(__name__)

#: The buttons of a journal card (the rest are the edit cards', pipeline/farm/journal/edits).
_CARD_VERBS = frozenset(
    {JournalVerb.WRITE, JournalVerb.AGAIN, JournalVerb.EDIT, JournalVerb.CANCEL}
)


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


@dataclass(frozen=True, slots=True)
class _Card:
    """Whose card a message makes, and where it was sent."""

    user_id: str
    farm_id: str
    chat_id: int
    message_id: int | None
    now: datetime


@dataclass(frozen=True, slots=True)
class _Press:
    """What ✅ (all, or one operation) did to a card, in its transaction."""

    draft_id: int
    draft: JournalDraft  # the card as stored after the press
    chosen: list[int]  # the operations it wrote (or found written by another card)
    written: int  # the journal rows it inserted
    pending_count: int | None  # the farm's terms under review, when it noted some


def _draft_operation(
    parsed: ParsedOperation, text: str, dictionary: Dictionary, lang: Language
) -> DraftOperation:
    operation = DraftOperation.from_parsed(parsed, text)
    # What the card shows: the names the farm uses, not ids.
    return operation.named(op_names(operation, dictionary, lang))


def _owned(
    row: OperationDraftRow | None, user_id: str, action: JournalAction
) -> JournalDraft | None:
    """The card ``action`` presses, if it is ``user_id``'s and has the item pressed."""
    if row is None or row.user_id != user_id or is_edit(row.payload):
        return None
    draft = JournalDraft.from_payload(row.payload)
    if action.item is not None and not draft.has_item(action.item):
        return None
    return draft


class Journal:
    def __init__(
        self,
        catalog: Catalog,
        db: Database,
        farms: FarmProfiles,
        *,
        parser: OperationParser,
        vocabulary: Vocabulary,
        edit_words: EditWords,
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
        #: The weather of a spraying at its time (the weather desk's ``at_work``); None
        #: without a weather desk.
        self._conditions: Conditions | None = None
        #: Corrections, deletes, plans marked done and ↩️ (pipeline/farm/journal/edits).
        self.edits = JournalEdits(
            db,
            parser=parser,
            vocabulary=vocabulary,
            words=edit_words,
            cards=self._cards,
            card_buttons=self.card_buttons,
        )

    def use_weather(self, conditions: Conditions) -> None:
        """A recorded spraying keeps the weather at its time (issue 27 point 7)."""
        self._conditions = conditions

    async def _weather_of(
        self, user_id: str, action: JournalAction, now: datetime
    ) -> dict[int, Mapping[str, Any]]:
        """Before the write: the weather of each spraying ✅ writes (never stops it)."""
        if self._conditions is None or action.verb not in (JournalVerb.WRITE, JournalVerb.AGAIN):
            return {}
        try:
            async with self._db.read() as session:
                row = await repo.draft(session, action.draft_id)
                farm = await repo.farm_of(session, user_id)
            draft = _owned(row, user_id, action)
            if draft is None:
                return {}
            operations = {i: draft.operations[i] for i in draft.unwritten(action.item)}
            tz = farm.timezone if farm is not None else None
            return await sprayings_weather(self._conditions, user_id, operations, now, tz)
        except Exception:
            logger.warning("journal: the weather of a spraying not read", exc_info=True)
            return {}

    async def planned_sprayings(self, user_id: str, draft_id: int) -> list[PlannedSpraying]:
        """The sprayings card ``draft_id`` plans (its owner's only), for their forecast."""
        async with self._db.read() as session:
            row = await repo.draft(session, draft_id)
        if row is None or row.user_id != user_id or is_edit(row.payload):
            return []  # nobody else's card
        return planned_in(JournalDraft.from_payload(row.payload))

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
        operations = [_draft_operation(op, text, dictionary, lang) for op in parsed.operations]
        card = _Card(user_id, farm_id, chat_id, message_id, now)
        return Proposal(await self._store_card(card, operations, lang), "record")

    async def _store_card(
        self, card: _Card, operations: Sequence[DraftOperation], lang: Language
    ) -> Reply:
        """The message's card, stored once: a message that has one already (its update
        redelivered after a crash, or handled twice at once) gets that card back, the
        same text and the same buttons, never a second card."""
        async with self._db.write() as session:
            row = (
                await repo.message_draft(session, card.chat_id, card.message_id)
                if card.message_id is not None
                else None
            )
            if row is None:
                seen = await recent_signatures(session, card.user_id, card.now)
                draft = JournalDraft(
                    operations=tuple(
                        operation.marked_duplicate(duplicates.is_repeat(operation, seen))
                        for operation in operations
                    )
                )
                row, _ = await repo.add_draft(
                    session,
                    user_id=card.user_id,
                    farm_id=card.farm_id,
                    chat_id=card.chat_id,
                    source_message_id=card.message_id,
                    payload=draft.to_payload(),
                    created_at=card.now,
                )
            draft_id, status = row.id, row.status
            draft = JournalDraft.from_payload(row.payload)
        if status == DraftStatus.WRITTEN:
            return Reply(
                self._closing(draft, lang, "journal.already_written"), intent=Intent.RECORDING
            )
        if status == DraftStatus.CANCELLED:
            return Reply(self._catalog.text(lang, "journal.cancelled"), intent=Intent.RECORDING)
        return Reply(
            self._cards.card(draft.operations, lang),
            self.card_buttons(draft_id, draft, lang),
            intent=Intent.RECORDING,
        )

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
                area = quantity_text(Texts(self._catalog, lang), item.area_ha, "ha")
                lines.append(self._catalog.text(lang, key, field=item.name, area=area))
            pending = await repo.pending_count_of(session, farm_id)
        if any(item.field_id is None for item in areas):
            await self._farms.update_farm(user_id, dict_pending_count=pending)
        return Reply("\n".join(lines), intent=Intent.RECORDING)

    async def decide(
        self, *, user_id: str, action: JournalAction, lang: Language, now: datetime | None = None
    ) -> Decision:
        """✅ / ✅ n / «записати ще раз» / ✏️ / ❌ on a card. Only the card's owner may
        decide it. One transaction: the draft is locked, so two taps cannot both write."""
        now = now or datetime.now(UTC)
        expired = Decision(Reply(self._catalog.text(lang, "actions.expired")), 0)
        if action.verb not in _CARD_VERBS:
            return expired
        weather = await self._weather_of(user_id, action, now)
        async with self._db.write() as session:
            row = await repo.draft(session, action.draft_id, lock=True)
            draft = _owned(row, user_id, action)
            if row is None or draft is None:
                return expired
            closed = self._closed(row, draft, action.verb, lang)
            if closed is not None:
                return closed
            press = await self._press(session, row, draft, action, now, weather)
        await self._learn(user_id, press)
        if press.draft.done and press.chosen and not press.written:
            # The rows were there already (the same message, redelivered, on another card).
            return Decision(Reply(self._closing(press.draft, lang, "journal.already_written")), 0)
        return Decision(self._after(press.draft_id, press.draft, lang), press.written)

    def _closed(
        self, row: OperationDraftRow, draft: JournalDraft, verb: JournalVerb, lang: Language
    ) -> Decision | None:
        """The answer to a press on a card written or cancelled already, or to ✏️ / ❌
        (which cancel it); None when the press is to write."""
        if row.status == DraftStatus.WRITTEN:
            return Decision(Reply(self._closing(draft, lang, "journal.already_written")), 0)
        if row.status == DraftStatus.CANCELLED or verb in (JournalVerb.CANCEL, JournalVerb.EDIT):
            drafts.cancel_draft(row)
            key = "journal.edit" if verb is JournalVerb.EDIT else "journal.cancelled"
            return Decision(Reply(self._catalog.text(lang, key)), 0)
        return None

    async def _press(
        self,
        session: Session,
        row: OperationDraftRow,
        draft: JournalDraft,
        action: JournalAction,
        now: datetime,
        weather: Mapping[int, Mapping[str, Any]] | None = None,
    ) -> _Press:
        """Writes the operations pressed that are not written yet; ✅ (not «записати ще
        раз») first leaves out those the journal has had for a few minutes."""
        chosen = draft.unwritten(action.item)
        if action.verb is JournalVerb.WRITE:
            seen = await recent_signatures(session, row.user_id, now, drafts=False)
            draft = draft.marked_duplicates(
                {i: duplicates.is_repeat(draft.operations[i], seen) for i in chosen}
            )
            chosen = [i for i in chosen if not draft.operations[i].duplicate]
        written = 0
        noted = False
        for i in chosen:
            with_weather = draft.operations[i].with_weather((weather or {}).get(i))
            operation, noted_now = await note_terms(session, row.farm_id, with_weather)
            noted = noted_now or noted
            written += await write_operation(session, row, i, operation, now)
            draft = draft.with_operation(i, operation.marked_written())
        pending_count = await repo.pending_count_of(session, row.farm_id) if noted else None
        drafts.keep_draft(row, draft.to_payload(), written=draft.done)
        return _Press(row.id, draft, chosen, written, pending_count)

    async def _learn(self, user_id: str, press: _Press) -> None:
        """After the commit, through the memory layer (so the cache and the
        memory-service follow); a failed lesson never undoes the record."""
        if press.written and self._learner is not None:
            operations = [press.draft.operations[i] for i in press.chosen]
            await self._learner.journal_written(
                user_id,
                fields=[field for op in operations for field in op.target_fields()],
                crops=[op.crop_id for op in operations],
            )
        if press.pending_count is not None:
            await self._farms.update_farm(user_id, dict_pending_count=press.pending_count)

    def _after(self, draft_id: int, draft: JournalDraft, lang: Language) -> Reply:
        """The card after a press: closed when all is written, else what is left (an
        operation written just now by another card says so, with «записати ще раз»)."""
        if draft.done:
            # ↩️ takes the write back (pipeline/farm/journal/edits).
            texts = Texts(self._catalog, lang)
            return Reply(
                self._closing(draft, lang, "journal.written"), undo_button(texts, draft_id)
            )
        return Reply(
            self._cards.card(draft.operations, lang), self.card_buttons(draft_id, draft, lang)
        )

    def card_buttons(
        self, draft_id: int, draft: JournalDraft, lang: Language
    ) -> tuple[tuple[Button, ...], ...]:
        text = self._catalog.text
        ops = draft.operations
        left = draft.left
        repeat = bool(left) and all(ops[i].duplicate for i in left)
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
                i: JournalVerb.AGAIN if ops[i].duplicate else JournalVerb.WRITE for i in left
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

    def card(self, draft: JournalDraft, lang: Language) -> str:
        return self._cards.card(draft.operations, lang)

    def _closing(self, draft: JournalDraft, lang: Language, key: str) -> str:
        shown = draft.unmarked().operations
        return f"{self._cards.card(shown, lang)}\n\n{self._catalog.text(lang, key)}"
