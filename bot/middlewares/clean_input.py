"""What people type is cleaned before any handler sees it (pipeline.text.clean_input).

A NUL in a message or a first name made PostgreSQL refuse the whole write (the
interaction, or the profile, silently lost); a message of only spaces (U+3000,
U+00A0) crashed the classifier. Cleaning once here, on the update, covers every
handler: the pipeline, onboarding's answers, operator commands and captions.
Updates with nothing to clean (nearly all) pass through untouched.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware
from aiogram.types import CallbackQuery, Chat, Message, TelegramObject, Update, User

from pipeline.text import clean_input

_USER_FIELDS = ("first_name", "last_name", "username")
_CHAT_FIELDS = ("first_name", "last_name", "username", "title")


def _changes(obj: TelegramObject, fields: tuple[str, ...]) -> dict[str, Any]:
    changes: dict[str, Any] = {}
    for name in fields:
        value = getattr(obj, name, None)
        if isinstance(value, str):
            cleaned = clean_input(value)
            if cleaned != value:
                changes[name] = cleaned
    return changes


def _clean_user(user: User | None) -> User | None:
    if user is None:
        return None
    changes = _changes(user, _USER_FIELDS)
    if "first_name" in changes and not changes["first_name"]:
        changes["first_name"] = "-"  # Telegram always has one; keep the type's promise
    return user.model_copy(update=changes) if changes else user


def _clean_chat(chat: Chat) -> Chat:
    changes = _changes(chat, _CHAT_FIELDS)
    return chat.model_copy(update=changes) if changes else chat


def _clean_message(message: Message) -> Message:
    changes = _changes(message, ("text", "caption"))
    user = _clean_user(message.from_user)
    if user is not message.from_user:
        changes["from_user"] = user
    chat = _clean_chat(message.chat)
    if chat is not message.chat:
        changes["chat"] = chat
    return message.model_copy(update=changes) if changes else message


def _clean_query(query: CallbackQuery) -> CallbackQuery:
    user = _clean_user(query.from_user)
    if user is None or user is query.from_user:
        return query
    return query.model_copy(update={"from_user": user})


def clean_update(update: Update) -> Update:
    changes: dict[str, Any] = {}
    for name in ("message", "edited_message"):
        message = getattr(update, name)
        if message is not None:
            cleaned = _clean_message(message)
            if cleaned is not message:
                changes[name] = cleaned
    if update.callback_query is not None:
        query = _clean_query(update.callback_query)
        if query is not update.callback_query:
            changes["callback_query"] = query
    return update.model_copy(update=changes) if changes else update


class CleanInputMiddleware(BaseMiddleware):
    """An outer middleware on ``dispatcher.update``."""

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        if isinstance(event, Update):
            cleaned = clean_update(event)
            if cleaned is not event:
                data["event_update"] = cleaned
                event = cleaned
        return await handler(event, data)
