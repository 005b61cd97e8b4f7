"""The use case behind each kind of pipeline button (pipeline/actions.py)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from pipeline.actions import (
    HELP_EXAMPLES,
    EntryAction,
    ExampleAction,
    FeedbackAction,
    FeedbackReasonAction,
    HandoffAction,
    ItemAction,
    JournalAction,
    JournalReportAction,
    JournalVerb,
    OnboardingAction,
    OnboardingChoice,
    ReadingAction,
    RefreshAction,
    RegionAction,
    SourceAction,
    StyleAction,
)
from pipeline.agronomy.advisor import Advisor, detail_level
from pipeline.agronomy.region import FarmRegions
from pipeline.buttons.press import Ask, Press
from pipeline.farm.journal.export import JournalExport
from pipeline.farm.journal.service import Journal
from pipeline.learning.desk import LearningAction, LearningDesk
from pipeline.memory import ProfileEditor
from pipeline.peers.desk import HandoffDesk
from pipeline.profiles import STYLES
from pipeline.recall import Recall
from pipeline.replies.voice import voice_of
from pipeline.types import Reply, Shown

__all__ = [
    "EntryButton",
    "ExampleButton",
    "HandoffButton",
    "ItemButton",
    "JournalButton",
    "JournalReportButton",
    "LearningButton",
    "OnboardingLater",
    "ReadingButton",
    "RefreshButton",
    "RegionButton",
    "SourceButton",
    "StyleButton",
]


class OnboardingLater:
    """«Пізніше» under the onboarding offer; onboarding's other buttons belong to the
    onboarding flow (pipeline/buttons/onboarding.py, which answers «Пізніше» with
    this) and expire here when no flow is wired."""

    async def __call__(self, action: OnboardingAction, press: Press) -> Reply | None:
        if action.choice is not OnboardingChoice.LATER:
            return None
        return Reply(press.texts.text("onboarding.later_reply"))


#: The buttons of edit cards and ↩️ (pipeline/farm/journal/edits).
_EDIT_VERBS = frozenset({JournalVerb.APPLY, JournalVerb.DROP, JournalVerb.UNDO})


@dataclass(frozen=True, slots=True)
class JournalButton:
    """✅ / ✏️ / ❌ on a journal card (the card's owner only)."""

    journal: Journal

    async def __call__(self, action: JournalAction, press: Press) -> Reply | None:
        user_id = press.incoming.user_id
        owner = await self.journal.owner_of(action.draft_id)
        if owner is not None and owner != user_id:
            # Another member of a group: told so; the card stays for its owner.
            return Reply(press.texts.text("journal.not_yours"), shown=Shown.POPUP)
        if action.verb in _EDIT_VERBS:
            reply = await self.journal.edits.decide(
                user_id=user_id, action=action, texts=press.texts, now=press.now
            )
            return None if reply is None else replace(reply, shown=Shown.EDIT)
        decision = await self.journal.decide(
            user_id=user_id, action=action, lang=press.texts.lang, now=press.now
        )
        # The card answers in place: it then shows what happened; its buttons are
        # gone (or, on a card of several operations, only those left remain).
        return replace(decision.reply, shown=Shown.EDIT)


@dataclass(frozen=True, slots=True)
class EntryButton:
    """A journal entry's buttons under the listing: its card, 🗑, ✅, 🕘."""

    journal: Journal

    async def __call__(self, action: EntryAction, press: Press) -> Reply | None:
        incoming = press.incoming
        return await self.journal.edits.entry_press(
            user_id=incoming.user_id,
            chat_id=incoming.chat_id,
            operator=incoming.is_operator,
            action=action,
            texts=press.texts,
            now=press.now,
        )


@dataclass(frozen=True, slots=True)
class HandoffButton:
    """Yes or no to passing a question on to a peer agent (docs/peers.md)."""

    peers: HandoffDesk

    async def __call__(self, action: HandoffAction, press: Press) -> Reply | None:
        names = [n for n in (press.loaded.profile.name, press.incoming.first_name) if n]
        reply = await self.peers.decide(
            action,
            user_id=press.incoming.user_id,
            lang=press.texts.lang,
            known_names=names,
            farm=press.loaded.farm,
        )
        # The offer keeps its text (it may hold Stepan's own part of the answer).
        return replace(reply, closes=True)


@dataclass(frozen=True, slots=True)
class LearningButton:
    """«Корисно?», its reasons and an operator's correction (docs/learning.md)."""

    learning: LearningDesk

    async def __call__(self, action: LearningAction, press: Press) -> Reply | None:
        reply = await self.learning.on_action(action, press.incoming, press.texts.lang)
        if reply is None:
            return None
        if isinstance(action, FeedbackAction):
            # The rated answer keeps its text and loses its rating buttons; a thank-you
            # is a short pop-up, not a new message.
            return replace(reply, closes=True, shown=Shown.NEW if reply.buttons else Shown.POPUP)
        if isinstance(action, FeedbackReasonAction) or action.intent is not None:
            # The question («що не так?», the intent list) becomes its answer.
            return replace(reply, shown=Shown.EDIT)
        return reply


@dataclass(frozen=True, slots=True)
class RefreshButton:
    """«Оновити» under a remembered answer: the question asked again, fresh."""

    recall: Recall
    ask: Ask

    async def __call__(self, action: RefreshAction, press: Press) -> Reply | None:
        incoming = press.incoming
        asked = await self.recall.shortcuts.original(incoming.user_id, action.trace_id)
        if asked:
            return await self.ask(replace(incoming, text=asked), True)
        return Reply(press.texts.text("recall.refresh_gone"))


@dataclass(frozen=True, slots=True)
class ReadingButton:
    """A reading chosen under «про що ви?»: kept as a labelled example for the
    learned fallback (a farmer's correction), then the message answered as that."""

    learning: LearningDesk
    ask: Ask

    async def __call__(self, action: ReadingAction, press: Press) -> Reply | None:
        incoming = press.incoming
        asked = await self.learning.corrections.correct(
            trace_id=action.trace_id, intent=action.intent, user_id=incoming.user_id,
            operator=False,
        )  # fmt: skip
        if asked is None:
            return None  # another member's question, or its text is gone
        reply = await self.ask(replace(incoming, text=asked, chosen=action.intent), True)
        return replace(reply, closes=True)


@dataclass(frozen=True, slots=True)
class JournalReportButton:
    """The journal listing's workbook."""

    exports: JournalExport

    async def __call__(self, action: JournalReportAction, press: Press) -> Reply | None:
        voice = voice_of(press.loaded.profile.expertise_level, operator=press.incoming.is_operator)
        return await self.exports.reply(
            action, user_id=press.incoming.user_id, lang=press.texts.lang, voice=voice
        )


@dataclass(frozen=True, slots=True)
class ExampleButton:
    """An example from /help, asked as if the user had written it."""

    ask: Ask

    async def __call__(self, action: ExampleAction, press: Press) -> Reply | None:
        if action.example not in HELP_EXAMPLES:
            return None
        text = press.texts.text(f"help.try.{action.example}")
        return await self.ask(replace(press.incoming, text=text), False)


@dataclass(frozen=True, slots=True)
class ItemButton:
    """A card's other pest, weed or disease under a one-item answer: answered alone."""

    advisor: Advisor

    async def __call__(self, action: ItemAction, press: Press) -> Reply | None:
        level = detail_level(press.loaded.profile)
        return self.advisor.item_reply(action, press.texts.lang, level)


@dataclass(frozen=True, slots=True)
class SourceButton:
    """«📚 Джерело»: the whole reference of the answer's sources, with their links."""

    advisor: Advisor

    async def __call__(self, action: SourceAction, press: Press) -> Reply | None:
        lines = self.advisor.composer.full_sources(action.source_ids, press.texts.lang)
        return Reply("\n".join(lines)) if lines else None


@dataclass(frozen=True, slots=True)
class RegionButton:
    """«📍 Так, запам'ятати»: the oblast the farmer named becomes the farm's."""

    regions: FarmRegions

    async def __call__(self, action: RegionAction, press: Press) -> Reply | None:
        region = self.regions.known(action.region_id)
        if region is None or not await self.regions.set(press.incoming.user_id, region):
            return None
        name = region.name.get(press.texts.lang)
        # A pop-up: the answer it sat under stays as it is, its other buttons too.
        return Reply(press.texts.text("region.kept", region=name), shown=Shown.POPUP)


@dataclass(frozen=True, slots=True)
class StyleButton:
    """Answer in this style from now on."""

    editor: ProfileEditor

    async def __call__(self, action: StyleAction, press: Press) -> Reply | None:
        if action.style not in STYLES or not await self.editor.set_style(
            press.incoming.user_id, action.style
        ):
            return None
        adverb = press.texts.text(f"actions.adverb.{action.style}")
        return Reply(press.texts.text("actions.style_set", style=adverb))
