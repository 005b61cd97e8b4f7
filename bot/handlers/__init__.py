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
    operator_sensors,
    operator_status,
    operator_terms,
    refusal,
    text,
    whoami,
)


def _detach(router: Router) -> None:
    # Feature routers are module-level (one per module, the aiogram convention) and
    # aiogram lets a router have one parent. The tests and benchmarks build a fresh
    # dispatcher per run in one process, so a router is first taken off the root it
    # was attached to before. aiogram has no public API for this.
    parent = router.parent_router
    if parent is not None:
        parent.sub_routers.remove(router)
        router._parent_router = None


def build_root_router() -> Router:
    root = Router(name="root")
    routers = (
        errors.router,
        onboarding.router,  # state-bound answers first, so they don't reach the pipeline
        whoami.router,
        commands.router,  # /start, /help
        operator_profile.router,  # IsOperator on messages and callbacks
        operator_farm.router,
        operator_status.router,
        operator_terms.router,
        operator_sensors.router,  # /token, CSV readings; other documents go on to non_text
        refusal.router,  # operator commands/buttons from non-operators; after the above
        me.router,  # /me, /forget
        actions.router,  # other buttons the pipeline asked for
        non_text.router,  # photos, voice, stickers...: a polite line
        text.router,  # catch-all: every other text goes to the pipeline; keep last
    )
    for router in routers:
        _detach(router)
    root.include_routers(*routers)
    return root
