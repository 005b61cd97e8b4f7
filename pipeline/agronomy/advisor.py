"""The advisor: an agronomy question in, the knowledge base's answer out, with the
farm's region, fields, soil temperature and the previous question's crop filled in
(docs/knowledge.md, "In the conversation").

The classifier marks such questions with the ``advice`` intent (its probe is the
knowledge base's own question reader); :func:`wants_advice` also takes a decision or
a sensor intent whose words the knowledge base read as an agronomy question ("поріг
шкодочинності" is no sensor threshold).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from datetime import datetime

from db.uow import Database
from pipeline.actions import ItemAction, SourceAction
from pipeline.agronomy.desk import AgronomistDesk
from pipeline.agronomy.facts import FarmContext, read_farm_context, read_region
from pipeline.agronomy.grounded import GroundedWriter
from pipeline.agronomy.region import region_named
from pipeline.intents import Intent
from pipeline.knowledge import Answer, Composer, KnowledgeBase, Lookup
from pipeline.knowledge.model import Region
from pipeline.profiles import RECENT_ADVICE_WINDOW, Expertise, FarmProfile, UserProfile
from pipeline.types import Button, DepthDecision, Language, Reply

__all__ = ["AdviceRequest", "Advisor", "wants_advice"]

logger = logging.getLogger(__name__)

#: Primary intents the advice intent takes over when it matched too: a decision
#: ("порадь, коли сіяти соняшник") and sensor words inside an agronomy question.
_YIELDS_TO_ADVICE = frozenset({Intent.DECISION, Intent.IOT, Intent.IOT_ALERT})
#: Agents such a question may have recruited; any other (a report, statistics) is
#: real work the deep path does.
_ADVICE_CREW = frozenset({"iot"})


def wants_advice(decision: DepthDecision) -> bool:
    # The classifier reports a primary advice match under its routing label
    # (``decision``, LABELS.md) and names it first among the matched intents.
    if decision.intent == Intent.ADVICE or decision.matched_intents[:1] == (Intent.ADVICE,):
        return True
    return (
        Intent.ADVICE in decision.matched_intents
        and decision.intent in _YIELDS_TO_ADVICE
        and set(decision.crew_needed) <= _ADVICE_CREW
    )


#: What a message is routed when no rule understood it.
_NOT_UNDERSTOOD = frozenset({Intent.CLARIFY, Intent.GENERAL})


def names_subject_only(decision: DepthDecision, text: str, kb: KnowledgeBase) -> bool:
    """Nothing understood (past first contact) in a message that names a crop, a pest,
    weed or disease, or a nutrient: the advisor answers it from its cards, or says
    honestly it has none and offers the agronomist; never the operations menu."""
    return (
        decision.intent in _NOT_UNDERSTOOD
        and "no_match" in decision.reason
        and kb.names_subject(text) > 0
    )


def as_advice(decision: DepthDecision) -> DepthDecision:
    """The decision answered by the advisor: intent advice, no agents."""
    if decision.intent == Intent.ADVICE and not decision.crew_needed:
        return decision
    return replace(
        decision,
        mode="deep",
        intent=Intent.ADVICE,
        crew_needed=(),
        reason=f"advice<-{decision.intent} {decision.reason}",
        readings=(),  # the advisor answers: no question about what it was
    )


@dataclass(frozen=True, slots=True)
class AdviceRequest:
    user_id: str
    text: str
    lang: Language
    profile: UserProfile
    farm: FarmProfile
    now: datetime
    #: The picture asked about (a Telegram file id): it goes with the agronomist's card.
    photo: str | None = None


@dataclass(frozen=True, slots=True)
class Advice:
    """The advisor's answer and what it was built from (the LLM path and the
    agronomist desk use both)."""

    answer: Answer
    lookup: Lookup
    context: FarmContext


class Advisor:
    def __init__(
        self,
        kb: KnowledgeBase,
        composer: Composer,
        db: Database,
        *,
        writer: GroundedWriter | None = None,
        desk: AgronomistDesk | None = None,
    ) -> None:
        self.kb = kb
        self.composer = composer
        self._db = db
        #: With an LLM configured: the answer written from the cards alone.
        self._writer = writer
        #: Unsure answers offer the human agronomist (pipeline/agronomy/desk.py).
        self.desk = desk

    async def advise(self, request: AdviceRequest) -> Advice:
        context = await read_farm_context(
            self._db, request.user_id, request.now, follow_up=RECENT_ADVICE_WINDOW
        )
        crops = tuple(dict.fromkeys((*request.farm.crop_ids, *context.crops)))
        previous_crop, previous_topic = self._conversation(context.previous_questions)
        lookup = self.kb.lookup(
            request.text,
            farm_crops=crops,
            farm_region=context.region or self._said_region(context.recent_texts),
            previous_crop=previous_crop,
            previous_topic=previous_topic,
        )
        answer = self.composer.compose(
            lookup,
            lang=request.lang,
            level=detail_level(request.profile),
            farm_facts=context.facts,
        )
        return Advice(answer, lookup, context)

    def _conversation(self, questions: tuple[str, ...]) -> tuple[str | None, str | None]:
        """The conversation's crop and topic: the newest earlier agronomy question
        that named each."""
        crop = topic = None
        for before in questions:
            earlier = self.kb.lookup(before)
            crop = crop or earlier.crop
            topic = topic or earlier.topic
            if crop is not None and topic is not None:
                break
        return crop, topic

    async def farm_region(self, user_id: str) -> str | None:
        """The oblast the farm's profile holds (None: not told yet)."""
        return await read_region(self._db, user_id)

    def said_region(self, texts: tuple[str, ...]) -> Region | None:
        """The oblast the newest of ``texts`` to name one names ("у нас Житомирщина"
        a message ago), for a farm whose profile has none yet."""
        return next(filter(None, (region_named(self.kb, text) for text in texts)), None)

    def _said_region(self, texts: tuple[str, ...]) -> str | None:
        region = self.said_region(texts)
        return region.id if region is not None else None

    async def answer(self, request: AdviceRequest) -> Reply:
        reply, _ = await self.reply(request)
        return reply

    async def reply(self, request: AdviceRequest) -> tuple[Reply, Region | None]:
        """The answer, and the oblast it used that the farm's profile lacks (named in
        the question or a message before it): the farmer is offered to keep it."""
        advice = await self.advise(request)
        heard = advice.lookup.region if advice.context.region is None else None
        return await self._reply(request, advice), heard

    async def _reply(self, request: AdviceRequest, advice: Advice) -> Reply:
        text = advice.answer.text
        lookup = advice.lookup
        if self._writer is not None and lookup.confident:
            written = await self._writer.write(
                question=request.text,
                cards=lookup.cards,
                farm=self.farm_line(advice, request.lang),
                lang=request.lang,
                level=detail_level(request.profile),
            )
            if written is not None:
                # The source line is Stepan's own, never the model's.
                sources = self.composer.source_lines(lookup.cards, request.lang)
                text = "\n\n".join([written, "\n".join(sources)])
        buttons = _item_buttons(advice.answer)
        if advice.answer.unsure:
            buttons = await self._offer(request, advice.context.region)
        return Reply(text, (*buttons, *self._source_row(advice.answer, request.lang)),
                     intent=Intent.ADVICE)  # fmt: skip

    def _source_row(self, answer: Answer, lang: Language) -> tuple[tuple[Button, ...], ...]:
        """«📚 Джерело» under an answer whose cards cite sources (their short lines
        end it; the button shows the whole references)."""
        cards = [self.kb.cards[c] for c in answer.cards if c in self.kb.cards]
        ids = tuple(dict.fromkeys(card.source.id for card in cards))
        if not ids:
            return ()
        label = self.composer.catalog.text(lang, "knowledge.source_button")
        return ((Button(label, SourceAction(ids[:2])),),)

    def item_reply(self, action: ItemAction, lang: Language, level: Expertise) -> Reply | None:
        """A card's other pest, weed or disease, pressed under «Також буває»: that
        item alone, with the card's others under it; None for no such item."""
        card = self.kb.cards.get(action.card_id)
        if card is None or card.crop is None or not 0 <= action.item < len(card.items):
            return None
        lookup = Lookup(
            question="", cards=(card,), crop=card.crop, crop_source="question",
            topic=card.topic, zone=None, region=None, confidence=1.0, reason="answer",
            items={card.id: (action.item,)},
        )  # fmt: skip
        answer = self.composer.compose(lookup, lang=lang, level=level)
        buttons = (*_item_buttons(answer), *self._source_row(answer, lang))
        return Reply(answer.text, buttons, intent=Intent.ADVICE)

    async def offer(self, request: AdviceRequest) -> tuple[tuple[Button, ...], ...]:
        """The «Передати агрономові» button alone: for a picture, which Stepan cannot
        judge (``request.photo``; ``request.text`` its caption or a placeholder)."""
        if self.desk is None:
            return ()
        # Only the region goes on the card: not the whole context (fields, soil,
        # the last messages), which the caption's answer may have read already.
        return await self._offer(request, await read_region(self._db, request.user_id))

    async def _offer(
        self, request: AdviceRequest, region: str | None
    ) -> tuple[tuple[Button, ...], ...]:
        if self.desk is None:
            return ()
        names = [request.profile.name] if request.profile.name else []
        return await self.desk.offer(
            user_id=request.user_id,
            question=request.text,
            lang=request.lang,
            farm=request.farm,
            region=region,
            known_names=names,
            photo=request.photo,
        )

    def farm_line(self, advice: Advice, lang: Language) -> str:
        """The farm's context for the prompt: place, today, soil, fields, crop."""
        lookup, facts = advice.lookup, advice.context.facts
        parts: list[str] = []
        if lookup.region is not None:
            parts.append(lookup.region.name.get(lang))
        if lookup.zone is not None:
            parts.append(f"zone={lookup.zone}")
        if facts.today is not None:
            parts.append(f"today={facts.today.isoformat()}")
        if facts.soil_temp_c is not None:
            parts.append(f"soil_temperature={facts.soil_temp_c:g} °C")
        if facts.fields:
            fields = ", ".join(f"{name} {area:g} ha" for name, area in facts.fields.items())
            parts.append(f"fields: {fields}")
        if lookup.crop is not None and lookup.crop in self.kb.crop_names:
            parts.append(f"crop={self.kb.crop_names[lookup.crop].get(lang)}")
        return "; ".join(parts)


def _item_buttons(answer: Answer) -> tuple[tuple[Button, ...], ...]:
    """A button per other item of the card («Також буває: …»), two to a row."""
    buttons = [Button(name, ItemAction(card, n)) for card, n, name in answer.others]
    return tuple(tuple(buttons[i : i + 2]) for i in range(0, len(buttons), 2))


def detail_level(profile: UserProfile) -> Expertise:
    """How much of the why a reply carries: the level, and only numbers for a farmer
    who asked for brief answers and for an operator (the terse, technical voice of
    pipeline/replies/voice.py; ``operator`` mirrors AGX_OPERATOR_IDS)."""
    if profile.preferred_style == "brief" or profile.operator:
        return "expert"
    return profile.expertise_level
