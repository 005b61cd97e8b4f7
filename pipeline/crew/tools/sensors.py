"""The farm's sensors: the latest readings, a chart, the open alerts. A field or a
sensor type the farm does not have gives a readable "unknown" answer listing what it
has, never another farm's data."""

from __future__ import annotations

from datetime import tzinfo

from db.repositories import reporting, sensor_watch
from db.repositories.sensor_readings import latest_readings
from pipeline.crew.context import RunContext
from pipeline.crew.tools.base import (
    ChartArgs,
    NoArgs,
    ReadingsArgs,
    Tool,
    ToolResult,
    add_more,
    field_label,
    field_names,
    hemisphere,
)
from pipeline.crew.words import Words, field_by_name
from pipeline.farm.localtime import zone as zone_of
from pipeline.farm.reports import sensor_label
from pipeline.farm.reports.chart_window import chart_window
from pipeline.farm.reports.summary_text import format_number
from pipeline.farm.sensors.alert_rules import SILENT
from pipeline.farm.sensors.readings import SensorTypes
from pipeline.farm.words.dates import DateWords
from pipeline.types import Attachment


class SensorTools:
    def __init__(self, *, words: Words, sensors: SensorTypes, dates: DateWords) -> None:
        self._words = words
        self._sensors = sensors
        self._dates = dates

    def tools(self) -> dict[str, Tool]:
        return {
            "latest_readings": self.latest_readings,
            "sensor_chart": self.sensor_chart,
            "open_alerts": self.open_alerts,
        }

    async def latest_readings(self, ctx: RunContext, args: ReadingsArgs) -> ToolResult:
        assert ctx.farm_id is not None
        field_id, problem = await resolve_field(ctx, args.field)
        if problem is not None:
            return ToolResult("latest_readings", problem)
        sensor, problem = self._sensor(ctx, args.sensor_type, required=False)
        if problem is not None:
            return ToolResult("latest_readings", problem)
        async with ctx.db.read() as session:
            latest = await latest_readings(
                session, ctx.farm_id, field_id=field_id, sensor_type=sensor
            )
            names = await field_names(session, ctx.farm_id)
        if not latest:
            return ToolResult("latest_readings", ctx.text_of("compose.readings_none"))
        lines = [ctx.text_of("compose.readings_header")]
        for reading in latest[: max(ctx.max_items, 4)]:
            lines.append(
                ctx.text_of(
                    "compose.readings_item",
                    field=field_label(ctx, names, reading.field_id),
                    sensor=sensor_label(ctx.texts, reading.sensor_type),
                    value=format_number(reading.value, ctx.lang),
                    unit=reading.unit,
                    when=ctx.clock(reading.measured_at),
                )
                + breach_note(ctx, reading.sensor_type, reading.value, reading.unit)
            )
        add_more(ctx, lines, len(latest), shown=max(ctx.max_items, 4))
        return ToolResult("latest_readings", "\n".join(lines))

    async def sensor_chart(self, ctx: RunContext, args: ChartArgs) -> ToolResult:
        assert ctx.farm_id is not None
        field_id, problem = await resolve_field(ctx, args.field)
        if problem is not None:
            return ToolResult("sensor_chart", problem)
        sensor, problem = self._sensor(ctx, args.sensor_type, required=True)
        kind = self._sensors.types.get(sensor or "")
        if problem is not None or kind is None:
            return ToolResult("sensor_chart", problem or "")
        label = sensor_label(ctx.texts, kind.name)
        zone = await farm_zone(ctx)
        window = chart_window(
            args.period,
            days=args.days,
            now=ctx.now,
            zone=zone,
            words=self._dates,
            hemisphere=hemisphere(ctx),
        )
        # matplotlib takes a while to import: only a chart request pays for it.
        from pipeline.farm.reports.charts import sensor_chart, span_text

        chart = await sensor_chart(
            ctx.db,
            ctx.farm_id,
            kind,
            window,
            zone=zone,
            field_id=field_id,
            texts=ctx.texts,
        )
        span = span_text(window)
        if chart is None:
            return ToolResult("sensor_chart", ctx.text_of("charts.none", sensor=label, span=span))
        photo = Attachment(chart.filename, chart.png)
        ctx.artifacts.keep_photo(photo)
        text = ctx.text_of("charts.ready", sensor=label, span=span)
        return ToolResult("sensor_chart", text, photo=photo)

    async def open_alerts(self, ctx: RunContext, _: NoArgs) -> ToolResult:
        assert ctx.farm_id is not None
        async with ctx.db.read() as session:
            alerts = await sensor_watch.open_alerts(session, ctx.farm_id, oldest_first=True)
            names = await field_names(session, ctx.farm_id)
        if not alerts:
            return ToolResult("open_alerts", ctx.text_of("compose.alerts_none"))
        lines = [ctx.text_of("compose.alerts_header")]
        for alert in alerts[: ctx.max_items]:
            if alert.kind == SILENT:
                lines.append(
                    ctx.text_of(
                        "alerts.open_silent",
                        field=field_label(ctx, names, alert.field_id),
                        sensor=sensor_label(ctx.texts, alert.sensor_type),
                        probe=alert.sensor_id or "?",
                        since=ctx.clock(alert.started_at),
                    )
                )
                continue
            lines.append(
                ctx.text_of(
                    f"compose.alert_{'above' if alert.kind == 'above_max' else 'below'}",
                    field=field_label(ctx, names, alert.field_id),
                    sensor=sensor_label(ctx.texts, alert.sensor_type),
                    value=self._with_unit(ctx, alert.value, alert.sensor_type),
                    threshold=self._with_unit(ctx, alert.threshold, alert.sensor_type),
                    since=ctx.clock(alert.started_at),
                )
            )
        add_more(ctx, lines, len(alerts))
        return ToolResult("open_alerts", "\n".join(lines))

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


async def farm_zone(ctx: RunContext) -> tzinfo:
    """The farm's clock (``farm_profiles.timezone``) for charts' days and axes."""
    if ctx.farm_id is None:
        return zone_of(None)
    async with ctx.db.read() as session:
        name = await reporting.farm_timezone(session, ctx.farm_id)
    return zone_of(name)


async def resolve_field(ctx: RunContext, name: str) -> tuple[str | None, str | None]:
    """(field id, None) for a field of this farm, (None, None) for none asked, or
    (None, a message listing the farm's fields) for a name it does not know."""
    if not name:
        return None, None
    dictionary = await ctx.dictionary()
    entry = field_by_name(name, dictionary)
    if entry is not None:
        return entry.canonical_id, None
    known = ", ".join(e.display for e in dictionary.entries("field")) or ctx.text_of("style.none")
    return None, ctx.text_of("compose.unknown_field", field=name[:40], fields=known)


def breach_note(ctx: RunContext, sensor_type: str, value: float, unit: str) -> str:
    """The "⚠️ under/over the threshold" note after a reading that breaks the farm's."""
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
