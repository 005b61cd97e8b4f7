"""The one way a rules file is read: TOML in, a checked pydantic model out.

Every loader declares its file's shape as models built on :class:`RulesModel` (unknown
keys refused, frozen) and calls :func:`load` (a path) or :func:`parse` (a mapping
already read, as tests pass). Whatever is wrong (invalid TOML, a wrong type, an
unknown or missing key, a check of the loader's own) comes out as one
:class:`RulesError`: a ValueError whose message is one line, ``file: where: what``.
This is the only module under ``pipeline/`` that calls :mod:`tomllib`
(tests/test_rules_schema.py checks it).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from pydantic_core import ErrorDetails

__all__ = [
    "NonEmptyStrings",
    "RulesError",
    "RulesModel",
    "Text",
    "load",
    "parse",
    "parse_as",
    "read",
]

Model = TypeVar("Model", bound=BaseModel)
Value = TypeVar("Value")

#: A non-empty string.
Text = Annotated[str, Field(min_length=1)]
#: A non-empty list of strings.
NonEmptyStrings = Annotated[tuple[str, ...], Field(min_length=1)]

#: What pydantic puts before the message of a validator's own ValueError.
_PREFIXES = ("Value error, ", "Assertion failed, ")


class RulesError(ValueError):
    """A rules file that cannot be used: ``source: where: what`` on one line."""

    def __init__(self, source: str, where: str, what: str) -> None:
        self.source, self.where, self.what = source, where, _one_line(what)
        super().__init__(f"{source}: {where}: {self.what}" if where else f"{source}: {self.what}")


class RulesModel(BaseModel):
    """The base of every rules file's models: a misspelt key is an error, not ignored."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def read(path: Path) -> dict[str, Any]:
    """The TOML at ``path`` as a mapping (RulesError when it is not TOML)."""
    with path.open("rb") as handle:
        try:
            return tomllib.load(handle)
        except tomllib.TOMLDecodeError as exc:
            raise RulesError(path.name, "", f"invalid TOML: {exc}") from None
        except UnicodeDecodeError as exc:
            raise RulesError(path.name, "", f"not UTF-8: {exc.reason}") from None


def load(
    path: Path,
    model: type[Model],
    *,
    source: str | None = None,
    context: Mapping[str, Any] | None = None,
) -> Model:
    """Read ``path`` and validate it as ``model``; RulesError names the file (or
    ``source``) and the key."""
    return parse(read(path), model, source=source or path.name, context=context)


def parse(
    raw: Any, model: type[Model], *, source: str, context: Mapping[str, Any] | None = None
) -> Model:
    """Validate ``raw`` (a mapping read from ``source``) as ``model``."""
    try:
        return model.model_validate(raw, context=context)
    except ValidationError as exc:
        raise _error(exc, source) from None


def parse_as(
    raw: Any,
    adapter: TypeAdapter[Value],
    *,
    source: str,
    where: str = "",
    context: Mapping[str, Any] | None = None,
) -> Value:
    """Validate ``raw`` with a TypeAdapter (a big list of items, a table of tables)."""
    try:
        return adapter.validate_python(raw, context=context)
    except ValidationError as exc:
        raise _error(exc, source, where) from None


def _error(exc: ValidationError, source: str, where: str = "") -> RulesError:
    first: ErrorDetails = exc.errors(include_url=False, include_input=False)[0]
    parts = [*(where.split(".") if where else ()), *(str(part) for part in first["loc"])]
    path = ".".join(parts)
    message = str(first["msg"])
    for prefix in _PREFIXES:
        message = message.removeprefix(prefix)
    if first["type"] == "missing":
        message = "missing key"
    elif first["type"] == "extra_forbidden":
        message = "unknown key"
    return RulesError(source, path, message)


def _one_line(text: str) -> str:
    return " ".join(text.split())
