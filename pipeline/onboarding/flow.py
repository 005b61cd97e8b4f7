"""Onboarding a new user, as pure steps: what to ask, what an answer changes.

The bot keeps the current step in aiogram FSM (the console chat goes through the same
dispatcher), so the flow is written once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from db.repositories import farm as farm_repo
from db.uow import Database
from pipeline.actions import OnboardingAction, OnboardingChoice
from pipeline.agronomy.region import FarmRegions
from pipeline.farm.dictionary import Dictionary
from pipeline.farm.journal.field_areas import field_parts, name_and_area
from pipeline.farm.slugs import make_id, split_names
from pipeline.farm.words.units import Units
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.onboarding.reading import OnboardingReader
from pipeline.profiles import EXPERTISE_LEVELS, STYLES, Expertise
from pipeline.types import Button, Language


class ProfileWriter(Protocol):
    """What onboarding needs of the profile editor (``pipeline.memory.ProfileEditor``)."""

    async def update_user(self, user_id: str, **changes: Any) -> Any: ...

    async def update_farm(self, user_id: str, **changes: Any) -> Any: ...

    async def set_expertise(self, user_id: str, level: Expertise, *, by_operator: bool) -> bool: ...


class Step(StrEnum):
    NAME = "name"
    FARM = "farm"
    #: The oblast: agronomy answers use its zone (sowing dates, rates).
    REGION = "region"
    FIELDS = "fields"
    CROPS = "crops"
    SENSORS = "sensors"
    #: «Як давно ви займаєтесь агрономією?»: the starting expertise level (issue 11).
    EXPERIENCE = "experience"
    STYLE = "style"


ORDER: tuple[Step, ...] = tuple(Step)
#: Steps answered with a button; typed text there is read by ``OnboardingReader``.
BUTTON_STEPS = frozenset({Step.SENSORS, Step.EXPERIENCE, Step.STYLE})
MAX_ITEMS = 30


@dataclass(frozen=True, slots=True)
class Changes:
    """What one answer changes in the profiles (kwargs for ProfileEditor updates)."""

    user: dict[str, Any] = field(default_factory=dict)
    #: The expertise level the farmer chose (set apart: an operator's lock wins).
    level: Expertise | None = None
    farm: dict[str, Any] = field(default_factory=dict)
    #: (id, name as written) of fields or crops named in this answer, so the farm's
    #: dictionary knows "на Північному" from day one.
    names: tuple[tuple[str, str], ...] = ()
    #: field id -> hectares, for fields named with their area ("Північне 40 га").
    areas: dict[str, float] = field(default_factory=dict)


def next_step(step: Step | None) -> Step | None:
    if step is None:
        return ORDER[0]
    index = ORDER.index(step) + 1
    return ORDER[index] if index < len(ORDER) else None


def question(texts: Texts, step: Step) -> tuple[str, tuple[tuple[Button, ...], ...]]:
    """The question for ``step`` and its buttons (every step has "skip")."""
    skip = Button(texts.text("onboarding.skip"), OnboardingAction(OnboardingChoice.SKIP))
    text = texts.text(f"onboarding.ask.{step.value}")
    if step is Step.SENSORS:
        return text, (
            (
                Button(
                    texts.text("onboarding.yes"),
                    OnboardingAction(OnboardingChoice.SENSORS_YES),
                ),
                Button(
                    texts.text("onboarding.no"),
                    OnboardingAction(OnboardingChoice.SENSORS_NO),
                ),
            ),
            (skip,),
        )
    if step is Step.STYLE:
        styles = tuple(
            Button(
                texts.text(f"actions.button.style_{style}"),
                OnboardingAction(OnboardingChoice.STYLE, style),
            )
            for style in STYLES
        )
        return text, (styles, (skip,))
    if step is Step.EXPERIENCE:
        levels = tuple(
            (
                Button(
                    texts.text(f"onboarding.experience.{level}"),
                    OnboardingAction(OnboardingChoice.LEVEL, level=level),
                ),
            )
            for level in EXPERTISE_LEVELS
        )
        return text, (*levels, (skip,))
    return text, ((skip,),)


def text_answer(
    step: Step, text: str, crops: Dictionary, units: Units | None = None
) -> Changes | None:
    """Changes from a typed answer; None when the step wants a button or the text is empty.

    ``crops`` are the shared crops a crop name is looked up in; with ``units`` a field
    may come with its area ("Північне 40 га, поле 3 — 85 га").
    """
    text = text.strip()
    if not text or step in BUTTON_STEPS:
        return None
    if step is Step.NAME:
        return Changes(user={"name": text[:128]})
    if step is Step.FARM:
        return Changes(farm={"farm_name": text[:128]})
    kind = "field" if step is Step.FIELDS else "crop"
    names, areas = _names_and_areas(kind, _list_parts(step, text, units), units)
    named = _named_ids(kind, names, crops)
    if not named:
        return None
    key = "field_ids" if step is Step.FIELDS else "crop_ids"
    return Changes(farm={key: list(named)}, names=tuple(named.items()), areas=areas)


def _list_parts(step: Step, text: str, units: Units | None) -> list[str]:
    """The items of a typed list; fields with areas split so that a decimal comma
    ("85,5 га") stays in its part."""
    parts = split_names(text)
    if step is Step.FIELDS and units is not None:
        with_areas = field_parts(text)
        if any(name_and_area(part, units) for part in with_areas):
            parts = with_areas
    return parts


def _names_and_areas(
    kind: str, parts: list[str], units: Units | None
) -> tuple[list[str], dict[str, float]]:
    """Each part's name, and a field's area by its id where the part gives one."""
    names: list[str] = []
    areas: dict[str, float] = {}
    for part in parts[:MAX_ITEMS]:
        with_area = name_and_area(part, units) if units is not None and kind == "field" else None
        name = with_area[0] if with_area else part
        names.append(name)
        if with_area and (item := make_id(kind, name)):
            areas[item] = with_area[1]
    return names, areas


def _named_ids(kind: str, names: list[str], crops: Dictionary) -> dict[str, str]:
    """id -> the name as the farmer wrote it. A known crop gets the shared canonical
    id ("пшениця" -> crop:wheat), so reports and advice know it; anything else a
    readable slug ("Північне" -> field:pivnichne)."""
    shared = crops if kind == "crop" else None
    named: dict[str, str] = {}
    for name in names:
        entry = shared.resolve("crop", name) if shared is not None else None
        item = entry.canonical_id if entry is not None else make_id(kind, name)
        if item and item not in named:
            named[item] = name
    return named


def button_answer(step: Step, action: OnboardingAction) -> Changes | None:
    """Changes from a pressed button; None if it does not fit the step."""
    sensors = (OnboardingChoice.SENSORS_YES, OnboardingChoice.SENSORS_NO)
    if step is Step.SENSORS and action.choice in sensors:
        return Changes(farm={"has_iot_integration": action.choice is OnboardingChoice.SENSORS_YES})
    if step is Step.STYLE and action.choice is OnboardingChoice.STYLE and action.style in STYLES:
        return Changes(user={"preferred_style": action.style})
    level = action.level
    if step is Step.EXPERIENCE and action.choice is OnboardingChoice.LEVEL and level is not None:
        return Changes(level=level) if level in EXPERTISE_LEVELS else None
    return None


@dataclass(frozen=True, slots=True)
class Turn:
    """The reply to send and the step to wait in next (None: onboarding is over)."""

    text: str
    buttons: tuple[tuple[Button, ...], ...]
    step: Step | None
    #: Unusable answers given to ``step`` so far (one more and it is skipped).
    attempts: int = 0


class OnboardingFlow:
    """Runs the steps against the memory layer; the caller stores ``Turn.step``.
    Each answer is its own use case: the profile edit, then the names it brings."""

    def __init__(
        self,
        catalog: Catalog,
        db: Database,
        profiles: ProfileWriter,
        crops: Dictionary,
        units: Units | None = None,
        regions: FarmRegions | None = None,
        reader: OnboardingReader | None = None,
    ) -> None:
        #: Reads typed answers to button questions and tells interruptions apart;
        #: None: every typed message is taken as an answer.
        self._reader = reader
        self._units = units
        self._catalog = catalog
        self._db = db
        self._profiles = profiles
        self._crops = crops
        self._regions = regions

    def start(self, lang: Language) -> Turn:
        first = ORDER[0]
        text, buttons = question(Texts(self._catalog, lang), first)
        return Turn(f"{self._catalog.text(lang, 'onboarding.intro')}\n\n{text}", buttons, first)

    async def answer_text(
        self, user_id: str, step: Step, text: str, lang: Language, attempts: int = 0
    ) -> Turn:
        """A typed answer. An unusable one is asked once more with an example, then the
        step is skipped: onboarding never keeps a farmer on one question."""
        if step is Step.REGION:
            region = self._regions.read(text) if self._regions is not None else None
            if region is not None and self._regions is not None:
                await self._regions.set(user_id, region)
                return await self._advance(user_id, step, Changes(), lang)
            return await self._unusable(user_id, step, lang, attempts)
        if step in BUTTON_STEPS:
            action = self._typed_choice(step, text)
            changes = button_answer(step, action) if action is not None else None
        else:
            changes = text_answer(step, text, self._crops, self._units)
        if changes is None:
            return await self._unusable(user_id, step, lang, attempts)
        return await self._advance(user_id, step, changes, lang)

    def interrupts(self, text: str) -> bool:
        """A question, a work record, a request: answered as usual while onboarding waits."""
        return self._reader is not None and self._reader.interrupts(text)

    def resume(self, step: Step, lang: Language) -> Turn:
        """Back to the question onboarding stopped at."""
        text, buttons = question(Texts(self._catalog, lang), step)
        return Turn(f"{self._catalog.text(lang, 'onboarding.resumed')}\n\n{text}", buttons, step)

    def paused_offer(self, lang: Language) -> tuple[str, tuple[tuple[Button, ...], ...]]:
        """The line and the one button under a reply given while onboarding waits."""
        button = Button(
            self._catalog.text(lang, "onboarding.resume"),
            OnboardingAction(OnboardingChoice.RESUME),
        )
        return self._catalog.text(lang, "onboarding.paused"), ((button,),)

    def _typed_choice(self, step: Step, text: str) -> OnboardingAction | None:
        if self._reader is None:
            return None
        if step is Step.SENSORS:
            return self._reader.sensors(text)
        if step is Step.STYLE:
            return self._reader.style(text)
        return self._reader.experience(text)

    async def _unusable(self, user_id: str, step: Step, lang: Language, attempts: int) -> Turn:
        if attempts >= 1:
            turn = await self._advance(user_id, step, Changes(), lang)
            skipped = self._catalog.text(lang, "onboarding.skipped")
            return Turn(f"{skipped}\n\n{turn.text}", turn.buttons, turn.step)
        again, buttons = question(Texts(self._catalog, lang), step)
        repeat = self._catalog.text(lang, "onboarding.repeat")
        example = self._catalog.text(lang, f"onboarding.example.{step.value}")
        return Turn(f"{repeat} {example}\n\n{again}", buttons, step, attempts + 1)

    async def answer_button(
        self, user_id: str, step: Step, action: OnboardingAction, lang: Language
    ) -> Turn:
        if action.choice is OnboardingChoice.SKIP:
            return await self._advance(user_id, step, Changes(), lang)
        if action.choice is OnboardingChoice.RESUME:
            return self.resume(step, lang)
        changes = button_answer(step, action)
        if changes is None:
            again, buttons = question(Texts(self._catalog, lang), step)
            return Turn(again, buttons, step)
        return await self._advance(user_id, step, changes, lang)

    async def _advance(self, user_id: str, step: Step, changes: Changes, lang: Language) -> Turn:
        if changes.user:
            await self._profiles.update_user(user_id, **changes.user)
        if changes.level is not None:
            await self._profiles.set_expertise(user_id, changes.level, by_operator=False)
        if changes.farm:
            farm = await self._profiles.update_farm(user_id, **changes.farm)
            if changes.names and farm is not None:
                await self._register_names(farm.farm_id, changes)
        following = next_step(step)
        if following is None:
            return Turn(self._catalog.text(lang, "onboarding.done"), (), None)
        text, buttons = question(Texts(self._catalog, lang), following)
        return Turn(text, buttons, following)

    async def _register_names(self, farm_id: str, changes: Changes) -> None:
        add = farm_repo.add_field if "field_ids" in changes.farm else farm_repo.add_crop
        async with self._db.write() as session:
            for item, name in changes.names:
                await add(session, farm_id, item, name)
                if item in changes.areas:
                    await farm_repo.set_field_area(session, farm_id, item, changes.areas[item])
