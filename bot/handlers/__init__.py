"""The order of routers matters: aiogram stops at the first handler that matches."""

from __future__ import annotations

from aiogram import Router

from bot.handlers import (
    actions,
    commands,
    errors,
    me,
    non_text,
    onboarding,
    operator_farm,
    operator_profile,
    operator_status,
    refusal,
    text,
    whoami,
)


def build_root_router() -> Router:
    root = Router(name="root")
    root.include_routers(
        errors.router,
        onboarding.router,  # state-bound answers first, so they don't reach the pipeline
        whoami.router,
        commands.router,  # /start, /help
        operator_profile.router,  # IsOperator on messages and callbacks
        operator_farm.router,
        operator_status.router,
        refusal.router,  # operator commands/buttons from non-operators; after the above
        me.router,  # /me, /forget
        actions.router,  # other buttons the pipeline asked for
        non_text.router,  # photos, voice, stickers...: a polite line
        text.router,  # catch-all: every other text goes to the pipeline; keep last
    )
    return root
