"""Operators: the term dictionary (/pending, /approve, /reject, /apply_dict, /pending_stats).

A term's decision is a pipeline service (pipeline/admin/decisions.py), also behind
the ✅ / ❌ buttons under /pending (pipeline/admin/buttons.py)."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot.keyboards.pipeline import keyboard
from bot.user_ids import telegram_id
from pipeline.admin.decisions import decide_term
from pipeline.admin.edits import parse_row_id
from pipeline.admin.keyboards import terms_buttons
from pipeline.farm.terms import FarmTerms, TermReview
from pipeline.language.texts import Texts

router = Router(name=__name__)


def _kind(texts: Texts, kind: str) -> str:
    return texts.text(f"terms.kind_{kind}")


@router.message(Command("pending"))
async def on_pending(message: Message, terms: TermReview, texts: Texts) -> None:
    """Grouped by farm, each with the farm's and the farmer's names and a button to
    its card (issue 16 point 5)."""
    groups = await terms.pending_by_farm()
    if not groups:
        await message.answer(texts.text("terms.none"))
        return
    blocks = [texts.text("terms.header")]
    for group in groups:
        lines = [_farm_line(group, texts)]
        lines += [
            texts.text(
                "terms.item",
                id=row.id,
                kind=_kind(texts, row.kind),
                term=terms.shown(row),
                times=texts.plural("plural.times", row.times_seen),
                message=row.first_message[:80],
            )
            for row in group.terms
        ]
        blocks.append("\n".join(lines))
    owners = [(telegram_id(g.user_id), _farm_name(g, texts)) for g in groups]
    term_ids = [row.id for group in groups for row in group.terms]
    farms = [(user, name) for user, name in owners if user is not None]
    buttons = terms_buttons(term_ids, farms, texts)
    await message.answer("\n\n".join(blocks), reply_markup=keyboard(buttons))


def _farm_name(group: FarmTerms, texts: Texts) -> str:
    return group.farm_name or texts.text("terms.farm_unnamed")


def _farm_line(group: FarmTerms, texts: Texts) -> str:
    farmer = group.user_name or texts.text("terms.farmer_unknown")
    return texts.text("terms.farm", farm=_farm_name(group, texts), farmer=farmer)


@router.message(Command("approve"))
async def on_approve(
    message: Message,
    command: CommandObject,
    terms: TermReview,
    texts: Texts,
) -> None:
    args = (command.args or "").split()
    term_id = parse_row_id(args[0]) if args else None
    if term_id is None or len(args) > 2:
        await message.answer(texts.text("terms.usage_approve"))
        return
    canonical = args[1] if len(args) == 2 else None
    await message.answer(await decide_term(terms, term_id, True, canonical, texts))


@router.message(Command("reject"))
async def on_reject(
    message: Message,
    command: CommandObject,
    terms: TermReview,
    texts: Texts,
) -> None:
    args = (command.args or "").split()
    term_id = parse_row_id(args[0]) if len(args) == 1 else None
    if term_id is None:
        await message.answer(texts.text("terms.usage_reject"))
        return
    await message.answer(await decide_term(terms, term_id, False, None, texts))


@router.message(Command("apply_dict"))
async def on_apply(message: Message, terms: TermReview, texts: Texts) -> None:
    result = await terms.apply()
    await message.answer(
        texts.text(
            "terms.applied",
            terms=result.terms,
            operations=result.operations,
        )
    )


@router.message(Command("pending_stats"))
async def on_stats(message: Message, terms: TermReview, texts: Texts) -> None:
    counts = await terms.stats()
    statuses = ("pending", "approved", "applied", "rejected")
    await message.answer(
        texts.text(
            "terms.stats",
            **{s: counts.get(s, 0) for s in statuses},
        )
    )
