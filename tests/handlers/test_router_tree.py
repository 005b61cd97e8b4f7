"""The router tree's shape (bot/handlers/__init__.py): a branch behind a router-level
filter holds only handlers that filter's messages can reach, since every other
message skips the branch without looking at its handlers."""

from __future__ import annotations

from collections.abc import Iterator

from aiogram import Router
from aiogram.dispatcher.event.handler import HandlerObject
from aiogram.filters import Command, StateFilter

from bot.filters import InState
from bot.handlers import build_command_router, build_root_router, build_state_router
from bot.wiring.dispatcher import operator_services
from bot.wiring.factory import Core


def _message_handlers(router: Router) -> Iterator[HandlerObject]:
    yield from router.message.handlers
    for sub in router.sub_routers:
        yield from _message_handlers(sub)


def _has_filter(handler: HandlerObject, *kinds: type) -> bool:
    return any(isinstance(flt.callback, kinds) for flt in handler.filters or ())


def test_the_command_branch_holds_only_command_handlers() -> None:
    # A text handler put there would never see a plain text.
    strays = [
        handler.callback.__qualname__
        for handler in _message_handlers(build_command_router())
        if not _has_filter(handler, Command)
    ]
    assert strays == []


def test_the_state_branch_holds_only_handlers_bound_to_a_state() -> None:
    # A handler without a state filter there would never see a message sent
    # outside every state (a /cancel, say, must answer "nothing to cancel").
    handlers = list(_message_handlers(build_state_router()))
    strays = [h.callback.__qualname__ for h in handlers if not _has_filter(h, InState, StateFilter)]
    assert handlers and strays == []


def test_only_the_operators_branch_declares_the_operator_services(core: Core) -> None:
    # Those services are given to the operators' branch alone (bot/middlewares/
    # services.py): a handler elsewhere that declared one would fail when called.
    services = operator_services(core)
    operator_only = set(services)

    def outside_operators(router: Router) -> Iterator[HandlerObject]:
        if router.name == "bot.handlers.operators":
            return
        for observer in router.observers.values():
            yield from observer.handlers
        for sub in router.sub_routers:
            yield from outside_operators(sub)

    strays = [
        (handler.callback.__qualname__, sorted(handler.params & operator_only))
        for handler in outside_operators(build_root_router(services))
        if handler.params & operator_only
    ]
    assert operator_only and strays == []
