"""What the runner hands to every tool of one request.

The farm, the user and the database come from here and never from an LLM: a model
can name a field or a period, but it cannot point a tool at another farm.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import date, datetime

from db.uow import Database
from pipeline.crew.contract import FarmOutline
from pipeline.farm.dictionary import Dictionary, Vocabulary
from pipeline.farm.journal.farm_words import farm_dictionary
from pipeline.farm.localtime import local_time, local_today
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.profiles import FarmProfile, Style, UserProfile
from pipeline.replies.voice import INTERMEDIATE, leveled
from pipeline.types import Attachment, Button, Language

#: How many lines of a list a reply shows, by the user's style.
ITEMS_BY_STYLE: dict[Style, int] = {"brief": 3, "conversational": 6, "detailed": 15}


@dataclass(slots=True)
class Artifacts:
    """Files, the consent card and a log of tool runs, collected while agents work.

    Only touched from the event loop (tools called from CrewAI's worker threads are
    run on the loop), so it needs no lock.
    """

    document: Attachment | None = None
    photo: Attachment | None = None
    card_text: str | None = None
    #: What the journal made of the message ("record", "question", "negated", "none").
    journal_mood: str | None = None
    buttons: tuple[tuple[Button, ...], ...] = ()
    tools_run: list[tuple[str, str]] = field(default_factory=list)

    def keep_document(self, attachment: Attachment | None) -> None:
        if attachment is not None and self.document is None:
            self.document = attachment

    def keep_photo(self, attachment: Attachment | None) -> None:
        if attachment is not None and self.photo is None:
            self.photo = attachment


@dataclass(slots=True)
class RunContext:
    db: Database
    farm_id: str | None
    user_id: str
    text: str
    lang: Language
    now: datetime
    profile: UserProfile
    farm: FarmProfile
    catalog: Catalog
    #: Builds the farm's dictionary (name rules and shared crops, loaded once).
    vocabulary: Vocabulary
    #: The newest conversation summaries (pipeline/recall/), after the profile.
    recall: tuple[str, ...] = ()
    #: The summary of the last talk on this subject, when this message opens a new
    #: conversation (pipeline/crew/recall_note.py).
    recalled: str | None = None
    #: Whom the parts are written for (pipeline/replies/voice.py): the level, or operator.
    voice: str = INTERMEDIATE
    artifacts: Artifacts = field(default_factory=Artifacts)
    #: The farm's shape as the crew's agents are told it (set by the crew's brief).
    outline: FarmOutline = field(default_factory=FarmOutline)
    _dictionary: Dictionary | None = None
    _dictionary_lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def today(self) -> date:
        """The farm's day (its timezone), not UTC's."""
        return local_today(self.now, self.farm.timezone)

    def clock(self, moment: datetime) -> str:
        """A stored moment as the farmer reads it: "12.05 14:30" on the farm's clock."""
        return f"{local_time(moment, self.farm.timezone):%d.%m %H:%M}"

    @property
    def max_items(self) -> int:
        return ITEMS_BY_STYLE.get(self.profile.preferred_style, 6)

    @property
    def hemisphere(self) -> str:
        return self.farm.seasonal_context.hemisphere

    @property
    def texts(self) -> Texts:
        """The catalog in the request's language."""
        return Texts(self.catalog, self.lang)

    def text_of(self, key: str, /, **params: object) -> str:
        """A catalog line in the voice of the reader (``level.<voice>.<key>`` if any)."""
        texts = self.texts
        return texts.text(leveled(texts, key, self.voice), **params)

    async def dictionary(self) -> Dictionary:
        """The farm's names (fields, crops, approved terms), read once per request."""
        async with self._dictionary_lock:
            if self._dictionary is None:
                if self.farm_id is None:
                    self._dictionary = self.vocabulary.shared()
                else:
                    async with self.db.read() as session:
                        self._dictionary = await farm_dictionary(
                            session, self.farm_id, self.vocabulary
                        )
            return self._dictionary
