"""The shape of a card file (``pipeline/rules/knowledge/cards/*.toml``) as pydantic
models, read through the rules schema: a wrong type or a misspelt key is a one-line
error naming the file and the key. What needs the other files (topics, sources,
units, zones, crops) is checked by the loader, which collects every such problem."""

from __future__ import annotations

from typing import Any, Literal

from pipeline.rules.schema import RulesModel

__all__ = ["ActivesTable", "CardFile", "CardTable", "CropTable", "ItemTable", "LocalText"]


class LocalText(RulesModel):
    """A text in both catalog languages (a missing one is the loader's problem)."""

    uk: str = ""
    en: str = ""


class ActivesTable(RulesModel):
    uk: tuple[str, ...] = ()
    en: tuple[str, ...] = ()


#: A value: ``key``, ``unit``, optional ``bound`` and its spans under ``all`` or the
#: zone names (checked by pipeline.knowledge.parse.values, every problem collected).
ValueTable = dict[str, Any]


class ItemTable(RulesModel):
    name: LocalText | None = None
    crop: str | None = None
    terms: tuple[str, ...] = ()
    values: tuple[ValueTable, ...] = ()
    note: LocalText | None = None
    window: LocalText | None = None
    actives: ActivesTable = ActivesTable()


class CardTable(RulesModel):
    topic: str = ""
    sources: tuple[str, ...] = ()
    text: LocalText | None = None
    values: tuple[ValueTable, ...] = ()
    items: tuple[ItemTable, ...] = ()
    keywords: tuple[str, ...] = ()


class CropTable(RulesModel):
    id: str
    name: LocalText | None = None
    season: str = ""


class CardFile(RulesModel):
    version: Literal[1]
    crop: CropTable | None = None
    cards: tuple[CardTable, ...] = ()
