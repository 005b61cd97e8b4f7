"""Buttons the pipeline asks for, as typed callback data."""

from __future__ import annotations

from aiogram.filters.callback_data import CallbackData
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from pipeline.types import Button


class PipelineCD(CallbackData, prefix="p"):
    """An action the pipeline itself validates (see Pipeline.handle_action)."""

    action: str


def keyboard(rows: tuple[tuple[Button, ...], ...]) -> InlineKeyboardMarkup | None:
    if not rows:
        return None
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(
                    text=button.text, callback_data=PipelineCD(action=button.action).pack()
                )
                for button in row
            ]
            for row in rows
        ]
    )
