"""pipeline.text.clean_input and the bot's CleanInputMiddleware."""

from __future__ import annotations

import pytest
from aiogram.types import Update

from bot.middlewares.clean_input import clean_update
from pipeline.handle import Pipeline
from pipeline.language.catalog import Catalog
from pipeline.text import clean_input
from pipeline.types import Incoming


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("привіт", "привіт"),
        ("  привіт \u3000", "привіт"),
        ("при\x00віт", "привіт"),
        ("рядок 1\r\nрядок 2\rрядок 3", "рядок 1\nрядок 2\nрядок 3"),
        ("таб\tлишається", "таб\tлишається"),
        ("\x1b[31mчервоний\x1b[0m", "[31mчервоний[0m"),
        ("\u0085\u009b", ""),
        ("\u00a0\u3000\u2007 ", ""),
        ("👍🏽 ok", "👍🏽 ok"),
        ("👨\u200d🌾", "👨\u200d🌾"),  # a joiner inside an emoji is not a control character
        ("\u200b\u2060\ufeff", ""),  # nothing visible: as empty as spaces
        ("\u3164", ""),  # a Hangul filler is a "letter" drawn blank
        ("\u200bпривіт", "\u200bпривіт"),  # invisible characters among words stay
        ("❤\ufe0f", "❤\ufe0f"),
        ("\u0301", ""),
        ("при\ud800віт", "привіт"),  # a lone surrogate: no database stores it
    ],
)
def test_clean_input(raw: str, clean: str) -> None:
    assert clean_input(raw) == clean


def _update(text: str, first_name: str) -> Update:
    return Update.model_validate(
        {
            "update_id": 1,
            "message": {
                "message_id": 5,
                "date": 0,
                "chat": {"id": 7, "type": "private", "first_name": first_name},
                "from": {"id": 7, "is_bot": False, "first_name": first_name},
                "text": text,
            },
        }
    )


def test_an_update_with_nothing_to_clean_is_the_same_object() -> None:
    update = _update("привіт", "Олена")
    assert clean_update(update) is update


def test_text_and_names_are_cleaned_in_the_update() -> None:
    cleaned = clean_update(_update("при\x00віт ", "Ол\x00ена"))
    message = cleaned.message
    assert message is not None and message.from_user is not None
    assert message.text == "привіт"
    assert message.from_user.first_name == "Олена"
    assert message.chat.first_name == "Олена"


def test_a_name_of_only_control_characters_keeps_a_first_name() -> None:
    cleaned = clean_update(_update("привіт", "\x00\x00"))
    assert cleaned.message is not None and cleaned.message.from_user is not None
    assert cleaned.message.from_user.first_name == "-"


@pytest.mark.parametrize("text", ["", " ", "\u3000", "\u00a0", "\x00", "\t\n"])
async def test_the_pipeline_answers_an_empty_message_without_a_crash(
    pipeline: Pipeline, catalog: Catalog, text: str
) -> None:
    """The console chat and other callers reach the pipeline without the bot's
    middleware: "" and whitespace-only text once raised IndexError in _classify."""
    reply = await pipeline.handle_message(Incoming("tg:1", 1, text, "trace-empty"))
    assert reply.text == catalog.text("uk", "faults.empty")
