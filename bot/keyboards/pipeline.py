"""Buttons the pipeline asks for, as typed callback data."""

from __future__ import annotations

from aiogram.filters.callback_data import CallbackData
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from pipeline.types import Button


class PipelineCD(CallbackData, prefix="p"):
    """A pipeline action ``kind:value`` (e.g. ``style:brief``), validated again by the
    pipeline when it comes back. Two fields because ":" is CallbackData's separator."""

    kind: str
    value: str = ""

    @classmethod
    def of(cls, action: str) -> PipelineCD:
        kind, _, value = action.partition(":")
        return cls(kind=kind, value=value)

    @property
    def action(self) -> str:
        return f"{self.kind}:{self.value}" if self.value else self.kind


def keyboard(rows: tuple[tuple[Button, ...], ...]) -> InlineKeyboardMarkup | None:
    if not rows:
        return None
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(
                    text=button.text, callback_data=PipelineCD.of(button.action).pack()
                )
                for button in row
            ]
            for row in rows
        ]
    )
