"""With an LLM configured, an agronomy answer is written by the LLM from the cards the
knowledge base retrieved, and from nothing else: the cards (top few, with their values
and sources) and the farm's context go into the prompt as the only sources, marked
[S1], [S2] …, with the instruction to cite them and to say when they do not cover the
question. LLM output is untrusted: a reply that cites no given source, or fails, is
dropped and the card answer composed without an LLM is sent instead."""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping

from pipeline.crew.completer import TextCompleter
from pipeline.crew.config import Prompts
from pipeline.knowledge.model import Card, Text
from pipeline.knowledge.render import ValueText
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.types import Language

__all__ = ["GroundedWriter"]

logger = logging.getLogger(__name__)

#: A source mark in the reply: [S1], [S2] …
_CITE = re.compile(r"\[S(\d+)\]")
TIMEOUT_S = 15.0
MAX_CARDS = 3


class GroundedWriter:
    def __init__(
        self,
        llm: TextCompleter,
        prompts: Prompts,
        catalog: Catalog,
        crop_names: Mapping[str, Text],
        *,
        timeout_s: float = TIMEOUT_S,
        max_cards: int = MAX_CARDS,
    ) -> None:
        self._llm = llm
        self._prompts = prompts
        self._catalog = catalog
        self._crops = crop_names
        self._timeout_s = timeout_s
        self._max_cards = max_cards

    def sources(self, cards: tuple[Card, ...], lang: Language) -> list[str]:
        """Each card as one source: crop and topic, its values per zone, its text, and
        the document it comes from."""
        out = ValueText(Texts(self._catalog, lang))
        lines: list[str] = []
        for n, card in enumerate(cards[: self._max_cards], start=1):
            topic = out.text(f"knowledge.topic.{card.topic}")
            values = []
            for value in card.values:
                spans = [
                    f"{'' if zone == 'all' else out.zone(zone) + ': '}"
                    f"{out.value(value, None if zone == 'all' else zone)}"
                    for zone in value.spans
                ]
                values.append(f"{out.label(value.key)} — {'; '.join(spans)}")
            for item in card.items:
                values.append(item.name.get(lang))
            source = card.source
            cited = f"{source.institution.get(lang)}, {source.document.get(lang)}"
            if source.year is not None:
                cited += f", {source.year}"
            name = self._crops.get(card.crop) if card.crop is not None else None
            crop = name.get(lang) if name is not None else ""
            lines.append(
                f"[S{n}] {crop} {topic}: {' | '.join(values)}. {card.text.get(lang)} ({cited})"
            )
        return lines

    async def write(
        self,
        *,
        question: str,
        cards: tuple[Card, ...],
        farm: str,
        lang: Language,
        level: str,
    ) -> str | None:
        """The LLM's answer, or None when it cannot be trusted (no card, no citation
        of a given source, a failure): the caller sends the card answer then."""
        if not cards:
            return None
        sources = self.sources(cards, lang)
        user = self._prompts.agronomy_user[lang].format(
            question=question, level=level, farm=farm or "—", sources="\n".join(sources)
        )
        try:
            reply = await self._llm.complete(
                self._prompts.agronomy_system[lang], user, timeout_s=self._timeout_s
            )
        except Exception:
            logger.exception("grounded answer failed; the card answer is sent")
            return None
        cited = {int(n) for n in _CITE.findall(reply)}
        if not cited or not cited <= set(range(1, len(sources) + 1)):
            logger.info("grounded answer cites no given source (%s); dropped", sorted(cited))
            return None
        return reply.strip()
