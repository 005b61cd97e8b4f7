"""Operators' decisions, for their commands and their buttons alike: a pending term
approved or rejected (/approve, /reject, ✅ / ❌ under /pending), a nightly
proposal of routing rules (/rules approve|reject N, ✅ / ❌ under its card), a
learning deleted (🗑 under /learnings). Each says what happened in the operator's
words."""

from __future__ import annotations

from pipeline.farm.terms import TermError, TermReview
from pipeline.language.texts import Texts
from pipeline.learning.feedback import Learnings
from pipeline.learning.overlay import RuleOverlays

__all__ = ["decide_proposal", "decide_term", "delete_learning"]


async def decide_term(
    terms: TermReview, term_id: int, approve: bool, canonical: str | None, texts: Texts
) -> str:
    try:
        if approve:
            row = await terms.approve(term_id, canonical)
            return texts.text(
                "terms.approved",
                id=row.id,
                term=terms.shown(row),
                canonical=row.canonical_id,
            )
        row = await terms.reject(term_id)
        return texts.text("terms.rejected", id=row.id, term=terms.shown(row))
    except TermError as error:
        return texts.text(error.key)


async def decide_proposal(
    overlays: RuleOverlays, proposal: int, approve: bool, by: str, texts: Texts
) -> str:
    """``by``: the deciding operator's user id (kept with the decision)."""
    outcome, version = await overlays.decide(proposal, approve=approve, by=by)
    return texts.text(f"overlay.decision_{outcome}", id=proposal, version=version)


async def delete_learning(learnings: Learnings, learning: int, texts: Texts) -> str:
    deleted = await learnings.delete(learning)
    key = "learning.learnings_deleted" if deleted else "learning.learnings_missing"
    return texts.text(key, id=learning)
