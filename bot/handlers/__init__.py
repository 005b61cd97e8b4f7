"""The router tree. aiogram stops at the first handler that matches, and every router
an update passes costs a copy of its data and a filter check per handler, so the tree
is shaped by what a message is:

- every command (``/...``) in one branch behind one ``IsCommand`` check: a farmer's
  plain text skips all the command routers at once;
- the answers bound to a state (onboarding's, a new name for /me) in one branch
  behind one ``HasState`` check, before the catch-all so they don't reach the pipeline;
- the operators' branch (IsOperator on messages AND callbacks);
- those three behind one check of all three (``build_special_router``): most updates
  are a farmer's plain text, which then passes one filter on its way to the catch-all;
- the rest of the messages, the catch-all text last but one, then the routers that
  only take callbacks (and the callback catch-all), then errors.
"""

from __future__ import annotations

from collections.abc import Mapping

from aiogram import Router
from aiogram.filters import or_f

from bot.filters import HasState, IsCommand, IsOperator
from bot.handlers import (
    actions,
    agronomist,
    commands,
    errors,
    location,
    me,
    me_edit,
    non_text,
    onboarding,
    operators,
    private_only,
    refusal,
    text,
    voice,
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


def _include(parent: Router, *routers: Router) -> None:
    for router in routers:
        _detach(router)
    parent.include_routers(*routers)


def build_command_router() -> Router:
    """Every command a farmer or anyone may send; their callbacks pass unfiltered."""
    branch = Router(name="commands")
    branch.message.filter(IsCommand())
    _include(
        branch,
        private_only.router,  # /token, /me, /profile... in a group: a pointer, nothing shown
        onboarding.commands,  # /cancel
        whoami.router,
        commands.router,  # /start, /help
        refusal.router,  # operator commands/buttons from non-operators (~IsOperator)
        me.router,  # /me, /forget (their buttons: actions)
        agronomist.router,  # /myquestions
    )
    return branch


def build_state_router() -> Router:
    """Messages that answer a question Stepan asked (the user is in an FSM state);
    the callbacks of the same features pass unfiltered."""
    branch = Router(name="states")
    branch.message.filter(HasState())
    _include(
        branch,
        onboarding.router,  # the onboarding step's typed answer
        me_edit.router,  # /me's ✏️: the next message is the name
    )
    return branch


def build_special_router(operator_services: Mapping[str, object]) -> Router:
    """Messages that are not a farmer's plain chat: a command, an answer Stepan asked
    for (a state), anything from an operator. Callbacks pass unfiltered."""
    branch = Router(name="special")
    branch.message.filter(or_f(IsCommand(), HasState(), IsOperator()))
    for feature in operators.FEATURES:
        _detach(feature)
    _include(
        branch,
        # Before the operators' branch: an operator's /token in a group gets the pointer.
        build_command_router(),
        build_state_router(),
        # IsOperator on messages and callbacks.
        operators.build_operators_router(operator_services),
    )
    return branch


def build_root_router(operator_services: Mapping[str, object]) -> Router:
    """``operator_services``: what only the operators' handlers use (their branch gets
    them, not every update; bot/middlewares/services.py)."""
    root = Router(name="root")
    # A command during onboarding is answered as always, then onboarding waits.
    root.message.outer_middleware(
        OnboardingPauseMiddleware(
            onboarding.Onboarding.active.state, onboarding.Onboarding.paused.state
        )
    )
    _include(
        root,
        build_special_router(operator_services),
        text.router,  # catch-all for text: every other text goes to the pipeline
        location.router,  # a location: the farm's or a field's point (docs/weather.md)
        voice.router,  # voice, audio, video notes: heard, then the pipeline
        non_text.router,  # photos to the pipeline; stickers...: a polite line
        actions.router,  # the pipeline's buttons; any other callback gets "expired"
        errors.router,  # errors only: no message or callback passes it
    )
    return root
