"""The languages Stepan answers in: a leaf module every layer may import."""

from __future__ import annotations

from typing import Literal

__all__ = ["Language"]

#: A reply's language: Ukrainian first, English second.
Language = Literal["uk", "en"]
