"""«Передати агрономові?» under an unsure answer (docs/knowledge.md): on yes the
question's card goes to every operator, the picture asked about first."""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass

from pipeline.actions import AgronomistAction
from pipeline.agronomy.desk import AgronomistDesk
from pipeline.buttons.press import Press
from pipeline.types import Notice, Reply

__all__ = ["AgronomistButton"]


@dataclass(frozen=True, slots=True)
class AgronomistButton:
    """The presser's own question only: the desk finds it by the presser's id, so a
    forged or forwarded button sends nothing anywhere."""

    desk: AgronomistDesk
    #: The operators' chats (AGX_OPERATOR_IDS).
    operators: Set[int]

    async def __call__(self, action: AgronomistAction, press: Press) -> Reply | None:
        decided = await self.desk.decide(
            action, user_id=press.incoming.user_id, lang=press.texts.lang
        )
        notices: tuple[Notice, ...] = ()
        if decided.card is not None:
            notices = tuple(
                Notice(operator, decided.card, decided.photo) for operator in sorted(self.operators)
            )
        return Reply(decided.text, notices=notices)
