"""The consent shape both desks share (the agronomist desk, pipeline/agronomy/desk.py;
the peer handoff desk, pipeline/peers/desk.py): an offer is stored before its button
is shown, and the farmer's press is recorded once, in its own short transaction,
before anything leaves.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Generic, TypeVar

from db.uow import Database, Session
from pipeline.actions import HandoffChoice
from pipeline.clock import Clock

__all__ = ["Pressed", "record_press", "store_offer"]

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: Stores an offer and returns its id.
StoreOffer = Callable[[Session], Awaitable[int]]
#: Records (session, consent, at) for the offer; None if it was not this farmer's
#: open offer (somebody else's, unknown, or already decided).
Decide = Callable[[Session, bool, datetime], Awaitable[T | None]]


async def store_offer(db: Database, store: StoreOffer, *, what: str) -> int | None:
    """The offer's id; None (logged) if it could not be stored: the caller then shows
    no button, since a press could not be honoured."""
    try:
        async with db.write() as session:
            return await store(session)
    except Exception:
        logger.warning("%s: could not store an offer", what, exc_info=True)
        return None


@dataclass(frozen=True, slots=True)
class Pressed(Generic[T]):
    record: T
    consent: bool


async def record_press(
    db: Database, choice: HandoffChoice, clock: Clock, decide: Decide[T]
) -> Pressed[T] | None:
    """The farmer's yes or no, recorded once; None for a press that does not count
    (the caller says the button has expired)."""
    consent = choice == HandoffChoice.YES
    async with db.write() as session:
        record = await decide(session, consent, clock())
    return Pressed(record, consent) if record is not None else None
