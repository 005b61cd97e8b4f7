"""The operators' /profile and /farm cards as replies: the card's text and its
buttons, for the commands and for the buttons that show a card again."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from pipeline.admin.cards import farm_card, profile_card
from pipeline.admin.keyboards import farm_buttons, profile_buttons
from pipeline.admin.user_ids import stepan_user_id
from pipeline.clock import Clock, utcnow
from pipeline.farm.localtime import local_time
from pipeline.farm.naming import NameBook
from pipeline.language.texts import Texts
from pipeline.memory import Loaded, ProfileLoader
from pipeline.types import Reply
from pipeline.weather.sent import SentWarnings

__all__ = ["AdminCards", "CardReply"]

#: Renders a card; async because a card may read the farm's names (fields, crops).
_Render = Callable[[Loaded, Texts], Awaitable[str]]
#: A card of Telegram user ``user`` (``own``: the operator's own); None: nobody known.
CardReply = Callable[[int, Texts, bool], Awaitable[Reply | None]]


@dataclass(frozen=True, slots=True)
class AdminCards:
    profiles: ProfileLoader
    names: NameBook
    #: The weather warnings sent to the farm, a line of its card (None: not shown).
    warnings: SentWarnings | None = None
    clock: Clock = utcnow

    async def profile(self, user: int, texts: Texts, own: bool = False) -> Reply | None:
        """The /profile card of Telegram user ``user`` with its buttons."""
        text = await self._text(user, texts, self._profile_text, own=own)
        return Reply(text, buttons=profile_buttons(user, texts)) if text is not None else None

    async def farm(self, user: int, texts: Texts, own: bool = False) -> Reply | None:
        """The /farm card of Telegram user ``user`` with its buttons."""
        text = await self._text(user, texts, self._farm_text, own=own)
        return Reply(text, buttons=farm_buttons(user, texts)) if text is not None else None

    async def _profile_text(self, loaded: Loaded, texts: Texts) -> str:
        return profile_card(loaded.profile, texts, loaded.farm.timezone)

    async def _farm_text(self, loaded: Loaded, texts: Texts) -> str:
        names = await self.names.of(loaded.farm, texts.lang)
        card = farm_card(loaded.farm, names, texts)
        if self.warnings is None:
            return card
        today = local_time(self.clock(), loaded.farm.timezone).date()
        return f"{card}\n{await self.warnings.line(loaded.farm.farm_id, today, texts)}"

    async def _text(self, user: int, texts: Texts, render: _Render, *, own: bool) -> str | None:
        """The card of ``user``; None for someone Stepan does not know, except the
        operator's own card (``own``), shown with a note even before they wrote."""
        loaded = await self.profiles.load_stored(stepan_user_id(user))
        if loaded.known:
            return await render(loaded, texts)
        if not own:
            return None
        card = await render(loaded, texts)
        return f"{card}\n\n{texts.text('admin.own_card_new')}"
