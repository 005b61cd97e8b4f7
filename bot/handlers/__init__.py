"""The order of routers matters: aiogram stops at the first handler that matches."""

from __future__ import annotations

from aiogram import Router

from bot.handlers import (
    actions,
    agronomist,
    commands,
    errors,
    me,
    non_text,
    onboarding,
    operators,
    private_only,
    refusal,
    text,
    whoami,
)
from bot.middlewares.onboarding_pause import OnboardingPauseMiddleware


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
    # A command during onboarding is answered as always, then onboarding waits.
    root.message.outer_middleware(
        OnboardingPauseMiddleware(
            onboarding.Onboarding.active.state, onboarding.Onboarding.paused.state
        )
    )
    for feature in operators.FEATURES:
        _detach(feature)
    routers = (
        errors.router,
        private_only.router,  # /token, /me, /profile... in a group: a pointer, nothing shown
        onboarding.router,  # state-bound answers first, so they don't reach the pipeline
        whoami.router,
        commands.router,  # /start, /help
        operators.build_operators_router(),  # IsOperator on messages and callbacks
        refusal.router,  # operator commands/buttons from non-operators; after the above
        me.router,  # /me, /forget
        agronomist.router,  # «Передати агрономові»: the card goes to the operators
        actions.router,  # the pipeline's buttons; any other callback gets "expired"
        non_text.router,  # photos, voice, stickers...: a polite line
        text.router,  # catch-all: every other text goes to the pipeline; keep last
    )
    for router in routers:
        _detach(router)
    root.include_routers(*routers)
    return root
