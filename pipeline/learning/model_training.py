"""Training the classifier's learned fallback (pipeline/classifier/model.py) and the
rule that keeps a retrained one (issue 25 point 2, docs/learning.md).

The examples are the labelled routing sets of the repository (the dev corpus packaged
with Stepan and the bench's dev2-dev6 and holdout sets; never a ``fresh`` set, which stays
unseen) plus the corrections operators made in the learning loop. scikit-learn fits a
multinomial logistic regression over TF-IDF weights of the message's features; the
bot reads the exported arrays with numpy alone.

A retrained model is kept only when it measures better: every fifth example of each
intent, of the corpora and of the corrections each (by a fixed hash, so the split is
the same on every run), is held out; the model in force is fitted on the rest of the
corpora, the candidate on that and the rest of the corrections, and the rules routing
with each are scored on the held-out examples. The candidate is written, refitted on everything,
only if it scores higher (``--force`` writes it anyway, for a first build).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pipeline.classifier import Classifier
from pipeline.classifier.features import features
from pipeline.classifier.model import IntentModel
from pipeline.learning.proposals import DEV_CORPUS, Example, accuracy, load_examples
from pipeline.text import normalize

__all__ = [
    "REPOSITORY_SETS", "Build", "build", "fit", "fitted", "held_out", "repository_examples",
]  # fmt: skip

REPO = Path(__file__).resolve().parents[2]
#: The labelled routing sets a model learns from (those missing, as in an installed
#: package without the bench, are skipped).
REPOSITORY_SETS = (
    DEV_CORPUS,
    *(
        REPO / "bench" / "data" / f"routing-{name}.jsonl"
        for name in ("dev2", "dev3", "dev4", "dev5", "dev6", "holdout")
    ),
)
#: Inverse regularisation strength, chosen by 5-fold cross-validation on the sets.
C = 10.0
HOLD_OUT_EVERY = 5


def repository_examples(paths: Sequence[Path] = REPOSITORY_SETS) -> list[Example]:
    return [example for path in paths if path.is_file() for example in load_examples(path)]


def fit(examples: Sequence[Example]) -> IntentModel:
    """A model of ``examples`` (imports scikit-learn: the build command only)."""
    vectorizer, model = fitted(examples)
    vocabulary = sorted(vectorizer.vocabulary_, key=vectorizer.vocabulary_.__getitem__)
    return IntentModel(
        [str(name) for name in model.classes_],
        vocabulary,
        vectorizer.idf_.astype(np.float32),
        np.ascontiguousarray(model.coef_.T, dtype=np.float32),
        model.intercept_.astype(np.float32),
    )


def fitted(examples: Sequence[Example]) -> tuple[Any, Any]:
    """scikit-learn's fitted vectorizer and regression (what :func:`fit` exports)."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    vectorizer = TfidfVectorizer(analyzer=_analyse, sublinear_tf=True, dtype=np.float32)
    matrix = vectorizer.fit_transform([e.text for e in examples])
    model = LogisticRegression(C=C, max_iter=5000, class_weight="balanced")
    model.fit(matrix, [str(e.intent) for e in examples])
    return vectorizer, model


def _analyse(text: str) -> list[str]:
    return features(normalize(text))


def held_out(examples: Sequence[Example]) -> tuple[list[Example], list[Example]]:
    """(train, held out): every fifth example of each intent, ordered by a hash of
    its text, is held out."""
    by_intent: dict[str, list[Example]] = {}
    for example in examples:
        by_intent.setdefault(example.intent, []).append(example)
    train: list[Example] = []
    held: list[Example] = []
    for group in by_intent.values():
        for n, example in enumerate(sorted(group, key=_digest)):
            (held if n % HOLD_OUT_EVERY == HOLD_OUT_EVERY - 1 else train).append(example)
    return train, held


def _digest(example: Example) -> str:
    return hashlib.sha256(example.text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Build:
    """What a build measured and whether its model is to be written."""

    examples: int
    corrections: int
    held_out: int
    before: float  #: the rules with the model in force (refitted on the split)
    after: float  #: the rules with the candidate
    rules_only: float
    model: IntentModel

    @property
    def better(self) -> bool:
        return self.after > self.before

    def as_dict(self) -> dict[str, Any]:
        return {
            "examples": self.examples,
            "corrections": self.corrections,
            "held_out": self.held_out,
            "rules_only": self.rules_only,
            "before": self.before,
            "after": self.after,
            "better": self.better,
            "features": self.model.size,
        }


def build(
    rules: Classifier,
    corpus: Sequence[Example],
    corrections: Sequence[Example],
) -> Build:
    """A candidate trained on ``corpus`` + ``corrections``, measured against the
    model in force (the corpus alone, the packaged recipe) on the same held-out
    split; the returned model is refitted on everything."""
    candidate = [*corpus, *corrections]
    # Each is split on its own, so the new corrections are held out too (what they
    # teach is what the comparison must see); the model in force learns from the
    # corpus's training part alone, the candidate from it and the corrections'.
    corpus_train, corpus_held = held_out(corpus)
    taught, checked = held_out(corrections)
    held = [*corpus_held, *checked]
    after = accuracy(rules.with_model(fit([*corpus_train, *taught])), held)
    before = after if not corrections else accuracy(rules.with_model(fit(corpus_train)), held)
    return Build(
        examples=len(candidate),
        corrections=len(corrections),
        held_out=len(held),
        before=before,
        after=after,
        rules_only=accuracy(rules.with_model(None), held),
        model=fit(candidate),
    )
