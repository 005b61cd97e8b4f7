"""The farm's own data: the journal card, planned operations, the spreadsheet report,
plan against fact and the season summary."""

from __future__ import annotations

from datetime import timedelta

from db.repositories import farm as farm_repo
from pipeline.crew.context import RunContext
from pipeline.crew.tools.base import (
    DaysArgs,
    NoArgs,
    PeriodArgs,
    Tool,
    ToolResult,
    add_more,
    amount_text,
    field_label,
    field_names,
    hemisphere,
    long_date,
    short_date,
    waiting_of,
)
from pipeline.farm.journal.card import shared_crop_labels
from pipeline.farm.reports import (
    build_operations_workbook,
    op_label,
    period_text,
    plan_vs_fact,
    waiting_fields,
)
from pipeline.farm.reports.summary import season_summary
from pipeline.farm.reports.summary_text import format_number, summary_text
from pipeline.farm.words.dates import DateWords, DefaultKind, Period, parse_period
from pipeline.farm.words.units import Units
from pipeline.types import Attachment


class FarmDataTools:
    def __init__(self, *, dates: DateWords, units: Units) -> None:
        self._dates = dates
        self._units = units

    def tools(self) -> dict[str, Tool]:
        return {
            "journal_card": self.journal_card,
            "planned_operations": self.planned_operations,
            "operations_report": self.operations_report,
            "plan_vs_fact": self.plan_vs_fact,
            "season_summary": self.season_summary,
        }

    async def journal_card(self, ctx: RunContext, _: NoArgs) -> ToolResult:
        # The card itself is made before the agents run (it is the consent step, not
        # an LLM decision); the agent only learns what it shows.
        if ctx.artifacts.card_text is None:
            return ToolResult("journal_card", ctx.text_of("compose.card_none"))
        return ToolResult(
            "journal_card", ctx.text_of("compose.card_shown", card=ctx.artifacts.card_text)
        )

    async def planned_operations(self, ctx: RunContext, args: DaysArgs) -> ToolResult:
        assert ctx.farm_id is not None
        start = ctx.today
        end = start + timedelta(days=args.days - 1)
        async with ctx.db.read() as session:
            rows = await farm_repo.operations_between(session, ctx.farm_id, start, end)
            planned = [row for row in rows if row.status == "planned"]
            names = await field_names(session, ctx.farm_id)
            waiting = await waiting_of(ctx, session, planned)
        if not planned:
            text = ctx.text_of("compose.planned_none", start=short_date(start), end=short_date(end))
            return ToolResult("planned_operations", text)
        lines = [
            ctx.text_of("compose.planned_header", start=short_date(start), end=short_date(end))
        ]
        for row in planned[: ctx.max_items]:
            lines.append(
                ctx.text_of(
                    "compose.planned_item",
                    date=short_date(row.op_date),
                    operation=op_label(ctx.texts, row.op_type),
                    field=field_label(
                        ctx, names, row.field_id, waiting=waiting, term_id=row.pending_term_id
                    ),
                    amount=amount_text(ctx, row.quantity, row.unit, row.product),
                )
            )
        add_more(ctx, lines, len(planned))
        return ToolResult("planned_operations", "\n".join(lines))

    async def operations_report(self, ctx: RunContext, args: PeriodArgs) -> ToolResult:
        assert ctx.farm_id is not None
        # No period named ("make an excel of operations"): the last month up to today.
        period = self._period(ctx, args.period, default="recent")
        report = await build_operations_workbook(
            ctx.db,
            ctx.farm_id,
            period.start,
            period.end,
            texts=ctx.texts,
            shared_crops=shared_crop_labels(ctx.vocabulary, ctx.lang),
            name_rules=ctx.vocabulary.rules,
        )
        if report.empty:
            text = ctx.text_of("compose.report_empty", period=period_text(period.start, period.end))
            return ToolResult("operations_report", text, explained=False)
        document = Attachment(report.filename, report.content)
        ctx.artifacts.keep_document(document)
        count = ctx.catalog.plural
        text = ctx.text_of(
            "compose.report_ready",
            period=period_text(period.start, period.end),
            # Counted words by the language's CLDR rules (the voices say them).
            records=count(ctx.lang, "plural.records", report.rows),
            operations=count(ctx.lang, "plural.operations", report.rows),
        )
        return ToolResult("operations_report", text, document=document)

    async def plan_vs_fact(self, ctx: RunContext, args: PeriodArgs) -> ToolResult:
        assert ctx.farm_id is not None
        period = self._period(ctx, args.period, default="month")
        async with ctx.db.read() as session:
            waiting = await waiting_fields(session, ctx.farm_id, ctx.vocabulary.rules)
            rows = await plan_vs_fact(
                session, ctx.farm_id, period.start, period.end, waiting=waiting
            )
        start, end = long_date(period.start), long_date(period.end)
        if not rows:
            return ToolResult(
                "plan_vs_fact", ctx.text_of("compose.plan_fact_none", start=start, end=end)
            )
        planned = sum(row.planned for row in rows)
        matched = sum(row.matched for row in rows)
        lines = [ctx.text_of("compose.plan_fact_header", start=start, end=end)]
        for row in rows[: ctx.max_items]:
            field = row.field_name or field_label(
                ctx, {}, row.field_id, waiting=waiting, term_id=row.pending_term_id
            )
            operation = op_label(ctx.texts, row.op_type)
            if row.planned:
                lines.append(
                    ctx.text_of(
                        "compose.plan_fact_item",
                        field=field,
                        operation=operation,
                        done=row.matched,
                        planned=row.planned,
                    )
                )
            else:
                lines.append(
                    ctx.text_of(
                        "compose.plan_fact_unplanned",
                        field=field,
                        operation=operation,
                        done=row.done,
                    )
                )
        add_more(ctx, lines, len(rows))
        if planned:
            pct = format_number(100.0 * matched / planned, ctx.lang)
            lines.append(
                ctx.text_of("compose.plan_fact_total", pct=pct, matched=matched, planned=planned)
            )
        return ToolResult("plan_vs_fact", "\n".join(lines))

    async def season_summary(self, ctx: RunContext, args: PeriodArgs) -> ToolResult:
        assert ctx.farm_id is not None
        period = self._period(ctx, args.period, default="season")
        async with ctx.db.read() as session:
            summary = await season_summary(
                session, ctx.farm_id, period.start, period.end, self._units
            )
        text = summary_text(summary, ctx.texts, ctx.voice)
        return ToolResult("season_summary", text)

    def _period(self, ctx: RunContext, text: str, *, default: DefaultKind) -> Period:
        return parse_period(
            text, ctx.today, self._dates, default=default, hemisphere=hemisphere(ctx)
        )
