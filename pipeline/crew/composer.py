"""The composer: the deep path's planning and writing, and its offline part producer.

The deep template (``pipeline/deep.py``) asks the composer to prepare a request's
run context, to compose an agent's part from its tools (every agent offline, and a
crew agent that failed), for Stepan's own facts and the files asked for, and to write
the reply around the consent card. ``ComposerParts`` is the part producer without
an LLM: each agent's tools run directly and the answer is composed from their
results, in the farmer's language and style. Which tool an agent runs follows the
request's intents and words (``plan_calls``); docs/deep-path.md has the table.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from db.repositories import farm as farm_repo
from db.uow import Database
from pipeline.crew.context import RunContext
from pipeline.crew.recall_note import recall_note
from pipeline.crew.tools import FarmTools, ToolResult
from pipeline.crew.words import field_in_text
from pipeline.farm.journal.service import Journal
from pipeline.intents import Intent
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.replies.style import addressed
from pipeline.replies.voice import leveled, voice_of, why
from pipeline.types import DeepRequest, Reply

logger = logging.getLogger(__name__)

#: The order of parts in a reply: the farmer's own work first, diagnostics last.
PART_ORDER = ("ops", "iot", "sustainability", "spreadsheet", "platform")


@dataclass(frozen=True, slots=True)
class ToolCall:
    tool: str
    args: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class AgentPart:
    """One sub-agent's contribution; ``text`` None means it failed ("missing")."""

    agent: str
    text: str | None
    source: str = "composer"  # composer | crew
    error: str | None = None
    #: The part's producer failed because the LLM was out of reach (not a bad answer).
    llm_unavailable: bool = False

    @property
    def missing(self) -> bool:
        return self.text is None


def intents_of(request: DeepRequest) -> frozenset[str]:
    return frozenset((request.decision.intent, *request.decision.matched_intents))


def wants_card(request: DeepRequest) -> bool:
    """A recorded operation gets a consent card (as the journal always did)."""
    intents = intents_of(request)
    return Intent.RECORDING in intents or (Intent.MULTI_OPS in intents and "ops" in request.crew)


#: Intents under which farmers also write operations ("треба обприскати поле 3
#: завтра", "Прима Форте 0,6 л/га на пшениці, поле 12" route as general): the journal
#: reads the message and shows a card only when it finds an operation.
_MAY_RECORD = frozenset({Intent.PLANNING, Intent.GENERAL, Intent.UNKNOWN})


#: What a card answers by itself: the work recorded or planned, in any words.
_CARD_ANSWERS = _MAY_RECORD | {Intent.RECORDING, Intent.MULTI_OPS}


def card_only(request: DeepRequest, ctx: RunContext) -> bool:
    """The message is the operation on its card and asks nothing else: the card is the
    whole reply («заплануй обприскування на Кургані на п'ятницю» is the plan entry,
    not the week's plan, the alerts and the season's phase besides; issue 26 point 6).
    A message that also asks something («… і покажи вологість») keeps its agents."""
    return (
        ctx.artifacts.card_text is not None
        and ctx.artifacts.journal_mood == "record"
        and intents_of(request) <= _CARD_ANSWERS
    )


def may_plan(request: DeepRequest) -> bool:
    """A plan or an operation written in other words is a card too, when the journal
    reads one in it; the other agents answer as well."""
    return bool(intents_of(request) & _MAY_RECORD)


class Composer:
    def __init__(self, catalog: Catalog, journal: Journal, tools: FarmTools, db: Database) -> None:
        self._catalog = catalog
        self._journal = journal
        self._tools = tools
        self._db = db

    @property
    def tools(self) -> FarmTools:
        return self._tools

    # --- planning ----------------------------------------------------------------------------

    async def prepare(self, request: DeepRequest) -> RunContext:
        """The runner's context: the consent card first (it may create the farm), then
        the farm id, and the database so agents can work side by side, each tool in
        short transactions of its own."""
        ctx_card: Reply | None = None
        mood: str | None = None
        if wants_card(request) or may_plan(request):
            proposal = await self._journal.propose(
                user_id=request.incoming.user_id,
                chat_id=request.incoming.chat_id,
                message_id=request.incoming.message_id,
                text=request.incoming.text,
                lang=request.lang,
                now=request.now,
            )
            ctx_card, mood = proposal.reply, proposal.mood
        async with self._db.read() as session:
            row = await farm_repo.farm_of(session, request.incoming.user_id)
            farm_id = row.farm_id if row is not None else None
        ctx = RunContext(
            db=self._db,
            farm_id=farm_id,
            user_id=request.incoming.user_id,
            text=request.incoming.text,
            lang=request.lang,
            now=request.now,
            profile=request.profile,
            recall=request.recall,
            recalled=request.recalled,
            voice=voice_of(request.profile.expertise_level, operator=request.incoming.is_operator),
            farm=request.farm,
            catalog=self._catalog,
            vocabulary=self._journal.vocabulary,
        )
        ctx.artifacts.journal_mood = mood
        if ctx_card is not None:
            ctx.artifacts.card_text = ctx_card.text
            ctx.artifacts.buttons = ctx_card.buttons
        return ctx

    # --- which tools ---------------------------------------------------------------------------

    async def plan_calls(self, request: DeepRequest, agent: str, ctx: RunContext) -> list[ToolCall]:
        intents = intents_of(request)
        text = request.incoming.text
        words = self._tools.words
        if agent == "ops":
            if intents & {Intent.PLANNING, Intent.MULTI_OPS, Intent.GENERAL, Intent.UNKNOWN}:
                return [ToolCall("planned_operations", {"days": words.planning_days})]
            return []
        if agent == "iot":
            return await self._iot_calls(request, intents, ctx)
        if agent == "platform":
            return [ToolCall("platform_status")]
        if agent == "spreadsheet":
            return [ToolCall("operations_report", {"period": text})]
        if agent == "sustainability":
            calls: list[ToolCall] = []
            if Intent.ANALYSIS in intents:
                calls.append(ToolCall("plan_vs_fact", {"period": text}))
            if Intent.SUMMARY in intents:
                calls.append(await self._summary_call(text, ctx))
            if intents & {Intent.PLANNING, Intent.MULTI_OPS}:
                calls.append(ToolCall("season_hints"))
            return calls or [ToolCall("season_summary", {"period": text})]
        return []

    async def _summary_call(self, text: str, ctx: RunContext) -> ToolCall:
        """What the journal holds ("що записано за тиждень", "покажи журнал поля 3") is
        its entries; totals and recaps are the season summary."""
        if not self._tools.words.journal.wanted(text):
            return ToolCall("season_summary", {"period": text})
        entry = field_in_text(text, await ctx.dictionary())
        field_id = entry.canonical_id if entry is not None else ""
        return ToolCall("journal_entries", {"period": text, "field": field_id})

    async def _iot_calls(
        self, request: DeepRequest, intents: frozenset[str], ctx: RunContext
    ) -> list[ToolCall]:
        text = request.incoming.text
        words = self._tools.words
        entry = field_in_text(text, await ctx.dictionary())
        field_id = entry.canonical_id if entry is not None else ""
        sensor = words.sensor_type(text) or ""
        if words.wants_chart(text):
            # The tool reads the period from the farmer's words
            # (pipeline.farm.reports.chart_window).
            args = {"sensor_type": sensor or "soil_moisture", "period": text, "field": field_id}
            return [ToolCall("sensor_chart", args)]
        readings = ToolCall("latest_readings", {"field": field_id, "sensor_type": sensor})
        if Intent.IOT_ALERT in intents:
            return [ToolCall("open_alerts"), readings]
        if Intent.PLANNING in intents and Intent.IOT not in intents:
            return [ToolCall("open_alerts")]
        return [readings]

    # --- running -------------------------------------------------------------------------------

    async def run_agent(self, request: DeepRequest, agent: str, ctx: RunContext) -> AgentPart:
        """One agent's part from its tools; a failure makes the part missing, not the reply."""
        try:
            calls = await self.plan_calls(request, agent, ctx)
            results: list[ToolResult] = []
            for call in calls:
                ctx.artifacts.tools_run.append((agent, call.tool))
                results.append(await self._tools.run(call.tool, ctx, call.args))
        except Exception as exc:
            logger.exception("composer: agent %s failed trace=%s", agent, request.incoming.trace_id)
            return AgentPart(agent, None, error=type(exc).__name__)
        said = [
            call.tool
            for call, result in zip(calls, results, strict=True)
            if result.text and result.explained
        ]
        lines = [result.text for result in results if result.text]
        # A novice also reads what the part's terms mean and why it matters.
        lines += why(ctx.texts, said, ctx.voice)
        return AgentPart(agent, "\n".join(lines))

    async def ensure_files(self, request: DeepRequest, ctx: RunContext) -> None:
        """A report or chart the farmer asked for is attached even when the agent
        talked about it without calling its tool."""
        wanted = (
            ("spreadsheet", "operations_report", ctx.artifacts.document is None),
            ("iot", "sensor_chart", ctx.artifacts.photo is None),
        )
        for agent, tool, missing in wanted:
            # A tool that ran and attached nothing had nothing to show (an empty period).
            ran = (agent, tool) in ctx.artifacts.tools_run
            if agent not in request.crew or not missing or ran:
                continue
            try:
                for call in await self.plan_calls(request, agent, ctx):
                    if call.tool == tool:
                        ctx.artifacts.tools_run.append((agent, tool))
                        await self._tools.run(tool, ctx, call.args)
            except Exception:
                logger.exception(
                    "composer: %s for %s failed trace=%s", tool, agent, request.incoming.trace_id
                )

    async def own_facts(self, request: DeepRequest, ctx: RunContext) -> str | None:
        """What Stepan knows himself: advice, or why there are no sensor data."""
        intents = intents_of(request)
        try:
            # A question the knowledge base would answer, here without the advisor
            # (a peer's question): the rule-based advice.
            if intents & {Intent.DECISION, Intent.ADVICE}:
                ctx.artifacts.tools_run.append(("stepan", "advice"))
                advice = (await self._tools.run("advice", ctx, {})).text
                return "\n".join([advice, *why(ctx.texts, ["advice"], ctx.voice)])
        except Exception:
            logger.exception("composer: advice failed trace=%s", request.incoming.trace_id)
            return None
        if request.crew or ctx.artifacts.card_text is not None:
            return None
        if intents & {Intent.IOT, Intent.IOT_ALERT}:
            return ctx.text_of("compose.no_iot")
        # Nothing to say of his own: ``finish`` falls back to asking what is needed.
        return None

    # --- writing -------------------------------------------------------------------------------

    def reply(
        self,
        request: DeepRequest,
        ctx: RunContext,
        parts: Sequence[AgentPart],
        own: str | None,
        *,
        lead: str | None = None,
    ) -> Reply:
        blocks = self.blocks(request, ctx, parts, own, lead=lead)
        return self.finish(request, ctx, "\n\n".join(blocks))

    def blocks(
        self,
        request: DeepRequest,
        ctx: RunContext,
        parts: Sequence[AgentPart],
        own: str | None,
        *,
        lead: str | None = None,
    ) -> list[str]:
        ordered = sorted(parts, key=lambda part: _rank(part.agent))
        # Agents without a farm all say so: once is enough.
        texts = list(dict.fromkeys(part.text for part in ordered if part.text))
        blocks: list[str] = list(texts)
        if own:
            blocks.append(own)
        missing = self.missing_note(request, parts)
        if missing:
            blocks.append(missing)
        if ctx.artifacts.card_text is not None:
            # The card stays verbatim (consent); a novice reads what it is under it.
            blocks += why(ctx.texts, ["journal_card"], ctx.voice)
        said = ctx.artifacts.journal_mood in ("question", "negated", "areas")
        if ctx.artifacts.card_text is None and wants_card(request) and not said:
            blocks.append(ctx.text_of("journal.not_understood"))
        # The summaries window after the profile's part (the opener): where the last
        # conversation stopped, once, when this message opens a new one.
        recalled = [note] if (note := recall_note(ctx)) else []
        if lead:
            return [lead, *recalled, *blocks]
        if texts and ctx.artifacts.card_text is None:
            opener = self.opener(request, "\n".join(blocks))
            if opener:
                return [opener, *recalled, *blocks]
        return [*recalled, *blocks]

    def finish(self, request: DeepRequest, ctx: RunContext, text: str) -> Reply:
        """The reply around ``text``: the consent card (verbatim: what is written must be
        exactly what the farmer saw), its buttons and the files."""
        card = ctx.artifacts.card_text
        body = "\n\n".join(block for block in (card, text) if block)
        if not body:
            body = ctx.text_of("compose.general")
        return Reply(
            body,
            ctx.artifacts.buttons,
            document=ctx.artifacts.document,
            photo=ctx.artifacts.photo,
            intent=request.decision.intent,
        )

    def opener(self, request: DeepRequest, body: str) -> str | None:
        """The farmer's name before a reply of several lines, never twice in a row;
        none for an expert or an operator (their replies start with the facts)."""
        style = request.profile.preferred_style
        rule = self._tools.words.opener
        if style == "brief" or not rule.allows(body, request.profile.recent_topics, request.now):
            return None
        texts = Texts(self._catalog, request.lang)
        name = addressed(request.profile, texts)
        voice = voice_of(request.profile.expertise_level, operator=request.incoming.is_operator)
        key = leveled(texts, f"compose.opener.{style}", voice)
        opener = texts.variant(key, request.profile.interaction_count, name=name)
        return opener or None

    def missing_note(self, request: DeepRequest, parts: Sequence[AgentPart]) -> str | None:
        missing = [part.agent for part in parts if part.missing]
        if not missing:
            return None
        texts = Texts(self._catalog, request.lang)
        labels = ", ".join(
            texts.text(f"compose.part.{agent}") for agent in sorted(missing, key=_rank)
        )
        voice = voice_of(request.profile.expertise_level, operator=request.incoming.is_operator)
        key = leveled(texts, "compose.missing", voice)
        return texts.text(key, parts=labels)


def _rank(agent: str) -> int:
    return PART_ORDER.index(agent) if agent in PART_ORDER else len(PART_ORDER)


class ComposerParts:
    """The part producer without an LLM: every agent's part from its tools, the
    answer composed from templates (opener by style, parts, own facts, what is missing)."""

    source = "composer"

    def __init__(self, composer: Composer) -> None:
        self._composer = composer

    async def brief(self, request: DeepRequest, ctx: RunContext) -> None:
        return None  # the tools read what they need themselves

    async def part(self, request: DeepRequest, agent: str, ctx: RunContext) -> AgentPart:
        return await self._composer.run_agent(request, agent, ctx)

    async def consolidate(
        self,
        request: DeepRequest,
        ctx: RunContext,
        parts: Sequence[AgentPart],
        own: str | None,
    ) -> Reply:
        return self._composer.reply(request, ctx, parts, own)
