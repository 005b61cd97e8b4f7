"""The season and Stepan's own advice: the phase of the season with its hints, and a
rule-based answer to the farmer's question with the farm's crops and readings."""

from __future__ import annotations

from db.repositories import reporting
from db.repositories.sensor_readings import latest_readings
from pipeline.crew.context import RunContext
from pipeline.crew.tools.base import NoArgs, Tool, ToolResult, field_label, field_names
from pipeline.crew.words import Words
from pipeline.farm.reports import sensor_label
from pipeline.farm.reports.summary_text import format_number
from pipeline.farm.season_calendar import SeasonCalendar
from pipeline.profiles import Phase
from pipeline.text import capitalised


class SeasonTools:
    def __init__(self, *, words: Words) -> None:
        self._words = words

    def tools(self) -> dict[str, Tool]:
        return {"season_hints": self.season_hints, "advice": self.advice}

    async def season_hints(self, ctx: RunContext, _: NoArgs) -> ToolResult:
        phase = await self._phase(ctx)
        lines = [
            ctx.text_of("compose.phase", phase=ctx.text_of(f"phase.{phase}")),
            ctx.text_of(f"compose.hint.{phase}"),
        ]
        return ToolResult("season_hints", "\n".join(lines))

    async def advice(self, ctx: RunContext, _: NoArgs) -> ToolResult:
        """A short rule-based answer from ``rules/advice.toml`` and the farm's context,
        honest that an agronomist has to confirm it on the field."""
        topic = self._words.advice_topic(ctx.text)
        lines = [ctx.text_of(f"advice.{topic.name}" if topic else "advice.general")]
        crops = await crop_names(ctx)
        lines.append(
            ctx.text_of(
                "advice.context",
                crops=", ".join(crops) or ctx.text_of("style.none"),
                phase=ctx.text_of(f"phase.{await self._phase(ctx)}"),
            )
        )
        if topic is not None and topic.sensor and ctx.farm.has_iot and ctx.farm_id:
            async with ctx.db.read() as session:
                readings = await latest_readings(session, ctx.farm_id, sensor_type=topic.sensor)
                names = await field_names(session, ctx.farm_id)
            for reading in readings[:3]:
                lines.append(
                    ctx.text_of(
                        "advice.reading",
                        sensor=sensor_label(ctx.texts, reading.sensor_type),
                        field=field_label(ctx, names, reading.field_id),
                        value=format_number(reading.value, ctx.lang),
                        unit=reading.unit,
                    )
                )
        lines.append(ctx.text_of("advice.confirm"))
        return ToolResult("advice", "\n".join(lines))

    async def _phase(self, ctx: RunContext) -> str:
        return await season_phase(ctx, self._words.season)


async def season_phase(ctx: RunContext, season: SeasonCalendar) -> Phase:
    """The profile's phase when the calendar and the farm's crops allow it, else the
    month's (the farm's month, in its hemisphere): never «вегетація» in December."""
    return season.of_farm(ctx.farm, ctx.today.month, await crop_ids(ctx))


async def crop_ids(ctx: RunContext) -> set[str]:
    """The crops the farm grows, by id: the profile's and the farm's own list."""
    ids = set(ctx.farm.crop_ids)
    if ctx.farm_id is not None:
        async with ctx.db.read() as session:
            ids.update(await reporting.crop_names(session, ctx.farm_id))
    return ids


async def crop_names(ctx: RunContext) -> list[str]:
    """The farm's crops by name (never by id): its own crops and the profile's list."""
    dictionary = await ctx.dictionary()
    names: list[str] = []
    for entry in dictionary.entries("crop"):
        if entry.canonical_id in ctx.farm.crop_ids and entry.display not in names:
            names.append(capitalised(entry.display))
    if ctx.farm_id is not None:
        async with ctx.db.read() as session:
            own = await reporting.crop_names(session, ctx.farm_id)
        names += [capitalised(name) for name in own.values() if capitalised(name) not in names]
    return names
