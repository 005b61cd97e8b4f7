"""The router tree's shape (bot/handlers/__init__.py): the branch only a command
enters holds nothing but command handlers, since a plain text never enters it."""

from __future__ import annotations

from collections.abc import Iterator

from aiogram import Router
from aiogram.dispatcher.event.handler import HandlerObject
from aiogram.filters import Command

from bot.handlers import build_command_router


def _message_handlers(router: Router) -> Iterator[HandlerObject]:
    yield from router.message.handlers
    for sub in router.sub_routers:
        yield from _message_handlers(sub)


def _is_command_handler(handler: HandlerObject) -> bool:
    return any(isinstance(flt.callback, Command) for flt in handler.filters or ())


def test_the_command_branch_holds_only_command_handlers() -> None:
    # A text handler put there would never see a plain text: the branch's IsCommand
    # filter stops it before any handler is checked.
    strays = [
        handler.callback.__qualname__
        for handler in _message_handlers(build_command_router())
        if not _is_command_handler(handler)
    ]
    assert strays == []
