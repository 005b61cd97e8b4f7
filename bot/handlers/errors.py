"""Last line of defence: log an unexpected error with its trace id, never crash polling."""

from __future__ import annotations

import logging

from aiogram import Router
from aiogram.types import ErrorEvent

logger = logging.getLogger(__name__)

router = Router(name=__name__)


@router.errors()
async def on_error(event: ErrorEvent) -> bool:
    logger.error("unhandled error in update %s", event.update.update_id, exc_info=event.exception)
    return True
