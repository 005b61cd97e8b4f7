"""Operators: /status — scheduled jobs and the memory-service link."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command
from aiogram.types import Message
from sqlalchemy.ext.asyncio import AsyncSession

from bot.filters import IsOperator
from bot.handlers._common import user_language
from db.repositories import jobs
from pipeline.cards import status_card
from pipeline.handle import Pipeline

router = Router(name=__name__)
router.message.filter(IsOperator())


@router.message(Command("status"))
async def on_status(message: Message, pipeline: Pipeline, session: AsyncSession) -> None:
    lang = user_language(message.from_user)
    runs = await jobs.all_runs(session)
    backlog = await pipeline.memory.outbox_backlog(session)
    await message.answer(
        status_card(runs, pipeline.memory.breaker_state, backlog, pipeline.catalog, lang)
    )
