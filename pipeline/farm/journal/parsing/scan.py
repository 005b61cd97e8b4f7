"""The message as tokens, and which pass of the parser claimed each of them."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pipeline.farm.words.numbers import NumberWords, format_number
from pipeline.text import APOSTROPHES, is_number, tokenize

__all__ = ["Scan", "Token"]

# Words keep inner apostrophes ("п'ятому"); numbers keep their decimal part.
_RAW_TOKEN_RE = re.compile(rf"\d+(?:[.,]\d+)?|[^\W\d_]+(?:[{APOSTROPHES}][^\W\d_]+)*")
_SENTENCE_END = frozenset(".!?\n")
_TEN = 10
_MAX_TENS = 90


@dataclass(frozen=True, slots=True)
class Token:
    raw: str
    norm: str
    start: int
    end: int

    @property
    def number(self) -> bool:
        return is_number(self.norm)

    @property
    def word(self) -> bool:
        return self.norm.isalpha()


def _tokens(text: str) -> tuple[Token, ...]:
    out: list[Token] = []
    for match in _RAW_TOKEN_RE.finditer(text):
        norm = "".join(tokenize(match.group()))
        if norm:
            out.append(Token(match.group(), norm, match.start(), match.end()))
    return tuple(out)


def _spoken_numbers(
    tokens: tuple[Token, ...],
    text: str,
    numbers: NumberWords,
    is_unit: Callable[[Sequence[str], int], bool],
) -> tuple[Token, ...]:
    """ "двісті п'ятдесят кг" as one number token "250" spanning both words;
    "півтонни" as "0.5" and "тонни"."""
    split: list[Token] = []
    for token in tokens:
        unit = numbers.half_of(token.norm, is_unit) if token.word else None
        if unit is None:
            split.append(token)
            continue
        cut = token.end - len(unit)
        split.append(Token(text[token.start : cut], "0.5", token.start, cut))
        split.append(Token(text[cut : token.end], unit, cut, token.end))
    tokens = tuple(split)
    norms = [t.norm for t in tokens]
    spans = numbers.spans(norms, is_unit)
    if not spans:
        return tokens
    out = list(tokens)
    for span in reversed(spans):
        first, last = tokens[span.start], tokens[span.end - 1]
        raw = text[first.start : last.end]
        out[span.start : span.end] = [Token(raw, format_number(span.value), first.start, last.end)]
    return tuple(out)


@dataclass(slots=True)
class Scan:
    """The message's tokens and which pass claimed each of them.

    ``spans`` numbers each claim, so a clause boundary is never drawn through one
    hit ("на полях 2, 6 і 9" is one list of fields).
    """

    text: str
    tokens: tuple[Token, ...]
    norms: tuple[str, ...]
    claimed: list[str | None]
    spans: list[int]

    @classmethod
    def of(
        cls,
        text: str,
        numbers: NumberWords | None = None,
        is_unit: Callable[[Sequence[str], int], bool] | None = None,
    ) -> Scan:
        tokens = _tokens(text)
        if numbers is not None and is_unit is not None:
            tokens = _spoken_numbers(tokens, text, numbers, is_unit)
        size = len(tokens)
        return cls(text, tokens, tuple(t.norm for t in tokens), [None] * size, [0] * size)

    def __len__(self) -> int:
        return len(self.tokens)

    def norm(self, i: int) -> str:
        """The folded token at ``i``; "" outside the message."""
        return self.norms[i] if 0 <= i < len(self.norms) else ""

    def free(self, i: int) -> bool:
        return 0 <= i < len(self.tokens) and self.claimed[i] is None

    def all_free(self, start: int, end: int) -> bool:
        return end <= len(self.tokens) and all(self.claimed[i] is None for i in range(start, end))

    def claim(self, start: int, end: int, role: str) -> None:
        span = max(self.spans, default=0) + 1
        for i in range(start, end):
            self.claimed[i] = role
            self.spans[i] = span

    def joined(self, i: int) -> bool:
        """Tokens ``i - 1`` and ``i`` belong to one claimed hit."""
        return (
            0 < i < len(self.tokens) and self.spans[i] != 0 and self.spans[i] == self.spans[i - 1]
        )

    def raw(self, start: int, end: int) -> str:
        """The text as written from token ``start`` to token ``end - 1``."""
        return self.text[self.tokens[start].start : self.tokens[end - 1].end]

    def gap(self, i: int) -> str:
        """What stands between token ``i - 1`` and token ``i`` (spaces stripped)."""
        before = self.tokens[i - 1].end if i > 0 else 0
        return self.text[before : self.tokens[i].start].strip()

    def starts_sentence(self, i: int) -> bool:
        if i == 0:
            return True
        before = self.text[self.tokens[i - 1].end : self.tokens[i].start]
        return any(ch in _SENTENCE_END for ch in before)

    def capitalised(self, i: int) -> bool:
        raw = self.tokens[i].raw
        return raw[:1].isupper() and len(raw) > 1

    def latin(self, i: int) -> bool:
        return self.norms[i].isascii() and self.tokens[i].word

    def mostly_cyrillic(self) -> bool:
        words = [t for t in self.tokens if t.word]
        return sum(not t.norm.isascii() for t in words) > len(words) // 2

    def phrase(self, start: int, end: int) -> str:
        """A name as reported in ``unknown_terms``: lowercase, as written."""
        return " ".join(t.raw.lower() for t in self.tokens[start:end])

    def tokens_in(self, start: int, end: int) -> tuple[int, int] | None:
        """Token indices covering characters ``start:end``, if all are still free."""
        inside = [i for i, t in enumerate(self.tokens) if t.start >= start and t.end <= end]
        if not inside or not self.all_free(inside[0], inside[-1] + 1):
            return None
        return inside[0], inside[-1] + 1

    def number_at(self, i: int) -> bool:
        return self.free(i) and self.tokens[i].number

    def spoken_tens(self, i: int) -> int | None:
        """A free number said in words that is a whole ten, 20 to 90 ("двадцять")."""
        if not self.number_at(i) or self.tokens[i].raw[:1].isdigit():
            return None
        try:
            value = float(self.norms[i])
        except ValueError:
            return None
        whole = int(value)
        tens = whole == value and whole % _TEN == 0 and _TEN < whole <= _MAX_TENS
        return whole if tens else None
