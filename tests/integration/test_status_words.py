"""/status and «статус сервісів» in words (issue 16 point 3): every check rendered
from the catalogs, no English internals, counts in the language's plural forms."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import httpx
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.repositories import jobs
from db.uow import Database
from pipeline.admin.cards import status_card
from pipeline.admin.platform import Check, LlmHealth, PlatformStatus
from pipeline.admin.status_text import Phrase, joined
from pipeline.language.texts import Texts
from pipeline.memory import build_memory
from tests.shared import catalog

CATALOG = catalog()
_LATIN = re.compile(r"[A-Za-z]{2,}")


async def test_every_check_reads_in_ukrainian(
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    db = Database(session_factory)
    async with db.write() as session:
        now = datetime(2026, 5, 1, 6, 0, tzinfo=UTC)
        await jobs.record(session, "outbox_flush", now, "ok", "sent 0, failed 0, pending 0")
        await jobs.record(session, "sensor_watch", now, "error", "RuntimeError: boom")
        await jobs.record(session, "a_new_job", now, "ok", "")
    llm = LlmHealth(configured=False)
    async with httpx.AsyncClient() as http:
        status = PlatformStatus(
            db=db,
            sync=build_memory(db).sync,
            llm=llm,
            http=http,
            integrations={"farmOS": "http://127.0.0.1:9/never"},
        )
        checks = await status.collect()
    card = status_card(checks, Texts(CATALOG, "uk"))
    words = set(_LATIN.findall(card))
    assert words == {"farmOS"}, card  # only the integration's own name
    for internal in ("sent 0", "breaker", "not configured", "RuntimeError", "database", "llm"):
        assert internal not in card
    t = CATALOG.text
    assert t("uk", "status.service.database") in card
    assert t("uk", "status.llm.off") in card
    assert t("uk", "status.memory.off") in card
    outbox = t("uk", "status.service.job", job=t("uk", "status.job.outbox_flush"))
    assert f"{outbox}: {t('uk', 'compose.state.ok')}" in card
    failed = t("uk", "status.job_failed", at="01.05.2026 06:00")
    assert failed in card
    # A job the catalogs do not name yet is still named in words.
    assert t("uk", "status.service.job", job=t("uk", "status.job.other")) in card
    assert f"farmOS: {t('uk', 'compose.state.down')} — {t('uk', 'status.http.down')}" in card


def test_counts_take_the_plural_forms() -> None:
    backlog = [Phrase("status.memory.backlog", count=n) for n in (1, 3, 5)]
    assert (
        joined(backlog, Texts(CATALOG, "uk")) == "у черзі 1 зміна; у черзі 3 зміни; у черзі 5 змін"
    )
    assert Phrase("status.memory.dead", count=21).render(Texts(CATALOG, "en")) == (
        "21 changes could not be delivered"
    )


def test_a_check_without_words_still_reads_as_a_service() -> None:
    card = status_card([Check("x", "off", "internal detail")], Texts(CATALOG, "uk"))
    assert CATALOG.text("uk", "status.service.other") in card
    assert "internal detail" not in card and " x:" not in card
    assert card.endswith(CATALOG.text("uk", "compose.state.off"))
