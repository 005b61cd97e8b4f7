"""The crew's tools over the farm services: one async function per tool.

The same functions serve the offline composer (called directly) and the CrewAI
agents (wrapped in ``crewai_glue``). Arguments come as plain values, as an LLM
would send them, and are validated here by a pydantic model per tool (unknown keys
refused, numbers bounded, strings capped); a field or sensor the farm does not have
gives the model a readable "unknown" answer, never another farm's data. Every result
is text in the farmer's language, plus a file for reports and charts.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import timedelta, tzinfo
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select

from db.models import AlertRow, FarmProfileRow
from db.repositories import farm as farm_repo
from db.repositories import reporting
from pipeline.crew.context import RunContext
from pipeline.crew.words import Words, field_by_name
from pipeline.farm.alert_rules import SILENT
from pipeline.farm.chart_window import DEFAULT_CHART_DAYS, MAX_CHART_DAYS, chart_window
from pipeline.farm.dates import DateWords, DefaultKind, Hemisphere, Period, parse_period
from pipeline.farm.journal_card import crop_label
from pipeline.farm.localtime import zone as zone_of
from pipeline.farm.reports import (
    build_operations_workbook,
    op_label,
    plan_vs_fact,
    sensor_label,
)
from pipeline.farm.sensor_store import latest_readings
from pipeline.farm.sensors import SensorTypes
from pipeline.farm.summary import format_number, season_summary, summary_text
from pipeline.farm.units import Units
from pipeline.platform_status import Check
from pipeline.types import Attachment

logger = logging.getLogger(__name__)

#: Probes the platform's health (PlatformStatus.collect).
PlatformProbe = Callable[[RunContext], Awaitable[list[Check]]]


@dataclass(frozen=True, slots=True)
class ToolResult:
    tool: str
    text: str
    document: Attachment | None = None
    photo: Attachment | None = None


#: A period argument may be the farmer's whole message, which the period reader
#: searches; a long message must not make the report or chart fail.
PERIOD_TEXT_MAX = 4096


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class NoArgs(_Args):
    pass


class DaysArgs(_Args):
    days: int = Field(default=7, ge=1, le=31)


class ReadingsArgs(_Args):
    field: str = Field(default="", max_length=80)
    sensor_type: str = Field(default="", max_length=40)


class ChartArgs(_Args):
    sensor_type: str = Field(default="soil_moisture", max_length=40)
    days: int = Field(default=DEFAULT_CHART_DAYS, ge=1, le=MAX_CHART_DAYS)
    field: str = Field(default="", max_length=80)
    #: The period as the farmer wrote it ("за жовтень"); wins over ``days``. The
    #: composer passes the whole message (a Telegram message is <= 4096 characters).
    period: str = Field(default="", max_length=PERIOD_TEXT_MAX)


class PeriodArgs(_Args):
    period: str = Field(default="", max_length=PERIOD_TEXT_MAX)


#: Each tool's argument model: what an LLM may pass, checked before the tool runs.
ARGS: dict[str, type[_Args]] = {
    "journal_card": NoArgs,
    "planned_operations": DaysArgs,
    "latest_readings": ReadingsArgs,
    "sensor_chart": ChartArgs,
    "open_alerts": NoArgs,
    "platform_status": NoArgs,
    "operations_report": PeriodArgs,
    "plan_vs_fact": PeriodArgs,
    "season_summary": PeriodArgs,
    "season_hints": NoArgs,
    # Stepan's own: rule-based advice on the farmer's question (never called by an LLM).
    "advice": NoArgs,
}

#: Tools that need no farm row (the rest answer "I do not know your farm yet").
_FARMLESS = frozenset({"platform_status", "season_hints", "journal_card", "advice"})


def _date(value: Any) -> str:
    return f"{value:%d.%m.%Y}"


def _short(value: Any) -> str:
    return f"{value:%d.%m}"


class FarmTools:
    def __init__(
        self,
        platform_probe: PlatformProbe,
        *,
        words: Words,
        dates: DateWords,
        units: Units,
        sensors: SensorTypes,
    ) -> None:
        self._probe = platform_probe
        self._words = words
        self._dates = dates
        self._units = units
        self._sensors = sensors

    @property
    def words(self) -> Words:
        return self._words

    @property
    def dates(self) -> DateWords:
        return self._dates

    async def run(self, name: str, ctx: RunContext, args: Mapping[str, Any]) -> ToolResult:
        """Validate ``args`` for tool ``name`` and run it (pydantic.ValidationError or
        KeyError for a bad call, which an agent sees as a failed tool call)."""
        model = ARGS[name]
        parsed = model.model_validate(dict(args))
        method: Callable[[RunContext, Any], Awaitable[ToolResult]] = getattr(self, f"_{name}")
        if ctx.farm_id is None and name not in _FARMLESS:
            return ToolResult(name, ctx.text_of("compose.no_farm"))
        return await method(ctx, parsed)

    # --- ops --------------------------------------------------------------------------

    async def _journal_card(self, ctx: RunContext, _: NoArgs) -> ToolResult:
        # The card itself is made before the agents run (it is the consent step, not
        # an LLM decision); the agent only learns what it shows.
        if ctx.artifacts.card_text is None:
            return ToolResult("journal_card", ctx.text_of("compose.card_none"))
        return ToolResult(
            "journal_card", ctx.text_of("compose.card_shown", card=ctx.artifacts.card_text)
        )

    async def _planned_operations(self, ctx: RunContext, args: DaysArgs) -> ToolResult:
        assert ctx.farm_id is not None
        start = ctx.today
        end = start + timedelta(days=args.days - 1)
        async with ctx.db.read() as session:
            rows = await farm_repo.operations_between(session, ctx.farm_id, start, end)
            planned = [row for row in rows if row.status == "planned"]
            names = await _field_names(session, ctx.farm_id)
        if not planned:
            text = ctx.text_of("compose.planned_none", start=_short(start), end=_short(end))
            return ToolResult("planned_operations", text)
        lines = [ctx.text_of("compose.planned_header", start=_short(start), end=_short(end))]
        for row in planned[: ctx.max_items]:
            lines.append(
                ctx.text_of(
                    "compose.planned_item",
                    date=_short(row.op_date),
                    operation=op_label(ctx.catalog, ctx.lang, row.op_type),
                    field=_field(ctx, names, row.field_id),
                    amount=_amount(ctx, row.quantity, row.unit, row.product),
                )
            )
        _more(ctx, lines, len(planned))
        return ToolResult("planned_operations", "\n".join(lines))

    # --- iot ----------------------------------------------------------------------------

    async def _latest_readings(self, ctx: RunContext, args: ReadingsArgs) -> ToolResult:
        assert ctx.farm_id is not None
        field_id, problem = await self._field(ctx, args.field)
        if problem is not None:
            return ToolResult("latest_readings", problem)
        sensor, problem = self._sensor(ctx, args.sensor_type, required=False)
        if problem is not None:
            return ToolResult("latest_readings", problem)
        async with ctx.db.read() as session:
            latest = await latest_readings(
                session, ctx.farm_id, field_id=field_id, sensor_type=sensor
            )
            names = await _field_names(session, ctx.farm_id)
        if not latest:
            return ToolResult("latest_readings", ctx.text_of("compose.readings_none"))
        lines = [ctx.text_of("compose.readings_header")]
        for reading in latest[: max(ctx.max_items, 4)]:
            lines.append(
                ctx.text_of(
                    "compose.readings_item",
                    field=_field(ctx, names, reading.field_id),
                    sensor=sensor_label(ctx.catalog, ctx.lang, reading.sensor_type),
                    value=format_number(reading.value, ctx.lang),
                    unit=reading.unit,
                    when=ctx.clock(reading.measured_at),
                )
                + _breach(ctx, reading.sensor_type, reading.value, reading.unit)
            )
        _more(ctx, lines, len(latest), shown=max(ctx.max_items, 4))
        return ToolResult("latest_readings", "\n".join(lines))

    async def _sensor_chart(self, ctx: RunContext, args: ChartArgs) -> ToolResult:
        assert ctx.farm_id is not None
        field_id, problem = await self._field(ctx, args.field)
        if problem is not None:
            return ToolResult("sensor_chart", problem)
        sensor, problem = self._sensor(ctx, args.sensor_type, required=True)
        kind = self._sensors.types.get(sensor or "")
        if problem is not None or kind is None:
            return ToolResult("sensor_chart", problem or "")
        label = sensor_label(ctx.catalog, ctx.lang, kind.name)
        zone = await farm_zone(ctx)
        window = chart_window(
            args.period,
            days=args.days,
            now=ctx.now,
            zone=zone,
            words=self._dates,
            hemisphere=_hemisphere(ctx),
        )
        # matplotlib takes a while to import: only a chart request pays for it.
        from pipeline.farm.charts import sensor_chart, span_text

        chart = await sensor_chart(
            ctx.db,
            ctx.farm_id,
            kind,
            window,
            zone=zone,
            field_id=field_id,
            lang=ctx.lang,
            catalog=ctx.catalog,
        )
        span = span_text(window)
        if chart is None:
            return ToolResult("sensor_chart", ctx.text_of("charts.none", sensor=label, span=span))
        photo = Attachment(chart.filename, chart.png)
        ctx.artifacts.keep_photo(photo)
        text = ctx.text_of("charts.ready", sensor=label, span=span)
        return ToolResult("sensor_chart", text, photo=photo)

    async def _open_alerts(self, ctx: RunContext, _: NoArgs) -> ToolResult:
        assert ctx.farm_id is not None
        async with ctx.db.read() as session:
            result = await session.execute(
                select(AlertRow)
                .where(AlertRow.farm_id == ctx.farm_id, AlertRow.ended_at.is_(None))
                .order_by(AlertRow.started_at)
            )
            alerts = list(result.scalars())
            names = await _field_names(session, ctx.farm_id)
        if not alerts:
            return ToolResult("open_alerts", ctx.text_of("compose.alerts_none"))
        lines = [ctx.text_of("compose.alerts_header")]
        for alert in alerts[: ctx.max_items]:
            if alert.kind == SILENT:
                lines.append(
                    ctx.text_of(
                        "alerts.open_silent",
                        field=_field(ctx, names, alert.field_id),
                        sensor=sensor_label(ctx.catalog, ctx.lang, alert.sensor_type),
                        probe=alert.sensor_id or "?",
                        since=f"{reporting.as_utc(alert.started_at):%d.%m %H:%M}",
                    )
                )
                continue
            lines.append(
                ctx.text_of(
                    f"compose.alert_{'above' if alert.kind == 'above_max' else 'below'}",
                    field=_field(ctx, names, alert.field_id),
                    sensor=sensor_label(ctx.catalog, ctx.lang, alert.sensor_type),
                    value=self._with_unit(ctx, alert.value, alert.sensor_type),
                    threshold=self._with_unit(ctx, alert.threshold, alert.sensor_type),
                    since=ctx.clock(alert.started_at),
                )
            )
        _more(ctx, lines, len(alerts))
        return ToolResult("open_alerts", "\n".join(lines))

    # --- platform -------------------------------------------------------------------------

    async def _platform_status(self, ctx: RunContext, _: NoArgs) -> ToolResult:
        checks = await self._probe(ctx)
        lines = [ctx.text_of("compose.platform_header")]
        for check in checks:
            lines.append(
                ctx.text_of(
                    "compose.platform_item",
                    name=check.name,
                    state=ctx.text_of(f"compose.state.{check.state}"),
                    detail=check.detail,
                )
            )
        bad = [check.name for check in checks if check.state in ("down", "degraded")]
        lines.append(
            ctx.text_of("compose.platform_bad", names=", ".join(bad))
            if bad
            else ctx.text_of("compose.platform_ok")
        )
        return ToolResult("platform_status", "\n".join(lines))

    # --- spreadsheet -------------------------------------------------------------------------

    async def _operations_report(self, ctx: RunContext, args: PeriodArgs) -> ToolResult:
        assert ctx.farm_id is not None
        # No period named ("make an excel of operations"): the last month up to today.
        period = self._period(ctx, args.period, default="recent")
        report = await build_operations_workbook(
            ctx.db,
            ctx.farm_id,
            period.start,
            period.end,
            lang=ctx.lang,
            catalog=ctx.catalog,
            shared_crops={
                entry.canonical_id: crop_label(
                    ctx.vocabulary.shared(), entry.canonical_id, ctx.lang
                )
                or entry.display
                for entry in ctx.vocabulary.shared_crops
            },
        )
        document = Attachment(report.filename, report.content)
        ctx.artifacts.keep_document(document)
        text = ctx.text_of(
            "compose.report_ready",
            start=_date(period.start),
            end=_date(period.end),
            rows=report.rows,
        )
        return ToolResult("operations_report", text, document=document)

    # --- sustainability -------------------------------------------------------------------------

    async def _plan_vs_fact(self, ctx: RunContext, args: PeriodArgs) -> ToolResult:
        assert ctx.farm_id is not None
        period = self._period(ctx, args.period, default="month")
        async with ctx.db.read() as session:
            rows = await plan_vs_fact(session, ctx.farm_id, period.start, period.end)
        start, end = _date(period.start), _date(period.end)
        if not rows:
            return ToolResult(
                "plan_vs_fact", ctx.text_of("compose.plan_fact_none", start=start, end=end)
            )
        planned = sum(row.planned for row in rows)
        matched = sum(row.matched for row in rows)
        lines = [ctx.text_of("compose.plan_fact_header", start=start, end=end)]
        for row in rows[: ctx.max_items]:
            field = row.field_name or row.field_id or ctx.text_of("reports.no_field")
            operation = op_label(ctx.catalog, ctx.lang, row.op_type)
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
        _more(ctx, lines, len(rows))
        if planned:
            pct = format_number(100.0 * matched / planned, ctx.lang)
            lines.append(
                ctx.text_of("compose.plan_fact_total", pct=pct, matched=matched, planned=planned)
            )
        return ToolResult("plan_vs_fact", "\n".join(lines))

    async def _season_summary(self, ctx: RunContext, args: PeriodArgs) -> ToolResult:
        assert ctx.farm_id is not None
        period = self._period(ctx, args.period, default="season")
        async with ctx.db.read() as session:
            summary = await season_summary(
                session, ctx.farm_id, period.start, period.end, self._units
            )
        return ToolResult("season_summary", summary_text(summary, ctx.lang, ctx.catalog))

    async def _season_hints(self, ctx: RunContext, _: NoArgs) -> ToolResult:
        phase = ctx.farm.seasonal_context.current_phase or self._words.phase_for_month(
            ctx.now.month, ctx.hemisphere
        )
        lines = [
            ctx.text_of("compose.phase", phase=ctx.text_of(f"phase.{phase}")),
            ctx.text_of(f"compose.hint.{phase}"),
        ]
        return ToolResult("season_hints", "\n".join(lines))

    # --- Stepan's own ------------------------------------------------------------------

    async def _advice(self, ctx: RunContext, _: NoArgs) -> ToolResult:
        """A short rule-based answer from ``rules/advice.toml`` and the farm's context,
        honest that an agronomist has to confirm it on the field."""
        topic = self._words.advice_topic(ctx.text)
        lines = [ctx.text_of(f"advice.{topic.name}" if topic else "advice.general")]
        crops = await self.crop_names(ctx)
        phase = ctx.farm.seasonal_context.current_phase or self._words.phase_for_month(
            ctx.now.month, ctx.hemisphere
        )
        lines.append(
            ctx.text_of(
                "advice.context",
                crops=", ".join(crops) or ctx.text_of("style.none"),
                phase=ctx.text_of(f"phase.{phase}"),
            )
        )
        if topic is not None and topic.sensor and ctx.farm.has_iot and ctx.farm_id:
            async with ctx.db.read() as session:
                readings = await latest_readings(session, ctx.farm_id, sensor_type=topic.sensor)
                names = await _field_names(session, ctx.farm_id)
            for reading in readings[:3]:
                lines.append(
                    ctx.text_of(
                        "advice.reading",
                        sensor=sensor_label(ctx.catalog, ctx.lang, reading.sensor_type),
                        field=_field(ctx, names, reading.field_id),
                        value=format_number(reading.value, ctx.lang),
                        unit=reading.unit,
                    )
                )
        lines.append(ctx.text_of("advice.confirm"))
        return ToolResult("advice", "\n".join(lines))

    async def crop_names(self, ctx: RunContext) -> list[str]:
        """The farm's crops by name (never by id): its own crops and the profile's list."""
        dictionary = await ctx.dictionary()
        names: list[str] = []
        for entry in dictionary.entries("crop"):
            if entry.canonical_id in ctx.farm.crop_ids and entry.display not in names:
                names.append(entry.display)
        if ctx.farm_id is not None:
            async with ctx.db.read() as session:
                own = await reporting.crop_names(session, ctx.farm_id)
            names += [name for name in own.values() if name not in names]
        return names

    # --- argument checks -----------------------------------------------------------------

    async def _field(self, ctx: RunContext, name: str) -> tuple[str | None, str | None]:
        """(field id, None) for a field of this farm, (None, None) for none asked, or
        (None, a message listing the farm's fields) for a name it does not know."""
        if not name:
            return None, None
        dictionary = await ctx.dictionary()
        entry = field_by_name(name, dictionary)
        if entry is not None:
            return entry.canonical_id, None
        known = ", ".join(e.display for e in dictionary.entries("field")) or ctx.text_of(
            "style.none"
        )
        return None, ctx.text_of("compose.unknown_field", field=name[:40], fields=known)

    def _sensor(
        self, ctx: RunContext, name: str, *, required: bool
    ) -> tuple[str | None, str | None]:
        if not name:
            return ("soil_moisture" if required else None), None
        known = self._sensors
        spec = known.resolve(name) or known.resolve(self._words.sensor_type(name) or "")
        if spec is not None:
            return spec.name, None
        names = ", ".join(sorted(known.types))
        return None, ctx.text_of("compose.unknown_sensor", sensor=name[:40], known=names)

    def _with_unit(self, ctx: RunContext, value: float, sensor_type: str) -> str:
        spec = self._sensors.resolve(sensor_type)
        number = format_number(value, ctx.lang)
        return f"{number} {spec.unit}" if spec is not None else number

    def _period(self, ctx: RunContext, text: str, *, default: DefaultKind) -> Period:
        return parse_period(
            text, ctx.today, self._dates, default=default, hemisphere=_hemisphere(ctx)
        )


async def farm_zone(ctx: RunContext) -> tzinfo:
    """The farm's clock (``farm_profiles.timezone``) for charts' days and axes."""
    if ctx.farm_id is None:
        return zone_of(None)
    async with ctx.db.read() as session:
        name = await session.scalar(
            select(FarmProfileRow.timezone).where(FarmProfileRow.farm_id == ctx.farm_id)
        )
    return zone_of(name)


def _hemisphere(ctx: RunContext) -> Hemisphere:
    return "south" if ctx.hemisphere == "south" else "north"


async def _field_names(session: Any, farm_id: str) -> dict[str, str]:
    return {info.field_id: info.name for info in await reporting.fields(session, farm_id)}


def _field(ctx: RunContext, names: Mapping[str, str], field_id: str | None) -> str:
    if field_id is None:
        return ctx.text_of("reports.no_field")
    return names.get(field_id, field_id)


def _amount(ctx: RunContext, quantity: float | None, unit: str | None, product: str | None) -> str:
    parts: list[str] = []
    if quantity is not None:
        unit_key = f"unit.{unit}"
        unit_text = ctx.text_of(unit_key) if unit and ctx.catalog.has(ctx.lang, unit_key) else unit
        parts.append(f"{format_number(quantity, ctx.lang)} {unit_text or ''}".strip())
    if product:
        parts.append(product)
    return (", " + ", ".join(parts)) if parts else ""


def _breach(ctx: RunContext, sensor_type: str, value: float, unit: str) -> str:
    thresholds = ctx.farm.alert_thresholds
    if sensor_type == "soil_moisture" and value < thresholds.soil_moisture_min:
        limit = format_number(thresholds.soil_moisture_min, ctx.lang)
        return ctx.text_of("compose.below", threshold=f"{limit} {unit}")
    if sensor_type in ("temperature", "air_temperature"):
        if value < thresholds.temperature_min:
            limit = format_number(thresholds.temperature_min, ctx.lang)
            return ctx.text_of("compose.below", threshold=f"{limit} {unit}")
        if value > thresholds.temperature_max:
            limit = format_number(thresholds.temperature_max, ctx.lang)
            return ctx.text_of("compose.above", threshold=f"{limit} {unit}")
    return ""


def _more(ctx: RunContext, lines: list[str], total: int, *, shown: int | None = None) -> None:
    limit = ctx.max_items if shown is None else shown
    if total > limit:
        lines.append(ctx.text_of("compose.more", count=total - limit))
