"""Light-path answers: personal templates from the catalog (an LLM comes later)."""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.i18n import Catalog
from pipeline.profiles import FarmProfile, UserProfile
from pipeline.style import display_name
from pipeline.types import DepthDecision, Language


@dataclass(frozen=True, slots=True)
class LightRequest:
    decision: DepthDecision
    profile: UserProfile
    farm: FarmProfile
    lang: Language
    is_operator: bool
    first_contact: bool


class TemplateResponder:
    """Answers light intents from ``light.<intent>`` templates, by name."""

    def __init__(self, catalog: Catalog) -> None:
        self._catalog = catalog

    def answer(self, request: LightRequest) -> str:
        catalog, lang, profile = self._catalog, request.lang, request.profile
        name = display_name(profile, catalog, lang)
        intent = request.decision.intent
        if intent == "greeting" and request.first_contact:
            return catalog.text(lang, "light.greeting_new", name=name)
        if intent == "whoami":
            return catalog.text(
                lang,
                "light.whoami",
                name=name,
                expertise=catalog.text(lang, f"expertise.{profile.expertise_level}"),
                style=catalog.text(lang, f"styles.{profile.preferred_style}"),
                count=profile.interaction_count,
                operator=catalog.text(lang, "light.whoami_operator") if request.is_operator else "",
            )
        key = f"light.{profile.preferred_style}.{intent}"
        if not catalog.has(lang, key):
            key = f"light.{intent}"
        if not catalog.has(lang, key):
            key = "light.fallback"
        return catalog.variant(lang, key, profile.interaction_count, name=name)
