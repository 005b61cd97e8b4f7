"""Operators: /token for the readings endpoint, and CSV files of readings.

    /token [telegram id]          a new bearer token for that user's farm (default: own)
    a .csv document [caption "/import <telegram id>"]   import readings into that farm

Non-operators never get here (IsOperator): their documents reach non_text's polite
line, their /token the refusal router. A token is shown once and never logged.
"""

from __future__ import annotations

import asyncio
import io
import logging

from aiogram import Bot, F, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Document, Message

from bot.handlers._cards import target_of
from bot.user_ids import stepan_user_id
from pipeline.admin.edits import parse_target
from pipeline.farm.sensors.csv_file import MAX_CSV_BYTES, InvalidCsv, parse_csv
from pipeline.farm.sensors.readings import BatchTooLarge, InvalidBatch, ItemError
from pipeline.farm.sensors.store import SensorStore
from pipeline.language.texts import Texts

logger = logging.getLogger(__name__)

router = Router(name=__name__)

#: Bad rows listed in the reply; the rest are counted.
ERRORS_SHOWN = 10


def _is_csv(document: Document | None) -> bool:
    if document is None:
        return False
    name = (document.file_name or "").lower()
    return name.endswith(".csv") or document.mime_type in ("text/csv", "application/csv")


def _target(message: Message, args: str | None) -> tuple[bool, int | None]:
    """(well formed, the Telegram id whose farm is meant)."""
    words = (args or "").split()
    if len(words) > 1:
        return False, None
    explicit = parse_target(words[0]) if words else None
    if words and explicit is None:
        return False, None
    return True, target_of(message, explicit)


@router.message(Command("token"))
async def on_token(
    message: Message, command: CommandObject, texts: Texts, sensors: SensorStore
) -> None:
    ok, user = _target(message, command.args)
    if not ok:
        await message.answer(texts.text("sensors.usage_token"))
        return
    farm_id = await sensors.farm_of_user(stepan_user_id(user)) if user is not None else None
    if farm_id is None or message.from_user is None:
        await message.answer(texts.text("admin.no_user"))
        return
    token = await sensors.issue_token(farm_id, f"by tg:{message.from_user.id}")
    text = texts.text("sensors.token_issued", token=token, user=user)
    await message.answer(text, parse_mode=None)


def _error_line(texts: Texts, error: ItemError) -> str:
    key = f"sensors.error_{error.code}"
    if not texts.has(key):
        key, params = "sensors.error_invalid", {"reason": error.message}
    else:
        params = dict(error.params)
    reason = texts.text(key, **params)
    return texts.text("sensors.csv_row", line=error.index, field=error.field or "—", reason=reason)


def _invalid_reply(texts: Texts, error: InvalidBatch) -> str:
    lines = [texts.text("sensors.csv_invalid", count=error.total)]
    lines += [_error_line(texts, e) for e in error.errors[:ERRORS_SHOWN]]
    if error.total > ERRORS_SHOWN:
        lines.append(texts.text("sensors.csv_more", count=error.total - ERRORS_SHOWN))
    return "\n".join(lines)


async def _import(
    bot: Bot,
    document: Document,
    sensors: SensorStore,
    farm_id: str,
    texts: Texts,
) -> str:
    if document.file_size is not None and document.file_size > MAX_CSV_BYTES:
        return texts.text("sensors.csv_too_big", limit_mb=MAX_CSV_BYTES // (1024 * 1024))
    buffer = io.BytesIO()
    await bot.download(document, destination=buffer)
    try:
        batch = await asyncio.to_thread(parse_csv, buffer.getvalue(), sensors.types)
    except InvalidCsv as error:
        return texts.text(f"sensors.csv_{error.code}", **error.params)
    except BatchTooLarge as error:
        return texts.text("sensors.csv_too_many", count=error.size)
    except InvalidBatch as error:
        return _invalid_reply(texts, error)
    try:
        result = await sensors.ingest(farm_id, batch.readings, source="csv")
    except InvalidBatch as error:
        return _invalid_reply(texts, batch.with_lines(error))
    return texts.text("sensors.csv_done", accepted=result.accepted, duplicates=result.duplicates)


@router.message(F.document.func(_is_csv))
async def on_csv(message: Message, bot: Bot, texts: Texts, sensors: SensorStore) -> None:
    caption = (message.caption or "").strip()
    args: str | None = None
    if caption.startswith("/import"):
        command, _, args = caption.partition(" ")
        if command.split("@", 1)[0] != "/import":
            args = None
    ok, user = _target(message, args)
    if not ok:
        await message.answer(texts.text("sensors.usage_import"))
        return
    farm_id = await sensors.farm_of_user(stepan_user_id(user)) if user is not None else None
    if farm_id is None or message.document is None:
        await message.answer(texts.text("admin.no_user"))
        return
    text = await _import(bot, message.document, sensors, farm_id, texts)
    await message.answer(text, parse_mode=None)
