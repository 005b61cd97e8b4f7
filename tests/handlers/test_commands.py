"""The command registry (bot/commands.py) is the one list: every command in it has a
handler, a description in both catalogs, a place in /help and in the menus, and no
handler answers a command missing from it."""

from __future__ import annotations

from typing import Any

from aiogram import Router
from aiogram.filters import Command

from bot.commands import CAPABILITIES, COMMANDS, OPERATOR_ONLY, help_list, set_commands
from bot.handlers import build_root_router, refusal
from bot.keyboards.pipeline import ExampleCD
from bot.local.session import LocalBot
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from tests.handlers.conftest import FARMER, OPERATOR, keyboard, message_id, requests


def _commands_handled(router: Router) -> set[str]:
    """Commands some message handler of ``router`` (or its sub-routers) answers."""
    names: set[str] = set()
    for handler in router.message.handlers:
        for flt in handler.filters or ():
            if isinstance(flt.callback, Command):
                names |= {c for c in flt.callback.commands if isinstance(c, str)}
    for sub in router.sub_routers:
        if sub is not refusal.router:  # it answers operator commands to anyone else
            names |= _commands_handled(sub)
    return names


def test_every_registered_command_has_a_handler_and_no_handler_is_unregistered() -> None:
    assert _commands_handled(build_root_router({})) == {c.name for c in COMMANDS}


def test_every_command_is_described_in_both_catalogs(catalog: Catalog) -> None:
    for lang in ("uk", "en"):
        for command in COMMANDS:
            assert catalog.has(lang, command.description_key), (lang, command.name)


def test_the_refusal_covers_exactly_the_operator_commands() -> None:
    refused = {
        name
        for handler in refusal.router.message.handlers
        for flt in handler.filters or ()
        if isinstance(flt.callback, Command)
        for name in flt.callback.commands
    }
    assert refused == set(OPERATOR_ONLY) == {c.name for c in COMMANDS if c.operator_only}


def _help_keyboard(catalog: Catalog, lang: str) -> dict[str, Any]:
    names = [("report", "chart"), ("plan", "sensors")]
    return keyboard(
        *[
            [(catalog.text(lang, f"help.button.{n}"), ExampleCD(example=n).pack()) for n in row]  # type: ignore[arg-type]
            for row in names
        ]
    )


async def test_help_teaches_a_farmer(tg: LocalBot, catalog: Catalog) -> None:
    """What Stepan can do with one example each, the farmer's commands, and buttons
    for the common requests (issue 16 point 2)."""
    calls = await tg.say(FARMER, "/help")
    lines = [f"/{c.name} — {catalog.text('uk', c.description_key)}" for c in COMMANDS]
    farmer_lines = [line for line, c in zip(lines, COMMANDS, strict=True) if not c.operator_only]
    can = [catalog.text("uk", f"help.can.{name}") for name in CAPABILITIES]
    expected = "\n\n".join(
        [
            catalog.text("uk", "light.help"),
            # A new user is a novice (issue 11 point 2): the terms explained.
            catalog.text("uk", "level.novice.why.light.help"),
            "\n".join(can),
            "\n".join(["Команди:", *farmer_lines]),
        ]
    )
    assert requests(calls) == [
        (
            "sendMessage",
            {"chat_id": FARMER, "text": expected, "reply_markup": _help_keyboard(catalog, "uk")},
        )
    ]
    assert help_list(Texts(catalog, "uk"), operator=False) == "\n".join(["Команди:", *farmer_lines])
    # /me and /forget are taught among the capabilities, not only listed.
    assert "/me" in "\n".join(can) and "/forget" in "\n".join(can)


async def test_help_lists_every_command_for_an_operator(tg: LocalBot, catalog: Catalog) -> None:
    [(method, params)] = requests(await tg.say(OPERATOR, "/help", language_code="en"))
    assert method == "sendMessage"
    # The operator's technical footer closes the message, not the intro.
    body, footer = params["text"].rsplit("\n\n", 1)
    assert footer.startswith("⚙️ trace ") and "⚙️" not in body
    commands = body.split("Commands:\n", 1)[1]
    farmer, operator = commands.split(f"\n\n{catalog.text('en', 'help.operator_commands')}\n")
    line = "/{} — {}".format
    assert farmer.splitlines() == [
        line(c.name, catalog.text("en", c.description_key)) for c in COMMANDS if not c.operator_only
    ]
    assert operator.splitlines() == [
        line(c.name, catalog.text("en", c.description_key)) for c in COMMANDS if c.operator_only
    ]


async def test_a_help_button_runs_its_example(tg: LocalBot, catalog: Catalog) -> None:
    [offer] = await tg.say(FARMER, "/help")
    calls = await tg.press(FARMER, ExampleCD(example="sensors").pack(), message_id(offer))
    sent = [params for method, params in requests(calls) if method == "sendMessage"]
    # «яка вологість» from a farm without sensors: the same answer as typed.
    assert [params["text"] for params in sent] == [catalog.text("uk", "compose.no_iot")]


async def test_menus_default_for_everyone_and_per_operator_chat(
    tg: LocalBot, catalog: Catalog
) -> None:
    await set_commands(tg.bot, catalog, frozenset({OPERATOR}))

    def menu(lang: str, operator: bool) -> list[dict[str, str]]:
        return [
            {"command": c.name, "description": catalog.text(lang, c.description_key)}  # type: ignore[arg-type]
            for c in COMMANDS
            if operator or not c.operator_only
        ]

    default, chat = {"type": "default"}, {"type": "chat", "chat_id": OPERATOR}
    assert requests(tg.session.calls) == [
        ("setMyCommands", {"commands": menu("uk", False), "scope": default}),
        ("setMyCommands", {"commands": menu("uk", True), "scope": chat}),
        ("setMyCommands", {"commands": menu("en", False), "scope": default, "language_code": "en"}),
        ("setMyCommands", {"commands": menu("en", True), "scope": chat, "language_code": "en"}),
    ]
    assert tg.telegram.commands(language_code="en") == menu("en", False)
