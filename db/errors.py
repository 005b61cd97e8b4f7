"""Database errors that pipeline code catches, re-exported so pipeline/ need not
import SQLAlchemy (tests/test_data_boundary.py)."""

from __future__ import annotations

from sqlalchemy.exc import IntegrityError, OperationalError, SQLAlchemyError

__all__ = ["IntegrityError", "OperationalError", "SQLAlchemyError"]
