"""The farm's region: read from what the farmer or an operator writes ("Полтавська",
"Poltava oblast", "на Полтавщині") with the knowledge base's place words, kept as an
oblast id of ``rules/knowledge/zones.toml`` in ``farm_profiles.region``."""

from __future__ import annotations

from typing import Any, Protocol

from pipeline.actions import RegionAction
from pipeline.knowledge import KnowledgeBase
from pipeline.knowledge.model import Region
from pipeline.language.texts import Texts
from pipeline.types import Button

__all__ = ["FarmRegions", "region_named", "region_offer"]


def region_named(kb: KnowledgeBase, text: str) -> Region | None:
    """The oblast ``text`` names with the knowledge base's place words (a zone
    alone is no oblast: None)."""
    region_id, _ = kb.reader.place(text)
    return kb.data.regions.get(region_id) if region_id else None


def region_offer(texts: Texts, region: Region) -> tuple[str, tuple[Button, ...]]:
    """The question whether to keep the oblast the farmer named, and its button."""
    line = texts.text("region.remember", region=region.name.get(texts.lang))
    return line, (Button(texts.text("region.remember_button"), RegionAction(region.id)),)


class _FarmMaker(Protocol):
    async def update_farm(self, user_id: str, **changes: Any) -> object | None: ...


class FarmRegions:
    def __init__(self, kb: KnowledgeBase, farms: _FarmMaker) -> None:
        self._kb = kb
        self._farms = farms

    def read(self, text: str) -> Region | None:
        """The oblast ``text`` names (a zone alone is no oblast: None)."""
        return region_named(self._kb, text)

    def known(self, region_id: str) -> Region | None:
        """The oblast of this id (an id from a button is checked again)."""
        return self._kb.data.regions.get(region_id)

    async def set(self, user_id: str, region: Region) -> bool:
        """Store the farm's region (creating the farm if missing); False on failure.
        Through the profile editor: the cached farm and its synced copy follow."""
        return await self._farms.update_farm(user_id, region=region.id) is not None
