"""The order of routers matters: aiogram stops at the first handler that matches."""

from __future__ import annotations

from aiogram import Router

from bot.handlers import actions, commands, errors, non_text, text


def build_root_router() -> Router:
    root = Router(name="root")
    root.include_routers(
        errors.router,
        commands.router,  # /start, /help: before the catch-all text handler
        actions.router,  # buttons the pipeline asked for
        non_text.router,  # photos, voice, stickers...: a polite line
        text.router,  # catch-all: every other text goes to the pipeline; keep last
    )
    return root
