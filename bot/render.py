"""Send a pipeline Reply to Telegram: plain text, split, retried."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from aiogram import Bot
from aiogram.exceptions import TelegramBadRequest, TelegramRetryAfter
from aiogram.types import BufferedInputFile, InlineKeyboardMarkup

from bot.keyboards.pipeline import keyboard
from pipeline.types import Reply

logger = logging.getLogger(__name__)

TELEGRAM_TEXT_LIMIT = 4096
CAPTION_LIMIT = 1024
#: How many times one call waits out a 429 before giving up.
MAX_RETRY_AFTER = 3
#: Longest flood-wait we sit through (seconds); longer ones are not worth blocking on.
MAX_RETRY_WAIT = 30.0

T = TypeVar("T")


def split_text(text: str, limit: int = TELEGRAM_TEXT_LIMIT) -> list[str]:
    """Chunks of at most ``limit`` characters, cut at paragraph, then line, then word
    boundaries. Joining the chunks with the separator they were cut at restores the
    text; a chunk is never empty."""
    text = text.strip()
    if len(text) <= limit:
        return [text] if text else []
    chunks: list[str] = []
    rest = text
    while len(rest) > limit:
        cut, sep_len = _cut_point(rest, limit)
        chunks.append(rest[:cut])
        rest = rest[cut + sep_len :]
    if rest:
        chunks.append(rest)
    return chunks


def _cut_point(text: str, limit: int) -> tuple[int, int]:
    for separator in ("\n\n", "\n", " "):
        index = text.rfind(separator, 0, limit + 1)
        if index > 0:
            return index, len(separator)
    return limit, 0


async def with_retry_after(call: Callable[[], Awaitable[T]]) -> T:
    """Run a Bot API call, waiting out Telegram's flood control a bounded number of times."""
    for attempt in range(MAX_RETRY_AFTER + 1):
        try:
            return await call()
        except TelegramRetryAfter as exc:
            if attempt == MAX_RETRY_AFTER or exc.retry_after > MAX_RETRY_WAIT:
                raise
            logger.warning("telegram flood control: waiting %ss", exc.retry_after)
            await asyncio.sleep(exc.retry_after)
    raise AssertionError("unreachable")


async def _send_text(
    bot: Bot, chat_id: int, text: str, markup: InlineKeyboardMarkup | None
) -> None:
    # No parse mode, ever: model text with a stray "_" or "<" must not turn into
    # "can't parse entities".
    await with_retry_after(
        lambda: bot.send_message(chat_id, text, parse_mode=None, reply_markup=markup)
    )


async def send_reply(bot: Bot, chat_id: int, reply: Reply) -> None:
    """Send every part of ``reply``. Raises TelegramForbiddenError if the user blocked us."""
    chunks = split_text(reply.text)
    markup: InlineKeyboardMarkup | None = keyboard(reply.buttons)
    for index, chunk in enumerate(chunks):
        # Buttons belong under the last part, where the user reads the question.
        await _send_text(bot, chat_id, chunk, markup if index == len(chunks) - 1 else None)
    if reply.document is not None:
        document = BufferedInputFile(reply.document.content, filename=reply.document.filename)
        await with_retry_after(lambda: bot.send_document(chat_id, document))
    if reply.photo is not None:
        photo = BufferedInputFile(reply.photo.content, filename=reply.photo.filename)
        await with_retry_after(lambda: bot.send_photo(chat_id, photo))


async def edit_text(
    bot: Bot, chat_id: int, message_id: int, text: str, markup: InlineKeyboardMarkup | None
) -> None:
    """Replace a card's text; pressing a button that changes nothing is not an error."""
    try:
        await with_retry_after(
            lambda: bot.edit_message_text(
                text, chat_id=chat_id, message_id=message_id, reply_markup=markup, parse_mode=None
            )
        )
    except TelegramBadRequest as exc:
        if "message is not modified" not in exc.message:
            raise
