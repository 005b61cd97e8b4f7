"""The reply language follows the profile and the conversation (issue 11 point 7)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

from pipeline.language.choice import LanguageRules, choose_language
from pipeline.types import Language

NOW = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Topic:
    ts: datetime
    lang: Language | None


@pytest.fixture(scope="module")
def rules() -> LanguageRules:
    return LanguageRules.load()


def _said(*langs: Language | None, minutes_ago: float = 1) -> list[Topic]:
    start = NOW - timedelta(minutes=minutes_ago)
    return [Topic(start - timedelta(seconds=len(langs) - i), lang) for i, lang in enumerate(langs)]


@pytest.mark.parametrize(
    "text",
    ["hello", "ok", "OK!", "thanks", "hi Stepan", "thank you", "yes", "good morning", "cool 👍"],
)
def test_a_short_english_message_does_not_flip_a_ukrainian_conversation(
    rules: LanguageRules, text: str
) -> None:
    choice = choose_language(text, preferred="uk", recent=_said("uk"), now=NOW, rules=rules)
    assert (choice.reply, choice.written_in, choice.lasting) == ("uk", None, None)


@pytest.mark.parametrize("text", ["спасибо", "дякую", "ок", "привіт", "да, хорошо", "так"])
def test_a_short_cyrillic_message_does_not_flip_an_english_conversation(
    rules: LanguageRules, text: str
) -> None:
    choice = choose_language(text, preferred="en", recent=[], now=NOW, rules=rules)
    assert choice.reply == "en" and choice.lasting is None


def test_a_full_message_in_another_language_switches_the_reply(rules: LanguageRules) -> None:
    text = "what is the soil moisture on field 3"
    choice = choose_language(text, preferred="uk", recent=_said("uk"), now=NOW, rules=rules)
    assert (choice.reply, choice.written_in) == ("en", "en")
    # One full message is answered in its language but does not yet change the profile.
    assert choice.lasting is None


def test_the_conversation_keeps_the_switched_language_for_short_messages(
    rules: LanguageRules,
) -> None:
    recent = _said("uk", "en")
    assert choose_language("ok", preferred="uk", recent=recent, now=NOW, rules=rules).reply == "en"
    # After the conversation window the profile's language is back.
    old = _said("uk", "en", minutes_ago=rules.conversation.total_seconds() / 60 + 5)
    assert choose_language("ok", preferred="uk", recent=old, now=NOW, rules=rules).reply == "uk"


def test_full_messages_in_a_row_make_a_lasting_switch(rules: LanguageRules) -> None:
    text = "please show me the irrigation plan for next week"
    english: list[Language | None] = ["en"] * (rules.lasting_after - 1)
    recent = _said("uk", *english)
    choice = choose_language(text, preferred="uk", recent=recent, now=NOW, rules=rules)
    assert (choice.reply, choice.lasting) == ("en", "en")
    # Interrupted by a full Ukrainian message: not in a row, no lasting switch.
    if rules.lasting_after > 1:
        mixed = _said("en", "uk")
        choice = choose_language(text, preferred="uk", recent=mixed, now=NOW, rules=rules)
        assert (choice.reply, choice.lasting) == ("en", None)


def test_russian_and_surzhyk_are_answered_in_ukrainian(rules: LanguageRules) -> None:
    text = "какая влажность на поле три сегодня"
    choice = choose_language(text, preferred="en", recent=_said("en"), now=NOW, rules=rules)
    assert choice.reply == "uk" and choice.written_in == "uk"


def test_commands_and_emoji_keep_the_conversation(rules: LanguageRules) -> None:
    recent = _said("en")
    for text in ("/me", "👍", "", "123 456 789"):
        choice = choose_language(text, preferred="uk", recent=recent, now=NOW, rules=rules)
        assert choice.reply == "en", text
