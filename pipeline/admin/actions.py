"""What an operator's button asks for: one small frozen dataclass per kind, as for the
farmers' buttons (pipeline/actions.py). The bot maps each to its CallbackData
(bot/keyboards/admin.py) and back; a client can forge any of them, so every use case
checks the presser is an operator before anything is read or changed
(pipeline/admin/buttons.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pipeline.profiles import Phase

__all__ = [
    "FarmAction",
    "FarmCardAction",
    "FarmIotAction",
    "FarmJournalAction",
    "LearningDeleteAction",
    "OperatorAction",
    "ProfileAction",
    "ProposalAction",
    "TermAction",
]

#: The fields of a profile an operator's card changes.
ProfileField = Literal["expertise_level", "preferred_style"]


@dataclass(frozen=True, slots=True)
class ProfileAction:
    """A button of the /profile card: ``field`` of the profile of Telegram user ``user``
    becomes ``value`` (checked against the field's allowed values when applied;
    ``auto`` gives a locked level back to the rules)."""

    user: int
    field: ProfileField
    value: str


@dataclass(frozen=True, slots=True)
class FarmAction:
    """A phase button of the /farm card: a phase locks it; ``auto`` unlocks it and the
    journal infers it again."""

    user: int
    phase: Phase | Literal["auto"]


@dataclass(frozen=True, slots=True)
class FarmIotAction:
    """The /farm card's switch of the farm's IoT integration."""

    user: int
    on: bool


@dataclass(frozen=True, slots=True)
class FarmJournalAction:
    """«📒 Журнал» on the /farm card: the farm's last entries, each a tap away from its
    card (🗑, ✅ planned, 🕘), so an operator corrects any farm's journal."""

    user: int


@dataclass(frozen=True, slots=True)
class FarmCardAction:
    """«🌾 Зоря» under /pending: the farm card of Telegram user ``user``."""

    user: int


@dataclass(frozen=True, slots=True)
class TermAction:
    """✅ / ❌ of pending term ``term`` under /pending."""

    term: int
    approve: bool


@dataclass(frozen=True, slots=True)
class ProposalAction:
    """✅ / ❌ under a nightly proposal of routing rules (pipeline/learning/nightly.py)."""

    proposal: int
    approve: bool


@dataclass(frozen=True, slots=True)
class LearningDeleteAction:
    """🗑 of learning ``learning`` under /learnings."""

    learning: int


OperatorAction = (
    ProfileAction
    | FarmAction
    | FarmIotAction
    | FarmJournalAction
    | FarmCardAction
    | TermAction
    | ProposalAction
    | LearningDeleteAction
)
