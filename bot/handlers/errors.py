"""Last line of defence: log an unexpected error with its trace id, tell the person
who is waiting, never crash polling.

Silence is the worst answer: a command that failed (the database down, a table
missing) says so in one short line, and a button stops spinning."""

from __future__ import annotations

import logging

from aiogram import Bot, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.types import ErrorEvent

from bot.delivery.failures import ReplyTimedOut
from bot.middlewares.language import spoken_texts
from pipeline.buttons.faults import is_database_error
from pipeline.handle import Pipeline

logger = logging.getLogger(__name__)

router = Router(name=__name__)


@router.errors()
async def on_error(event: ErrorEvent, pipeline: Pipeline, bot: Bot) -> bool:
    if isinstance(event.exception, ReplyTimedOut):
        # The reply is kept and sent once more from the outbox: nothing else to say.
        logger.warning(
            "update %s: its reply timed out, resent from the outbox", event.update.update_id
        )
        return True
    logger.error("unhandled error in update %s", event.update.update_id, exc_info=event.exception)
    key = "faults.database" if is_database_error(event.exception) else "faults.failed"
    update = event.update
    try:
        # The update's own language, by the same policy as its handler's (the error
        # handler sees the update's data, not what the message middlewares added).
        if update.message is not None:
            message = update.message
            texts = await spoken_texts(pipeline, message.from_user, message.text or "")
            await message.answer(texts.text(key), parse_mode=None)
        elif update.callback_query is not None:
            query = update.callback_query
            text = (await spoken_texts(pipeline, query.from_user)).text(key)
            try:
                await query.answer(text)
            except TelegramAPIError:
                # The handler had answered the press already (the spinner stopped):
                # the failure is said in the chat instead of not at all.
                if query.message is None:
                    raise
                await bot.send_message(query.message.chat.id, text)
    except TelegramAPIError as exc:  # Telegram is down too
        logger.warning("could not tell the user about the error: %s", exc)
    return True
