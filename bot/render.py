"""Send a pipeline Reply to Telegram: plain text, split, a file with its caption."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from functools import partial

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError, TelegramBadRequest, TelegramForbiddenError
from aiogram.types import BufferedInputFile, InlineKeyboardMarkup

from bot import update_context
from bot.keyboards.pipeline import keyboard
from pipeline.types import Attachment, Reply

logger = logging.getLogger(__name__)

TELEGRAM_TEXT_LIMIT = 4096
CAPTION_LIMIT = 1024
#: One Bot API call of a reply.
Part = Callable[[], Awaitable[None]]


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


class AttachmentFailed(Exception):
    """A document or photo of a reply could not be sent (after the transport's
    retries): the caller tells the farmer instead of leaving a promise of a file."""


async def _send_text(
    bot: Bot, chat_id: int, text: str, markup: InlineKeyboardMarkup | None
) -> None:
    # No parse mode, ever: model text with a stray "_" or "<" must not turn into
    # "can't parse entities". Flood control and transient errors are retried by the
    # session (bot/telegram_retry.py).
    await bot.send_message(chat_id, text, parse_mode=None, reply_markup=markup)


async def _send_file(
    bot: Bot,
    chat_id: int,
    kind: str,
    attachment: Attachment,
    caption: str | None,
    markup: InlineKeyboardMarkup | None,
) -> None:
    upload = BufferedInputFile(attachment.content, filename=attachment.filename)
    try:
        if kind == "document":
            await bot.send_document(
                chat_id, upload, caption=caption, parse_mode=None, reply_markup=markup
            )
        else:
            await bot.send_photo(
                chat_id, upload, caption=caption, parse_mode=None, reply_markup=markup
            )
    except TelegramForbiddenError:
        raise
    except TelegramAPIError as exc:
        raise AttachmentFailed(f"{kind} {attachment.filename}: {exc}") from exc


async def send_reply(bot: Bot, chat_id: int, reply: Reply) -> None:
    """Send every part of ``reply``. Raises TelegramForbiddenError if the user blocked
    us, AttachmentFailed if a file could not be sent.

    A file goes first, with the reply's text as its caption (one call: the text
    says "the report is attached" and must never arrive without the report); a text
    too long for a caption follows the files instead, buttons under its last part."""
    chunks = split_text(reply.text)
    markup: InlineKeyboardMarkup | None = keyboard(reply.buttons)
    files = [
        (kind, attachment)
        for kind, attachment in (("document", reply.document), ("photo", reply.photo))
        if attachment is not None
    ]
    caption = chunks[0] if len(chunks) == 1 and len(chunks[0]) <= CAPTION_LIMIT else None
    parts: list[Part] = []
    if files and (caption is not None or not chunks):
        for index, (kind, attachment) in enumerate(files):
            last = index == len(files) - 1
            parts.append(partial(
                _send_file, bot, chat_id, kind, attachment, caption if index == 0 else None,
                markup if last else None,
            ))  # fmt: skip
    else:
        for kind, attachment in files:
            parts.append(partial(_send_file, bot, chat_id, kind, attachment, None, None))
        for index, chunk in enumerate(chunks):
            # Buttons belong under the last part, where the user reads the question.
            last = index == len(chunks) - 1
            parts.append(partial(_send_text, bot, chat_id, chunk, markup if last else None))
    await _send_parts(parts)


async def _send_parts(parts: list[Part]) -> None:
    """Send the parts in order. While a Telegram update is handled (bot/inbox.py), the
    parts a previous try of it got through are skipped, and every part but the last
    is recorded once Telegram took it: a crash in the middle of a long reply repeats
    at most the part in flight. The last part is covered by the update being marked
    done (one write either way; a one-part reply costs no extra write)."""
    delivery = update_context.current_delivery()
    for index, part in enumerate(parts):
        if delivery is not None:
            delivery.position += 1
            if delivery.position <= delivery.skip:
                continue
        await part()
        if delivery is not None and index < len(parts) - 1:
            await delivery.record(delivery.position)


async def edit_text(
    bot: Bot, chat_id: int, message_id: int, text: str, markup: InlineKeyboardMarkup | None
) -> None:
    """Replace a card's text; pressing a button that changes nothing is not an error."""
    try:
        await bot.edit_message_text(
            text, chat_id=chat_id, message_id=message_id, reply_markup=markup, parse_mode=None
        )
    except TelegramBadRequest as exc:
        if "message is not modified" not in exc.message:
            raise
