"""A novice's card answer explains the terms it uses (issue 11 point 3).

An expert reads the card's numbers and terms; a novice also reads, once each, what
the terms in this answer mean: ``level.novice.why.knowledge.<term>`` in the catalogs.
Which terms an answer uses follows from the cards' values, items and the text.
"""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.knowledge.model import Card
from pipeline.language.texts import Texts

#: A card value's key -> the term its line uses.
TERM_OF_VALUE = {
    "threshold": "threshold",
    "rate": "rate",
    "rate_kg": "rate",
    "ph_optimum": "ph",
    "n": "nutrients",
    "p": "nutrients",
    "k": "nutrients",
}
#: Words in the answer that are terms themselves.
TERM_OF_WORD = {"BBCH": "bbch"}


def terms_in(cards: Sequence[Card], text: str) -> list[str]:
    """The terms an answer built from ``cards`` uses, in a stable order, each once."""
    found: list[str] = []
    for card in cards:
        values = [*card.values, *(value for item in card.items for value in item.values)]
        found += [TERM_OF_VALUE[v.key] for v in values if v.key in TERM_OF_VALUE]
        if any(value.zoned for value in card.values):
            found.append("zone")
        if any(item.actives for item in card.items):
            found.append("actives")
    found += [term for word, term in TERM_OF_WORD.items() if word in text]
    return list(dict.fromkeys(found))


def glossary(texts: Texts, cards: Sequence[Card], text: str) -> list[str]:
    """The explanations of the terms ``text`` (built from ``cards``) uses."""
    keys = (f"level.novice.why.knowledge.{term}" for term in terms_in(cards, text))
    return [texts.text(key) for key in keys if texts.has(key)]
