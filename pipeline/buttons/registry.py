"""The one path of a pressed button: the action's type picks its use case.

The action came from a client, so each use case checks it again (the style is a
known one, the card is the presser's own). A failure of the store is said to be one,
never "this button no longer works"; any other failure is logged and answered as
an expired button.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from pipeline.buttons.flow import FlowState
from pipeline.buttons.press import ButtonUse, Press
from pipeline.clock import Clock
from pipeline.language.catalog import Catalog
from pipeline.language.choice import LanguageRules, message_language, reply_language
from pipeline.language.texts import Texts
from pipeline.memory import ProfileLoader, StoreUnavailable
from pipeline.types import Incoming, Reply

__all__ = ["ButtonRegistry"]

logger = logging.getLogger(__name__)


class ButtonRegistry:
    def __init__(
        self,
        uses: Mapping[type, ButtonUse],
        *,
        catalog: Catalog,
        profiles: ProfileLoader,
        languages: LanguageRules | None,
        clock: Clock,
    ) -> None:
        self.uses = dict(uses)
        self._catalog = catalog
        self._profiles = profiles
        self._languages = languages
        self._clock = clock

    async def press(
        self, action: object, incoming: Incoming, flow: FlowState | None = None
    ) -> Reply:
        texts = Texts(self._catalog, message_language(incoming))
        try:
            press = await self._press(incoming, texts, flow)
            texts = press.texts
            use = self.uses.get(type(action))
            reply = await use(action, press) if use is not None else None
        except StoreUnavailable:
            return Reply(texts.text("faults.database"))
        except Exception:
            logger.exception("button failed trace=%s", incoming.trace_id)
            reply = None
        # Onboarding's own buttons outside onboarding, an unknown user, a forged value.
        return reply if reply is not None else Reply(texts.text("actions.expired"))

    async def texts_for(self, incoming: Incoming) -> Texts:
        """The language a reply to ``incoming`` speaks, as for a press (a location);
        the message's own when the profile cannot be read."""
        texts = Texts(self._catalog, message_language(incoming))
        try:
            return (await self._press(incoming, texts)).texts
        except Exception:
            logger.warning("reply language: profile unavailable trace=%s", incoming.trace_id)
            return texts

    async def _press(
        self, incoming: Incoming, texts: Texts, flow: FlowState | None = None
    ) -> Press:
        """A button's reply speaks the conversation's language, as a message would."""
        loaded = await self._profiles.load(incoming.user_id)
        now = self._clock()
        spoken = reply_language(
            incoming, loaded.profile, known=loaded.known, now=now, rules=self._languages
        )
        return Press(incoming, texts.speaking(spoken.reply), loaded, now, flow)
