"""``stepan stats [--since 7d|2026-03-01] [--json] [--lang uk|en]``: the figures of
``/stats`` on the command line, straight from the database.

Imported lazily by ``bot.__main__`` and importing neither aiogram nor CrewAI: it
must start fast on a server and work where the bot itself is not running. Without a
running bot there is no live circuit breaker: the memory-service's state comes from
the outbox (stale or refused rows), ``breaker`` is null.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime, timedelta
from typing import TextIO

from sqlalchemy.exc import DBAPIError

from db.engine import create_engine
from db.uow import Database
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.learning.config import LearningRules
from pipeline.learning.stats import collect, parse_period
from pipeline.learning.stats_report import period_text, stats_text
from pipeline.types import Language

__all__ = ["parse_since", "run_stats"]

DEFAULT_SINCE = timedelta(days=7)


def parse_since(text: str | None, now: datetime) -> tuple[datetime, timedelta] | None:
    """A period back from ``now`` (``7d``, ``24h``) or a date/time (UTC if naive)."""
    if text is None:
        return now - DEFAULT_SINCE, DEFAULT_SINCE
    span = parse_period(text)
    if span is not None:
        return now - span, span
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (moment, now - moment) if moment < now else None


async def run_stats(
    database_url: str,
    since_text: str | None,
    *,
    as_json: bool,
    lang: Language,
    out: TextIO = sys.stdout,
    now: datetime | None = None,
) -> int:
    now = now or datetime.now(UTC)
    parsed = parse_since(since_text, now)
    if parsed is None:
        print(
            f"stepan stats: cannot read --since {since_text!r} (7d, 24h, 2w or a date)",
            file=sys.stderr,
        )
        return 2
    since, span = parsed
    engine = create_engine(database_url)
    try:
        stats = await collect(Database.of(engine), since, LearningRules.load().targets, now=now)
    except DBAPIError as exc:
        print(f"stepan stats: cannot read the database ({type(exc.orig).__name__}); "
              "is it migrated (`stepan migrate`)?", file=sys.stderr)  # fmt: skip
        return 1
    finally:
        await engine.dispose()
    if as_json:
        json.dump(stats.as_json(), out, ensure_ascii=False, indent=2)
        out.write("\n")
    else:
        texts = Texts(Catalog.load(), lang)
        out.write(stats_text(stats, texts, period_text(span, texts)) + "\n")
    return 0
