"""The agronomist desk (docs/knowledge.md): the farmer's «Передати агрономові» press
sends the question's card to the operators (the one button path:
pipeline/buttons/agronomist.py); an operator's ``/answer N text`` (or a reply to the
card) goes back to the farmer; ``/questions`` lists what is pending.

``router`` takes the farmer's /myquestions; ``operator_router`` sits behind the
operators' IsOperator filter (bot/handlers/operators.py) on every path.
"""

from __future__ import annotations

import re

from aiogram import Bot, F, Router
from aiogram.dispatcher.event.bases import SkipHandler
from aiogram.filters import Command, CommandObject
from aiogram.types import Message
from magic_filter import RegexpMode

from bot.handlers._common import send_quietly, telegram_user_id
from bot.user_ids import telegram_id
from pipeline.admin.edits import MAX_ROW_ID
from pipeline.agronomy.desk import AgronomistDesk
from pipeline.language.texts import Texts

router = Router(name=__name__)
operator_router = Router(name=f"{__name__}.operators")

#: Listed per /questions (the oldest first).
SHOWN = 20

#: The question number on an operator's card («#12»), for a reply to the card.
_CARD_ID = re.compile(r"#(\d+)")


async def _deliver(
    message: Message, bot: Bot, texts: Texts, desk: AgronomistDesk, number: int, text: str
) -> None:
    operator = message.from_user.id if message.from_user else 0
    delivery = await desk.answer(number, text, operator=operator)
    if delivery is None:
        await message.answer(texts.text("agronomist.missing", id=number))
        return
    farmer = telegram_id(delivery.user_id)
    sent = farmer is not None and await send_quietly(bot, farmer, delivery.text)
    key = "agronomist.delivered" if sent else "agronomist.undelivered"
    await message.answer(texts.text(key, id=number))


@operator_router.message(Command("answer"))
async def on_answer(
    message: Message,
    command: CommandObject,
    bot: Bot,
    texts: Texts,
    agronomist: AgronomistDesk | None,
) -> None:
    number, _, text = (command.args or "").strip().partition(" ")
    # A number beyond the table's range is a typo, not a query (bot/keyboards/ids.py).
    valid = number.isdigit() and 1 <= int(number) <= MAX_ROW_ID
    if agronomist is None or not valid or not text.strip():
        await message.answer(texts.text("agronomist.usage"))
        return
    await _deliver(message, bot, texts, agronomist, int(number), text)


# mode=search: the number is inside the card («❓ Питання #12 ...»), not at its start.
@operator_router.message(
    F.reply_to_message.text.regexp(_CARD_ID, mode=RegexpMode.SEARCH).as_("card"), F.text
)
async def on_card_reply(
    message: Message,
    card: re.Match[str],
    bot: Bot,
    texts: Texts,
    agronomist: AgronomistDesk | None,
) -> None:
    """A reply to a question's card answers that question."""
    reply_to = message.reply_to_message
    if agronomist is None or reply_to is None or reply_to.from_user is None:
        raise SkipHandler
    if reply_to.from_user.id != bot.id or not message.text or message.text.startswith("/"):
        raise SkipHandler  # not a reply to Stepan's card: the pipeline takes it
    await _deliver(message, bot, texts, agronomist, int(card.group(1)), message.text)


@router.message(Command("myquestions"))
async def on_my_questions(
    message: Message, texts: Texts, agronomist: AgronomistDesk | None
) -> None:
    """A farmer sees the state of the questions they passed to the agronomist."""
    if message.from_user is None:
        return
    mine = (
        await agronomist.of_user(telegram_user_id(message.from_user), SHOWN)
        if agronomist is not None
        else []
    )
    if not mine:
        await message.answer(texts.text("agronomist.mine_none"))
        return
    lines = [texts.text("agronomist.mine_header")]
    lines += [texts.text(f"agronomist.mine_{q.status}", id=q.id, question=q.question) for q in mine]
    await message.answer("\n".join(lines))


@operator_router.message(Command("questions"))
async def on_questions(message: Message, texts: Texts, agronomist: AgronomistDesk | None) -> None:
    questions = await agronomist.pending(SHOWN) if agronomist is not None else []
    if not questions:
        await message.answer(texts.text("agronomist.none"))
        return
    lines = [texts.text("agronomist.header")]
    lines += [texts.text("agronomist.item", id=q.id, question=q.card or "?") for q in questions]
    await message.answer("\n\n".join(lines))
