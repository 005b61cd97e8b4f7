"""A picture from a farmer (docs/knowledge.md, "Photos"): Stepan cannot judge one yet.

Its caption is answered as a message («що це за хвороба на листі?»), with that said
and the human agronomist offered (the picture goes with the operators' card); a
picture without a caption gets the offer directly. The offer never fails the reply.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace

from pipeline.actions import AgronomistAction
from pipeline.intents import Intent
from pipeline.language.texts import Texts
from pipeline.types import Button, Reply

__all__ = ["picture_reply"]

logger = logging.getLogger(__name__)

Buttons = tuple[tuple[Button, ...], ...]
#: Answers the caption as a message.
AnswerCaption = Callable[[], Awaitable[Reply]]
#: The agronomist button for this picture, asked as the given question.
OfferAgronomist = Callable[[str], Awaitable[Buttons]]


def _offers_agronomist(buttons: Buttons) -> bool:
    return any(isinstance(button.action, AgronomistAction) for row in buttons for button in row)


async def picture_reply(
    caption: str,
    texts: Texts,
    answer_caption: AnswerCaption,
    offer: OfferAgronomist,
) -> Reply:
    caption = caption.strip()
    reply = await answer_caption() if caption else Reply("")
    buttons = reply.buttons
    if not buttons:  # a journal card keeps its own buttons
        question = caption or texts.text("agronomist.photo_question")
        try:
            buttons = await offer(question)
        except Exception:
            logger.warning("photo: no agronomist offer", exc_info=True)
    offered = _offers_agronomist(buttons)
    if not caption:
        key = "agronomy.photo_offer" if offered else "agronomy.photo_only"
        return Reply(texts.text(key), buttons, intent=Intent.ADVICE)
    note = texts.text("agronomy.photo_note_offer" if offered else "agronomy.photo_note")
    text = f"{reply.text}\n\n{note}" if reply.text else note
    return replace(reply, text=text, buttons=buttons)
