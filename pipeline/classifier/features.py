"""What the learned fallback reads of a message (pipeline/classifier/model.py): the
same function at training and at run time, so the two cannot drift apart.

Each folded word (pipeline/text.py: lowercase, Ukrainian and Russian spellings
folded together, Latin look-alikes repaired) gives itself and its character 3- to
5-grams with the word's edges marked: two forms of one verb share their stem's
n-grams, a typo keeps most of its word's, and a Russian form shares the Ukrainian's.
Numbers are one token (their value says nothing about the intent); a question mark
is a feature of its own.
"""

from __future__ import annotations

from pipeline.text import NormalizedText

__all__ = ["features"]

NGRAM_SIZES = (3, 4, 5)


def features(text: NormalizedText) -> list[str]:
    found: list[str] = []
    for token in text.tokens:
        word = "0" if token[0].isdigit() else token
        found.append("w:" + word)
        padded = f" {word} "
        for size in NGRAM_SIZES:
            found.extend(padded[i : i + size] for i in range(len(padded) - size + 1))
    if "?" in text.raw:
        found.append("?")
    return found
