"""Immutable objects every test may share, built once per test process: all the rules
files (the Rulebook, ~1 s to read and compile) and the message catalog. Module-level
constants and conftest's session fixtures take these same instances, as the factory
hands one Rulebook to everyone."""

from __future__ import annotations

from functools import cache

from pipeline.i18n import Catalog
from pipeline.rulebook import Rulebook


@cache
def rulebook() -> Rulebook:
    return Rulebook.load()


@cache
def catalog() -> Catalog:
    return Catalog.load()
