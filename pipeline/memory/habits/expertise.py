"""Expertise auto-upgrade (seed section 6), as one pure function.

The seed's conditions are vague ("interaction_count >= 10 and all intents are
planning -> intermediate"; ">= 30 and there are technical intents -> expert"). The
exact rule Stepan applies, also written down in docs/memory.md:

* novice -> intermediate: at least 10 interactions AND at least 2 distinct work
  intents known (a work intent is any deep-path intent: the farmer asked Stepan to
  plan, record, analyse ... at least twice in different ways, not only said hello).
* intermediate -> expert: at least 30 interactions AND at least 2 distinct technical
  intents known (sensors, analysis, the platform, reports).
* A novice who already meets the expert condition goes straight to expert (technical
  intents are work intents, so they meet the intermediate condition too).
* The level never goes down, and a level an operator set by hand
  (``expertise_locked``) is never changed.
"""

from __future__ import annotations

from collections.abc import Iterable

from pipeline.intents import Intent
from pipeline.profiles import EXPERTISE_LEVELS, Expertise

INTERMEDIATE_MIN_INTERACTIONS = 10
INTERMEDIATE_MIN_WORK_INTENTS = 2
EXPERT_MIN_INTERACTIONS = 30
EXPERT_MIN_TECHNICAL_INTENTS = 2

#: The deep-path intents of pipeline/rules/classifier.toml ("mode = deep"); a test
#: keeps this list in step with the rules file.
WORK_INTENTS = frozenset(
    {
        Intent.GENERAL,
        Intent.RECORDING,
        Intent.MULTI_OPS,
        Intent.PLANNING,
        Intent.IOT,
        Intent.IOT_ALERT,
        Intent.ANALYSIS,
        Intent.SUMMARY,
        Intent.REPORTING,
        Intent.PLATFORM,
        Intent.DECISION,
        Intent.ADVICE,
        Intent.WEATHER,
        Intent.CORRECTION,
    }
)
#: Intents that need the farmer to work with data and integrations, not just fields.
TECHNICAL_INTENTS = frozenset(
    {Intent.IOT, Intent.IOT_ALERT, Intent.ANALYSIS, Intent.PLATFORM, Intent.REPORTING}
)


def earned_level(interaction_count: int, known_intents: Iterable[str]) -> Expertise:
    """The level the rule grants for this history (before taking the current level
    and the operator's lock into account)."""
    intents = set(known_intents)
    if (
        interaction_count >= EXPERT_MIN_INTERACTIONS
        and len(intents & TECHNICAL_INTENTS) >= EXPERT_MIN_TECHNICAL_INTENTS
    ):
        return "expert"
    if (
        interaction_count >= INTERMEDIATE_MIN_INTERACTIONS
        and len(intents & WORK_INTENTS) >= INTERMEDIATE_MIN_WORK_INTENTS
    ):
        return "intermediate"
    return "novice"


def upgraded_level(
    current: str, *, interaction_count: int, known_intents: Iterable[str], locked: bool
) -> Expertise | None:
    """The new level, or None when the level must stay as it is."""
    if locked:
        return None
    earned = earned_level(interaction_count, known_intents)
    # An unknown stored value (hand-edited row) counts as the lowest level, so the
    # rule repairs it instead of crashing.
    rank = EXPERTISE_LEVELS.index(current) if current in EXPERTISE_LEVELS else -1
    return earned if EXPERTISE_LEVELS.index(earned) > rank else None
