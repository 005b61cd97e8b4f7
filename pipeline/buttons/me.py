"""A user's own memory: the /me card with its correction buttons (name, language,
style, the level they ask for, 🗑 under a conversation summary) and /forget's
confirmation. Only the presser's own profile ever changes (the actions carry no user
id); the /me card is only sent to its owner's private chat, so a card pressed
anywhere else is someone else's and gets a pop-up, nothing edited."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import get_args

from pipeline.actions import (
    ForgetAction,
    MeForgetTalkAction,
    MeLanguageAction,
    MeLevelAction,
    MeNameAction,
    MeWarningsAction,
    StyleAction,
)
from pipeline.admin.cards import my_memory, valid_name
from pipeline.buttons.flow import FlowState
from pipeline.buttons.press import ButtonUse, Press
from pipeline.farm.localtime import local_time
from pipeline.farm.naming import NameBook
from pipeline.language.texts import Texts
from pipeline.language.vocative import address
from pipeline.memory import ProfileEditor, ProfileLoader
from pipeline.profiles import EXPERTISE_LEVELS, STYLES
from pipeline.recall import Conversations
from pipeline.recall.card import SHOWN_ON_ME, summaries_block
from pipeline.types import Button, Language, Reply, Shown

__all__ = ["MeCard", "forget_question", "me_buttons", "name_answer"]

logger = logging.getLogger(__name__)

Rows = tuple[tuple[Button, ...], ...]
#: Summaries' 🗑 buttons per row.
TALKS_PER_ROW = 3


@dataclass(frozen=True, slots=True)
class MeCard:
    """The /me card as /me sends it and its buttons redraw it: the profile and the
    farm in words, the conversation summaries (with conversation memory) and a 🗑
    button for each summary shown."""

    profiles: ProfileLoader
    names: NameBook
    conversations: Conversations | None = None

    async def reply(self, user_id: str, texts: Texts) -> Reply:
        loaded = await self.profiles.load_stored(user_id)
        farm_names = await self.names.of(loaded.farm, texts.lang)
        talks = None
        days: list[tuple[int, str]] = []
        if self.conversations is not None:
            views = await self.conversations.window_or_empty(user_id)
            talks = summaries_block(views, loaded.farm.timezone, texts)
            days = [
                (view.id, f"{local_time(view.period_end, loaded.farm.timezone):%d.%m}")
                for view in views[:SHOWN_ON_ME]
            ]
        text = my_memory(loaded.profile, loaded.farm, farm_names, texts, talks)
        return Reply(text, _rows(texts, days, warnings=loaded.profile.weather_warnings))


def _rows(texts: Texts, days: list[tuple[int, str]], *, warnings: bool) -> Rows:
    """Styles; the name and the languages; the levels; the weather warnings' switch;
    the summaries' 🗑, three a row."""
    styles = tuple(
        Button(texts.text(f"actions.button.style_{style}"), StyleAction(style)) for style in STYLES
    )
    name = Button(texts.text("me.button.name"), MeNameAction())
    languages = tuple(
        Button(texts.text(f"me.button.language_{language}"), MeLanguageAction(language))
        for language in get_args(Language)
    )
    levels = tuple(
        Button(texts.text(f"me.button.level_{level}"), MeLevelAction(level))
        for level in EXPERTISE_LEVELS
    )
    talks = [
        Button(texts.text("me.button.forget_talk", n=n, day=day), MeForgetTalkAction(summary))
        for n, (summary, day) in enumerate(days, start=1)
    ]
    talk_rows = tuple(
        tuple(talks[i : i + TALKS_PER_ROW]) for i in range(0, len(talks), TALKS_PER_ROW)
    )
    switch = Button(
        texts.text("me.button.warnings_off" if warnings else "me.button.warnings_on"),
        MeWarningsAction(not warnings),
    )
    return (styles, (name, *languages), levels, (switch,), *talk_rows)


def forget_question(texts: Texts) -> Reply:
    """/forget: «видалити все про мене?» with yes and no."""
    return Reply(
        texts.text("me.forget_confirm"),
        (
            (
                Button(texts.text("me.forget_yes"), ForgetAction(True)),
                Button(texts.text("me.forget_no"), ForgetAction(False)),
            ),
        ),
    )


async def name_answer(
    editor: ProfileEditor, state: FlowState, user_id: str, text: str, texts: Texts
) -> Reply:
    """The message after ✏️: the name, or asked again (the state stays)."""
    name = valid_name(text)
    if name is None:
        return Reply(texts.text("me.name_bad"))
    await state.clear()
    saved = await editor.update_user(user_id, name=name)
    key = "me.name_set" if saved is not None else "me.failed"
    return Reply(texts.text(key, name=address(name, texts.lang)))


def _not_yours(press: Press) -> Reply | None:
    """A /me card pressed outside the presser's private chat is someone else's."""
    if press.incoming.own_chat:
        return None
    return Reply(press.texts.text("me.not_yours"), shown=Shown.POPUP)


def _said(press: Press, key: str) -> Reply:
    return Reply(press.texts.text(key), shown=Shown.POPUP)


@dataclass(frozen=True, slots=True)
class MeNameButton:
    async def __call__(self, action: MeNameAction, press: Press) -> Reply | None:
        if (refused := _not_yours(press)) is not None:
            return refused
        if press.flow is None:
            return None
        await press.flow.ask_name()
        return Reply(press.texts.text("me.ask_name"))


@dataclass(frozen=True, slots=True)
class MeLanguageButton:
    card: MeCard
    editor: ProfileEditor

    async def __call__(self, action: MeLanguageAction, press: Press) -> Reply | None:
        if (refused := _not_yours(press)) is not None:
            return refused
        if action.language not in get_args(Language):
            return None
        user_id = press.incoming.user_id
        if await self.editor.update_user(user_id, preferred_language=action.language) is None:
            return _said(press, "me.failed")
        # Said in the language just chosen: that is the language from now on.
        said = press.texts.speaking(action.language).text("me.language_set")
        return await _redrawn(self.card, press, said)


@dataclass(frozen=True, slots=True)
class MeLevelButton:
    card: MeCard
    editor: ProfileEditor

    async def __call__(self, action: MeLevelAction, press: Press) -> Reply | None:
        if (refused := _not_yours(press)) is not None:
            return refused
        if action.level not in EXPERTISE_LEVELS:
            return None
        user_id = press.incoming.user_id
        if not await self.editor.set_expertise(user_id, action.level, by_operator=False):
            # An operator's lock stands (or the user is unknown): nothing changed.
            loaded = await self.card.profiles.load_stored(user_id)
            locked = loaded.known and loaded.profile.expertise_locked
            return _said(press, "me.level_locked" if locked else "me.failed")
        level = press.texts.text(f"expertise.{action.level}")
        return await _redrawn(self.card, press, press.texts.text("me.level_set", level=level))


@dataclass(frozen=True, slots=True)
class MeWarningsButton:
    """🔕/🔔: the weather warnings Stepan sends first, off or on (docs/weather.md)."""

    card: MeCard
    editor: ProfileEditor

    async def __call__(self, action: MeWarningsAction, press: Press) -> Reply | None:
        if (refused := _not_yours(press)) is not None:
            return refused
        if not await self.editor.set_weather_warnings(press.incoming.user_id, action.on):
            return _said(press, "me.failed")
        said = press.texts.text("me.warnings_on" if action.on else "me.warnings_off")
        return await _redrawn(self.card, press, said)


@dataclass(frozen=True, slots=True)
class MeForgetTalkButton:
    """🗑 under a summary: gone here and in the memory-service. The presser's own
    only: ``Conversations.delete`` refuses another user's summary."""

    card: MeCard

    async def __call__(self, action: MeForgetTalkAction, press: Press) -> Reply | None:
        if (refused := _not_yours(press)) is not None:
            return refused
        conversations = self.card.conversations
        deleted = conversations is not None and await conversations.delete(
            press.incoming.user_id, action.summary_id
        )
        if not deleted:
            return _said(press, "actions.expired")
        return await _redrawn(self.card, press, press.texts.text("me.talk_forgotten"))


async def _redrawn(card: MeCard, press: Press, said: str) -> Reply:
    """The /me card shows the change at once, with its buttons; ``said`` pops up."""
    redrawn = await card.reply(press.incoming.user_id, press.texts)
    return replace(redrawn, shown=Shown.EDIT, popup=said)


@dataclass(frozen=True, slots=True)
class ForgetButton:
    """Only the presser's own data: the action carries no user id to forge."""

    editor: ProfileEditor
    #: The user's private chat (its replies still kept through flood control go too).
    private_chat: Callable[[str], int | None]

    async def __call__(self, action: ForgetAction, press: Press) -> Reply | None:
        if not action.confirm:
            return Reply(press.texts.text("me.kept"), shown=Shown.EDIT)
        user_id = press.incoming.user_id
        try:
            await self.editor.forget(user_id, chat_id=self.private_chat(user_id))
            if press.flow is not None:
                await press.flow.forget()
            key = "me.forgotten"
        except Exception:
            # Nobody is told their data is gone when it is not.
            logger.exception("forget failed user=%s", user_id)
            key = "me.forget_failed"
        return Reply(press.texts.text(key), shown=Shown.EDIT)


def me_buttons(
    card: MeCard, editor: ProfileEditor, private_chat: Callable[[str], int | None]
) -> dict[type, ButtonUse]:
    """The /me card's buttons and /forget's, by action type (the style buttons are
    StyleAction's, pipeline/buttons/uses.py)."""
    return {
        MeNameAction: MeNameButton(),
        MeLanguageAction: MeLanguageButton(card, editor),
        MeLevelAction: MeLevelButton(card, editor),
        MeWarningsAction: MeWarningsButton(card, editor),
        MeForgetTalkAction: MeForgetTalkButton(card),
        ForgetAction: ForgetButton(editor, private_chat),
    }
