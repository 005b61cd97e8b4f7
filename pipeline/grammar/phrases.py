"""Phrases of the term syntax: slots of words, numbers (``#``) or any word (``*``),
alternatives (``a|b``) and gaps (``~``)."""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Literal

from pipeline.grammar.settings import Grammar
from pipeline.text import is_number, tokenize

__all__ = ["Slot", "is_phrase", "match_phrase_at", "parse_phrase"]


@dataclass(frozen=True, slots=True)
class Slot:
    """One position of a phrase: a word (any of ``words``), a number or any word."""

    kind: Literal["word", "num", "any"]
    gap_before: int
    #: Word patterns, each as :meth:`WordIndexBuilder.add_word` takes them.
    words: tuple[str, ...] = ()


def _splits(spec: str) -> bool:
    """``l/ha`` or ``plan-fact`` written as one term is really a phrase."""
    if spec in ("#", "~", "*") or spec.startswith("@") or spec.endswith("*"):
        return False
    return len(tokenize(spec.removeprefix("="))) > 1


def is_phrase(spec: str) -> bool:
    return " " in spec or "|" in spec or _splits(spec)


def _alternatives(part: str) -> tuple[str, ...]:
    exact = part.startswith("=")
    return tuple(
        "=" + alt if exact and alt[:1] not in "=@" else alt
        for alt in part.removeprefix("=").split("|")
    )


def parse_phrase(spec: str, grammar: Grammar) -> tuple[Slot, ...]:
    parts: list[str] = []
    for chunk in spec.split():
        if "|" in chunk or not _splits(chunk):
            parts.append(chunk)
        else:
            mark = "=" if chunk.startswith("=") else ""
            parts.extend(mark + tok for tok in tokenize(chunk.removeprefix("=")))
    slots: list[Slot] = []
    gap = 0
    for part in parts:
        if part == "~":
            gap = grammar.phrase_gap
        elif part in ("#", "*"):
            slots.append(Slot("num" if part == "#" else "any", gap))
            gap = 0
        else:
            slots.append(Slot("word", gap, _alternatives(part)))
            gap = 0
    if not slots or slots[0].kind != "word":
        raise ValueError(f"phrase {spec!r} must start with a word")
    return tuple(slots)


def match_phrase_at(
    slots: Sequence[Slot],
    phrase_id: int,
    start: int,
    tokens: Sequence[str],
    fills: Sequence[AbstractSet[tuple[int, int]]],
    free: Sequence[bool],
) -> list[int] | None:
    """Token positions of the phrase's slots when its first slot is at ``start``.

    ``fills[j]`` holds the ``(phrase_id, slot)`` pairs the word at ``j`` can fill; the
    caller checked the first slot. Positions where ``free`` is False are skipped.
    """
    if not free[start]:
        return None
    positions = [start]
    pos = start + 1
    last = len(tokens) - 1
    for i in range(1, len(slots)):
        slot = slots[i]
        key = (phrase_id, i)
        kind = slot.kind
        for j in range(pos, min(pos + slot.gap_before, last) + 1):
            if free[j] and (
                key in fills[j] if kind == "word" else kind == "any" or is_number(tokens[j])
            ):
                positions.append(j)
                pos = j + 1
                break
        else:
            return None
    return positions
