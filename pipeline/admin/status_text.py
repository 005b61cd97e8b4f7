"""The platform's checks in words a person reads (issue 16 point 3).

``PlatformStatus`` keeps each check's technical detail for the logs and the tests;
what an operator's /status and a farmer's «статус сервісів» show comes from the
catalogs: the service named in words, its state, and what that means, with counts
in the language's plural forms. No English internals, no exception class names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pipeline.language.texts import Texts


@dataclass(frozen=True, slots=True)
class Phrase:
    """A catalog message still to be rendered: ``key`` with ``params``; with ``count``
    the key is a plural table."""

    key: str
    params: Mapping[str, Any] = field(default_factory=dict)
    count: float | None = None
    #: Used when the catalogs lack ``key`` (a job added without its name in words).
    fallback: str | None = None

    def render(self, texts: Texts) -> str:
        if self.fallback is not None and not texts.has(self.key):
            return Phrase(self.fallback, self.params, self.count).render(texts)
        params = {
            name: value.render(texts) if isinstance(value, Phrase) else value
            for name, value in self.params.items()
        }
        if self.count is not None:
            return texts.plural(self.key, self.count, **params)
        return texts.text(self.key, **params)


def joined(phrases: Sequence[Phrase], texts: Texts) -> str:
    """Several phrases of one check, as one clause («зв'язок є; у черзі 3 зміни»)."""
    return texts.text("status.joiner").join(p.render(texts) for p in phrases)
