"""Buttons the pipeline put under its replies, and any callback nobody else took."""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.fsm.context import FSMContext
from aiogram.types import CallbackQuery, Message

from bot.config import Settings
from bot.handlers._common import deliver, incoming_from, show_press
from bot.handlers._flow import FsmFlow
from bot.keyboards.admin import (
    FarmCardCD,
    FarmCD,
    FarmIotCD,
    FarmJournalCD,
    LearningCD,
    ProfileCD,
    ProposalCD,
    TermCD,
)
from bot.keyboards.me import (
    ForgetCD,
    MeForgetTalkCD,
    MeLanguageCD,
    MeLevelCD,
    MeNameCD,
    MeWarningsCD,
)
from bot.keyboards.pipeline import (
    AgronomistCD,
    CorrectionCD,
    EntryCD,
    ExampleCD,
    FeedbackCD,
    FeedbackReasonCD,
    HandoffCD,
    ItemCD,
    JournalCD,
    JournalReportCD,
    LocationCD,
    OnboardingCD,
    ReadingCD,
    RefreshCD,
    RegionCD,
    SourceCD,
    StyleCD,
)
from pipeline.handle import Pipeline
from pipeline.language.texts import Texts
from pipeline.memory import ProfileEditor
from pipeline.types import Incoming, Reply

router = Router(name=__name__)


def from_its_chat(query: CallbackQuery, bot: Bot) -> bool:
    """The callback came from a chat Stepan may answer in: the presser's own private
    chat, or a chat where the pressed message is one of Stepan's own. A message that
    cannot be read (Telegram sends an InaccessibleMessage for old ones; a forged
    callback names any chat it likes) in anyone else's chat is refused: its reply
    would go to a chat the presser may not be in (issue 29 point 5)."""
    message = query.message
    if message is None:
        return False  # an inline-mode message: Stepan sends none
    if message.chat.id == query.from_user.id:
        return True
    author = message.from_user if isinstance(message, Message) else None
    return author is not None and author.id == bot.id


def _incoming(query: CallbackQuery, settings: Settings, trace_id: str) -> Incoming:
    chat_id = query.message.chat.id if query.message else query.from_user.id
    return incoming_from(query.from_user, chat_id, "", trace_id, settings)


#: Every button the pipeline puts under its replies: one path (pipeline/buttons/).
PIPELINE_BUTTONS = (
    JournalCD,
    EntryCD,
    HandoffCD,
    FeedbackCD,
    FeedbackReasonCD,
    CorrectionCD,
    ReadingCD,
    StyleCD,
    OnboardingCD,
    RefreshCD,
    ExampleCD,
    ItemCD,
    SourceCD,
    JournalReportCD,
    RegionCD,
    LocationCD,
    AgronomistCD,
    MeNameCD,
    MeLanguageCD,
    MeLevelCD,
    MeForgetTalkCD,
    MeWarningsCD,
    ForgetCD,
    # The operators' (pipeline/admin/buttons.py: each refuses anyone else itself).
    ProfileCD,
    FarmCD,
    FarmIotCD,
    FarmCardCD,
    FarmJournalCD,
    TermCD,
    ProposalCD,
    LearningCD,
)
PipelineCD = (
    JournalCD
    | EntryCD
    | HandoffCD
    | FeedbackCD
    | FeedbackReasonCD
    | CorrectionCD
    | ReadingCD
    | StyleCD
    | OnboardingCD
    | RefreshCD
    | ExampleCD
    | ItemCD
    | SourceCD
    | JournalReportCD
    | RegionCD
    | LocationCD
    | AgronomistCD
    | MeNameCD
    | MeLanguageCD
    | MeLevelCD
    | MeForgetTalkCD
    | MeWarningsCD
    | ForgetCD
    | ProfileCD
    | FarmCD
    | FarmIotCD
    | FarmCardCD
    | FarmJournalCD
    | TermCD
    | ProposalCD
    | LearningCD
)


async def on_button(
    query: CallbackQuery,
    callback_data: PipelineCD,
    bot: Bot,
    pipeline: Pipeline,
    profile_editor: ProfileEditor,
    settings: Settings,
    trace_id: str,
    state: FSMContext,
    texts: Texts,
) -> None:
    """The typed callback to its action, the action to its use case; the reply says
    how it is shown (show_press), after the use case has checked the presser. The
    steps kept for the presser (onboarding's, /me's name) go with it (``FsmFlow``)."""
    if not from_its_chat(query, bot):
        await query.answer(texts.text("actions.expired"))
        return
    incoming = _incoming(query, settings, trace_id)
    flow = FsmFlow(state, query.from_user.id)
    reply = await pipeline.handle_action(callback_data.to_action(), incoming, flow)
    await show_press(query, bot, profile_editor, incoming, reply)


for _button in PIPELINE_BUTTONS:
    router.callback_query(_button.filter())(on_button)


@router.callback_query()
async def on_unknown(
    query: CallbackQuery,
    bot: Bot,
    texts: Texts,
    profile_editor: ProfileEditor,
    settings: Settings,
    trace_id: str,
) -> None:
    """Forged or malformed data, or a button of an older version of Stepan."""
    text = texts.text("actions.expired")
    if not from_its_chat(query, bot):
        await query.answer(text)  # nothing is posted in a chat it may not come from
        return
    await query.answer()
    await deliver(bot, profile_editor, _incoming(query, settings, trace_id), Reply(text))
