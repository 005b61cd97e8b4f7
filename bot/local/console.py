"""`stepan chat`: the whole Stepan in a terminal, no token.

What you type goes to the same aiogram dispatcher as a Telegram update (handlers,
middlewares, onboarding's FSM, the operator filter), and the bot's Bot API calls are
answered locally (`bot.local.session`) and printed. Works interactively and with
piped input (one message a line). A reply's buttons are numbered and a line like
``#2`` presses button 2 of the last reply; ``/voice PATH`` sends the file as a voice
message (an OGG/Opus file; any other audio as an audio file), which the bot fetches
through the local Bot API's getFile and download as from Telegram; files the bot
sends are saved to a folder and their paths printed.
"""

from __future__ import annotations

import asyncio
import dataclasses
import mimetypes
import sys
import time
import zlib
from pathlib import Path
from typing import Any, TextIO

from bot.commands import set_commands
from bot.config import Settings
from bot.local.session import ApiCall, LocalBot
from bot.wiring.dispatcher import build_dispatcher
from bot.wiring.factory import Core, build_core
from db.migrate import upgrade_async
from pipeline.language.choice import language_from_telegram
from pipeline.types import CONSOLE_USER_IDS_FROM

DEFAULT_FILES_DIR = Path("data/chat-files")
VOICE_LINE = "/voice"
#: Telegram's voice messages are OGG/Opus; Opus counts its granules at 48 kHz.
_OGG_SUFFIXES = (".ogg", ".oga", ".opus")
_OPUS_RATE = 48_000
#: A voice message's bytes a second when its length cannot be read (Opus at ~16 kbit/s).
_VOICE_BYTES_PER_S = 2_000


def _read(path: Path) -> bytes:
    return path.expanduser().read_bytes()


class LineError(Exception):
    """A console line that cannot be sent (a /voice file that is not there)."""


def recording_seconds(data: bytes) -> int:
    """An OGG/Opus recording's length from its last page's granule position; else an
    estimate from its size (Telegram's messages always say their duration)."""
    last = data.rfind(b"OggS")
    if last >= 0 and len(data) >= last + 14:
        granule = int.from_bytes(data[last + 6 : last + 14], "little")
        if 0 < granule < 2**63:
            return max(1, round(granule / _OPUS_RATE))
    return max(1, len(data) // _VOICE_BYTES_PER_S)


def console_user_id(name: str) -> int:
    """A stable id for a console user name (the same profile every session), above any
    Telegram user id: a console user never shares a profile with a real one, and
    alerts never try to reach them in Telegram."""
    return CONSOLE_USER_IDS_FROM + zlib.crc32(name.encode())


def session_update_ids() -> int:
    """The first update id of a terminal session: milliseconds since the epoch, so a
    session's ids follow the previous session's (and stay far above Telegram's own).
    Starting at 1 every time, the second session's messages were taken for replays of
    the first's and went unrecorded (interactions.update_id is unique)."""
    return time.time_ns() // 1_000_000


def as_operator(settings: Settings, user_id: int) -> Settings:
    agx = settings.agx.model_copy(update={"operator_ids": settings.agx.operator_ids | {user_id}})
    return dataclasses.replace(settings, agx=agx)


def _buttons(markup: Any) -> list[dict[str, Any]]:
    rows = markup.get("inline_keyboard", []) if isinstance(markup, dict) else []
    return [button for row in rows for button in row]


def _free_path(folder: Path, filename: str) -> Path:
    """``folder/filename``, numbered if a file of that name is already there."""
    name = Path(filename).name or "file"
    path, stem, suffix = folder / name, Path(name).stem, Path(name).suffix
    number = 2
    while path.exists():
        path = folder / f"{stem}-{number}{suffix}"
        number += 1
    return path


def location_of(text: str) -> tuple[float, float] | None:
    """``/location 49.59 34.55`` (a comma for the decimal point too) -> the point; None
    for any other line, which then goes as a message (a bad one gets Stepan's answer)."""
    parts = text.split()
    if len(parts) != 3 or parts[0] != "/location":
        return None
    try:
        latitude, longitude = (float(part.replace(",", ".")) for part in parts[1:])
    except ValueError:
        return None
    return latitude, longitude


class Console:
    """One terminal user talking to a local bot; remembers the last reply's buttons."""

    def __init__(self, local: LocalBot, user: str, files_dir: Path) -> None:
        self.local = local
        self.name = user
        self.user_id = console_user_id(user)
        self.files_dir = files_dir
        self._last: tuple[int, int] | None = None  # (chat id, message id)

    async def send(self, text: str) -> list[ApiCall]:
        """A typed line: a button press (``#N``), a location (``/location LAT LON``,
        sent as Telegram's location message), a voice message (``/voice PATH``) or a
        message."""
        if text == VOICE_LINE or text.startswith(f"{VOICE_LINE} "):
            return await self.send_voice(Path(text[len(VOICE_LINE) :].strip()))
        pressed = self._button(text)
        if pressed is not None:
            message_id, data = pressed
            return await self.local.press(
                self.user_id, data, message_id, first_name=self.name, language_code=None
            )
        point = location_of(text)
        if point is not None:
            return await self.local.send_location(
                self.user_id, *point, first_name=self.name, language_code=None
            )
        return await self.local.say(self.user_id, text, first_name=self.name, language_code=None)

    async def send_voice(self, path: Path) -> list[ApiCall]:
        """The file as a user's voice message (an audio file unless it is OGG/Opus)."""
        try:
            data = await asyncio.to_thread(_read, path)
        except OSError as exc:
            raise LineError(f"/voice: {exc.strerror or exc}: {path}") from None
        telegram, seconds = self.local.telegram, recording_seconds(data)
        if path.suffix.lower() in _OGG_SUFFIXES:
            stored = telegram.register_file(data, kind="voice", mime_type="audio/ogg")
            fields = {"voice": stored.as_dict() | {"duration": seconds, "mime_type": "audio/ogg"}}
        else:
            mime = mimetypes.guess_type(path.name)[0] or "audio/mpeg"
            stored = telegram.register_file(data, kind="music", file_name=path.name, mime_type=mime)
            audio = stored.as_dict() | {"duration": seconds, "mime_type": mime}
            fields = {"audio": audio | {"file_name": path.name}}
        update = telegram.message_update(
            self.user_id, fields, first_name=self.name, language_code=None
        )
        return await self.local.feed(update)

    def _button(self, text: str) -> tuple[int, str] | None:
        number = text[1:]
        if self._last is None or not text.startswith("#") or not number.isdigit():
            return None
        message = self.local.telegram.message(*self._last)
        buttons = _buttons(message.get("reply_markup") if message else None)
        if not 0 < int(number) <= len(buttons):
            return None
        return self._last[1], str(buttons[int(number) - 1].get("callback_data"))

    def render(self, calls: list[ApiCall], out: TextIO) -> None:
        """Print what the bot sent; the last message shown is where ``#N`` presses."""
        for call in calls:
            self._render(call, out)
        out.flush()

    def _render(self, call: ApiCall, out: TextIO) -> None:
        if not call.ok:
            out.write(f"  (Telegram would refuse {call.method}: {call.error})\n")
            return
        if call.method in ("sendMessage", "editMessageText"):
            mark = ":" if call.method == "sendMessage" else " ✎"
            out.write(f"Степан{mark} {call.text}\n")
            for number, button in enumerate(_buttons(call.params.get("reply_markup")), start=1):
                out.write(f"  [#{number}] {button.get('text')}\n")
            message_id = (
                call.result["message_id"]
                if isinstance(call.result, dict)
                else call.params.get("message_id")
            )
            if call.chat_id is not None and isinstance(message_id, int):
                self._last = (call.chat_id, message_id)
        elif call.method in ("sendDocument", "sendPhoto") and call.params.get("caption"):
            # A file's text is its caption: the reply says what the file is.
            out.write(f"Степан: {call.params['caption']}\n")
        elif call.method == "answerCallbackQuery" and call.params.get("text"):
            out.write(f"  ⓘ {call.params['text']}\n")
        for upload in call.files.values():
            self.files_dir.mkdir(parents=True, exist_ok=True)
            path = _free_path(self.files_dir, upload.filename)
            path.write_bytes(upload.data)
            out.write(f"  (file: {path})\n")


async def chat(
    core: Core,
    user: str,
    source: TextIO,
    out: TextIO,
    *,
    operator: bool = False,
    files_dir: Path = DEFAULT_FILES_DIR,
) -> None:
    user_id = console_user_id(user)
    if operator:
        core = dataclasses.replace(core, settings=as_operator(core.settings, user_id))
    local = LocalBot(build_dispatcher(core), first_update_id=session_update_ids())
    catalog = core.pipeline.catalog
    # As at the bot's start-up: the command menu (the console's user sees it in /help).
    await set_commands(local.bot, catalog, core.settings.agx.operator_ids)
    console = Console(local, user, files_dir)
    interactive = source.isatty()
    if interactive:
        out.write(catalog.text(language_from_telegram(None), "chat.intro") + "\n")
    while True:
        if interactive:
            out.write("> ")
            out.flush()
        line = await asyncio.to_thread(source.readline)
        if not line or (interactive and not line.strip()):
            break
        text = line.strip()
        if not text:
            continue
        try:
            calls = await console.send(text)
        except LineError as exc:
            out.write(f"  ({exc})\n")
            continue
        console.render(calls, out)


async def run_chat(
    settings: Settings,
    user: str,
    *,
    operator: bool = False,
    files_dir: Path = DEFAULT_FILES_DIR,
) -> None:
    await upgrade_async(settings.stepan.database_url)
    core = build_core(settings)
    # Handoffs from the terminal travel too; answering other agents stays with `stepan run`.
    await core.start_peers(serve=False)
    try:
        await chat(core, user, sys.stdin, sys.stdout, operator=operator, files_dir=files_dir)
    finally:
        await core.close()
