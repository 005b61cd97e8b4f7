"""What every handler that feeds the pipeline needs: an Incoming and a safe send."""

from __future__ import annotations

import logging

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError, TelegramForbiddenError
from aiogram.types import CallbackQuery, Message, Update, User

from bot.config import Settings
from bot.delivery.render import AttachmentFailed, edit_text, send_reply
from bot.keyboards.pipeline import keyboard
from bot.user_ids import stepan_user_id
from pipeline.handle import Pipeline
from pipeline.language.texts import Texts
from pipeline.memory import Loaded, ProfileEditor, ProfileLoader
from pipeline.types import Incoming, Notice, Reply, Shown

logger = logging.getLogger(__name__)


async def load_profile(profiles: ProfileLoader, user_id: str) -> Loaded:
    """The profile, or StoreUnavailable when defaults stood in for a failed store (an
    operator's card or a user's /me never shows defaults as data)."""
    return await profiles.load_stored(user_id)


def telegram_user_id(user: User) -> str:
    return stepan_user_id(user.id)


def incoming_from(
    user: User,
    chat_id: int,
    text: str,
    trace_id: str,
    settings: Settings,
    message_id: int | None = None,
    update: Update | None = None,
) -> Incoming:
    return Incoming(
        user_id=telegram_user_id(user),
        chat_id=chat_id,
        text=text,
        trace_id=trace_id,
        first_name=user.first_name,
        language_code=user.language_code,
        message_id=message_id,
        is_operator=user.id in settings.agx.operator_ids,
        update_id=update.update_id if update is not None else None,
        # A private chat's id is its user's id.
        own_chat=chat_id == user.id,
        # Groups and channels have negative ids (Telegram's convention).
        shared_chat=chat_id < 0,
    )


def message_incoming(
    message: Message,
    text: str,
    trace_id: str,
    settings: Settings,
    update: Update | None = None,
) -> Incoming | None:
    """The pipeline's view of ``message`` with ``text`` (its text or its caption);
    None for a message without a sender."""
    if message.from_user is None:
        return None
    return incoming_from(
        message.from_user, message.chat.id, text, trace_id, settings, message.message_id, update
    )


def text_incoming(
    message: Message, trace_id: str, settings: Settings, update: Update | None = None
) -> Incoming | None:
    """The pipeline's view of a text message (None for one without a sender or text)."""
    if message.text is None:
        return None
    return message_incoming(message, message.text, trace_id, settings, update)


async def deliver(
    bot: Bot,
    profile_editor: ProfileEditor,
    incoming: Incoming,
    reply: Reply,
    texts: Texts | None = None,
) -> None:
    """Send the reply; a user who blocked the bot is marked inactive, not retried.
    A file that could not be sent is owned up to (with ``texts``: in the update's
    language), never left promised."""
    try:
        await send_reply(bot, incoming.chat_id, reply)
    except TelegramForbiddenError:
        logger.info("user blocked the bot user=%s", incoming.user_id)
        await profile_editor.set_active(incoming.user_id, False)
    except AttachmentFailed as exc:
        logger.warning("file not delivered user=%s: %s", incoming.user_id, exc)
        if texts is not None:
            await send_reply(bot, incoming.chat_id, Reply(texts.text("faults.file_failed")))


async def answer_text(
    message: Message,
    bot: Bot,
    pipeline: Pipeline,
    profile_editor: ProfileEditor,
    settings: Settings,
    texts: Texts,
    trace_id: str,
    event_update: Update | None = None,
) -> None:
    """Run a text message through the pipeline and send the reply."""
    incoming = text_incoming(message, trace_id, settings, event_update)
    if incoming is None:
        return
    reply = await pipeline.handle_message(incoming)
    await deliver(bot, profile_editor, incoming, reply, texts)


async def show_press(
    query: CallbackQuery,
    bot: Bot,
    profile_editor: ProfileEditor,
    incoming: Incoming,
    reply: Reply,
) -> None:
    """The one way a button's reply is shown, as the reply says (``Reply.shown``): a
    pop-up leaves the pressed message as it is but for ``closes``; an edit turns the
    pressed message into the reply (a new message when it has no text to edit); an
    append adds the reply under the pressed message's text. ``Reply.popup`` comes
    with an edit, an append or a new message; ``Reply.alert`` makes a pop-up one the
    presser dismisses."""
    pressed = query.message if isinstance(query.message, Message) and query.message.text else None
    if reply.shown is Shown.POPUP:
        if reply.closes and pressed is not None:
            await _close(bot, pressed)
        await _pop_up(query, reply.text, reply.alert)
        await notify(bot, reply.notices)
        return
    # Answer first: Telegram shows a spinner on the button until we do.
    await _pop_up(query, reply.popup, reply.alert)
    await notify(bot, reply.notices)
    if reply.closes and pressed is not None:
        await _close(bot, pressed)
    if reply.shown is Shown.EDIT and pressed is not None:
        await edit_text(
            bot, pressed.chat.id, pressed.message_id, reply.text, keyboard(reply.buttons)
        )
        return
    if reply.shown is Shown.APPEND:
        if pressed is not None:
            text = f"{pressed.text}\n\n{reply.text}"
            await edit_text(bot, pressed.chat.id, pressed.message_id, text, keyboard(reply.buttons))
        return
    await deliver(bot, profile_editor, incoming, reply)


#: Telegram shows at most this many characters in a button's pop-up.
POPUP_LIMIT = 200


async def _pop_up(query: CallbackQuery, text: str, alert: bool) -> None:
    """Stops the button's spinner, with ``text`` as a pop-up ("" for none)."""
    if not text:
        await query.answer()
    elif alert:
        await query.answer(text[:POPUP_LIMIT], show_alert=True)
    else:
        await query.answer(text[:POPUP_LIMIT])


async def _close(bot: Bot, pressed: Message) -> None:
    """The pressed message keeps its text; its buttons go."""
    if pressed.reply_markup is not None and pressed.text is not None:
        await edit_text(bot, pressed.chat.id, pressed.message_id, pressed.text, None)


async def send_quietly(bot: Bot, chat_id: int, text: str, photo: str | None = None) -> bool:
    """``text`` (or the picture ``photo``, a file id) to ``chat_id``; False if it failed."""
    try:
        if photo is not None:
            await bot.send_photo(chat_id, photo)
        else:
            await bot.send_message(chat_id, text)
    except TelegramAPIError:
        logger.warning("could not send to chat %s", chat_id, exc_info=True)
        return False
    return True


async def notify(bot: Bot, notices: tuple[Notice, ...]) -> None:
    """A pressed button's messages to other chats: one that fails stops no other."""
    for notice in notices:
        if notice.photo is not None:  # the picture first, then the text to reply to
            await send_quietly(bot, notice.chat_id, "", photo=notice.photo)
        await send_quietly(bot, notice.chat_id, notice.text)
