"""The answering stages, each for its kind of message: light, advice, a shortcut,
the conversation memory, the deep path and keeping its answer. The first that
applies sets the turn's answer; the later ones see it and stand aside."""

from __future__ import annotations

from dataclasses import dataclass, replace

from pipeline.actions import JournalAction, JournalVerb, ReadingAction
from pipeline.agronomy.advisor import AdviceRequest, Advisor
from pipeline.deep import DeepPath
from pipeline.farm.journal.edits.service import EditRequest, JournalEdits
from pipeline.farm.journal.service import Journal
from pipeline.intents import Intent
from pipeline.recall import PromptMemory, Recall
from pipeline.replies.light import LightRequest, LightResponder
from pipeline.turn.stage import Stage, apology
from pipeline.turn.turn import Turn
from pipeline.types import Button, DeepRequest, Reply
from pipeline.weather.answers import WeatherDesk
from pipeline.weather.sowing import SoilCheck
from pipeline.weather.spraying import SprayCheck

__all__ = [
    "AdviceAnswer",
    "DeepAnswer",
    "JournalEdit",
    "LightAnswer",
    "Memory",
    "NotYet",
    "PlannedSpraying",
    "Readings",
    "Remember",
    "Shortcut",
    "SowingSoil",
    "SprayWindow",
    "WeatherAnswer",
]


class _Unanswered(Stage):
    def applies(self, turn: Turn) -> bool:
        return turn.answer is None

    async def fallback(self, turn: Turn) -> None:
        turn.answer = apology(turn)


@dataclass(frozen=True, slots=True)
class LightAnswer(_Unanswered):
    """Greetings, small talk, help: templates or one short LLM call. A light intent
    forced deep (AGX_FORCE_DEEP, --deep, an alert, pending terms) is still recorded
    as deep, but «привіт» is answered as what it is: no farm work."""

    responder: LightResponder
    light_intents: frozenset[str]
    name = "light"

    def applies(self, turn: Turn) -> bool:
        if turn.answer is not None:
            return False
        decision = turn.decision
        return decision.mode == "light" or decision.intent in self.light_intents

    async def run(self, turn: Turn) -> None:
        message, loaded = turn.message, turn.loaded
        if message.shared_chat and turn.decision.intent == Intent.WHOAMI:
            # «хто я» in a group: the name, level and history are the asker's alone.
            turn.answer = Reply(turn.texts.text("faults.private_only_ask"))
            return
        request = LightRequest(
            decision=turn.decision,
            profile=turn.profile,
            farm=loaded.farm,
            lang=turn.lang,
            is_operator=message.is_operator,
            first_contact=not loaded.known,
            text=message.text,
        )
        turn.answer = Reply(await self.responder.answer(request))


#: Intents that ask something of their own: never read as a correction unless the
#: classifier says it is one.
_QUESTIONS = frozenset({
    Intent.WEATHER, Intent.ADVICE, Intent.REPORTING, Intent.IOT, Intent.IOT_ALERT,
    Intent.ANALYSIS, Intent.SUMMARY, Intent.PLATFORM, Intent.WHOAMI, Intent.HELP,
})  # fmt: skip


@dataclass(frozen=True, slots=True)
class JournalEdit(_Unanswered):
    """A correction of the journal: «не 150, а 120», «видали останній запис», «ці
    роботи виконали» (docs/journal.md). Read before the light path, since «ще й 40 га»
    looks like small talk; a message with none of a correction's words costs no
    database read, and one that is no correction after all goes on to the others."""

    edits: JournalEdits
    name = "journal_edit"

    def applies(self, turn: Turn) -> bool:
        if turn.answer is not None:
            return False
        intent = turn.decision.intent
        if intent == Intent.CORRECTION:
            return True
        # A question about the weather, the cards, a report or the sensors with «не …,
        # а …» in it is that question, not a fix of the last record («обприскування на
        # Кургані виконали», read as advice, asks nothing: a plan done).
        text = turn.message.text
        asks = intent in _QUESTIONS and "?" in text
        return not asks and self.edits.might_edit(text)

    async def run(self, turn: Turn) -> None:
        message = turn.message
        turn.answer = await self.edits.propose(
            EditRequest(
                user_id=message.user_id,
                chat_id=message.chat_id,
                message_id=message.message_id,
                text=message.text,
                texts=turn.texts,
                now=turn.now,
                asked=turn.decision.intent == Intent.CORRECTION,
            )
        )


@dataclass(frozen=True, slots=True)
class Readings(_Unanswered):
    """A message nothing understood, with two or three likely readings: a short
    question, a button for each (docs/learning.md); a press answers the message as
    that reading and keeps it as a labelled example (buttons.uses.ReadingButton)."""

    name = "readings"

    def applies(self, turn: Turn) -> bool:
        return turn.answer is None and bool(turn.decision.readings)

    async def run(self, turn: Turn) -> None:
        texts, trace_id = turn.texts, turn.incoming.trace_id
        row = tuple(
            Button(texts.text(f"clarify.reading.{intent}"), ReadingAction(trace_id, intent))
            for intent in turn.decision.readings
        )
        turn.answer = Reply(texts.text("clarify.readings"), buttons=(row,))


@dataclass(frozen=True, slots=True)
class NotYet(_Unanswered):
    """An intent Stepan recognises but cannot serve yet (the forecast, editing a
    saved record): said honestly, with what can be done now, never guessed by the
    deep path. Each intent's text is ``not_yet.<intent>`` in the catalogs; when its
    capability lands, the intent leaves ``intents``."""

    intents: frozenset[str]
    name = "not_yet"

    def applies(self, turn: Turn) -> bool:
        return turn.answer is None and turn.decision.intent in self.intents

    async def run(self, turn: Turn) -> None:
        turn.answer = Reply(turn.texts.text(f"not_yet.{turn.decision.intent}"))


@dataclass(frozen=True, slots=True)
class WeatherAnswer(_Unanswered):
    """A weather question: the forecast cache for the farm or the field it names, on
    the farm's clock (docs/weather.md); none there: said so, never guessed."""

    desk: WeatherDesk
    #: «чи можна завтра обприскувати?» asked as a weather question: the spray windows.
    spray: SprayCheck | None = None
    name = "weather"

    def applies(self, turn: Turn) -> bool:
        return turn.answer is None and turn.decision.intent == Intent.WEATHER

    async def run(self, turn: Turn) -> None:
        message = turn.message
        if self.spray is not None and self.spray.asks(message.text):
            text = await self.desk.spray(
                message.user_id, message.text, turn.texts, turn.now, self.spray.limits
            )
            turn.answer = Reply(text)
            return
        turn.answer = await self.desk.reply(
            message.user_id, message.text, turn.texts, turn.now, turn.loaded.farm.timezone
        )


@dataclass(frozen=True, slots=True)
class SprayWindow(Stage):
    """Under the spraying card's answer: the hours of the forecast that meet its
    conditions, for the days asked («чи можна завтра обприскувати?»; docs/weather.md).
    Failing, the card's answer stands alone."""

    desk: WeatherDesk
    spray: SprayCheck
    name = "spray_window"

    def applies(self, turn: Turn) -> bool:
        # Without a forecast source nothing is added to the card's answer.
        if not self.desk.live or turn.answer is None or turn.decision.intent != Intent.ADVICE:
            return False
        return self.spray.asks(turn.message.text)

    async def run(self, turn: Turn) -> None:
        answer = turn.answer
        if answer is None:
            return
        message = turn.message
        lines = await self.desk.spray(
            message.user_id, message.text, turn.texts, turn.now, self.spray.limits
        )
        turn.answer = replace(answer, text=f"{answer.text}\n\n{lines}")


@dataclass(frozen=True, slots=True)
class PlannedSpraying(Stage):
    """Under a journal card that plans a spraying: the forecast's windows of that day
    on its field, or the warning that it has none (docs/weather.md). Failing, the card
    stands alone."""

    desk: WeatherDesk
    spray: SprayCheck
    journal: Journal
    name = "planned_spraying"

    def applies(self, turn: Turn) -> bool:
        return self.desk.live and turn.answer is not None and _card_of(turn.answer) is not None

    async def run(self, turn: Turn) -> None:
        answer, user_id = turn.answer, turn.message.user_id
        draft_id = _card_of(answer) if answer is not None else None
        if answer is None or draft_id is None:
            return
        lines = []
        for spraying in (await self.journal.planned_sprayings(user_id, draft_id))[:PLANNED_SHOWN]:
            line = await self.desk.planned_spray(
                user_id, spraying.day, spraying.field_id, turn.texts, turn.now, self.spray.limits
            )
            if line is not None:
                lines.append(line)
        if lines:
            turn.answer = replace(answer, text="\n\n".join([answer.text, *lines]))


#: Planned sprayings of one card whose forecast is shown, at most.
PLANNED_SHOWN = 3


def _card_of(reply: Reply) -> int | None:
    """The journal card's draft id, when the reply is one (its ✅ button)."""
    for row in reply.buttons:
        for button in row:
            action = button.action
            if isinstance(action, JournalAction) and action.verb == JournalVerb.WRITE:
                return action.draft_id
    return None


@dataclass(frozen=True, slots=True)
class SowingSoil(Stage):
    """Under a sowing answer about a crop whose card gives the minimum soil
    temperature: the forecast's soil at 6 cm against it (docs/weather.md). Failing,
    the card's answer stands alone."""

    desk: WeatherDesk
    soil: SoilCheck
    name = "sowing_soil"

    def applies(self, turn: Turn) -> bool:
        # Without a forecast source nothing is added to the card's answer.
        return self.desk.live and turn.answer is not None and turn.decision.intent == Intent.ADVICE

    async def run(self, turn: Turn) -> None:
        answer, message = turn.answer, turn.message
        ask = self.soil.asks(message.text, turn.lang)
        if answer is None or ask is None:
            return
        lines = await self.desk.soil(message.user_id, message.text, turn.texts, turn.now, ask)
        turn.answer = replace(answer, text=f"{answer.text}\n\n{lines}")


@dataclass(frozen=True, slots=True)
class AdviceAnswer(_Unanswered):
    """An agronomy question: sourced knowledge cards and the farm's own data
    (docs/knowledge.md)."""

    advisor: Advisor
    name = "advice"

    def applies(self, turn: Turn) -> bool:
        return turn.answer is None and turn.decision.intent == Intent.ADVICE

    async def run(self, turn: Turn) -> None:
        message = turn.message
        turn.answer, turn.heard_region = await self.advisor.reply(
            AdviceRequest(
                message.user_id,
                message.text,
                turn.lang,
                turn.profile,
                turn.loaded.farm,
                turn.now,
                message.photo_id,
            )
        )


@dataclass(frozen=True, slots=True)
class Shortcut(Stage):
    """A remembered answer to the same question (seed section 9), unless a refresh."""

    recall: Recall
    name = "shortcut"

    def applies(self, turn: Turn) -> bool:
        return turn.answer is None and not turn.fresh

    async def run(self, turn: Turn) -> None:
        message = turn.message
        hit = await self.recall.shortcuts.lookup(
            message.user_id,
            message.text,
            turn.decision,
            turn.lang,
            turn.now,
            timezone=turn.loaded.farm.timezone,
            trace_id=message.trace_id,
        )
        if hit is not None:
            turn.decision, turn.crew, turn.answer = hit.decision, (), hit.reply


@dataclass(frozen=True, slots=True)
class Memory(Stage):
    """The conversation summaries for the deep path: the conversations that are over
    are closed first; if that fails, the summaries as they are."""

    recall: Recall
    name = "memory"

    def applies(self, turn: Turn) -> bool:
        return turn.answer is None

    async def run(self, turn: Turn) -> None:
        conversations = self.recall.conversations
        user_id = turn.message.user_id
        turn.memory = await conversations.close_ended_for_prompt(user_id, str(turn.decision.intent))

    async def fallback(self, turn: Turn) -> None:
        lines = await self.recall.conversations.for_prompt(turn.message.user_id)
        turn.memory = PromptMemory(lines)


@dataclass(frozen=True, slots=True)
class DeepAnswer(_Unanswered):
    """The deep path: only the sub-agents the decision needs (docs/deep-path.md)."""

    deep: DeepPath
    name = "deep"

    async def run(self, turn: Turn) -> None:
        memory = turn.memory or PromptMemory(())
        request = DeepRequest(
            turn.message,
            turn.decision,
            turn.crew,
            turn.profile,
            turn.loaded.farm,
            turn.lang,
            turn.now,
            recall=memory.lines,
            recalled=memory.related,
        )
        turn.answered_deep = True
        turn.answer = await self.deep.answer(request)


@dataclass(frozen=True, slots=True)
class Remember(Stage):
    """The deep answer kept for the next shortcut; a card (it may change the journal)
    makes the user's remembered answers go instead."""

    recall: Recall
    name = "remember"

    def applies(self, turn: Turn) -> bool:
        return turn.answered_deep and turn.answer is not None

    async def run(self, turn: Turn) -> None:
        answer, message = turn.answer, turn.message
        assert answer is not None
        shortcuts = self.recall.shortcuts
        turn.forgets = shortcuts.forgets(answer)
        await shortcuts.remember(
            message.user_id,
            message.text,
            turn.decision,
            answer,
            trace_id=message.trace_id,
            now=turn.now,
        )
