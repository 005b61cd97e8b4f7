"""NameBook (pipeline/farm/naming.py): the farm's oblast by name for /me and /farm, read
with the farm's dictionary in one short read."""

from __future__ import annotations

from db.models import FarmProfileRow, UserProfileRow
from db.uow import Database
from pipeline.farm.naming import NameBook
from pipeline.profiles import FarmProfile
from pipeline.rulebook import Rulebook


async def _farm(db: Database, region: str | None) -> FarmProfile:
    async with db.write() as session:
        session.add(UserProfileRow(user_id="tg:7", schema_version=1, agent="stepan",
                                   expertise_level="novice", preferred_language="uk",
                                   preferred_style="conversational", interaction_count=0,
                                   known_intents=[], context_notes=[], recent_topics=[],
                                   operator=False, active=True))  # fmt: skip
        await session.flush()
        session.add(FarmProfileRow(farm_id="farm:7", user_id="tg:7", region=region))
    return FarmProfile(farm_id="farm:7", user_id="tg:7")


async def test_the_oblast_is_named_in_the_readers_language(db: Database, rules: Rulebook) -> None:
    farm = await _farm(db, "vinnytsia")
    book = NameBook(db, rules.vocabulary, rules.knowledge.data.regions)
    assert (await book.of(farm, "uk")).region == "Вінницька область"
    assert (await book.of(farm, "en")).region == "Vinnytsia oblast"


async def test_without_an_oblast_nothing_is_named(db: Database, rules: Rulebook) -> None:
    farm = await _farm(db, None)
    book = NameBook(db, rules.vocabulary, rules.knowledge.data.regions)
    assert (await book.of(farm, "uk")).region is None
    assert (await NameBook(db, rules.vocabulary).of(farm, "uk")).region is None
