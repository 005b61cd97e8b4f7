"""Buttons the pipeline put under its replies, and any callback nobody else took."""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.types import CallbackQuery, Message

from bot.config import Settings
from bot.delivery.render import edit_text
from bot.handlers._common import deliver, incoming_from, user_language
from bot.keyboards.pipeline import (
    CorrectionCD,
    ExampleCD,
    FeedbackCD,
    FeedbackReasonCD,
    HandoffCD,
    JournalCD,
    JournalReportCD,
    OnboardingCD,
    RefreshCD,
    StyleCD,
    keyboard,
)
from pipeline.handle import Pipeline
from pipeline.language.catalog import Catalog
from pipeline.memory import ProfileEditor
from pipeline.types import Incoming, Reply

router = Router(name=__name__)


def _incoming(query: CallbackQuery, settings: Settings, trace_id: str) -> Incoming:
    chat_id = query.message.chat.id if query.message else query.from_user.id
    return incoming_from(query.from_user, chat_id, "", trace_id, settings)


@router.callback_query(JournalCD.filter())
async def on_journal(
    query: CallbackQuery,
    callback_data: JournalCD,
    bot: Bot,
    pipeline: Pipeline,
    profile_editor: ProfileEditor,
    settings: Settings,
    trace_id: str,
) -> None:
    # Answer first: Telegram shows a spinner on the button until we do.
    await query.answer()
    incoming = _incoming(query, settings, trace_id)
    reply = await pipeline.handle_action(callback_data.to_action(), incoming)
    message = query.message
    if isinstance(message, Message) and message.text:
        # A consent card answers in place: it then shows what happened; its buttons
        # are gone (or, on a card of several operations, only those left remain).
        await edit_text(
            bot, message.chat.id, message.message_id, reply.text, keyboard(reply.buttons)
        )
        return
    await deliver(bot, profile_editor, incoming, reply)


@router.callback_query(HandoffCD.filter())
async def on_handoff(
    query: CallbackQuery,
    callback_data: HandoffCD,
    bot: Bot,
    pipeline: Pipeline,
    profile_editor: ProfileEditor,
    settings: Settings,
    trace_id: str,
) -> None:
    """«Передати питання Nutra?» yes / no (docs/peers.md)."""
    await query.answer()
    message = query.message
    if isinstance(message, Message) and message.text and message.reply_markup:
        # Buttons off first: the peer may take its whole time budget to answer, and
        # the offer keeps its text (it may hold Stepan's own part of the answer).
        await edit_text(bot, message.chat.id, message.message_id, message.text, None)
    incoming = _incoming(query, settings, trace_id)
    reply = await pipeline.handle_action(callback_data.to_action(), incoming)
    await deliver(bot, profile_editor, incoming, reply)


@router.callback_query(FeedbackCD.filter())
@router.callback_query(FeedbackReasonCD.filter())
@router.callback_query(CorrectionCD.filter())
async def on_learning(
    query: CallbackQuery,
    callback_data: FeedbackCD | FeedbackReasonCD | CorrectionCD,
    bot: Bot,
    pipeline: Pipeline,
    profile_editor: ProfileEditor,
    settings: Settings,
    trace_id: str,
) -> None:
    """👍 / 👎 / 🛠, 👎's reasons and 🔀 corrections (docs/learning.md)."""
    incoming = _incoming(query, settings, trace_id)
    reply = await pipeline.handle_action(callback_data.to_action(), incoming)
    message = query.message if isinstance(query.message, Message) else None
    rated = isinstance(callback_data, FeedbackCD)
    if rated and message is not None and message.text and message.reply_markup:
        # The rated answer keeps its text; its rating buttons go, so nobody taps twice.
        await edit_text(bot, message.chat.id, message.message_id, message.text, None)
    if rated and not reply.buttons:
        await query.answer(reply.text)  # a short toast: no new message for a thank-you
        return
    await query.answer()
    in_place = isinstance(callback_data, FeedbackReasonCD) or (
        isinstance(callback_data, CorrectionCD) and callback_data.intent is not None
    )
    if in_place and message is not None and message.text:
        # The question («що не так?», the intent list) becomes its answer.
        await edit_text(
            bot, message.chat.id, message.message_id, reply.text, keyboard(reply.buttons)
        )
        return
    await deliver(bot, profile_editor, incoming, reply)


@router.callback_query(StyleCD.filter())
@router.callback_query(OnboardingCD.filter())
@router.callback_query(RefreshCD.filter())
@router.callback_query(ExampleCD.filter())
@router.callback_query(JournalReportCD.filter())
async def on_action(
    query: CallbackQuery,
    callback_data: StyleCD | OnboardingCD | RefreshCD | ExampleCD | JournalReportCD,
    bot: Bot,
    pipeline: Pipeline,
    profile_editor: ProfileEditor,
    settings: Settings,
    trace_id: str,
) -> None:
    await query.answer()
    incoming = _incoming(query, settings, trace_id)
    reply = await pipeline.handle_action(callback_data.to_action(), incoming)
    await deliver(bot, profile_editor, incoming, reply)


@router.callback_query()
async def on_unknown(
    query: CallbackQuery,
    bot: Bot,
    catalog: Catalog,
    profile_editor: ProfileEditor,
    settings: Settings,
    trace_id: str,
) -> None:
    """Forged or malformed data, or a button of an older version of Stepan."""
    await query.answer()
    text = catalog.text(user_language(query.from_user), "actions.expired")
    await deliver(bot, profile_editor, _incoming(query, settings, trace_id), Reply(text))
