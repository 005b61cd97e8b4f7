"""The reply language, decided once per update (issue 24 point 3).

Commands, buttons and messages of one user answer in one language: the one the
pipeline's own language stage would choose (pipeline/language/choice.py
``reply_language``: the conversation's language, else the profile's, else
Telegram's ``language_code``). This outer middleware on the dispatcher's messages and
callbacks decides it from the user's profile (the ProfileLoader's cache: most updates
cost a dictionary lookup) and gives the handlers ``texts`` (the catalog bound to it)
and ``lang``. It runs after the update's outer middlewares (the inbox, the throttle),
so an update dropped there costs nothing here, and before any filter or handler.

A failure never stops the update: the language is then Telegram's. A degraded load
(defaults standing in for a store that failed) is not the user's profile either: it
counts as a user Stepan does not know, so Telegram's language (or the message's own
script) decides.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from aiogram import BaseMiddleware
from aiogram.types import Message, TelegramObject, User

from bot.user_ids import stepan_user_id
from pipeline.handle import Pipeline
from pipeline.language.catalog import Catalog
from pipeline.language.choice import language_from_telegram, reply_language
from pipeline.language.texts import Texts
from pipeline.types import Incoming, Language

__all__ = ["LanguageMiddleware", "spoken_language", "spoken_texts", "telegram_texts"]

logger = logging.getLogger(__name__)


def telegram_texts(catalog: Catalog, user: User | None) -> Texts:
    """Telegram's client language: what is left when nothing else can be read."""
    return Texts(catalog, language_from_telegram(user.language_code if user else None))


def spoken_language(data: Mapping[str, Any], user: User | None) -> Language:
    """The update's language as this middleware decided it (in ``data``); Telegram's
    where it did not run."""
    lang: Language | None = data.get("lang")
    return lang or language_from_telegram(user.language_code if user else None)


async def spoken_texts(pipeline: Pipeline, user: User | None, text: str = "") -> Texts:
    """The catalog in the language the pipeline would answer ``user`` in, for a
    message with ``text`` ("" for a button; a command's "/..." is not read). Never
    raises."""
    parts = pipeline.parts
    fallback = telegram_texts(parts.catalog, user)
    if user is None:
        return fallback
    user_id = stepan_user_id(user.id)
    try:
        loaded = await parts.profiles.load(user_id)
        incoming = Incoming(
            user_id=user_id,
            chat_id=user.id,
            text=text,
            trace_id="",
            language_code=user.language_code,
        )
        spoken = reply_language(
            incoming,
            loaded.profile,
            known=loaded.known and not loaded.degraded,
            now=parts.clock(),
            rules=parts.languages,
        )
    except Exception:
        logger.warning("language: Telegram's for user %s", user.id, exc_info=True)
        return fallback
    return fallback.speaking(spoken.reply)


class LanguageMiddleware(BaseMiddleware):
    """Puts ``texts`` and ``lang`` into the handler data of a message or a callback."""

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        pipeline: Pipeline | None = data.get("pipeline")
        if pipeline is not None:
            text = (event.text or event.caption or "") if isinstance(event, Message) else ""
            texts = await spoken_texts(pipeline, data.get("event_from_user"), text)
            data["texts"] = texts
            data["lang"] = texts.lang
        return await handler(event, data)
