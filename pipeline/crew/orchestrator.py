"""``CrewParts``: the deep template's part producer with an LLM (seed sections 2, 8, 10).

The template (``pipeline/deep.py``) runs only the agents the activation gate
selected, side by side; here each one is its own CrewAI crew with a handoff
contract. Stepan then consolidates their reports in the farmer's style (the style
prefix in his backstory), one reflection pass fits the answer to the person, and the
consent card and files are attached unchanged.

Degradation (seed section 10):

* an agent that fails or runs out of time is composed from its tools directly (the
  template's fallback); if even that fails, Stepan answers from the others and says
  what is missing (3);
* when the LLM cannot be reached at all, the farmer gets a short apology with a
  reference code and what the tools found directly, never a stack trace (4).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace

from pipeline.crew.composer import AgentPart, Composer
from pipeline.crew.config import CrewSpec, Prompts
from pipeline.crew.context import RunContext
from pipeline.crew.contract import LANGUAGE_NAMES, FarmOutline, build_contract, sanitize
from pipeline.crew.llm import LlmClient, describe, is_unavailable
from pipeline.crew.runner import CrewRunner
from pipeline.farm.naming import FarmNames, names_in
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.recall.prompt import recall_block
from pipeline.replies import reflection
from pipeline.replies.style import build_prefix
from pipeline.types import DeepRequest, Reply

logger = logging.getLogger(__name__)


class CrewParts:
    source = "crew"

    def __init__(
        self,
        *,
        catalog: Catalog,
        composer: Composer,
        runner: CrewRunner,
        client: LlmClient,
        prompts: Prompts,
    ) -> None:
        self._catalog = catalog
        self._composer = composer
        self._runner = runner
        self._client = client
        self._prompts = prompts
        self._crew: CrewSpec = runner.spec

    # --- agents ------------------------------------------------------------------------------

    async def brief(self, request: DeepRequest, ctx: RunContext) -> None:
        """The farm's outline for the handoff contracts (fields and crops, no person)."""
        if request.crew:
            ctx.outline = await self._outline(ctx)

    async def _outline(self, ctx: RunContext) -> FarmOutline:
        try:
            dictionary = await ctx.dictionary()
            crops = await self._composer.tools.crop_names(ctx)
            phase = await self._composer.tools.season_phase(ctx)
        except Exception:
            logger.warning("deep: farm outline unavailable", exc_info=True)
            return FarmOutline()
        fields = tuple(f"{e.canonical_id} ({e.display})" for e in dictionary.entries("field"))
        return FarmOutline(fields, tuple(crops), phase)

    async def part(self, request: DeepRequest, agent: str, ctx: RunContext) -> AgentPart:
        contract = build_contract(request, agent, self._crew, ctx.outline)
        text = await self._runner.run_agent(contract, ctx)
        return AgentPart(agent, text, source="crew")

    # --- Stepan ------------------------------------------------------------------------------

    async def consolidate(
        self,
        request: DeepRequest,
        ctx: RunContext,
        parts: Sequence[AgentPart],
        own: str | None,
    ) -> Reply:
        # An agent may talk about the report or chart without calling its tool.
        await self._composer.ensure_files(request, ctx)
        if parts and all(p.llm_unavailable for p in parts):
            return self._llm_down(request, ctx, parts, own)
        try:
            names = names_in(request.farm, await ctx.dictionary(), request.lang)
            phase = ctx.outline.phase or await self._composer.tools.season_phase(ctx)
            text = await self._stepan(request, parts, own, names, phase)
        except Exception as exc:
            logger.warning(
                "deep: Stepan failed (%s) trace=%s", describe(exc), request.incoming.trace_id
            )
            if is_unavailable(exc):
                return self._llm_down(request, ctx, parts, own)
            return self._composer.reply(request, ctx, parts, own)
        if self._crew.limits.reflect:
            text = await self._reflect(request, text)
        missing = self._composer.missing_note(request, parts)
        return self._composer.finish(request, ctx, "\n\n".join(t for t in (text, missing) if t))

    async def _stepan(
        self,
        request: DeepRequest,
        parts: Sequence[AgentPart],
        own: str | None,
        names: FarmNames,
        phase: str | None = None,
    ) -> str:
        reports = [f"[{part.agent}]\n{part.text}" for part in parts if part.text]
        if own:
            reports.append(f"[stepan]\n{own}")
        if not reports:
            reports.append("[stepan]\n" + self._catalog.text(request.lang, "compose.general"))
        missing = [part.agent for part in parts if part.missing]
        language = LANGUAGE_NAMES.get(request.lang, "Ukrainian")
        template = self._crew.consolidate
        description = template.description.format(
            user_goal=sanitize(request.incoming.text),
            intent=request.decision.intent,
            reports="\n\n".join(reports),
            missing=", ".join(missing) or "nothing",
            language=language,
        )
        stepan = self._crew.stepan
        texts = Texts(self._catalog, request.lang)
        prefix = build_prefix(request.profile, request.farm, texts, names, phase=phase)
        # One direct call, no crew: Stepan has no tools, and a crew would only add
        # CrewAI's prompt scaffolding and its start-up time to every deep answer.
        system = "\n\n".join(
            part
            for part in (
                f"You are {stepan.role}. {stepan.backstory}",
                f"Your goal: {stepan.goal}",
                f"Expected output: {template.expected_output.format(language=language)}",
                prefix,
                recall_block(request.recall, texts),
            )
            if part
        )
        return await self._client.complete(
            system, description, timeout_s=self._crew.limits.stepan_timeout_s
        )

    async def _reflect(self, request: DeepRequest, text: str) -> str:
        profile, lang = request.profile, request.lang
        labels = {
            "expertise_level": self._catalog.text(lang, f"expertise.{profile.expertise_level}"),
            "preferred_style": self._catalog.text(lang, f"styles.{profile.preferred_style}"),
        }
        timeout = self._crew.limits.reflection_timeout_s

        async def complete(system: str, user: str) -> str:
            return await self._client.complete(system, user, timeout_s=timeout)

        return await reflection.reflect_deep(
            text,
            profile,
            request.incoming.trace_id,
            complete=complete,
            system=self._prompts.reflection_system[lang],
            template=self._prompts.reflection_user[lang],
            labels=labels,
        )

    def _llm_down(
        self,
        request: DeepRequest,
        ctx: RunContext,
        parts: Sequence[AgentPart],
        own: str | None,
    ) -> Reply:
        code = request.incoming.trace_id[:8]
        plain = [replace(part, source="composer") for part in parts]
        if not (own or any(part.text for part in plain)):
            text = self._catalog.text(request.lang, "compose.llm_down_empty", code=code)
            return self._composer.finish(request, ctx, text)
        lead = self._catalog.text(request.lang, "compose.llm_down", code=code)
        return self._composer.reply(request, ctx, plain, own, lead=lead)
