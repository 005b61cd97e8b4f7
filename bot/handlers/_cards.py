"""Operators' cards (/profile, /farm): whose card, then the card with its buttons
(pipeline/admin/card_replies.py); their edits (pipeline/admin/editing.py) answered."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiogram.filters import CommandObject
from aiogram.types import Message, MessageOriginUser

from bot.keyboards.pipeline import keyboard
from pipeline.admin.card_replies import CardReply
from pipeline.admin.edits import AdminError, Edit, parse_target, refusal_text
from pipeline.language.texts import Texts


def target_of(message: Message, explicit: int | None) -> int | None:
    """An explicit id, else the author of the forwarded message replied to, else self."""
    if explicit is not None:
        return explicit
    replied = message.reply_to_message
    if replied is not None and isinstance(replied.forward_origin, MessageOriginUser):
        return replied.forward_origin.sender_user.id
    return message.from_user.id if message.from_user else None


async def answer_card(
    message: Message,
    command: CommandObject,
    texts: Texts,
    *,
    card: CardReply,
    usage_key: str,
) -> None:
    """`/<command> [id]`: the card of that user (or of the forwarded message's author)."""
    args = (command.args or "").split()
    explicit = parse_target(args[0]) if args else None
    if args and explicit is None:
        await message.answer(texts.text(usage_key))
        return
    user = target_of(message, explicit)
    own = user is not None and message.from_user is not None and user == message.from_user.id
    reply = await card(user, texts, own) if user is not None else None
    if reply is None:
        await message.answer(texts.text("admin.no_user"))
        return
    await message.answer(reply.text, reply_markup=keyboard(reply.buttons))


Apply = Callable[[int, Edit], Awaitable[bool]]


async def answer_edit(
    message: Message,
    command: CommandObject,
    texts: Texts,
    *,
    parse: Callable[[str], Edit],
    apply: Apply,
) -> None:
    """`/<command> [id] <verb> key=value`: parse and validate, find whose it is, apply.

    ``apply`` returns False for an unknown user, raises InvalidProfile for a value the
    profile rejects (worded from the catalogs) or AdminError with a catalog key."""
    try:
        edit = parse(command.args or "")
    except AdminError as error:
        await message.answer(texts.text(error.key, **error.params))
        return
    user = target_of(message, edit.target)
    try:
        applied = user is not None and await apply(user, edit)
    except AdminError as error:
        await message.answer(texts.text(error.key, **error.params))
        return
    except ValueError as error:
        reason = refusal_text(error, texts)
        if reason is None:
            raise
        await message.answer(texts.text("admin.invalid", reason=reason))
        return
    await message.answer(texts.text("admin.saved" if applied else "admin.no_user"))
