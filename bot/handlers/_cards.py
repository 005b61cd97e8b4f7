"""Operators' cards (/profile, /farm): whose card, then the card with its buttons."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiogram.filters import CommandObject
from aiogram.types import InlineKeyboardMarkup, Message, MessageOriginUser

from bot.handlers._common import load_profile
from bot.user_ids import stepan_user_id
from pipeline.admin.edits import AdminError, Edit, parse_target, refusal_text
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.memory import Loaded, ProfileLoader
from pipeline.types import Language

#: Renders a card; async because a card may read the farm's names (fields, crops).
CardText = Callable[[Loaded, Texts], Awaitable[str]]
CardKeyboard = Callable[[int, Catalog, Language], InlineKeyboardMarkup]


def target_of(message: Message, explicit: int | None) -> int | None:
    """An explicit id, else the author of the forwarded message replied to, else self."""
    if explicit is not None:
        return explicit
    replied = message.reply_to_message
    if replied is not None and isinstance(replied.forward_origin, MessageOriginUser):
        return replied.forward_origin.sender_user.id
    return message.from_user.id if message.from_user else None


async def card_text(
    profiles: ProfileLoader,
    texts: Texts,
    user: int,
    render: CardText,
    *,
    own: bool = False,
) -> str | None:
    """The card of ``user``; None for someone Stepan does not know, except the
    operator's own card (``own``), shown with a note even before they wrote."""
    loaded = await load_profile(profiles, stepan_user_id(user))
    if loaded.known:
        return await render(loaded, texts)
    if not own:
        return None
    card = await render(loaded, texts)
    return f"{card}\n\n{texts.text('admin.own_card_new')}"


async def answer_card(
    message: Message,
    command: CommandObject,
    profiles: ProfileLoader,
    texts: Texts,
    *,
    render: CardText,
    keyboard: CardKeyboard,
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
    card = await card_text(profiles, texts, user, render, own=own) if user is not None else None
    if user is None or card is None:
        await message.answer(texts.text("admin.no_user"))
        return
    await message.answer(card, reply_markup=keyboard(user, texts.catalog, texts.lang))


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
        reason = refusal_text(error, texts.catalog, texts.lang)
        if reason is None:
            raise
        await message.answer(texts.text("admin.invalid", reason=reason))
        return
    await message.answer(texts.text("admin.saved" if applied else "admin.no_user"))
