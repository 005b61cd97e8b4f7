"""What a button under a pipeline reply asks for: one small frozen dataclass per kind.

The channel (Telegram, the console) turns each into its own callback data and back
(`bot/keyboards/pipeline.py`); nothing splits a "kind:value" string by hand. A
client can forge whatever it sends, so the pipeline checks an action again when it
comes back (the style is a known one, the journal card is the presser's own).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from typing import Literal

from pipeline.admin.actions import OperatorAction
from pipeline.intents import Intent
from pipeline.language.codes import Language
from pipeline.learning.kinds import FeedbackReason, FeedbackVerdict
from pipeline.profiles import Expertise, Style


class JournalVerb(StrEnum):
    """The buttons under a journal card."""

    WRITE = "write"
    EDIT = "edit"
    CANCEL = "cancel"
    #: «записати ще раз»: write it although the same operation was written just now.
    AGAIN = "again"
    #: ✅ / ❌ on an edit card (a correction, a delete, a plan marked done).
    APPLY = "apply"
    DROP = "drop"
    #: ↩️ under what a press did: takes it back.
    UNDO = "undo"


@dataclass(frozen=True, slots=True)
class JournalAction:
    """✅ / ✏️ / ❌ on the confirmation card of draft ``draft_id``; ``item`` is one
    operation of a card that lists several (0-based), None for all of them."""

    verb: JournalVerb
    draft_id: int
    item: int | None = None


class EntryVerb(StrEnum):
    """The buttons of a journal entry (the journal listing's, pipeline/farm/journal/edits)."""

    #: The entry's card, with the buttons below.
    SHOW = "show"
    #: 🗑: the delete card (✅ there deletes).
    DELETE = "delete"
    #: ✅ on a planned entry: the "done" card.
    DONE = "done"
    #: 🕘: who changed what, when.
    HISTORY = "history"
    #: ♻️ on a deleted entry (an operator's view): the card that puts it back.
    RESTORE = "restore"


@dataclass(frozen=True, slots=True)
class EntryAction:
    """A button of journal entry ``operation_id`` (the presser's farm's, or any farm's
    for an operator: checked again by the use case)."""

    verb: EntryVerb
    operation_id: int


@dataclass(frozen=True, slots=True)
class StyleAction:
    """Answer in this style from now on."""

    style: Style


class OnboardingChoice(StrEnum):
    START = "start"
    LATER = "later"
    SKIP = "skip"
    SENSORS_YES = "sensors_yes"
    SENSORS_NO = "sensors_no"
    STYLE = "style"  # with OnboardingAction.style
    LEVEL = "level"  # with OnboardingAction.level: «Як давно ви займаєтесь агрономією?»
    #: Onboarding waited while another message was answered: carry on where it stopped.
    RESUME = "resume"


@dataclass(frozen=True, slots=True)
class OnboardingAction:
    """A button of the onboarding offer or of one of its questions."""

    choice: OnboardingChoice
    style: Style | None = None
    level: Expertise | None = None


class HandoffChoice(StrEnum):
    YES = "yes"
    NO = "no"


@dataclass(frozen=True, slots=True)
class HandoffAction:
    """«Передати питання Nutra?»: the farmer's answer to handoff offer ``handoff_id``."""

    choice: HandoffChoice
    handoff_id: int


@dataclass(frozen=True, slots=True)
class AgronomistAction:
    """«Передати агрономові?»: the farmer's answer for unsure question ``question_id``."""

    choice: HandoffChoice
    question_id: int


@dataclass(frozen=True, slots=True)
class FeedbackAction:
    """👍 / 👎 / 🛠 under the deep answer of message ``trace_id``."""

    verdict: FeedbackVerdict
    trace_id: str


@dataclass(frozen=True, slots=True)
class FeedbackReasonAction:
    """👎's follow-up «що не так?» for the answer of message ``trace_id``."""

    reason: FeedbackReason
    trace_id: str


@dataclass(frozen=True, slots=True)
class CorrectionAction:
    """«Не той маршрут»: message ``trace_id`` meant ``intent`` (None: show the intents)."""

    trace_id: str
    intent: Intent | None = None


@dataclass(frozen=True, slots=True)
class ReadingAction:
    """A reading under «про що ви?»: message ``trace_id`` meant ``intent``; it is
    answered as that, and kept as a labelled example (docs/learning.md)."""

    trace_id: str
    intent: Intent


@dataclass(frozen=True, slots=True)
class RefreshAction:
    """«Оновити» under an answer given from memory (a shortcut): ask message
    ``trace_id`` again, this time through the deep path."""

    trace_id: str


#: The buttons under /help: each runs its example (``help.try.<name>``) as a message.
HelpExample = Literal["report", "chart", "plan", "sensors"]
HELP_EXAMPLES: tuple[HelpExample, ...] = ("report", "chart", "plan", "sensors")


@dataclass(frozen=True, slots=True)
class ExampleAction:
    """«📊 Звіт за місяць» under /help: answered as if the example had been typed."""

    example: HelpExample


@dataclass(frozen=True, slots=True)
class ItemAction:
    """A pest, weed or disease named under an answer about another of its card
    («Також буває: …»): item ``item`` of card ``card_id``, answered alone."""

    card_id: str
    item: int


@dataclass(frozen=True, slots=True)
class SourceAction:
    """«📚 Джерело» under an answer from the cards: the whole reference of each of
    ``source_ids`` (rules/knowledge/sources.toml), whose short line ended the answer."""

    source_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class JournalReportAction:
    """The button under a journal list cut at ten lines («і ще N — повний список у
    звіті Excel»): the workbook of exactly that listing, the days ``start``..``end``
    the farmer asked for and, when the list was one field's, that field (its
    ``fields`` row id; the farm is the presser's own, never read from the button)."""

    start: date
    end: date
    field_row: int | None = None


@dataclass(frozen=True, slots=True)
class MeNameAction:
    """«✏️ Змінити ім'я» on the /me card: the next message is the name."""


@dataclass(frozen=True, slots=True)
class MeLanguageAction:
    """A reply language on the /me card (the presser's own profile)."""

    language: Language


@dataclass(frozen=True, slots=True)
class MeLevelAction:
    """The level the user asks for on the /me card (refused while an operator's lock
    stands)."""

    level: Expertise


@dataclass(frozen=True, slots=True)
class MeWarningsAction:
    """The weather warnings Stepan sends first, turned on or off on the /me card."""

    on: bool


@dataclass(frozen=True, slots=True)
class MeForgetTalkAction:
    """🗑 under one conversation summary on the /me card (only the presser's own)."""

    summary_id: int


@dataclass(frozen=True, slots=True)
class ForgetAction:
    """The answer to /forget's «видалити все про мене?» (the presser's own data)."""

    confirm: bool


#: The /me card's buttons and /forget's.
MeAction = (
    MeNameAction
    | MeLanguageAction
    | MeLevelAction
    | MeWarningsAction
    | MeForgetTalkAction
    | ForgetAction
)


@dataclass(frozen=True, slots=True)
class RegionAction:
    """«📍 Так, запам'ятати» under a reply that used an oblast the farmer named while
    the farm's profile had none (decorate.RegionOffer)."""

    region_id: str


@dataclass(frozen=True, slots=True)
class LocationAction:
    """«🏠 Ферма» / «🌾 <field>» under a location the farmer sent alone: that point
    (whole 1e-5 degrees) becomes the farm's, or field row ``field_row``'s. ``owner``
    sent the location: only they may place their farm with it."""

    owner: str
    latitude_e5: int
    longitude_e5: int
    field_row: int | None = None


Action = (
    JournalAction
    | EntryAction
    | JournalReportAction
    | StyleAction
    | OnboardingAction
    | HandoffAction
    | AgronomistAction
    | FeedbackAction
    | FeedbackReasonAction
    | CorrectionAction
    | ReadingAction
    | RefreshAction
    | ExampleAction
    | ItemAction
    | SourceAction
    | RegionAction
    | LocationAction
    | MeNameAction
    | MeLanguageAction
    | MeLevelAction
    | MeWarningsAction
    | MeForgetTalkAction
    | ForgetAction
    #: The operators' buttons (pipeline/admin/actions.py).
    | OperatorAction
)
