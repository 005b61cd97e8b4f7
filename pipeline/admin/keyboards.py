"""The buttons under operators' cards and lists, as pipeline Button rows built with
the bound catalog; the bot renders them (bot/keyboards/pipeline.py ``keyboard``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, cast

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
from pipeline.admin.edits import AUTO, PHASES
from pipeline.language.texts import Texts
from pipeline.profiles import EXPERTISE_LEVELS, STYLES, Phase
from pipeline.types import Button

__all__ = [
    "Rows",
    "farm_buttons",
    "learnings_buttons",
    "profile_buttons",
    "proposal_buttons",
    "terms_buttons",
]

Rows = tuple[tuple[Button, ...], ...]


def _rows(buttons: Sequence[Button], width: int) -> Rows:
    return tuple(tuple(buttons[i : i + width]) for i in range(0, len(buttons), width))


def profile_buttons(user: int, texts: Texts) -> Rows:
    """The /profile card: the three levels, the three styles, then «рівень: авто»."""
    levels = tuple(
        Button(texts.text(f"expertise.{level}"), ProfileAction(user, "expertise_level", level))
        for level in EXPERTISE_LEVELS
    )
    styles = tuple(
        Button(texts.text(f"styles.{style}"), ProfileAction(user, "preferred_style", style))
        for style in STYLES
    )
    auto = Button(texts.text("admin.level_auto"), ProfileAction(user, "expertise_level", AUTO))
    return (levels, styles, (auto,))


def farm_buttons(user: int, texts: Texts) -> Rows:
    """The /farm card: the phases three a row, «фаза: авто», the sensor switch."""
    phases = [
        Button(texts.text(f"phase.{phase}"), FarmAction(user, cast(Phase, phase)))
        for phase in PHASES
    ]
    auto = Button(texts.text("admin.phase_auto"), FarmAction(user, cast(Literal["auto"], AUTO)))
    switch = tuple(
        Button(texts.text(key), FarmIotAction(user, on))
        for on, key in ((True, "admin.iot_on"), (False, "admin.iot_off"))
    )
    journal = Button(texts.text("admin.farm_journal"), FarmJournalAction(user))
    return (*_rows(phases, 3), (auto,), switch, (journal,))


def terms_buttons(term_ids: Sequence[int], farms: Sequence[tuple[int, str]], texts: Texts) -> Rows:
    """✅ / ❌ per term, then one button per farm (its owner's id, its name) to its card."""
    decisions = tuple(
        (
            Button(f"✅ #{term_id}", TermAction(term_id, True)),
            Button(f"❌ #{term_id}", TermAction(term_id, False)),
        )
        for term_id in term_ids
    )
    cards = tuple(
        (Button(texts.text("terms.farm_button", farm=name), FarmCardAction(user)),)
        for user, name in farms
    )
    return decisions + cards


def proposal_buttons(proposal: int, texts: Texts) -> Rows:
    """✅ / ❌ under a nightly proposal."""
    return (
        (
            Button(texts.text("overlay.approve"), ProposalAction(proposal, True)),
            Button(texts.text("overlay.reject"), ProposalAction(proposal, False)),
        ),
    )


def learnings_buttons(learning_ids: Sequence[int], texts: Texts) -> Rows:
    """🗑 per learning under /learnings, four a row."""
    buttons = [
        Button(texts.text("learning.learnings_delete", id=learning), LearningDeleteAction(learning))
        for learning in learning_ids
    ]
    return _rows(buttons, 4)
