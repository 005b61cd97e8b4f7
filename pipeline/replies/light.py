"""Light-path answers: personal templates from the catalog, or one short LLM call.

``TemplateResponder`` answers from ``light.<intent>`` templates. ``LlmResponder`` is
what the pipeline calls: without an LLM it returns the template; with one it makes
one short call with the style prefix (no crew) and falls back to the template on any
error, timeout or unusable answer, so a slow model never costs a farmer the reply.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from pipeline.clock import Clock, utcnow
from pipeline.crew.completer import TextCompleter
from pipeline.crew.contract import sanitize
from pipeline.farm.localtime import local_today
from pipeline.farm.season_calendar import SeasonCalendar
from pipeline.intents import Intent
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.profiles import FarmProfile, UserProfile
from pipeline.recall.prompt import recall_block
from pipeline.replies.style import addressed, build_prefix, display_name
from pipeline.replies.voice import first_key, leveled, voice_of, why
from pipeline.types import DepthDecision, Language

logger = logging.getLogger(__name__)

#: Intents whose template states facts (the profile, what Stepan can do): a model
#: rephrasing them could get a fact wrong, so they stay templates.
TEMPLATE_ONLY = frozenset({Intent.WHOAMI, Intent.HELP})
#: A light reply is a sentence or three; anything longer is not one.
MAX_LIGHT_CHARS = 600
DEFAULT_TIMEOUT_S = 8.0


@dataclass(frozen=True, slots=True)
class LightRequest:
    decision: DepthDecision
    profile: UserProfile
    farm: FarmProfile
    lang: Language
    is_operator: bool
    first_contact: bool
    #: The user's message (for the LLM; templates do not need it).
    text: str = ""


class LightResponder(Protocol):
    async def answer(self, request: LightRequest) -> str: ...


class TemplateResponder:
    """Answers light intents from ``light.<intent>`` templates, by name."""

    def __init__(self, catalog: Catalog) -> None:
        self._catalog = catalog

    def answer(self, request: LightRequest) -> str:
        """The template in the reader's voice (pipeline/replies/voice.py): an expert's or an
        operator's terse variant where there is one; a novice's explanation after it."""
        voice = voice_of(request.profile.expertise_level, operator=request.is_operator)
        texts = Texts(self._catalog, request.lang)
        text, explained = self._template(request, texts, voice)
        return "\n\n".join([text, *why(texts, [explained], voice)])

    def _template(self, request: LightRequest, texts: Texts, voice: str) -> tuple[str, str]:
        """The text and the name of its novice explanation (``light.<intent>``)."""
        profile = request.profile
        name = addressed(profile, texts)
        intent = request.decision.intent
        if intent == Intent.GREETING and request.first_contact:
            key = leveled(texts, "light.greeting_new", voice)
            return texts.text(key, name=name), "light.greeting_new"
        if intent == Intent.WHOAMI:
            return texts.text(
                leveled(texts, "light.whoami", voice),
                name=display_name(profile, texts),
                expertise=texts.text(f"expertise.{profile.expertise_level}"),
                style=texts.text(f"styles.{profile.preferred_style}"),
                times=texts.plural("plural.times", profile.interaction_count),
                operator=texts.text("light.whoami_operator") if request.is_operator else "",
            ), "light.whoami"
        keys = (f"light.{profile.preferred_style}.{intent}", f"light.{intent}", "light.fallback")
        key = first_key(texts, keys, voice)
        shown = f"light.{intent}" if key != "light.fallback" else key
        return texts.variant(key, profile.interaction_count, name=name), shown


class LlmResponder:
    """The pipeline's light responder: an LLM reply when one is configured, else the
    template. ``prompts`` holds the system prompt per language (rules/prompts.toml)."""

    def __init__(
        self,
        catalog: Catalog,
        llm: TextCompleter | None = None,
        *,
        prompts: Mapping[Language, str] | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        templates: TemplateResponder | None = None,
        season: SeasonCalendar | None = None,
        clock: Clock = utcnow,
    ) -> None:
        self._catalog = catalog
        #: The prompt says the season's phase as the calendar allows it, not a stale one.
        self._season = season
        self._clock = clock
        self._llm = llm
        self._prompts = prompts
        self._timeout_s = timeout_s
        self.templates = templates or TemplateResponder(catalog)
        #: The user's newest conversation summaries for the prompt (pipeline/recall/);
        #: read only when the LLM is asked.
        self.recall: Callable[[str], Awaitable[tuple[str, ...]]] | None = None

    def _phase(self, farm: FarmProfile) -> str | None:
        if self._season is None:
            return None
        month = local_today(self._clock(), farm.timezone).month
        return self._season.of_farm(farm, month)

    async def answer(self, request: LightRequest) -> str:
        template = self.templates.answer(request)
        intent = request.decision.intent
        if self._llm is None or self._prompts is None or intent in TEMPLATE_ONLY:
            return template
        texts = Texts(self._catalog, request.lang)
        try:
            system = self._prompts[request.lang].format(
                prefix=build_prefix(
                    request.profile, request.farm, texts, phase=self._phase(request.farm)
                ),
                intent=intent,
                template=template,
            )
            if self.recall is not None:
                lines = await self.recall(request.profile.user_id)
                block = recall_block(lines, texts)
                system = f"{system}\n\n{block}" if block else system
            user = sanitize(request.text) or template
            text = (await self._llm.complete(system, user, timeout_s=self._timeout_s)).strip()
        except Exception as exc:
            logger.warning("light: LLM reply failed (%s), using the template", type(exc).__name__)
            return template
        if not text or len(text) > MAX_LIGHT_CHARS or text.lstrip().startswith(("{", "[")):
            logger.info("light: LLM reply unusable (%d chars), using the template", len(text))
            return template
        return text
