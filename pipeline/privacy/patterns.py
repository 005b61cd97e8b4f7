"""Confidential details recognised by their shape: e-mail addresses, phone numbers,
IBANs, card numbers, keys, tokens and machine ids.

Each finder returns character spans with a kind; :mod:`pipeline.privacy.sanitizer`
merges them with the spans its word cues find. Numbers that are farm data (dates,
rates, "10 20 30 кг", "NPK 16-16-16", "1 200 000 грн") must not look like any of
these, so every number pattern is anchored on a shape a number of that kind has:
a "+" or a trunk prefix for phones, groups of four for cards, a country code and
check digits for an IBAN, ten digits or more for a bare id.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

__all__ = ["Kind", "Span", "find_all", "luhn_valid"]

Kind = Literal["name", "phone", "email", "id", "secret", "iban", "card", "address", "private"]


@dataclass(frozen=True, slots=True)
class Span:
    start: int
    end: int
    kind: Kind


_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
# user:password@ inside a URL.
_URL_CREDENTIALS = re.compile(r"(?<=://)[^\s/@:]+:[^\s/@]+(?=@)")
_SECRETS = (
    # Telegram bot tokens "123456:AA...".
    re.compile(r"\b\d{6,}:[A-Za-z0-9_-]{20,}"),
    # API keys with a vendor prefix: sk-..., ghp_..., xoxb-...
    re.compile(r"\b(?:sk|pk|rk|api|key|token|ghp|gho|xox[abpr])[-_][A-Za-z0-9_-]{8,}", re.I),
    re.compile(r"\bbearer\s+[A-Za-z0-9._~+/-]{8,}=*", re.I),
    # JSON web tokens.
    re.compile(r"\beyJ[\w-]{6,}\.[\w-]{6,}\.[\w-]+"),
    # Anything else long and random-looking: letters (beyond hex, or it is an id below)
    # and digits, 24 characters or more.
    re.compile(r"\b(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[g-zG-Z])[A-Za-z0-9_-]{24,}\b"),
)
_IDS = (
    re.compile(r"\b[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\b", re.I),
    re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{16,}\b", re.I),
    # Stepan's own ids of people and farms: tg:123, farm:abc..., user:..., chat:...
    re.compile(r"\b(?:tg|farm|user|chat|trace):[\w-]+", re.I),
    # A person's @username (bots end in "bot" and are not people).
    re.compile(r"(?<![\w@])@(?![A-Za-z0-9_]*bot\b)[A-Za-z][A-Za-z0-9_]{3,31}\b", re.I),
    # Passport-shaped: two capital letters and six digits ("АА 123456").
    re.compile(r"\b[A-ZА-ЯІЇЄҐ]{2}\s?№?\s?\d{6}\b"),
)
# IBAN: a country code, two check digits and 11..30 letters or digits, in groups or not.
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]){11,30}\b", re.I)
_PHONES = (
    # International: +380 67 123 45 67, +1 (555) 123-4567, +48 601-234-567.
    re.compile(r"(?<![\w+])\+\d{1,3}[\s.-]?\(?\d{1,4}\)?(?:[\s.-]?\d{2,4}){2,4}(?![\w])"),
    # Ukrainian national: 067 123 45 67, (067) 123-45-67, 0671234567.
    re.compile(r"(?<![\w+(])\(?0\d{2}\)?(?:[\s.-]?\d){7}(?![\w])"),
    # 380671234567 without the plus; 8 (912) 345-67-89.
    re.compile(r"(?<![\w+])380(?:[\s.-]?\d){9}(?![\w])"),
    re.compile(r"(?<![\w+])8[\s.-]?\(\d{3}\)(?:[\s.-]?\d){7}(?![\w])"),
    # North American: (555) 123-4567.
    re.compile(r"(?<![\w+])\(\d{3}\)\s?\d{3}[\s.-]\d{4}(?![\w])"),
)
# Card numbers: 4-4-4-4(-3) or 4-6-5 with one space or dash, or 13..19 digits in a row.
_CARD_GROUPED = re.compile(
    r"(?<![\w.,])(?:\d{4}([ -])\d{4}\1\d{4}\1\d{4}(?:\1\d{1,3})?|\d{4}([ -])\d{6}\2\d{5})(?![\w.,])"
)
_DIGIT_RUN = re.compile(r"(?<![\w.,])\d{10,}(?![\w.,]\d|\w)")


def luhn_valid(digits: str) -> bool:
    """The card-number checksum: every second digit from the right doubled."""
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2 == 1:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def _digits(text: str) -> str:
    return "".join(ch for ch in text if ch.isdigit())


def _phone_digits_ok(match: str) -> bool:
    count = len(_digits(match))
    return 9 <= count <= 15


def _spans(pattern: re.Pattern[str], text: str, kind: Kind) -> Iterator[Span]:
    for match in pattern.finditer(text):
        yield Span(match.start(), match.end(), kind)


def find_all(text: str) -> list[Span]:
    """Every span of ``text`` whose shape is a confidential kind."""
    found: list[Span] = []
    found.extend(_spans(_EMAIL, text, "email"))
    found.extend(_spans(_URL_CREDENTIALS, text, "secret"))
    for pattern in _SECRETS:
        found.extend(_spans(pattern, text, "secret"))
    for pattern in _IDS:
        found.extend(_spans(pattern, text, "id"))
    for match in _IBAN.finditer(text):
        # An IBAN is mostly digits; "UA" followed by a word is not one.
        if len(_digits(match.group())) >= 10:
            found.append(Span(match.start(), match.end(), "iban"))
    for pattern in _PHONES:
        for match in pattern.finditer(text):
            if _phone_digits_ok(match.group()):
                found.append(Span(match.start(), match.end(), "phone"))
    found.extend(_spans(_CARD_GROUPED, text, "card"))
    for match in _DIGIT_RUN.finditer(text):
        digits = match.group()
        kind: Kind = "card" if 13 <= len(digits) <= 19 and luhn_valid(digits) else "id"
        found.append(Span(match.start(), match.end(), kind))
    return found
