"""Conversation memory (issue 11 point 5; docs/memory.md "Conversation memory").

A deep conversation ends after ``silence_minutes`` without a deep message, or when
the next deep message is about another subject (an intent of another
``subject_groups`` group). Then its messages are compacted into 3-5 lines
(``pipeline/recall/compact.py``) and appended to the user's rolling window in SQL, and
a copy is queued for the memory-service's dialog summaries in the same transaction.
The newest ``in_prompt`` summaries go into LLM prompts and the composer's context;
weekly, summaries beyond the window are folded into ``context_notes``.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from db.errors import IntegrityError
from db.models import ConversationSummaryRow, InteractionRow
from db.repositories import farm as farm_repo
from db.repositories import profiles as profiles_repo
from db.repositories import recall as repo
from db.repositories.reporting import as_utc
from db.uow import Database, Session
from pipeline.clock import Clock, utcnow
from pipeline.farm.dictionary import Dictionary, Vocabulary
from pipeline.farm.journal.farm_words import farm_dictionary
from pipeline.farm.localtime import DEFAULT_TIMEZONE
from pipeline.memory.profiles.editing import ProfileEditor
from pipeline.memory.service.summaries import STEPAN_KEY, DialogSummary, Summaries
from pipeline.recall.compact import Compactor, Conversation, Decision, Turn
from pipeline.recall.rules import ConversationRules
from pipeline.types import Language

logger = logging.getLogger(__name__)

#: How much of the lookback one read of the ended-talk search covers.
ENDED_TALK_SLICE = timedelta(hours=1)
#: Farmers whose last summary one read of the ended-talk search asks for.
ENDED_TALK_BATCH = 500

#: Names a summary's copy in the memory-service (``summary_json.stepan_key``).
KEY_NAMESPACE = uuid.UUID("5f0c2a56-7c0e-4c55-9a59-2b1f1f0b7d11")


@dataclass(frozen=True, slots=True)
class SummaryView:
    """One summary as /me and prompts show it."""

    id: int
    period_start: datetime
    period_end: datetime
    text: str
    source: str = "extractive"


@dataclass(frozen=True, slots=True)
class PromptMemory:
    """What a deep request gets of the conversation memory."""

    #: The newest summaries, newest first (prompts and the composer's context).
    lines: tuple[str, ...]
    #: When this message opens a conversation: the newest of ``lines`` on its subject
    #: that ended at least ``silence_minutes`` ago (where the last talk about it
    #: stopped, for the offline composer to say).
    related: str | None = None


@dataclass(frozen=True, slots=True)
class _Context:
    lang: Language
    timezone: str
    dictionary: Dictionary


class Conversations:
    def __init__(
        self,
        db: Database,
        rules: ConversationRules,
        compactor: Compactor,
        summaries: Summaries,
        editor: ProfileEditor,
        vocabulary: Vocabulary,
        *,
        clock: Clock = utcnow,
    ) -> None:
        self._db = db
        self._rules = rules
        self._compactor = compactor
        self._summaries = summaries
        self._editor = editor
        self._vocabulary = vocabulary
        self._clock = clock

    @property
    def rules(self) -> ConversationRules:
        return self._rules

    def same_subject(self, first: str, second: str) -> bool:
        if first == second:
            return True
        group = self._rules.groups.get(first)
        return group is not None and group == self._rules.groups.get(second)

    # --- ending conversations -----------------------------------------------------------

    async def close_ended(self, user_id: str, next_intent: str | None = None) -> int:
        """Compact the user's conversations that have ended by now (silence), and the
        open one too when ``next_intent`` changes the subject. Returns how many."""
        made, _, _ = await self._close_ended(user_id, next_intent, prompt=False)
        return made

    async def close_ended_for_prompt(self, user_id: str, next_intent: str) -> PromptMemory:
        """:meth:`close_ended`, then :meth:`for_prompt`: what a deep request gets. When
        nothing ends (the usual deep message) both are one read: on SQLite every
        transaction waits its turn. Raises what compacting raises."""
        _, memory, going_on = await self._close_ended(user_id, next_intent, prompt=True)
        if memory is not None:
            return memory
        async with self._db.read() as session:
            return await self._prompt_memory(session, user_id, next_intent, opens=not going_on)

    async def _close_ended(
        self, user_id: str, next_intent: str | None, *, prompt: bool
    ) -> tuple[int, PromptMemory | None, bool]:
        """How many were compacted, (``prompt``, none compacted) the prompt's
        summaries, read in the same transaction, and whether a conversation goes on."""
        now = self._clock()
        async with self._db.read() as session:
            since = await repo.last_summary_end(session, user_id)
            floor = now - self._rules.lookback
            since = floor if since is None or as_utc(since) < floor else since
            ignore = self._rules.ignore
            rows = [
                r for r in await repo.deep_since(session, user_id, since) if r.intent not in ignore
            ]
            if not rows:
                if not prompt:
                    return 0, None, False
                return 0, await self._prompt_memory(session, user_id, next_intent), False
            talks = self._split(user_id, rows)
            last = talks[-1]
            silent = now - last.end >= self._rules.silence
            moved_on = (
                next_intent is not None
                and next_intent not in ignore
                and not self.same_subject(last.turns[-1].intent, next_intent)
            )
            going_on = not (silent or moved_on)
            if going_on:
                talks = talks[:-1]
            if not talks:
                # The usual deep message: its conversation goes on. The farm's
                # dictionary (five reads and a matcher) is built only to compact.
                if not prompt:
                    return 0, None, going_on
                memory = await self._prompt_memory(
                    session, user_id, next_intent, opens=not going_on
                )
                return 0, memory, going_on
            context = await self._context(session, user_id)
            talks = [await self._with_decisions(session, talk, now) for talk in talks]
        made = 0
        for talk in talks:
            made += await self._store(talk, context)
        return made, None, going_on

    async def close_idle(self) -> int:
        """The job: every conversation silent for ``silence_minutes`` is compacted.

        Only farmers with an ended, not yet compacted conversation are visited, one
        short read and write each, with a turn for waiting conversations between them
        (a farmer whose talk ended by a change of subject while another is still open
        has it compacted on their next message, or here once that one falls silent)."""
        now = self._clock()
        users = await self.users_with_ended_talk(
            now - self._rules.lookback, now - self._rules.silence
        )
        made = 0
        for user_id in users:
            await asyncio.sleep(0)
            try:
                made += await self.close_ended(user_id)
            except Exception:
                logger.exception("recall: compacting failed user=%s", user_id)
        return made

    async def users_with_ended_talk(self, since: datetime, quiet_before: datetime) -> list[str]:
        """Users whose conversation has ended and is not compacted yet, sorted: their
        newest deep message after ``since`` is older than ``quiet_before`` (the silence)
        and newer than the end of their last summary. Short reads, a turn for waiting
        conversations between two: the lookback an hour per read, then the candidates'
        last summaries ``ENDED_TALK_BATCH`` farmers per read (issue 17 point 4)."""
        newest: dict[str, datetime] = {}
        start, until = since, max(since, self._clock())
        while start < until:
            end = min(start + ENDED_TALK_SLICE, until)
            async with self._db.read() as session:
                for user, at in (await repo.newest_deep(session, start, end)).items():
                    newest[user] = max(at, newest.get(user, at))
            start = end
            await asyncio.sleep(0)
        quiet = as_utc(quiet_before)
        candidates = sorted(user for user, at in newest.items() if at <= quiet)
        ended: list[str] = []
        for first in range(0, len(candidates), ENDED_TALK_BATCH):
            chunk = candidates[first : first + ENDED_TALK_BATCH]
            async with self._db.read() as session:
                done = await repo.compacted_until(session, chunk)
            ended += [user for user in chunk if user not in done or newest[user] > done[user]]
            await asyncio.sleep(0)
        return ended

    def _split(self, user_id: str, rows: Sequence[InteractionRow]) -> list[Conversation]:
        talks: list[list[Turn]] = []
        for row in rows:
            turn = Turn(as_utc(row.created_at), row.intent, row.text or "")
            previous = talks[-1][-1] if talks else None
            if (
                previous is None
                or turn.at - previous.at >= self._rules.silence
                or not self.same_subject(previous.intent, turn.intent)
            ):
                talks.append([turn])
            else:
                talks[-1].append(turn)
        return [Conversation(user_id, tuple(turns)) for turns in talks]

    async def _with_decisions(
        self, session: Session, talk: Conversation, now: datetime
    ) -> Conversation:
        until = min(talk.end + self._rules.silence, now)
        rows = await repo.decisions_between(
            session, talk.user_id, talk.start - timedelta(seconds=1), until
        )
        decisions = tuple(Decision(op_type, status) for op_type, status in rows)
        return Conversation(talk.user_id, talk.turns, decisions)

    async def _context(self, session: Session, user_id: str) -> _Context:
        user = await profiles_repo.get_user(session, user_id)
        lang: Language = "en" if user is not None and user.preferred_language == "en" else "uk"
        farm = await farm_repo.farm_of(session, user_id)
        if farm is None:
            return _Context(lang, DEFAULT_TIMEZONE, self._vocabulary.shared())
        dictionary = await farm_dictionary(session, farm.farm_id, self._vocabulary)
        return _Context(lang, farm.timezone or DEFAULT_TIMEZONE, dictionary)

    async def _store(self, talk: Conversation, context: _Context) -> int:
        compacted = await self._compactor.compact(
            talk, context.dictionary, context.lang, context.timezone
        )
        key = str(uuid.uuid5(KEY_NAMESPACE, f"{talk.user_id}|{talk.start.isoformat()}"))
        row = ConversationSummaryRow(
            key=key,
            user_id=talk.user_id,
            period_start=talk.start,
            period_end=talk.end,
            text=compacted.text,
            intents=list(talk.intents),
            message_count=len(talk.turns),
            source=compacted.source,
            created_at=self._clock(),
        )
        summary = DialogSummary(
            period_start=talk.start,
            period_end=talk.end,
            text=compacted.text,
            message_count=len(talk.turns),
            topics=talk.intents,
            data={"stepan_key": key, "source": compacted.source},
        )
        try:
            async with self._db.write() as session:
                done = await repo.last_summary_end(session, talk.user_id)
                if done is not None and as_utc(done) >= talk.end:
                    return 0  # another instance (or the job) got here first
                repo.add_summary(session, row)
                self._summaries.queue(session, talk.user_id, summary, self._clock())
        except IntegrityError:
            return 0  # the same conversation, compacted at the same moment elsewhere
        logger.info(
            "recall: conversation compacted user=%s messages=%d source=%s",
            talk.user_id,
            len(talk.turns),
            compacted.source,
        )
        return 1

    # --- reading ------------------------------------------------------------------------

    async def _prompt_memory(
        self, session: Session, user_id: str, next_intent: str | None, *, opens: bool = True
    ) -> PromptMemory:
        rows = await repo.summaries(session, user_id, self._rules.in_prompt)
        related = None
        if opens and next_intent is not None:
            # Only a talk that ended a while ago is worth recalling: one that ended a
            # minute ago, by a question in between, is still in the farmer's mind.
            before = self._clock() - self._rules.silence
            related = next(
                (
                    r.text
                    for r in rows
                    if as_utc(r.period_end) <= before
                    and any(self.same_subject(i, next_intent) for i in r.intents)
                ),
                None,
            )
        return PromptMemory(tuple(row.text for row in rows), related)

    async def window(self, user_id: str, limit: int | None = None) -> list[SummaryView]:
        """The user's summaries, newest first (at most the window)."""
        size = min(limit or self._rules.window, self._rules.window)
        async with self._db.read() as session:
            rows = await repo.summaries(session, user_id, size)
        return [
            SummaryView(r.id, as_utc(r.period_start), as_utc(r.period_end), r.text, r.source)
            for r in rows
        ]

    async def window_or_empty(self, user_id: str) -> list[SummaryView]:
        """The window for /me; empty when it cannot be read (the card still shows)."""
        try:
            return await self.window(user_id)
        except Exception:
            logger.exception("recall: summaries unreadable user=%s", user_id)
            return []

    async def for_prompt(self, user_id: str) -> tuple[str, ...]:
        """The newest summaries for prompts and the composer's context; () on failure
        (a reply never waits on memory it cannot read)."""
        views = await self.window_or_empty(user_id)
        return tuple(view.text for view in views[: self._rules.in_prompt])

    # --- changing -----------------------------------------------------------------------

    async def delete(self, user_id: str, summary_id: int) -> bool:
        """Delete one of the user's summaries here and in the memory-service; False
        when it is not theirs (or already gone)."""
        now = self._clock()
        async with self._db.write() as session:
            key = await repo.delete_summary(session, user_id, summary_id)
            if key is None:
                return False
            self._summaries.queue_delete(session, user_id, STEPAN_KEY + key, now)
        return True

    async def fold(self) -> int:
        """The weekly job: summaries beyond the window become context notes (bounded);
        they are deleted here and in the memory-service. Returns how many were folded."""
        async with self._db.read() as session:
            users = await repo.users_over_window(session, self._rules.window)
        folded = 0
        for user_id in users:
            try:
                folded += await self._fold_user(user_id)
            except Exception:
                logger.exception("recall: folding failed user=%s", user_id)
        return folded

    async def _fold_user(self, user_id: str) -> int:
        rules, now = self._rules, self._clock()
        async with self._db.write() as session:
            old = list(await repo.summaries(session, user_id))[rules.window :]
            if not old:
                return 0
            notes = [_note(row, rules.note_chars) for row in reversed(old)]
            if not await self._editor.add_context_notes(session, user_id, notes, rules.notes_max):
                return 0
            await repo.delete_summaries(session, old)
            for row in old:
                self._summaries.queue_delete(session, user_id, STEPAN_KEY + row.key, now)
        self._editor.invalidate(user_id)
        return len(old)


def _note(row: ConversationSummaryRow, limit: int) -> str:
    text = f"{as_utc(row.period_end):%d.%m.%Y}: " + "; ".join(row.text.splitlines())
    return text if len(text) <= limit else text[: limit - 1] + "…"
