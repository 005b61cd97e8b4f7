"""The handoff contract (ADR "DAARWIZZ orchestration mode"): what Stepan passes to a
sub-agent. Intent, the user's goal, constraints (language, format, time budget) and a
context summary with nothing confidential in it.

The context summary and the goal go to an LLM endpoint that may be a third party's,
so they carry no secrets: no user, chat, farm or trace ids, no tokens or keys, no
phone numbers or e-mail addresses. Field and crop ids are the only ids kept: an
agent needs them to name a field, and they say nothing about the person.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pipeline.crew.config import CrewSpec
from pipeline.intents import Intent
from pipeline.privacy import redact_shapes
from pipeline.types import DeepRequest

PrivacyLevel = Literal["public", "team", "confidential"]
LANGUAGE_NAMES = {"uk": "Ukrainian", "en": "English"}
REDACTED = "[redacted]"
GOAL_MAX_CHARS = 500


def sanitize(text: str, *, limit: int = GOAL_MAX_CHARS) -> str:
    """``text`` without secrets, ids or contact details, at most ``limit`` characters.

    The shapes are :mod:`pipeline.privacy`'s (IBANs and card numbers included); a
    question for a peer agent goes through the full sanitiser there (names, passwords,
    addresses, private remarks too)."""
    text = redact_shapes(text, REDACTED)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True, slots=True)
class HandoffContract:
    intent: str
    domain: str  # the sub-agent's name: ops, iot, platform, spreadsheet, sustainability
    target_agent: str
    user_goal: str
    language: str
    format: str
    time_budget_s: float
    context_summary: str
    privacy_level: PrivacyLevel = "team"
    #: True when the work ends in a write: nothing is written without the user's ✅
    #: on a card (ADR: no handoff that acts without consent).
    requires_consent: bool = False

    def task_description(self, crew: CrewSpec) -> str:
        return crew.handoff.description.format(
            agent=self.target_agent,
            intent=self.intent,
            user_goal=self.user_goal,
            language=self.language,
            format=self.format,
            time_budget_s=f"{self.time_budget_s:.0f}",
            context_summary=self.context_summary,
        )

    def expected_output(self, crew: CrewSpec) -> str:
        return crew.handoff.expected_output.format(language=self.language)


@dataclass(frozen=True, slots=True)
class FarmOutline:
    """The farm's shape for a sub-agent: field ids with their names, crop names."""

    fields: tuple[str, ...] = ()
    crops: tuple[str, ...] = ()
    #: The season's phase by the calendar and the farm's crops.
    phase: str | None = None


def context_summary(request: DeepRequest, outline: FarmOutline) -> str:
    """What a sub-agent may know: the farm's shape, never the person behind it."""
    farm, profile = request.farm, request.profile
    parts = [f"today {request.now:%Y-%m-%d}"]
    if outline.fields:
        parts.append("fields " + ", ".join(outline.fields[:20]))
    if outline.crops:
        parts.append("crops " + ", ".join(outline.crops[:20]))
    # The calendar's reading of the profile's phase when the producer worked it out.
    phase = outline.phase or farm.seasonal_context.current_phase
    if phase:
        parts.append(f"season phase {phase}")
    parts.append("IoT sensors connected" if farm.has_iot else "no IoT sensors")
    parts.append(f"farmer's level {profile.expertise_level}, style {profile.preferred_style}")
    return sanitize("; ".join(parts), limit=1000)


def build_contract(
    request: DeepRequest, agent: str, crew: CrewSpec, outline: FarmOutline | None = None
) -> HandoffContract:
    intents = (request.decision.intent, *request.decision.matched_intents)
    writes = agent == "ops" and (Intent.RECORDING in intents or Intent.MULTI_OPS in intents)
    return HandoffContract(
        intent=request.decision.intent,
        domain=agent,
        target_agent=agent,
        user_goal=sanitize(request.incoming.text),
        language=LANGUAGE_NAMES.get(request.lang, "Ukrainian"),
        format=crew.agent(agent).format,
        time_budget_s=crew.limits.agent_timeout_s,
        context_summary=context_summary(request, outline or FarmOutline()),
        requires_consent=writes,
    )
