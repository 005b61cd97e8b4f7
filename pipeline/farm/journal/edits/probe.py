"""The classifier's probe for the ``correction`` intent (``probe = "edits"`` in
rules/classifier.toml): a message that corrects a record reads as one whatever words
it uses, because its two sides name the same kind of thing («не 150, а 120», «not
field 3 but field 5», «це була сівба, а не культивація», «не Децис, а Абакус»), or a
correcting word goes with something a record holds («виправ: норма 120 кг/га»), or it
asks to take a record out («видали останній запис»), or says planned work was done
(«зробили, що планували на вчора»). The same words and readers as the edits
themselves (``EditWords``, ``read_pieces``), with the shared dictionary: no farm's
names, so any field said by number, product, date, amount or operation counts."""

from __future__ import annotations

from datetime import date

from pipeline.farm.dictionary import Dictionary
from pipeline.farm.journal.edits.words import EditWords
from pipeline.farm.journal.parsing.pieces import Pieces, read_pieces
from pipeline.farm.journal.parsing.rules import OperationRules
from pipeline.text import fold

__all__ = ["CorrectionProbe"]

_KINDS = ("amounts", "fields", "dates", "ops", "products", "crops")
#: Any day does to tell a date from no date.
_ANY_DAY = date(2026, 6, 15)


def _fields(pieces: Pieces) -> bool:
    return bool(pieces.fields or pieces.other_fields)


def _shared(wrong: Pieces, right: Pieces) -> bool:
    return (_fields(wrong) and _fields(right)) or any(
        getattr(wrong, kind) and getattr(right, kind) for kind in _KINDS
    )


class CorrectionProbe:
    def __init__(
        self, words: EditWords, rules: OperationRules, dictionary: Dictionary, weight: int
    ) -> None:
        self._words = words
        self._rules = rules
        self._dictionary = dictionary
        self._weight = weight

    def _pieces(self, text: str) -> Pieces:
        return read_pieces(text, self._rules, self._dictionary, _ANY_DAY)

    def claim(self, text: str) -> int:
        folded = fold(text)
        words = self._words
        if not words.might_edit(folded):
            return 0
        if words.asks_delete(folded) or (words.says_done(folded) and words.says_planned(folded)):
            return self._weight
        if "?" in folded and not words.says_correcting(folded):
            return 0  # «чи буде дощ не сьогодні, а завтра?» asks; it corrects nothing
        split = words.split(folded)
        if split.wrong and _shared(self._pieces(split.wrong), self._pieces(split.right)):
            return self._weight
        right = self._pieces(split.right)
        if words.says_correcting(folded) and not (right.empty and not right.other_fields):
            return self._weight
        return 0
