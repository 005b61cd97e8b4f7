"""The use cases of a correction: a message proposes an edit card (or fixes the open
card in place), ✅ applies it, ❌ drops it, ↩️ takes back what a press did. Each opens
its own short transactions through the injected ``Database``; every change of an
entry is a revision, applied once (its unique ``source_key``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from db.repositories import farm as farm_repo
from db.repositories import journal as repo
from db.states import DraftStatus
from db.uow import Database
from pipeline.actions import EntryAction, EntryVerb, JournalAction, JournalVerb
from pipeline.farm.dictionary import Dictionary, Vocabulary
from pipeline.farm.journal.card import CardWriter, date_text, op_names
from pipeline.farm.journal.draft import JournalDraft
from pipeline.farm.journal.edits.applying import apply_edit, undo_press
from pipeline.farm.journal.edits.changes import Change, Mismatch, change_of
from pipeline.farm.journal.edits.payload import EditOp, EditPayload, is_edit
from pipeline.farm.journal.edits.render import change_lines, entry_card, history_text
from pipeline.farm.journal.edits.replies import day_of, entry_button, refusal, say
from pipeline.farm.journal.edits.words import EditWords
from pipeline.farm.journal.farm_words import farm_dictionary
from pipeline.farm.journal.parsing import OperationParser
from pipeline.farm.journal.parsing.pieces import Pieces, read_pieces
from pipeline.farm.localtime import local_today
from pipeline.intents import Intent
from pipeline.language.texts import Texts
from pipeline.text import fold
from pipeline.types import Button, Language, Reply

__all__ = ["EditRequest", "JournalEdits"]

#: A card older than this is not "the open card" a correction refers to.
OPEN_CARD_AGE = timedelta(hours=2)
#: How many entries an operator's view lists.
FARM_ENTRIES = 10
#: How far back and ahead a "виконали" looks for the planned work it means.
PLAN_BACK, PLAN_AHEAD = timedelta(days=14), timedelta(days=7)
_APPLIED_TEXT = {EditOp.CHANGE: "applied", EditOp.DELETE: "deleted", EditOp.DONE: "marked_done",
                 EditOp.RESTORE: "restored"}  # fmt: skip

#: The buttons of a journal card (``Journal.card_buttons``).
CardButtons = Callable[[int, JournalDraft, Language], tuple[tuple[Button, ...], ...]]


@dataclass(frozen=True, slots=True)
class EditRequest:
    user_id: str
    chat_id: int
    message_id: int | None
    text: str
    texts: Texts
    now: datetime
    #: The classifier read it as a correction: say so when nothing can be changed.
    asked: bool = False


@dataclass(frozen=True, slots=True)
class _Context:
    farm_id: str
    today: date
    dictionary: Dictionary
    cards: list[tuple[int, dict[str, Any]]]
    entries: list[repo.Entry]
    planned: list[repo.Entry]


def undo_button(texts: Texts, draft_id: int) -> tuple[tuple[Button, ...], ...]:
    return ((Button(texts.text("journal_edit.undo"), JournalAction(JournalVerb.UNDO, draft_id)),),)


class JournalEdits:
    def __init__(
        self,
        db: Database,
        *,
        parser: OperationParser,
        vocabulary: Vocabulary,
        words: EditWords,
        cards: CardWriter,
        card_buttons: CardButtons,
    ) -> None:
        self._db = db
        self._parser = parser
        self._vocabulary = vocabulary
        self._words = words
        self._cards = cards
        self._card_buttons = card_buttons

    def might_edit(self, text: str) -> bool:
        """Cheap, before any database read."""
        return self._words.might_edit(fold(text))

    # --- a message ------------------------------------------------------------------------

    async def propose(self, request: EditRequest) -> Reply | None:
        """The edit card for ``request``'s correction; None when it is not one (the
        message then goes on as any other)."""
        folded = fold(request.text)
        if not (request.asked or self._words.might_edit(folded)):
            return None
        ctx = await self._context(request, folded)
        if ctx is None:
            return say(request.texts, "nothing") if request.asked else None
        if self._words.asks_delete(folded):
            return await self._ask_delete(request, ctx)
        if self._words.says_done(folded):
            reply = await self._plan_done(request, ctx, folded)
            if reply is not None:
                return reply
        return await self._change(request, ctx, folded)

    async def _context(self, request: EditRequest, folded: str) -> _Context | None:
        async with self._db.read() as session:
            farm = await farm_repo.farm_of(session, request.user_id)
            if farm is None:
                return None
            today = local_today(request.now, farm.timezone)
            dictionary = await farm_dictionary(session, farm.farm_id, self._vocabulary)
            since = request.now - OPEN_CARD_AGE
            found = await repo.open_cards(session, request.user_id, request.chat_id, since)
            cards = [(draft_id, payload) for draft_id, payload in found if not is_edit(payload)]
            entries = await repo.last_entries(session, farm.farm_id, request.user_id)
            focus = _focus_of(found)
            if focus is not None and (entry := await repo.entry(session, focus)) is not None:
                # The entry opened last (from the listing or «оберіть запис») comes first.
                cards, entries = [], [entry, *(e for e in entries if e.id != entry.id)]
            planned: list[repo.Entry] = []
            if self._words.says_done(folded):
                planned = await repo.planned_entries(
                    session, farm.farm_id, today - PLAN_BACK, today + PLAN_AHEAD
                )
        return _Context(farm.farm_id, today, dictionary, cards, entries, planned)

    def _pieces(self, text: str, ctx: _Context) -> Pieces:
        return read_pieces(text, self._parser.rules, ctx.dictionary, ctx.today)

    async def _change(self, request: EditRequest, ctx: _Context, folded: str) -> Reply | None:
        words = self._words
        split = words.split(folded)
        said = request.asked or bool(split.wrong) or words.says_correcting(folded)
        if not (said or split.adding):
            return None
        # A message that is an operation of its own is a new record, not a fix.
        if (
            not split.wrong
            and not request.asked
            and self._parser.parse_all(request.text, ctx.dictionary, ctx.today).record
        ):
            return None
        wrong, right = self._pieces(split.wrong, ctx), self._pieces(split.right, ctx)
        if right.empty:
            # Only the classifier's correction earns «не зрозумів»: «ой, дякую» or «не
            # знаю, а ти?» name nothing a record holds and go on to the other stages.
            return say(request.texts, "not_understood") if request.asked else None
        if ctx.cards:
            return await self._fix_card(request, ctx, wrong, right, split.adding)
        if not ctx.entries:
            return say(request.texts, "nothing") if request.asked else None
        return await self._fix_entry(request, ctx, wrong, right, split.adding)

    async def _fix_card(
        self, request: EditRequest, ctx: _Context, wrong: Pieces, right: Pieces, adding: bool
    ) -> Reply | None:
        texts = request.texts
        draft_id, payload = ctx.cards[0]
        draft = JournalDraft.from_payload(payload)
        found: Change | Mismatch | None = None
        index = 0
        for index in reversed(draft.left or range(len(draft.operations))):
            found = change_of(draft.operations[index].model_dump(), wrong, right, adding=adding)
            if isinstance(found, Change):
                break
        if not isinstance(found, Change):
            return refusal(texts, found, ctx.dictionary, ctx.entries)
        before = draft.operations[index]
        changes = dict(found.values)
        if "field_id" in changes:
            changes |= {"several_fields": (), "field_names": (), "field_phrase": None}
        operation = before.model_copy(update=changes)
        operation = operation.named(op_names(operation, ctx.dictionary, texts.lang))
        fixed = draft.with_operation(index, operation)
        async with self._db.write() as session:
            row = await farm_repo.draft(session, draft_id, lock=True)
            if row is None or row.status != DraftStatus.DRAFT:
                return None
            repo.keep_draft(row, fixed.to_payload(), written=False)
        lines = change_lines(found.columns, before.model_dump(), operation.model_dump(),
                             ctx.dictionary, texts)  # fmt: skip
        text = "\n".join(
            [
                texts.text("journal_edit.card_fixed"),
                lines,
                "",
                self._cards.card(fixed.operations, texts.lang),
            ]
        )
        return Reply(
            text, self._card_buttons(draft_id, fixed, texts.lang), intent=Intent.CORRECTION
        )

    async def _fix_entry(
        self, request: EditRequest, ctx: _Context, wrong: Pieces, right: Pieces, adding: bool
    ) -> Reply | None:
        first: Change | Mismatch | None = None
        for entry in ctx.entries:
            found = change_of(entry.values, wrong, right, adding=adding)
            first = first or found
            if isinstance(found, Change):
                after = {**entry.values, **found.values}
                edit = EditPayload(op=EditOp.CHANGE, operation_id=entry.id,
                                   before=entry.snapshot(), after=repo.snapshot(after),
                                   changed=found.columns)  # fmt: skip
                head = request.texts.text("journal_edit.card_change")
                lines = change_lines(
                    found.columns, entry.values, after, ctx.dictionary, request.texts
                )
                return await self._edit_card(request, ctx, edit, f"{head}\n{lines}", after)
            if wrong.empty:
                break  # without a wrong part, only the last entry is meant
        return refusal(request.texts, first, ctx.dictionary, ctx.entries)

    async def _ask_delete(self, request: EditRequest, ctx: _Context) -> Reply:
        if not ctx.entries:
            return say(request.texts, "nothing")
        entry = ctx.entries[0]
        edit = EditPayload(op=EditOp.DELETE, operation_id=entry.id, before=entry.snapshot(),
                           after=entry.snapshot())  # fmt: skip
        head = request.texts.text("journal_edit.delete_ask")
        return await self._edit_card(request, ctx, edit, head, entry.values, "delete_yes")

    async def _plan_done(self, request: EditRequest, ctx: _Context, folded: str) -> Reply | None:
        pieces = self._pieces(request.text, ctx)
        planned_said = self._words.says_planned(folded)
        if pieces.empty and not planned_said:
            return None
        matches = [e for e in ctx.planned if _plan_matches(e, pieces, planned_said)]
        if not matches:
            return say(request.texts, "no_plan") if planned_said else None
        entry = min(matches, key=lambda e: abs((day_of(e) - ctx.today).days))
        if planned_said:
            done_on = min(day_of(entry), ctx.today)
        else:
            done_on = pieces.dates[0] if pieces.dates else ctx.today
        return await self._done_card(request, ctx, entry, done_on)

    async def _done_card(
        self, request: EditRequest, ctx: _Context, entry: repo.Entry, done_on: date
    ) -> Reply:
        after = {**entry.values, "status": "done", "op_date": done_on}
        edit = EditPayload(op=EditOp.DONE, operation_id=entry.id, before=entry.snapshot(),
                           after=repo.snapshot(after), changed=("op_date",))  # fmt: skip
        head = request.texts.text("journal_edit.done_ask", date=date_text(done_on))
        return await self._edit_card(request, ctx, edit, head, after, "done_yes")

    async def _edit_card(
        self,
        request: EditRequest,
        ctx: _Context,
        edit: EditPayload,
        head: str,
        shown: Mapping[str, Any],
        yes: str = "apply",
    ) -> Reply:
        async with self._db.write() as session:
            row, _inserted = await farm_repo.add_draft(
                session,
                user_id=request.user_id,
                farm_id=ctx.farm_id,
                chat_id=request.chat_id,
                source_message_id=request.message_id,
                payload=edit.to_payload(),
                created_at=request.now,
            )
            draft_id = row.id
        texts = request.texts
        buttons = ((
            Button(texts.text(f"journal_edit.{yes}"), JournalAction(JournalVerb.APPLY, draft_id)),
            Button(texts.text("journal_edit.drop"), JournalAction(JournalVerb.DROP, draft_id)),
        ),)  # fmt: skip
        text = f"{head}\n\n{entry_card(self._cards, shown, ctx.dictionary, texts)}"
        return Reply(text, buttons, intent=Intent.CORRECTION)

    # --- the listing's entry buttons -------------------------------------------------------

    async def entry_press(
        self,
        *,
        user_id: str,
        chat_id: int,
        operator: bool,
        action: EntryAction,
        texts: Texts,
        now: datetime,
    ) -> Reply | None:
        """An entry of the journal listing: its card, 🗑, ✅ (planned), 🕘. The farmer's
        own farm's entries only; an operator's, any farm's. None: not theirs."""
        async with self._db.read() as session:
            # An operator sees deleted entries too, to put them back.
            entry = await repo.entry(session, action.operation_id, include_deleted=operator)
            farm = await farm_repo.farm_of(session, user_id)
            if entry is None or not (
                operator or (farm is not None and farm.farm_id == entry.farm_id)
            ):
                return None
            tz = farm.timezone if farm is not None else None
            dictionary = await farm_dictionary(session, entry.farm_id, self._vocabulary)
            history = (
                await repo.revisions_of(session, entry.id)
                if action.verb is EntryVerb.HISTORY
                else []
            )
        ctx = _Context(entry.farm_id, local_today(now, tz), dictionary, [], [entry], [])
        request = EditRequest(user_id, 0, None, "", texts, now)
        if entry.deleted and action.verb is not EntryVerb.HISTORY:
            return await self._restore_card(request, ctx, entry, action.verb)
        if action.verb is EntryVerb.DELETE:
            return await self._ask_delete(request, ctx)
        if action.verb is EntryVerb.DONE and entry.values.get("status") == "planned":
            return await self._done_card(request, ctx, entry, min(day_of(entry), ctx.today))
        if action.verb is EntryVerb.HISTORY:
            return Reply(history_text(history, dictionary, texts), intent=Intent.CORRECTION)
        await self._focus(user_id, chat_id, entry, now)
        return self._entry_card(entry, ctx, texts)

    async def farm_entries(self, user_id: str, texts: Texts) -> Reply | None:
        """An operator's view of a farm's last entries, whoever wrote them, each a tap
        away from its card (``entry_press`` lets an operator open any farm's)."""
        async with self._db.read() as session:
            farm = await farm_repo.farm_of(session, user_id)
            if farm is None:
                return None
            entries = await repo.farm_entries(
                session, farm.farm_id, limit=FARM_ENTRIES, include_deleted=True
            )
        if not entries:
            return Reply(texts.text("journal_edit.farm_none"))
        buttons = tuple((entry_button(texts, e),) for e in entries)
        return Reply(texts.text("journal_edit.farm_entries", count=len(entries)), buttons)

    async def _restore_card(
        self, request: EditRequest, ctx: _Context, entry: repo.Entry, verb: EntryVerb
    ) -> Reply:
        """A deleted entry (an operator's view): its card with ♻️, or ♻️'s own card."""
        texts = request.texts
        if verb is EntryVerb.RESTORE:
            edit = EditPayload(op=EditOp.RESTORE, operation_id=entry.id, before=entry.snapshot(),
                               after=entry.snapshot())  # fmt: skip
            head = texts.text("journal_edit.restore_ask")
            return await self._edit_card(request, ctx, edit, head, entry.values, "restore_yes")
        row = tuple(
            Button(texts.text(f"journal_edit.entry_{v}"), EntryAction(v, entry.id))
            for v in (EntryVerb.RESTORE, EntryVerb.HISTORY)
        )
        card = entry_card(self._cards, entry.values, ctx.dictionary, texts)
        return Reply(f"{texts.text('journal_edit.deleted_entry')}\n{card}", (row,))

    async def _focus(self, user_id: str, chat_id: int, entry: repo.Entry, now: datetime) -> None:
        """The entry opened: the next correction in this chat is about it."""
        focus = EditPayload(op=EditOp.FOCUS, operation_id=entry.id, before=entry.snapshot(),
                            after=entry.snapshot())  # fmt: skip
        async with self._db.write() as session:
            await farm_repo.add_draft(session, user_id=user_id, farm_id=entry.farm_id,
                                      chat_id=chat_id, source_message_id=None,
                                      payload=focus.to_payload(), created_at=now)  # fmt: skip

    def _entry_card(self, entry: repo.Entry, ctx: _Context, texts: Texts) -> Reply:
        verbs = [EntryVerb.DELETE, EntryVerb.HISTORY]
        if entry.values.get("status") == "planned":
            verbs.insert(0, EntryVerb.DONE)
        row = tuple(
            Button(texts.text(f"journal_edit.entry_{verb}"), EntryAction(verb, entry.id))
            for verb in verbs
        )
        buttons = (row,)
        card = entry_card(self._cards, entry.values, ctx.dictionary, texts)
        text = f"{card}\n\n{texts.text('journal_edit.entry_hint')}"
        return Reply(text, buttons, intent=Intent.CORRECTION)

    # --- a press --------------------------------------------------------------------------

    async def decide(
        self, *, user_id: str, action: JournalAction, texts: Texts, now: datetime
    ) -> Reply | None:
        """✅ / ❌ on an edit card, ↩️ under what a press did; None: not this card's."""
        if action.verb is JournalVerb.UNDO:
            return await self._undo(user_id, action.draft_id, texts, now)
        async with self._db.write() as session:
            row = await farm_repo.draft(session, action.draft_id, lock=True)
            if row is None or row.user_id != user_id or not is_edit(row.payload):
                return None
            edit = EditPayload.model_validate(row.payload)
            if row.status == DraftStatus.WRITTEN:
                return Reply(texts.text("journal_edit.already"), undo_button(texts, row.id))
            if row.status == DraftStatus.CANCELLED:
                return None
            if action.verb is JournalVerb.DROP:
                repo.cancel_draft(row)
                return Reply(texts.text("journal_edit.dropped"))
            source = f"{row.chat_id}:{row.source_message_id}"
            applied = await apply_edit(session, edit, user_id, row.id, source, now)
            if not applied:
                return Reply(texts.text("journal_edit.stale"))
            repo.keep_draft(row, row.payload, written=True)
            draft_id = row.id
        return Reply(
            texts.text(f"journal_edit.{_APPLIED_TEXT[edit.op]}"), undo_button(texts, draft_id)
        )

    async def _undo(self, user_id: str, draft_id: int, texts: Texts, now: datetime) -> Reply | None:
        async with self._db.write() as session:
            row = await farm_repo.draft(session, draft_id, lock=True)
            if row is None or row.user_id != user_id:
                return None
            if not await undo_press(session, draft_id, user_id, now):
                return Reply(texts.text("journal_edit.undo_gone"))
        return Reply(texts.text("journal_edit.undone"))


def _focus_of(found: list[tuple[int, dict[str, Any]]]) -> int | None:
    """The entry of the newest open draft when that is an opened entry (a focus)."""
    if not found:
        return None
    _draft_id, payload = found[0]
    if is_edit(payload) and payload.get("op") == EditOp.FOCUS:
        return int(payload["operation_id"])
    return None


def _plan_matches(entry: repo.Entry, pieces: Pieces, planned_said: bool) -> bool:
    values = entry.values
    if pieces.ops and values.get("op_type") not in pieces.ops:
        return False
    if pieces.fields and values.get("field_id") not in pieces.fields:
        return False
    return not (planned_said and pieces.dates and day_of(entry) not in pieces.dates)
