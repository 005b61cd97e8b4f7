"""The declarative base every model shares: one metadata with explicit constraint
names, and the server-side clock default."""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    JSON,
    MetaData,
    func,
)
from sqlalchemy.orm import DeclarativeBase

# Explicit constraint names keep migrations identical on SQLite and PostgreSQL and
# let batch mode (SQLite) find the constraints it must recreate.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

Json = JSON
DEFAULT_TIMEZONE = "Europe/Kyiv"


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def _now() -> Any:
    return func.now()
