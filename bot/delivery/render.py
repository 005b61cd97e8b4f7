"""Send a pipeline Reply to Telegram: plain text, split, a file with its caption."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError, TelegramBadRequest, TelegramForbiddenError
from aiogram.methods import SendDocument, SendMessage, SendPhoto
from aiogram.types import BufferedInputFile, InlineKeyboardMarkup

from bot.keyboards.pipeline import keyboard
from bot.transport import update_context
from pipeline.types import Attachment, Reply

logger = logging.getLogger(__name__)

TELEGRAM_TEXT_LIMIT = 4096
CAPTION_LIMIT = 1024


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


@dataclass(frozen=True, slots=True)
class Part:
    """One Bot API call of a reply."""

    call: SendMessage | SendDocument | SendPhoto
    #: "document r.csv" for a file (its failure raises AttachmentFailed), else None.
    file: str | None = None


def _text(chat_id: int, text: str, markup: InlineKeyboardMarkup | None) -> Part:
    # No parse mode, ever: model text with a stray "_" or "<" must not turn into
    # "can't parse entities". Flood control and transient errors are retried by the
    # session (bot/delivery/retry.py).
    return Part(SendMessage(chat_id=chat_id, text=text, parse_mode=None, reply_markup=markup))


def _file(
    chat_id: int,
    kind: str,
    attachment: Attachment,
    caption: str | None,
    markup: InlineKeyboardMarkup | None,
) -> Part:
    upload = BufferedInputFile(attachment.content, filename=attachment.filename)
    call: SendDocument | SendPhoto
    if kind == "document":
        call = SendDocument(
            chat_id=chat_id, document=upload, caption=caption, parse_mode=None, reply_markup=markup
        )
    else:
        call = SendPhoto(
            chat_id=chat_id, photo=upload, caption=caption, parse_mode=None, reply_markup=markup
        )
    return Part(call, f"{kind} {attachment.filename}")


async def _send(bot: Bot, part: Part) -> None:
    try:
        await bot(part.call)
    except TelegramForbiddenError:
        raise
    except TelegramAPIError as exc:
        if part.file is None:
            raise
        raise AttachmentFailed(f"{part.file}: {exc}") from exc


def reply_parts(chat_id: int, reply: Reply) -> list[Part]:
    """The calls of ``reply``, in the order they are sent.

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
    if files and (caption is not None or not chunks):
        last = len(files) - 1
        return [
            _file(
                chat_id,
                kind,
                attachment,
                caption if i == 0 else None,
                markup if i == last else None,
            )
            for i, (kind, attachment) in enumerate(files)
        ]
    parts = [_file(chat_id, kind, attachment, None, None) for kind, attachment in files]
    for index, chunk in enumerate(chunks):
        # Buttons belong under the last part, where the user reads the question.
        last = index == len(chunks) - 1
        parts.append(_text(chat_id, chunk, markup if last else None))
    return parts


async def send_reply(bot: Bot, chat_id: int, reply: Reply) -> None:
    """Send every part of ``reply`` (``reply_parts``). Raises TelegramForbiddenError if
    the user blocked us, AttachmentFailed if a file could not be sent."""
    await _send_parts(bot, reply_parts(chat_id, reply))


async def _send_parts(bot: Bot, parts: list[Part]) -> None:
    """Send the parts in order. While a Telegram update is handled (bot/transport/inbox.py), the
    parts a previous try of it got through are skipped, and every part but the last
    is recorded once Telegram took it: a crash in the middle of a long reply repeats
    at most the part in flight. The last part is covered by the update being marked
    done (one write either way; a one-part reply costs no extra write).

    Once a part met flood control, it and the parts after it are kept in
    ``telegram_outbox`` and the update is done (bot/delivery/deferred.py): each part's row
    goes when Telegram took it, nothing more is recorded in the inbox."""
    delivery = update_context.current_delivery()
    reply = update_context.Sending([part.call for part in parts])
    token = update_context.sending(reply)
    try:
        for index, part in enumerate(parts):
            reply.current = index
            if delivery is not None:
                delivery.position += 1
                if delivery.position <= delivery.skip:
                    continue
            await _send(bot, part)
            if delivery is not None and not delivery.deferred and index < len(parts) - 1:
                await delivery.record(delivery.position)
    finally:
        update_context.sent(token)


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
