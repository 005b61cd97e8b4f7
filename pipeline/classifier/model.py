"""The learned fallback of the depth classifier (issue 25 point 2, docs/learning.md).

A multinomial logistic regression over TF-IDF weights of :func:`features`, trained
by scikit-learn (pipeline/learning/model_training.py, ``stepan model build``) and kept as
plain arrays in an ``.npz`` file: the vocabulary, each feature's IDF, the weights
(one row per feature) and the intercepts. Reading a message needs numpy alone: the
bot never imports scikit-learn.

The arithmetic is scikit-learn's, exactly (a test compares the two): term counts
made sublinear (1 + ln tf), times the IDF, L2-normalised; class scores are the
weights' dot product plus the intercept; probabilities their softmax.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from pipeline.classifier.features import features
from pipeline.rules import RULES_DIR
from pipeline.text import NormalizedText

__all__ = ["PACKAGED_MODEL", "Guess", "IntentModel"]

logger = logging.getLogger(__name__)

#: Built from the repository's labelled corpora (``stepan model build --force``).
PACKAGED_MODEL = RULES_DIR / "intent_model.npz"

Floats = npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class Guess:
    """The model's best reading of a message: a routing label and its probability."""

    intent: str
    probability: float


class IntentModel:
    def __init__(
        self,
        classes: list[str],
        vocabulary: list[str],
        idf: Floats,
        weights: Floats,
        intercept: Floats,
    ) -> None:
        if weights.shape != (len(vocabulary), len(classes)) or idf.shape != (len(vocabulary),):
            raise ValueError("the model's arrays do not fit together")
        self.classes = tuple(classes)
        self._index = {feature: n for n, feature in enumerate(vocabulary)}
        self._idf = idf
        self._weights = weights
        self._intercept = intercept

    @classmethod
    def load(cls, path: Path = PACKAGED_MODEL) -> IntentModel:
        """Raises OSError or ValueError when the file is missing or not a model."""
        with np.load(path, allow_pickle=False) as arrays:
            return cls(
                [str(name) for name in arrays["classes"]],
                [str(feature) for feature in arrays["vocabulary"]],
                arrays["idf"].astype(np.float32),
                arrays["weights"].astype(np.float32),
                arrays["intercept"].astype(np.float32),
            )

    @classmethod
    def load_or_none(cls, path: Path = PACKAGED_MODEL) -> IntentModel | None:
        """The model, or None (logged) when it cannot be read: the rules route alone."""
        try:
            return cls.load(path)
        except (OSError, ValueError, KeyError) as exc:
            logger.warning("intent model %s not loaded (%s): rules only", path, exc)
            return None

    def save(self, path: Path) -> None:
        vocabulary = sorted(self._index, key=self._index.__getitem__)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as out:
            np.savez_compressed(
                out,
                classes=np.array(self.classes),
                vocabulary=np.array(vocabulary),
                idf=self._idf,
                weights=self._weights,
                intercept=self._intercept,
            )

    @property
    def size(self) -> int:
        """How many features it knows."""
        return len(self._index)

    def probabilities(self, text: NormalizedText) -> Floats | None:
        """Each class's probability (in :attr:`classes` order); None when not one
        feature of the message is known."""
        counts = Counter(n for n in map(self._index.get, features(text)) if n is not None)
        if not counts:
            return None
        rows = np.fromiter(counts.keys(), dtype=np.intp, count=len(counts))
        tf = np.fromiter(counts.values(), dtype=np.float32, count=len(counts))
        values = (1.0 + np.log(tf)) * self._idf[rows]
        values /= np.sqrt(np.dot(values, values))
        scores = values @ self._weights[rows] + self._intercept
        scores = np.exp(scores - scores.max())
        return scores / scores.sum()  # type: ignore[no-any-return]

    def guess(self, text: NormalizedText) -> Guess | None:
        """The likeliest reading (None: nothing known in the message)."""
        ranked = self.ranked(text)
        return ranked[0] if ranked else None

    def ranked(self, text: NormalizedText) -> list[Guess]:
        """Every class's reading, likeliest first (empty: nothing known in it)."""
        found = self.probabilities(text)
        if found is None:
            return []
        order = np.argsort(-found, kind="stable")
        return [Guess(self.classes[n], float(found[n])) for n in order]
