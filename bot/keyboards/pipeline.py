"""Buttons the pipeline asks for: one typed CallbackData class per kind of action.

Each class packs one `pipeline.actions` type and unpacks back to it; aiogram
validates the fields when a callback comes in, so forged data (an unknown style, a
draft id that is not a number) matches no handler and gets the "expired" answer.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, assert_never

from aiogram.filters.callback_data import CallbackData
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from pydantic import Field

from bot.keyboards.admin import OperatorCD, admin_callback_data
from bot.keyboards.ids import RowId, TelegramId
from bot.keyboards.me import (
    ForgetCD,
    MeForgetTalkCD,
    MeLanguageCD,
    MeLevelCD,
    MeNameCD,
    MeWarningsCD,
    me_callback_data,
)
from bot.user_ids import stepan_user_id, telegram_id
from pipeline.actions import (
    Action,
    AgronomistAction,
    CorrectionAction,
    EntryAction,
    EntryVerb,
    ExampleAction,
    FeedbackAction,
    FeedbackReasonAction,
    ForgetAction,
    HandoffAction,
    HandoffChoice,
    HelpExample,
    ItemAction,
    JournalAction,
    JournalReportAction,
    JournalVerb,
    LocationAction,
    MeForgetTalkAction,
    MeLanguageAction,
    MeLevelAction,
    MeNameAction,
    MeWarningsAction,
    OnboardingAction,
    OnboardingChoice,
    ReadingAction,
    RefreshAction,
    RegionAction,
    SourceAction,
    StyleAction,
)
from pipeline.admin.actions import (
    FarmAction,
    FarmCardAction,
    FarmIotAction,
    FarmJournalAction,
    LearningDeleteAction,
    ProfileAction,
    ProposalAction,
    TermAction,
)
from pipeline.farm.journal.export import FIRST_DAY, LAST_DAY, MAX_DAYS
from pipeline.intents import Intent
from pipeline.learning.kinds import FeedbackReason, FeedbackVerdict
from pipeline.profiles import Expertise, Style
from pipeline.types import Button


class StyleCD(CallbackData, prefix="st"):
    style: Style

    def to_action(self) -> StyleAction:
        return StyleAction(self.style)


class JournalCD(CallbackData, prefix="jr"):
    verb: JournalVerb
    draft: RowId
    item: int | None = None

    def to_action(self) -> JournalAction:
        return JournalAction(self.verb, self.draft, self.item)


class EntryCD(CallbackData, prefix="je"):
    verb: EntryVerb
    entry: RowId

    def to_action(self) -> EntryAction:
        return EntryAction(self.verb, self.entry)


#: A day as its proleptic ordinal (``date.toordinal``: six digits), bounded so that
#: any value that passes is a real date.
DayNumber = Annotated[int, Field(ge=FIRST_DAY.toordinal(), le=LAST_DAY.toordinal())]
#: How many days the listing spans; longer is forged (the list offers no button then).
DayCount = Annotated[int, Field(ge=1, le=MAX_DAYS)]


class JournalReportCD(CallbackData, prefix="jx"):
    """The journal list's report button: "jx:<first day>:<days>:<field row>", at most
    6 + 3 + 10 digits, far under Telegram's 64 bytes."""

    start: DayNumber
    days: DayCount
    field: RowId | None = None

    def to_action(self) -> JournalReportAction:
        start = date.fromordinal(self.start)
        end = date.fromordinal(self.start + self.days - 1)
        return JournalReportAction(start, end, self.field)

    @classmethod
    def of(cls, action: JournalReportAction) -> JournalReportCD:
        days = (action.end - action.start).days + 1
        return cls(start=action.start.toordinal(), days=days, field=action.field_row)


class OnboardingCD(CallbackData, prefix="ob"):
    choice: OnboardingChoice
    style: Style | None = None
    level: Expertise | None = None

    def to_action(self) -> OnboardingAction:
        return OnboardingAction(self.choice, self.style, self.level)


class HandoffCD(CallbackData, prefix="ho"):
    choice: HandoffChoice
    handoff: RowId

    def to_action(self) -> HandoffAction:
        return HandoffAction(self.choice, self.handoff)


class AgronomistCD(CallbackData, prefix="ag"):
    choice: HandoffChoice
    question: RowId

    def to_action(self) -> AgronomistAction:
        return AgronomistAction(self.choice, self.question)


class FeedbackCD(CallbackData, prefix="fb"):
    verdict: FeedbackVerdict
    trace: str

    def to_action(self) -> FeedbackAction:
        return FeedbackAction(self.verdict, self.trace)


class FeedbackReasonCD(CallbackData, prefix="fr"):
    reason: FeedbackReason
    trace: str

    def to_action(self) -> FeedbackReasonAction:
        return FeedbackReasonAction(self.reason, self.trace)


class CorrectionCD(CallbackData, prefix="cr"):
    trace: str
    intent: Intent | None = None

    def to_action(self) -> CorrectionAction:
        return CorrectionAction(self.trace, self.intent)


class ReadingCD(CallbackData, prefix="rd"):
    trace: str
    intent: Intent

    def to_action(self) -> ReadingAction:
        return ReadingAction(self.trace, self.intent)


class RefreshCD(CallbackData, prefix="rf"):
    trace: str

    def to_action(self) -> RefreshAction:
        return RefreshAction(self.trace)


class ExampleCD(CallbackData, prefix="ex"):
    example: HelpExample

    def to_action(self) -> ExampleAction:
        return ExampleAction(self.example)


class ItemCD(CallbackData, prefix="ki"):
    #: A card id ("winter-wheat.diseases"); the use case checks it is one.
    card: Annotated[str, Field(pattern=r"^[a-z0-9-]{2,40}\.[a-z_]{2,24}$")]
    item: Annotated[int, Field(ge=0, le=63)]

    def to_action(self) -> ItemAction:
        return ItemAction(self.card, self.item)


class SourceCD(CallbackData, prefix="so"):
    #: Source ids of rules/knowledge/sources.toml, comma-separated (at most two fit).
    ids: Annotated[str, Field(pattern=r"^[a-z0-9_]{2,40}(,[a-z0-9_]{2,40})?$", max_length=58)]

    def to_action(self) -> SourceAction:
        return SourceAction(tuple(self.ids.split(",")))


class RegionCD(CallbackData, prefix="rg"):
    #: An oblast id of rules/knowledge/zones.toml; the use case checks it is one.
    region: Annotated[str, Field(pattern=r"^[a-z_]{2,32}$")]

    def to_action(self) -> RegionAction:
        return RegionAction(self.region)


class LocationCD(CallbackData, prefix="lc"):
    """Under a location sent alone: "lc:<owner>:<lat e5>:<lon e5>:<field row>", at
    most ~45 bytes. Out of range, a point matches no class: "expired"."""

    owner: TelegramId
    lat: Annotated[int, Field(ge=-9_000_000, le=9_000_000)]
    lon: Annotated[int, Field(ge=-18_000_000, le=18_000_000)]
    field: RowId | None = None

    def to_action(self) -> LocationAction:
        return LocationAction(stepan_user_id(self.owner), self.lat, self.lon, self.field)

    @classmethod
    def of(cls, action: LocationAction) -> LocationCD:
        # Only Telegram users send locations; any other owner matches nobody.
        owner = telegram_id(action.owner) or 0
        return cls(
            owner=owner, lat=action.latitude_e5, lon=action.longitude_e5, field=action.field_row
        )


ActionCD = (
    StyleCD
    | JournalCD
    | EntryCD
    | JournalReportCD
    | OnboardingCD
    | HandoffCD
    | AgronomistCD
    | FeedbackCD
    | FeedbackReasonCD
    | CorrectionCD
    | ReadingCD
    | RefreshCD
    | ExampleCD
    | ItemCD
    | SourceCD
    | RegionCD
    | LocationCD
    | MeNameCD
    | MeLanguageCD
    | MeLevelCD
    | MeForgetTalkCD
    | MeWarningsCD
    | ForgetCD
    | OperatorCD
)


def _place_callback_data(action: RegionAction | LocationAction) -> RegionCD | LocationCD:
    """Where the farm is: an oblast to keep, a point sent as a location."""
    if isinstance(action, RegionAction):
        return RegionCD(region=action.region_id)
    return LocationCD.of(action)


def _ask_callback_data(
    action: ExampleAction | ItemAction | SourceAction,
) -> ExampleCD | ItemCD | SourceCD:
    """The buttons that ask for more: a /help example, a card's other item, the
    whole reference of an answer's sources."""
    if isinstance(action, ExampleAction):
        return ExampleCD(example=action.example)
    if isinstance(action, SourceAction):
        return SourceCD(ids=",".join(action.source_ids[:2]))
    return ItemCD(card=action.card_id, item=action.item)


def callback_data(action: Action) -> ActionCD:
    match action:
        case StyleAction(style=style):
            return StyleCD(style=style)
        case JournalAction() | EntryAction() | JournalReportAction():
            return _journal_callback_data(action)
        case OnboardingAction(choice=choice, style=style, level=level):
            return OnboardingCD(choice=choice, style=style, level=level)
        case HandoffAction(choice=choice, handoff_id=handoff):
            return HandoffCD(choice=choice, handoff=handoff)
        case AgronomistAction(choice=choice, question_id=question):
            return AgronomistCD(choice=choice, question=question)
        case FeedbackAction(verdict=verdict, trace_id=trace):
            return FeedbackCD(verdict=verdict, trace=trace)
        case FeedbackReasonAction(reason=reason, trace_id=trace):
            return FeedbackReasonCD(reason=reason, trace=trace)
        case CorrectionAction() | ReadingAction() | RefreshAction():
            return _trace_callback_data(action)
        case ExampleAction() | ItemAction() | SourceAction():
            return _ask_callback_data(action)
        case RegionAction() | LocationAction():
            return _place_callback_data(action)
        case (
            MeNameAction()
            | MeLanguageAction()
            | MeLevelAction()
            | MeWarningsAction()
            | MeForgetTalkAction()
        ) | ForgetAction():
            return me_callback_data(action)
        case (
            ProfileAction()
            | FarmAction()
            | FarmIotAction()
            | FarmCardAction()
            | FarmJournalAction()
            | TermAction()
            | ProposalAction()
            | LearningDeleteAction()
        ):
            return admin_callback_data(action)
        case _:
            assert_never(action)


def _trace_callback_data(
    action: CorrectionAction | ReadingAction | RefreshAction,
) -> CorrectionCD | ReadingCD | RefreshCD:
    """The buttons about one earlier message (its trace id)."""
    match action:
        case CorrectionAction(trace_id=trace, intent=intent):
            return CorrectionCD(trace=trace, intent=intent)
        case ReadingAction(trace_id=trace, intent=intent):
            return ReadingCD(trace=trace, intent=intent)
        case RefreshAction(trace_id=trace):
            return RefreshCD(trace=trace)


def _journal_callback_data(
    action: JournalAction | EntryAction | JournalReportAction,
) -> JournalCD | EntryCD | JournalReportCD:
    match action:
        case JournalAction(verb=verb, draft_id=draft, item=item):
            return JournalCD(verb=verb, draft=draft, item=item)
        case EntryAction(verb=verb, operation_id=entry):
            return EntryCD(verb=verb, entry=entry)
        case JournalReportAction():
            return JournalReportCD.of(action)


def keyboard(rows: tuple[tuple[Button, ...], ...]) -> InlineKeyboardMarkup | None:
    if not rows:
        return None
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(
                    text=button.text, callback_data=callback_data(button.action).pack()
                )
                for button in row
            ]
            for row in rows
        ]
    )
