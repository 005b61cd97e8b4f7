"""Time buckets as SQL expressions, compiled per dialect.

``bucket_of(moment, width, offset)`` is the bucket of ``width`` seconds a timestamp
column falls in on a clock ``offset`` seconds east of UTC:
``floor((epoch seconds + offset) / width)``. ``hour_bucket(hour, width, offset)``
is the same for a column of whole UTC hours since the epoch (``sensor_hours``).

Width and offset are whole numbers rendered into the SQL text, not bound
parameters: PostgreSQL only accepts a GROUP BY on an expression that is textually
the selected one, which two separately bound parameters are not.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import BigInteger, literal_column
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement

HOUR = 3_600


class bucket_of(FunctionElement[int]):
    """``floor((epoch(moment) + offset) / width)`` as a BIGINT."""

    type = BigInteger()
    inherit_cache = True
    name = "bucket_of"

    def __init__(self, moment: Any, width: int, offset: int) -> None:
        if int(width) <= 0:
            raise ValueError(f"bucket width must be positive, not {width}")
        # Literal columns: part of the SQL text and of the statement cache key.
        super().__init__(moment, literal_column(str(int(width))), literal_column(str(int(offset))))


def _parts(element: bucket_of, compiler: SQLCompiler, **kw: Any) -> tuple[str, str, str]:
    moment, width, offset = (compiler.process(c, **kw) for c in element.clauses)
    return moment, width, offset


@compiles(bucket_of)
def _bucket_default(element: bucket_of, compiler: SQLCompiler, **kw: Any) -> str:
    moment, width, offset = _parts(element, compiler, **kw)
    return f"CAST(floor((EXTRACT(EPOCH FROM {moment}) + {offset}) / {width}) AS BIGINT)"


@compiles(bucket_of, "sqlite")
def _bucket_sqlite(element: bucket_of, compiler: SQLCompiler, **kw: Any) -> str:
    moment, width, offset = _parts(element, compiler, **kw)
    # SQLite stores the UTC time as text; strftime('%s') parses it to epoch seconds.
    # Integer division of non-negative integers is the floor.
    return f"((CAST(strftime('%s', {moment}) AS INTEGER) + {offset}) / {width})"


class hour_bucket(FunctionElement[int]):
    """``(hour * 3600 + offset) / width``: the bucket of ``width`` seconds an hour
    falls in on a clock ``offset`` seconds east of UTC. Integer division on both
    dialects; the operands are non-negative, so it is the floor."""

    type = BigInteger()
    inherit_cache = True
    name = "hour_bucket"

    def __init__(self, hour: Any, width: int, offset: int) -> None:
        if int(width) <= 0 or int(width) % HOUR or int(offset) % HOUR:
            raise ValueError(f"an hourly bucket needs whole hours, not {width} / {offset}")
        # Literal columns, as in bucket_of.
        super().__init__(hour, literal_column(str(int(width))), literal_column(str(int(offset))))


@compiles(hour_bucket)
def _hour_bucket(element: hour_bucket, compiler: SQLCompiler, **kw: Any) -> str:
    hour, width, offset = (compiler.process(c, **kw) for c in element.clauses)
    return f"(({hour} * {HOUR} + {offset}) / {width})"
