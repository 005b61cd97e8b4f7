"""What the weather warnings told a farm lately (docs/weather.md), for the operators'
/farm card: one item per episode (the first day of consecutive claimed days of one
kind), newest first."""

from __future__ import annotations

import logging
from datetime import date, timedelta

from db.repositories import weather as weather_repo
from db.uow import Database
from pipeline.language.texts import Texts

__all__ = ["SentWarnings"]

logger = logging.getLogger(__name__)

#: How far back the card looks, and how many episodes it names.
LOOK_BACK = timedelta(days=60)
SHOWN = 5


class SentWarnings:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def line(self, farm_id: str, today: date, texts: Texts) -> str:
        """The card's line; never raises (with the database down it says so)."""
        try:
            async with self._db.read() as session:
                claimed = await weather_repo.recent_warnings(session, farm_id, today - LOOK_BACK)
        except Exception:
            logger.warning("sent warnings unavailable farm=%s", farm_id)
            return texts.text("cards.warnings", items=texts.text("cards.unknown"))
        days = set(claimed)
        starts = [
            (kind, day) for kind, day in claimed if (kind, day - timedelta(days=1)) not in days
        ]
        if not starts:
            return texts.text("cards.warnings", items=texts.text("cards.never"))
        items = "; ".join(
            texts.text(
                "cards.warning", day=f"{day:%d.%m}", kind=texts.text(f"cards.warning_kind.{kind}")
            )
            for kind, day in starts[:SHOWN]
        )
        return texts.text("cards.warnings", items=items)
