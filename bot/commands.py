"""Every bot command, as data: the one list that feeds the command menu
(set_my_commands), /help's list and the refusal of operator commands to anyone else.

A command added here without a handler, a catalog description or a place in /help
fails tests/handlers/test_commands.py.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from aiogram import Bot
from aiogram.exceptions import TelegramBadRequest
from aiogram.types import BotCommand, BotCommandScopeChat, BotCommandScopeDefault

from pipeline.actions import HELP_EXAMPLES, ExampleAction
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.types import Button, Language

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class CommandSpec:
    name: str  # without the slash
    description_key: str  # in pipeline/locales/*.toml
    operator_only: bool = False


def _user(name: str) -> CommandSpec:
    return CommandSpec(name, f"bot.commands.{name}")


def _operator(name: str) -> CommandSpec:
    return CommandSpec(name, f"bot.commands.{name}", operator_only=True)


#: In menu order.
COMMANDS: tuple[CommandSpec, ...] = (
    _user("start"),
    _user("help"),
    _user("me"),
    _user("forget"),
    _user("whoami"),
    _user("myquestions"),
    _user("cancel"),
    _operator("profile"),
    _operator("farm"),
    _operator("status"),
    _operator("pending"),
    _operator("approve"),
    _operator("reject"),
    _operator("apply_dict"),
    _operator("pending_stats"),
    _operator("token"),
    _operator("learnings"),
    _operator("stats"),
    _operator("rules"),
    _operator("questions"),
    _operator("answer"),
)

OPERATOR_ONLY: tuple[str, ...] = tuple(c.name for c in COMMANDS if c.operator_only)

#: Menu languages: Ukrainian is the default list, English the one for English clients.
MENU_LANGUAGES: tuple[tuple[Language, str | None], ...] = (("uk", None), ("en", "en"))


def commands_for(*, operator: bool) -> tuple[CommandSpec, ...]:
    return tuple(c for c in COMMANDS if operator or not c.operator_only)


def menu(texts: Texts, *, operator: bool) -> list[BotCommand]:
    return [
        BotCommand(command=c.name, description=texts.text(c.description_key))
        for c in commands_for(operator=operator)
    ]


#: What Stepan can do, in /help's order: one line each with an example
#: (``help.can.<name>`` in the catalogs).
CAPABILITIES: tuple[str, ...] = ("record", "plan", "report", "sensors", "advice", "memory")


def _lines(texts: Texts, commands: tuple[CommandSpec, ...]) -> list[str]:
    return [
        texts.text("bot.help_line", command=c.name, description=texts.text(c.description_key))
        for c in commands
    ]


def help_list(texts: Texts, *, operator: bool) -> str:
    """The command list /help ends with; an operator's adds their commands, apart."""
    lines = [texts.text("bot.help_commands")]
    lines += _lines(texts, commands_for(operator=False))
    if operator:
        lines += ["", texts.text("help.operator_commands")]
        lines += _lines(texts, tuple(c for c in COMMANDS if c.operator_only))
    return "\n".join(lines)


def help_text(texts: Texts, intro: str, *, operator: bool) -> str:
    """/help: the intro (the pipeline's light reply), what Stepan can do with an
    example each, then the commands from the registry, so none can be missing."""
    can = "\n".join(texts.text(f"help.can.{name}") for name in CAPABILITIES)
    return "\n\n".join((intro, can, help_list(texts, operator=operator)))


def help_buttons(texts: Texts) -> tuple[tuple[Button, ...], ...]:
    """Two rows of two: each button runs its example as a message (ExampleAction)."""
    buttons = [
        Button(texts.text(f"help.button.{name}"), ExampleAction(name)) for name in HELP_EXAMPLES
    ]
    return tuple(tuple(buttons[i : i + 2]) for i in range(0, len(buttons), 2))


async def set_commands(bot: Bot, catalog: Catalog, operators: frozenset[int]) -> None:
    """Everyone sees the user commands; each operator's chat also lists theirs."""
    for lang, code in MENU_LANGUAGES:
        texts = Texts(catalog, lang)
        await bot.set_my_commands(
            menu(texts, operator=False), scope=BotCommandScopeDefault(), language_code=code
        )
        for operator in operators:
            try:
                await bot.set_my_commands(
                    menu(texts, operator=True),
                    scope=BotCommandScopeChat(chat_id=operator),
                    language_code=code,
                )
            except TelegramBadRequest:
                # An operator who never opened a chat with the bot: nothing to scope yet.
                logger.warning("cannot set operator commands for chat %s", operator)
