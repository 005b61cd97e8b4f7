"""What every tool shares: its result, its argument models and the few helpers that
turn farm rows into the farmer's text.

Arguments come as plain values, as an LLM would send them, and are validated by a
pydantic model per tool (unknown keys refused, numbers bounded, strings capped).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from pipeline.crew.context import RunContext
from pipeline.farm.reports.chart_window import DEFAULT_CHART_DAYS, MAX_CHART_DAYS
from pipeline.farm.reports.plan_fact import field_names as field_names  # the reports' own
from pipeline.farm.reports.plan_fact import waiting_fields
from pipeline.farm.words.dates import Hemisphere
from pipeline.types import Attachment


@dataclass(frozen=True, slots=True)
class ToolResult:
    tool: str
    text: str
    document: Attachment | None = None
    photo: Attachment | None = None
    #: False when the text only says why there is nothing to show (no farm yet): a
    #: novice's explanation of the part's data would explain nothing there.
    explained: bool = True


#: One tool: the request's context and its validated arguments in, text (and a file) out.
Tool = Callable[[RunContext, Any], Awaitable[ToolResult]]


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


class JournalArgs(PeriodArgs):
    #: A field of the farm by name or id; empty: every field.
    field: str = Field(default="", max_length=80)


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
    "journal_entries": JournalArgs,
    "season_hints": NoArgs,
    # Stepan's own: rule-based advice on the farmer's question (never called by an LLM).
    "advice": NoArgs,
}

#: Tools that need no farm row (the rest answer "I do not know your farm yet").
FARMLESS = frozenset({"platform_status", "season_hints", "journal_card", "advice"})


def hemisphere(ctx: RunContext) -> Hemisphere:
    return "south" if ctx.hemisphere == "south" else "north"


def long_date(value: Any) -> str:
    return f"{value:%d.%m.%Y}"


def short_date(value: Any) -> str:
    return f"{value:%d.%m}"


def field_label(
    ctx: RunContext,
    names: Mapping[str, str],
    field_id: str | None,
    *,
    waiting: Mapping[int, str] | None = None,
    term_id: int | None = None,
) -> str:
    """A field by the farm's name; without one, the unknown field the operation waits
    on (``waiting``, by its pending term id) marked as not yet confirmed, and only then
    «без поля»."""
    if field_id is None:
        name = waiting.get(term_id) if waiting and term_id is not None else None
        if name:
            return ctx.text_of("reports.field_unconfirmed", field=name)
        return ctx.text_of("reports.no_field")
    return names.get(field_id, field_id)


async def waiting_of(ctx: RunContext, session: Any, rows: Iterable[Any]) -> dict[int, str]:
    """The unknown fields ``rows`` (operations) wait on, as they are called; nothing
    read when none of them waits for one."""
    if not any(row.field_id is None and row.pending_term_id for row in rows):
        return {}
    assert ctx.farm_id is not None
    return await waiting_fields(session, ctx.farm_id, ctx.vocabulary.rules)


def amount_text(
    ctx: RunContext, quantity: float | None, unit: str | None, product: str | None
) -> str:
    parts: list[str] = []
    if quantity is not None:
        unit_key = f"unit.{unit}"
        unit_text = ctx.text_of(unit_key) if unit and ctx.catalog.has(ctx.lang, unit_key) else unit
        # As the language writes it (CLDR, up to three decimals): a planned 0,25 л/га
        # must not read 0,2 (format_number rounds totals to one decimal).
        parts.append(f"{ctx.catalog.number(ctx.lang, quantity)} {unit_text or ''}".strip())
    if product:
        parts.append(product)
    return (", " + ", ".join(parts)) if parts else ""


def add_more(ctx: RunContext, lines: list[str], total: int, *, shown: int | None = None) -> None:
    """A "and N more" line when the list was cut to the user's style."""
    limit = ctx.max_items if shown is None else shown
    if total > limit:
        lines.append(ctx.text_of("compose.more", count=total - limit))
