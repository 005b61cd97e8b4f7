"""Voice messages, audio files and round video notes (docs/voice.md): heard by the
pipeline's listener (its limits before any download, the recording kept in memory),
then the transcript goes through the pipeline as the typed message it says; the
reply opens with what Stepan heard. A redelivered update stops at the inbox, so a
recording is transcribed once."""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from collections.abc import AsyncIterator
from dataclasses import replace

from aiogram import Bot, Router
from aiogram.exceptions import TelegramAPIError, TelegramBadRequest
from aiogram.types import Message, Update

from bot.config import Settings
from bot.filters import IsSpoken
from bot.handlers._common import deliver, message_incoming
from pipeline.handle import Pipeline
from pipeline.language.texts import Texts
from pipeline.memory import ProfileEditor
from pipeline.speech import Clip, ClipTooBig, Listener, heard_reply

router = Router(name=__name__)
logger = logging.getLogger(__name__)

#: Telegram shows a chat action for 5 s (or until the bot's next message): renewed sooner.
ACTION_EVERY_S = 4.5
#: What an audio file is called when Telegram names no file: its type's usual extension
#: (the transcription endpoint reads the format from the name).
_EXTENSIONS = {"audio/mpeg": "mp3", "audio/mp4": "m4a", "audio/x-m4a": "m4a",
               "audio/ogg": "ogg", "audio/wav": "wav", "audio/x-wav": "wav",
               "audio/flac": "flac", "audio/webm": "webm"}  # fmt: skip


@router.message(IsSpoken())
async def on_voice(
    message: Message,
    bot: Bot,
    pipeline: Pipeline,
    listener: Listener,
    profile_editor: ProfileEditor,
    settings: Settings,
    texts: Texts,
    trace_id: str,
    event_update: Update | None = None,
) -> None:
    incoming = message_incoming(message, "", trace_id, settings, event_update)
    spoken = spoken_clip(message)
    if incoming is None or spoken is None:
        return
    clip, file_id = spoken
    refused = listener.refusal(clip, texts, operator=incoming.is_operator)
    if refused is not None:  # off, too long, too large: said before any download
        await deliver(bot, profile_editor, incoming, refused, texts)
        return
    async with working(bot, incoming.chat_id):
        heard = await listener.hear(
            clip, lambda: download(bot, file_id), texts, operator=incoming.is_operator
        )
        if heard.reply is not None:
            reply = heard.reply
        else:
            answer = await pipeline.handle_message(replace(incoming, text=heard.text))
            reply = heard_reply(texts, heard.text, answer)
    await deliver(bot, profile_editor, incoming, reply, texts)


def spoken_clip(message: Message) -> tuple[Clip, str] | None:
    """What the message says of its recording, and the recording's file id."""
    if message.voice is not None:
        voice = message.voice
        clip = Clip(voice.duration, voice.file_size, "speech.ogg", voice.mime_type or "audio/ogg")
        return clip, voice.file_id
    if message.audio is not None:
        audio = message.audio
        mime = audio.mime_type or "audio/mpeg"
        name = audio.file_name or f"audio.{_EXTENSIONS.get(mime, 'mp3')}"
        return Clip(audio.duration, audio.file_size, name, mime), audio.file_id
    if message.video_note is not None:
        note = message.video_note
        return Clip(note.duration, note.file_size, "video_note.mp4", "video/mp4"), note.file_id
    return None


async def download(bot: Bot, file_id: str) -> bytes:
    """The recording through the Bot API (getFile, then the configured server's file
    URL), into memory: it is never written to disk."""
    try:
        file = await bot.get_file(file_id)
    except TelegramBadRequest as exc:
        if "too big" in exc.message.lower():  # "Bad Request: file is too big"
            raise ClipTooBig(exc.message) from exc
        raise
    if file.file_path is None:  # Telegram gives no path to a file it will not hand over
        raise ClipTooBig(file_id)
    buffer = io.BytesIO()
    await bot.download_file(file.file_path, buffer)
    return buffer.getvalue()


@contextlib.asynccontextmanager
async def working(bot: Bot, chat_id: int) -> AsyncIterator[None]:
    """«typing…» in the chat while Stepan listens and thinks (sent at once, then
    renewed); a chat action that fails costs nothing."""
    await _action(bot, chat_id)

    async def renew() -> None:
        while True:
            await asyncio.sleep(ACTION_EVERY_S)
            await _action(bot, chat_id)

    task = asyncio.create_task(renew())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def _action(bot: Bot, chat_id: int) -> None:
    try:
        await bot.send_chat_action(chat_id, "typing")
    except TelegramAPIError:
        logger.info("chat action not sent to %s", chat_id)
