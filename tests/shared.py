"""Immutable objects every test may share, built once per test process: all the rules
files (the Rulebook, ~1 s to read and compile) and the message catalog. Module-level
constants and conftest's session fixtures take these same instances, as the factory
hands one Rulebook to everyone."""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

from pipeline.language.catalog import Catalog
from pipeline.rulebook import Rulebook


@cache
def rulebook() -> Rulebook:
    return Rulebook.load()


@cache
def catalog() -> Catalog:
    return Catalog.load()


def bench_module(name: str) -> ModuleType:
    """``bench/<name>.py`` imported as a module (bench/ is scripts, not a package)."""
    path = Path(__file__).resolve().parent.parent / "bench" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
