"""Operators' inline buttons: typed callback data, never hand-split strings.

Each class unpacks to one pipeline/admin/actions.py action (``to_action``) and
``admin_callback_data`` packs one back; the buttons themselves are built in the
pipeline (pipeline/admin/keyboards.py) and rendered by bot/keyboards/pipeline.py."""

from __future__ import annotations

from typing import Literal, assert_never

from aiogram.filters.callback_data import CallbackData

from bot.keyboards.ids import RowId, TelegramId
from pipeline.admin.actions import (
    FarmAction,
    FarmCardAction,
    FarmIotAction,
    FarmJournalAction,
    LearningDeleteAction,
    OperatorAction,
    ProfileAction,
    ProposalAction,
    TermAction,
)
from pipeline.profiles import Phase


class ProfileCD(CallbackData, prefix="pf"):
    user: TelegramId  # of the profile's owner
    field: Literal["expertise_level", "preferred_style"]
    value: str  # checked against the field's allowed values when applied

    def to_action(self) -> ProfileAction:
        return ProfileAction(self.user, self.field, self.value)


class FarmCD(CallbackData, prefix="fm"):
    user: TelegramId
    #: "auto": the journal infers the phase again (the operator's lock goes).
    phase: Phase | Literal["auto"]

    def to_action(self) -> FarmAction:
        return FarmAction(self.user, self.phase)


class FarmIotCD(CallbackData, prefix="fi"):
    """The operator's switch of the farm's IoT integration on the /farm card."""

    user: TelegramId
    on: bool

    def to_action(self) -> FarmIotAction:
        return FarmIotAction(self.user, self.on)


class TermCD(CallbackData, prefix="dt"):
    term: RowId
    approve: bool

    def to_action(self) -> TermAction:
        return TermAction(self.term, self.approve)


class FarmJournalCD(CallbackData, prefix="fj"):
    user: TelegramId

    def to_action(self) -> FarmJournalAction:
        return FarmJournalAction(self.user)


class FarmCardCD(CallbackData, prefix="fc"):
    """«🌾 Зоря»: show the farm card of this farmer (from /pending)."""

    user: TelegramId

    def to_action(self) -> FarmCardAction:
        return FarmCardAction(self.user)


class ProposalCD(CallbackData, prefix="rp"):
    """✅ / ❌ under a nightly proposal (pipeline/learning/nightly.py)."""

    proposal: int
    approve: bool

    def to_action(self) -> ProposalAction:
        return ProposalAction(self.proposal, self.approve)


class LearningCD(CallbackData, prefix="ln"):
    """🗑 under /learnings."""

    learning: int

    def to_action(self) -> LearningDeleteAction:
        return LearningDeleteAction(self.learning)


#: Every operator's button (bot/handlers/refusal.py refuses them to anyone else).
OPERATOR_BUTTONS = (
    ProfileCD, FarmCD, FarmIotCD, FarmJournalCD, FarmCardCD, TermCD, ProposalCD, LearningCD,
)  # fmt: skip
OperatorCD = (
    ProfileCD | FarmCD | FarmIotCD | FarmJournalCD | FarmCardCD | TermCD | ProposalCD | LearningCD
)


def admin_callback_data(action: OperatorAction) -> OperatorCD:
    match action:
        case ProfileAction(user=user, field=field, value=value):
            return ProfileCD(user=user, field=field, value=value)
        case FarmAction(user=user, phase=phase):
            return FarmCD(user=user, phase=phase)
        case FarmIotAction(user=user, on=on):
            return FarmIotCD(user=user, on=on)
        case FarmCardAction(user=user):
            return FarmCardCD(user=user)
        case FarmJournalAction(user=user):
            return FarmJournalCD(user=user)
        case TermAction(term=term, approve=approve):
            return TermCD(term=term, approve=approve)
        case ProposalAction(proposal=proposal, approve=approve):
            return ProposalCD(proposal=proposal, approve=approve)
        case LearningDeleteAction(learning=learning):
            return LearningCD(learning=learning)
        case _:
            assert_never(action)
