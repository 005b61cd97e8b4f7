"""«Передати агрономові?» under an unsure answer (docs/knowledge.md): on yes the
question's card goes to every operator, the picture asked about first."""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass

from db.errors import SQLAlchemyError
from pipeline.actions import AgronomistAction
from pipeline.agronomy.desk import AgronomistDesk
from pipeline.buttons.press import Press
from pipeline.memory import StoreUnavailable
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
        user_id = press.incoming.user_id
        try:
            decided = await self.desk.decide(action, user_id=user_id, lang=press.texts.lang)
        except SQLAlchemyError as exc:  # said to be the database's, never "expired"
            raise StoreUnavailable(user_id) from exc
        notices: tuple[Notice, ...] = ()
        if decided.card is not None:
            notices = tuple(
                Notice(operator, decided.card, decided.photo) for operator in sorted(self.operators)
            )
        return Reply(decided.text, notices=notices)
