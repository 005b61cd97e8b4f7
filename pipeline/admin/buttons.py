"""The use cases behind the operators' buttons (pipeline/admin/actions.py), in the one
registry of pipeline/buttons/ through ``Parts.buttons`` (bot/wiring/factory.py).

Operator-only on every path: each use case is wrapped in ``OperatorOnly``, which
refuses anyone else before anything is read or changed, whatever router the press
came through. A failure is said in a pop-up (``faults.database`` for the store's,
``faults.failed`` for any other), as the bot's error handler says it for a command.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Any

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
from pipeline.admin.card_replies import AdminCards
from pipeline.admin.decisions import decide_proposal, decide_term, delete_learning
from pipeline.admin.editing import FarmEdits, ProfileEdits, switch_word
from pipeline.admin.user_ids import stepan_user_id
from pipeline.buttons.faults import is_database_error
from pipeline.buttons.press import ButtonUse, Press
from pipeline.farm.journal.edits.service import JournalEdits
from pipeline.farm.terms import TermReview
from pipeline.learning.feedback import Learnings
from pipeline.learning.overlay import RuleOverlays
from pipeline.types import Reply, Shown

__all__ = ["AdminServices", "OperatorOnly", "operator_buttons", "refusal"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class AdminServices:
    """What operators change and decide, for their commands and their buttons."""

    cards: AdminCards
    profile_edits: ProfileEdits
    farm_edits: FarmEdits
    terms: TermReview
    overlays: RuleOverlays
    learnings: Learnings
    #: Any farm's last journal entries (pipeline/farm/journal/edits).
    journal: JournalEdits


def refusal(press: Press) -> Reply:
    """An operator's button pressed by anyone else: an alert, nothing changed."""
    return Reply(press.texts.text("admin.not_operator"), shown=Shown.POPUP, alert=True)


@dataclass(frozen=True, slots=True)
class OperatorOnly:
    """An operator's use case behind the presser's check."""

    use: ButtonUse

    async def __call__(self, action: Any, press: Press) -> Reply | None:
        if not press.incoming.is_operator:
            return refusal(press)
        try:
            return await self.use(action, press)
        except Exception as exc:
            logger.exception("operator button failed trace=%s", press.incoming.trace_id)
            key = "faults.database" if is_database_error(exc) else "faults.failed"
            return Reply(press.texts.text(key), shown=Shown.POPUP)


def _saved(press: Press, card: Reply | None, saved: bool) -> Reply:
    """The pressed card shown again, edited in place, with the pop-up «Збережено»;
    only the pop-up when there is no card to show (or nothing was saved)."""
    popup = press.texts.text("admin.saved" if saved else "admin.no_user")
    if card is None or not saved:
        return Reply(popup, shown=Shown.POPUP)
    return replace(card, shown=Shown.EDIT, popup=popup)


@dataclass(frozen=True, slots=True)
class ProfileButton:
    edits: ProfileEdits
    cards: AdminCards

    async def __call__(self, action: ProfileAction, press: Press) -> Reply | None:
        saved = await self.edits.set(action.user, action.field, action.value)
        return _saved(press, await self.cards.profile(action.user, press.texts), saved)


@dataclass(frozen=True, slots=True)
class FarmButton:
    """A phase (locks it), «авто» (unlocks it) or the sensor switch of the /farm card."""

    edits: FarmEdits
    cards: AdminCards

    async def __call__(self, action: FarmAction | FarmIotAction, press: Press) -> Reply | None:
        if isinstance(action, FarmIotAction):
            known = await self.edits.press(action.user, "sensors", switch_word(action.on))
        else:
            known = await self.edits.press(action.user, "current_phase", action.phase)
        return _saved(press, await self.cards.farm(action.user, press.texts), known)


@dataclass(frozen=True, slots=True)
class FarmCardButton:
    """«🌾 Зоря» under /pending: that farmer's farm card, as /farm <id> shows it."""

    cards: AdminCards

    async def __call__(self, action: FarmCardAction, press: Press) -> Reply | None:
        card = await self.cards.farm(action.user, press.texts)
        return card if card is not None else Reply(press.texts.text("admin.no_user"))


@dataclass(frozen=True, slots=True)
class TermButton:
    terms: TermReview

    async def __call__(self, action: TermAction, press: Press) -> Reply | None:
        text = await decide_term(self.terms, action.term, action.approve, None, press.texts)
        return Reply(text, shown=Shown.POPUP, alert=True)


@dataclass(frozen=True, slots=True)
class ProposalButton:
    overlays: RuleOverlays

    async def __call__(self, action: ProposalAction, press: Press) -> Reply | None:
        by = press.incoming.user_id
        text = await decide_proposal(
            self.overlays, action.proposal, action.approve, by, press.texts
        )
        # The card keeps its figures; its buttons go, and it says what was decided.
        return Reply(text, shown=Shown.APPEND, popup=text)


@dataclass(frozen=True, slots=True)
class FarmJournalButton:
    journal: JournalEdits

    async def __call__(self, action: FarmJournalAction, press: Press) -> Reply | None:
        return await self.journal.farm_entries(stepan_user_id(action.user), press.texts)


@dataclass(frozen=True, slots=True)
class LearningDeleteButton:
    learnings: Learnings

    async def __call__(self, action: LearningDeleteAction, press: Press) -> Reply | None:
        text = await delete_learning(self.learnings, action.learning, press.texts)
        return Reply(text, shown=Shown.POPUP)


def operator_buttons(admin: AdminServices) -> dict[type, ButtonUse]:
    """Every operator's button, by action type, each behind ``OperatorOnly``."""
    farm = FarmButton(admin.farm_edits, admin.cards)
    uses: dict[type, ButtonUse] = {
        ProfileAction: ProfileButton(admin.profile_edits, admin.cards),
        FarmAction: farm,
        FarmIotAction: farm,
        FarmCardAction: FarmCardButton(admin.cards),
        FarmJournalAction: FarmJournalButton(admin.journal),
        TermAction: TermButton(admin.terms),
        ProposalAction: ProposalButton(admin.overlays),
        LearningDeleteAction: LearningDeleteButton(admin.learnings),
    }
    return {kind: OperatorOnly(use) for kind, use in uses.items()}
