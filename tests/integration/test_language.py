"""The reply language through the pipeline: short messages do not flip it, full ones
do, and a lasting switch is remembered in the profile (issue 11 point 7)."""

from __future__ import annotations

import uuid

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models import UserProfileRow
from pipeline.handle import Pipeline
from pipeline.language.catalog import Catalog
from pipeline.types import Incoming, Reply

USER = "tg:77"


async def _say(pipeline: Pipeline, text: str) -> Reply:
    return await pipeline.handle_message(
        Incoming(
            user_id=USER,
            chat_id=77,
            text=text,
            trace_id=uuid.uuid4().hex[:16],
            first_name="Оксана",
            language_code="uk",
        )
    )


def _variants(catalog: Catalog, lang: str, key: str) -> set[str]:
    """The template's variants as a new user (a novice) reads them: each with its
    explanation, in the same language."""
    why = catalog.text(lang, f"level.novice.why.{key}")  # type: ignore[arg-type]
    name = "Оксано" if lang == "uk" else "Оксана"  # addressed: the vocative in Ukrainian
    return {f"{catalog.variant(lang, key, i, name=name)}\n\n{why}" for i in range(5)}  # type: ignore[arg-type]


async def _language(factory: async_sessionmaker[AsyncSession]) -> str:
    async with factory() as session:
        row = await session.get(UserProfileRow, USER)
        assert row is not None
        return row.preferred_language


async def test_short_messages_keep_the_language_full_ones_switch_and_it_lasts(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession], catalog: Catalog
) -> None:
    await _say(pipeline, "привіт")
    await _say(pipeline, "дякую")
    # «hello» inside a Ukrainian conversation: still Ukrainian.
    hello = await _say(pipeline, "hello")
    assert hello.text in _variants(catalog, "uk", "light.greeting")
    ok = await _say(pipeline, "ok")
    assert ok.text in _variants(catalog, "uk", "light.ack")
    assert await _language(session_factory) == "uk"
    # A full English message is answered in English ...
    first = await _say(pipeline, "thank you very much for the help today")
    assert first.text in _variants(catalog, "en", "light.thanks")
    # ... and a short one right after follows the conversation, not the profile.
    again = await _say(pipeline, "ok")
    assert again.text in _variants(catalog, "en", "light.ack")
    assert await _language(session_factory) == "uk"
    # A second full English message in a row: the switch lasts.
    await _say(pipeline, "who am I and what do you know about me")
    assert await _language(session_factory) == "en"
    # «спасибо» now does not flip it back.
    thanks = await _say(pipeline, "спасибо")
    assert thanks.text in _variants(catalog, "en", "light.thanks")
