"""Which catalog a reply uses. Ukrainian first: Russian and surzhyk get Ukrainian.

The reply language follows the profile and the conversation (issue 11 point 7):
:func:`choose_language` with the rules of ``pipeline/rules/language.toml``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Protocol

from pydantic import Field

from pipeline.profiles import UserProfile
from pipeline.rules import RULES_DIR
from pipeline.rules.schema import RulesModel, load
from pipeline.types import Incoming, Language


def detect_language(text: str, *, fallback: Language = "uk") -> Language:
    """English only when the text is written in Latin letters and no Cyrillic."""
    latin = cyrillic = 0
    for char in text:
        if not char.isalpha():
            continue
        if "a" <= char.lower() <= "z":
            latin += 1
        elif "\u0400" <= char <= "\u04ff":
            cyrillic += 1
    if cyrillic:
        return "uk"
    if latin >= 2:
        return "en"
    return fallback


def stored_language(value: str | None) -> Language:
    """A language as stored (a profile's; an offer's, which its answer follows rather
    than the client's setting; a contract's): English only for "en", else Ukrainian."""
    return "en" if value == "en" else "uk"


def language_from_telegram(language_code: str | None) -> Language:
    """Telegram's client language, used before the user has written anything."""
    return "en" if (language_code or "").lower().startswith("en") else "uk"


#: The language rules' file (loaded once by the Rulebook).
LANGUAGE_RULES = RULES_DIR / "language.toml"
_WORD = re.compile(r"[^\W\d_]+")


class _LanguageFile(RulesModel):
    min_words: int = Field(ge=1)
    lasting_after: int = Field(ge=1)
    conversation_minutes: float
    common_words: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class LanguageRules:
    """When a message changes the reply language (``rules/language.toml``)."""

    min_words: int
    lasting_after: int
    conversation: timedelta
    common_words: frozenset[str]

    @classmethod
    def load(cls, path: Path = LANGUAGE_RULES) -> LanguageRules:
        raw = load(path, _LanguageFile)
        return cls(
            min_words=raw.min_words,
            lasting_after=raw.lasting_after,
            conversation=timedelta(minutes=raw.conversation_minutes),
            common_words=frozenset(word.casefold() for word in raw.common_words),
        )

    def is_full(self, text: str) -> bool:
        """Enough words of its own to say which language the writer has switched to."""
        words = [w for w in _WORD.findall(text.casefold()) if w not in self.common_words]
        return len(words) >= self.min_words


class SpokenTopic(Protocol):
    """What the choice reads of a recent topic: when, and the language its message
    was written in if it was a full message (None for a short one)."""

    @property
    def ts(self) -> datetime: ...

    @property
    def lang(self) -> Language | None: ...


@dataclass(frozen=True, slots=True)
class LanguageChoice:
    #: The language of this reply.
    reply: Language
    #: The message's own language when it was a full message (kept with the topic).
    written_in: Language | None = None
    #: The profile's new language when this message makes the switch last.
    lasting: Language | None = None


def choose_language(
    text: str,
    *,
    preferred: Language,
    recent: Sequence[SpokenTopic],
    now: datetime,
    rules: LanguageRules,
) -> LanguageChoice:
    """The reply language follows the profile and the conversation: the last full
    message's language within the conversation window, else the profile's. A short
    message in another language («ok», «hello», «спасибо») changes nothing; a full one
    is answered in its own language, and ``lasting_after`` of them in a row make it
    the profile's language."""
    spoken = [topic for topic in recent if topic.lang is not None]
    conversation = preferred
    if spoken and now - spoken[-1].ts <= rules.conversation:
        conversation = spoken[-1].lang or preferred
    if text.startswith("/") or not rules.is_full(text):
        return LanguageChoice(conversation)
    own = detect_language(text, fallback=conversation)
    lasting = None
    if own != preferred:
        before = [topic.lang for topic in spoken[-(rules.lasting_after - 1) :]]
        if rules.lasting_after == 1 or (
            len(before) == rules.lasting_after - 1 and all(lang == own for lang in before)
        ):
            lasting = own
    return LanguageChoice(own, written_in=own, lasting=lasting)


def message_language(incoming: Incoming, known: Language | None = None) -> Language:
    """The reply language: the message's own script, else the profile's, else Telegram's."""
    fallback = known or language_from_telegram(incoming.language_code)
    text = "" if incoming.text.startswith("/") else incoming.text
    return detect_language(text, fallback=fallback)


def reply_language(
    incoming: Incoming,
    profile: UserProfile,
    *,
    known: bool,
    now: datetime,
    rules: LanguageRules | None,
) -> LanguageChoice:
    """The reply language: the profile's and the conversation's; one short message in
    another language does not switch it. A button press (no text) speaks the
    conversation's language. Without ``rules`` each message's own script decides."""
    if rules is None:
        return LanguageChoice(
            message_language(incoming, profile.preferred_language if known else None)
        )
    # A new user has no profile language yet: their own script, else Telegram's.
    preferred = (
        profile.preferred_language
        if known
        else message_language(incoming, language_from_telegram(incoming.language_code))
    )
    return choose_language(
        incoming.text, preferred=preferred, recent=profile.recent_topics, now=now, rules=rules
    )
