"""``pipeline/rules/journal_edits.toml``: the words of a correction, compiled once."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from pipeline.rules.schema import NonEmptyStrings, RulesModel, load
from pipeline.text import fold

__all__ = ["EDIT_RULES", "EditWords", "Split"]

EDIT_RULES = Path(__file__).resolve().parents[3] / "rules" / "journal_edits.toml"
#: What may stand between two parts of a contrast: "не 150, а 120", "не 150 — 120".
_GAP = r"[\s,;:—–-]*"
#: Where a word starts and ends (letters, digits and the apostrophe belong to words).
_EDGE_BEFORE = r"(?<![\w'’])"
_EDGE_AFTER = r"(?![\w'’])"


class _Contrast(RulesModel):
    negations: NonEmptyStrings
    but: NonEmptyStrings
    instead: NonEmptyStrings


class _Kinds(RulesModel):
    delete: NonEmptyStrings
    record_nouns: NonEmptyStrings
    undo: NonEmptyStrings
    done: NonEmptyStrings
    planned: NonEmptyStrings
    correcting: NonEmptyStrings
    adding: NonEmptyStrings


class _File(RulesModel):
    contrast: _Contrast
    kinds: _Kinds


def _words(words: tuple[str, ...]) -> str:
    """One alternation of whole words, longest first."""
    folded = sorted({re.escape(fold(word)) for word in words}, key=len, reverse=True)
    return _EDGE_BEFORE + "(?:" + "|".join(folded) + ")" + _EDGE_AFTER


@dataclass(frozen=True, slots=True)
class Split:
    """A correction's two sides: what was wrong (may be empty) and what is right."""

    wrong: str
    right: str
    adding: bool = False


@dataclass(frozen=True, slots=True)
class EditWords:
    delete: re.Pattern[str]
    record_nouns: re.Pattern[str]
    undo: re.Pattern[str]
    done: re.Pattern[str]
    planned: re.Pattern[str]
    correcting: re.Pattern[str]
    adding: re.Pattern[str]
    #: "не X, а Y", "Y, а не X", "замість X — Y", "Y instead of X", "Y, not X".
    contrasts: tuple[re.Pattern[str], ...]

    @classmethod
    def load(cls, path: Path = EDIT_RULES) -> EditWords:
        raw = load(path, _File)
        kinds, contrast = raw.kinds, raw.contrast
        neg, but = _words(contrast.negations), _words(contrast.but)
        instead = _words(contrast.instead)
        contrasts = tuple(
            re.compile(pattern)
            for pattern in (
                rf"(?P<right>.*?){_GAP}{but}\s+{neg}\s+(?P<wrong>.+)",
                rf"{neg}\s+(?P<wrong>.+?){_GAP}{but}\s+(?P<right>.+)",
                rf"{instead}\s+(?P<wrong>.+?){_GAP}[,—–-]{_GAP}(?P<right>.+)",
                rf"(?P<right>.+?)\s+{instead}\s+(?P<wrong>.+)",
                rf"(?P<right>.+?)\s*,\s*{neg}\s+(?P<wrong>.+)",
            )
        )
        return cls(
            delete=re.compile(_words(kinds.delete)),
            record_nouns=re.compile(_words(kinds.record_nouns)),
            undo=re.compile(_words(kinds.undo)),
            done=re.compile(_words(kinds.done)),
            planned=re.compile(_words(kinds.planned)),
            correcting=re.compile(_words(kinds.correcting)),
            adding=re.compile(_words(kinds.adding)),
            contrasts=contrasts,
        )

    def asks_delete(self, folded: str) -> bool:
        """ "видали останній запис": a delete verb with what it takes out."""
        return bool(self.delete.search(folded) and self.record_nouns.search(folded))

    def asks_undo(self, folded: str) -> bool:
        return bool(self.undo.search(folded))

    def says_done(self, folded: str) -> bool:
        return bool(self.done.search(folded))

    def says_planned(self, folded: str) -> bool:
        return bool(self.planned.search(folded))

    def says_correcting(self, folded: str) -> bool:
        return bool(self.correcting.search(folded))

    def split(self, folded: str) -> Split:
        """The wrong and the right side of a correction; without a contrast all of it is
        what is right ("виправ: норма 120 кг/га", "ще й 40 га")."""
        for pattern in self.contrasts:
            match = pattern.search(folded)
            if match and match.group("right").strip() and match.group("wrong").strip():
                return Split(match.group("wrong").strip(), match.group("right").strip())
        adding = self.adding.search(folded)
        if adding:
            return Split("", folded[adding.end() :].strip(), adding=True)
        return Split("", folded)

    def might_edit(self, folded: str) -> bool:
        """Cheap, before any database read: the message may be about the journal's
        last entry or open card."""
        return bool(
            self.says_correcting(folded)
            or self.asks_delete(folded)
            or self.asks_undo(folded)
            or self.says_done(folded)
            or self.adding.search(folded)
            or any(pattern.search(folded) for pattern in self.contrasts)
        )
