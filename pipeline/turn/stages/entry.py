"""The stages every update goes through first: guard, profile, language, picture."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from pipeline import gate
from pipeline.actions import AgronomistAction
from pipeline.intents import Intent
from pipeline.language.choice import LanguageChoice, LanguageRules, message_language, reply_language
from pipeline.memory import ProfileLoader
from pipeline.text import clean_input
from pipeline.turn.stage import Stage
from pipeline.turn.turn import Buttons, Turn
from pipeline.types import Reply

__all__ = ["ChooseLanguage", "Guard", "LoadProfile", "OfferForPicture", "Picture"]

#: The agronomist button for a picture, asked as the given question (none: no desk).
OfferForPicture = Callable[[Turn, str], Awaitable[Buttons]]


class Guard(Stage):
    """Nothing to answer, or a re-entry (seed 3.5): ends the turn; else holds the gate
    until the turn ends."""

    name = "guard"
    required = True

    async def run(self, turn: Turn) -> None:
        incoming = turn.incoming
        # Only spaces or control characters: nothing to classify, nothing to count.
        # (A photo without a caption is the picture stage's.)
        if not incoming.photo and not clean_input(incoming.text):
            turn.finish(Reply(turn.texts.text("faults.empty"), intent=Intent.CLARIFY))
        elif not gate.pre_check(incoming.trace_id):
            turn.finish(Reply(turn.texts.text("errors.recursion"), intent=Intent.REFUSED))
        else:
            turn.on_exit.append(lambda: gate.release(incoming.trace_id))


@dataclass(frozen=True, slots=True)
class LoadProfile(Stage):
    """The user's and the farm's profiles (defaults stand in when the store fails)."""

    profiles: ProfileLoader
    name = "profile"
    required = True

    async def run(self, turn: Turn) -> None:
        loaded = await self.profiles.load(turn.incoming.user_id)
        profile = loaded.profile
        if profile.name is None and turn.incoming.first_name:
            profile = profile.model_copy(update={"name": turn.incoming.first_name})
        turn.load(loaded, profile)


@dataclass(frozen=True, slots=True)
class ChooseLanguage(Stage):
    """The reply language, once: the conversation's, else the profile's, else
    Telegram's (pipeline/language/choice.py)."""

    rules: LanguageRules | None
    name = "language"

    async def run(self, turn: Turn) -> None:
        loaded = turn.loaded
        spoken = reply_language(
            turn.incoming, turn.profile, known=loaded.known, now=turn.now, rules=self.rules
        )
        self._speak(turn, spoken)

    async def fallback(self, turn: Turn) -> None:
        self._speak(turn, LanguageChoice(message_language(turn.incoming)))

    @staticmethod
    def _speak(turn: Turn, spoken: LanguageChoice) -> None:
        turn.spoken = spoken
        turn.texts = turn.texts.speaking(spoken.reply)


@dataclass(frozen=True, slots=True)
class Picture(Stage):
    """A picture (docs/knowledge.md, "Photos"): without a caption, the agronomist is
    offered at once; with one, the caption is answered as a message and the note
    comes last (decorate.PictureNote)."""

    offer: OfferForPicture
    name = "picture"

    def applies(self, turn: Turn) -> bool:
        return turn.incoming.photo

    async def run(self, turn: Turn) -> None:
        caption = turn.incoming.text.strip()
        if caption:
            turn.work = replace(turn.message, photo=False)
            return
        buttons = await self.offer(turn, turn.texts.text("agronomist.photo_question"))
        key = "agronomy.photo_offer" if offers_agronomist(buttons) else "agronomy.photo_only"
        turn.finish(Reply(turn.texts.text(key), buttons, intent=Intent.ADVICE))

    async def fallback(self, turn: Turn) -> None:
        if not turn.incoming.text.strip():
            turn.finish(Reply(turn.texts.text("agronomy.photo_only"), intent=Intent.ADVICE))


def offers_agronomist(buttons: Buttons) -> bool:
    return any(isinstance(button.action, AgronomistAction) for row in buttons for button in row)
