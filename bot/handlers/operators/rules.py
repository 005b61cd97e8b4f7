"""Operators: /rules — the routing-rules overlay's versions; /rules rollback undoes
the version in force (docs/learning.md). Every instance follows within 30 s. A
proposal's decision is a pipeline service (pipeline/admin/decisions.py), also behind
the ✅ / ❌ under a nightly proposal (pipeline/admin/buttons.py)."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot.handlers._common import telegram_user_id
from bot.keyboards.admin import ProposalCD
from pipeline.admin.decisions import decide_proposal
from pipeline.language.texts import Texts
from pipeline.learning.nightly import intent_name
from pipeline.learning.overlay import RuleOverlays

__all__ = ["ProposalCD", "router"]

router = Router(name=__name__)

ROLLBACK = ("rollback", "відкат", "откат")


DECISIONS = {"approve": True, "reject": False}


async def _list(overlays: RuleOverlays, texts: Texts) -> str:
    versions = await overlays.versions()
    in_force = next((v.id for v in versions if not v.rolled_back), None)
    if not versions:
        return texts.text("overlay.none")
    lines = [texts.text("overlay.header")]
    for version in versions:
        key = (
            "overlay.in_force"
            if version.id == in_force
            else "overlay.rolled_back"
            if version.rolled_back
            else "overlay.older"
        )
        terms = ", ".join(
            texts.text(
                "overlay.term",
                intent=intent_name(texts, t.intent.value),
                kind=texts.text(f"nightly.kind.{t.kind}"),
                term=t.term,
            )
            for t in version.terms
        )
        lines.append(texts.text(key, id=version.id, terms=terms or "—"))
    if in_force is None:
        lines.append(texts.text("overlay.packaged"))
    return "\n".join(lines)


@router.message(Command("rules"))
async def on_rules(
    message: Message, command: CommandObject, overlays: RuleOverlays, texts: Texts
) -> None:
    catalog, lang = texts.catalog, texts.lang
    arg = (command.args or "").strip().casefold()
    if not arg:
        await message.answer(await _list(overlays, texts))
        return
    verb, _, number = arg.partition(" ")
    if verb in DECISIONS and number.strip().isdigit():
        by = telegram_user_id(message.from_user) if message.from_user else "?"
        await message.answer(
            await decide_proposal(overlays, int(number), DECISIONS[verb], by, texts)
        )
        return
    if arg not in ROLLBACK:
        await message.answer(catalog.text(lang, "overlay.usage"))
        return
    undone, now = await overlays.rollback()
    if undone is None:
        await message.answer(catalog.text(lang, "overlay.nothing_to_undo"))
    elif now is None:
        await message.answer(catalog.text(lang, "overlay.undone_packaged", id=undone))
    else:
        await message.answer(catalog.text(lang, "overlay.undone", id=undone, now=now))
