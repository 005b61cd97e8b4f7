"""The season summary in words: numbers, units, products, water and harvest in the
user's language (the figures themselves come from ``pipeline/farm/reports/summary.py``)."""

from __future__ import annotations

from pipeline.farm.reports.summary import (
    MAX_PRODUCTS_IN_TEXT,
    ProductAmount,
    SeasonSummary,
)
from pipeline.farm.slugs import natural
from pipeline.language.texts import Texts
from pipeline.replies.voice import INTERMEDIATE, leveled
from pipeline.text import capitalised
from pipeline.types import Language


def format_number(value: float, lang: Language) -> str:
    """12345.6 -> "12 346" / "12,346"; 2.5 -> "2,5" (uk) / "2.5" (en)."""
    digits = 0 if abs(value) >= 100 else 1
    text = f"{value:,.{digits}f}"
    if digits and text.endswith(".0"):
        text = text[:-2]
    if lang == "uk":
        # Ukrainian: a space between thousands and a decimal comma.
        return text.replace(",", "\u00a0").replace(".", ",")
    return text


def _unit_text(unit: str, per_ha: bool, texts: Texts) -> str:
    key = f"reports.unit.{unit}"
    name = texts.text(key) if unit and texts.has(key) else unit
    return texts.text("reports.unit.per_ha", unit=name) if per_ha else name


def _amount(value: float, unit: str, per_ha: bool, texts: Texts) -> str:
    return f"{format_number(value, texts.lang)} {_unit_text(unit, per_ha, texts)}".strip()


def _product_text(item: ProductAmount, texts: Texts) -> str:
    """What was spent: the total where it is known, with the dose per hectare."""
    if item.total > 0:
        amount = _amount(item.total, item.unit, False, texts)
        if item.per_ha is not None:
            per_ha = _amount(item.per_ha, item.unit, True, texts)
            amount = texts.text("reports.summary_amount_dose", amount=amount, dose=per_ha)
    elif item.rate_unknown_area is not None:
        dose = _amount(item.rate_unknown_area, item.unit, True, texts)
        amount = texts.text("reports.summary_dose_only", dose=dose)
    else:
        amount = _amount(item.total, item.unit, False, texts)
    return texts.text("reports.summary_product_item", product=item.product, amount=amount)


def _water_text(summary: SeasonSummary, texts: Texts) -> str:
    """Depths per field: the depths of different fields are not added up."""
    if not summary.water_mm_by_field:
        return texts.text("reports.summary_no_water")
    names = summary.field_names
    ordered = sorted(
        summary.water_mm_by_field.items(), key=lambda kv: natural(names.get(kv[0], kv[0]))
    )
    items = "; ".join(
        texts.text(
            "reports.summary_field_water",
            field=names.get(field_id, field_id.partition(":")[2] or field_id),
            mm=format_number(mm, texts.lang),
        )
        for field_id, mm in ordered
    )
    if summary.water_m3 is None:
        return texts.text("reports.summary_water", items=items)
    m3 = format_number(summary.water_m3, texts.lang)
    return texts.text("reports.summary_water_volume", items=items, m3=m3)


def _products_text(summary: SeasonSummary, texts: Texts) -> str:
    if not summary.products:
        return texts.text("reports.summary_no_products")
    # The biggest applications first; the text stays short, the agent has the list.
    ranked = sorted(summary.products, key=lambda item: -item.total)[:MAX_PRODUCTS_IN_TEXT]
    items = "; ".join(_product_text(item, texts) for item in ranked)
    return texts.text("reports.summary_products", items=items)


def _crop_name(summary: SeasonSummary, crop_id: str | None, texts: Texts) -> str:
    if crop_id is None:
        return texts.text("reports.summary_no_crop")
    return capitalised(
        summary.crop_names.get(crop_id) or crop_id.partition(":")[2].replace("-", " ")
    )


def _harvest_text(summary: SeasonSummary, texts: Texts) -> str | None:
    if not summary.harvest:
        return None
    items = []
    for item in summary.harvest[:MAX_PRODUCTS_IN_TEXT]:
        parts = []
        if item.total_t is not None:
            parts.append(
                f"{format_number(item.total_t, texts.lang)} {_unit_text('t', False, texts)}"
            )
        if item.yield_t_ha is not None:
            parts.append(
                f"{format_number(item.yield_t_ha, texts.lang)} {_unit_text('t', True, texts)}"
            )
        crop = _crop_name(summary, item.crop_id, texts)
        items.append(f"{crop} — {', '.join(parts)}")
    return texts.text("reports.summary_harvest", items="; ".join(items))


def summary_text(summary: SeasonSummary, texts: Texts, voice: str = INTERMEDIATE) -> str:
    """A few short lines a farmer reads in a chat: period, water per field, products
    spent, harvest, fields lacking an area, work, plan; the period, work and plan
    lines in the reader's voice (pipeline/replies/voice.py)."""
    worked = sum(1 for item in summary.operations_by_field if item.done and item.field_id)
    lines = [
        texts.text(
            leveled(texts, "reports.summary_period", voice),
            start=summary.start.strftime("%d.%m.%Y"),
            end=summary.end.strftime("%d.%m.%Y"),
        ),
        _water_text(summary, texts),
        _products_text(summary, texts),
    ]
    harvest = _harvest_text(summary, texts)
    if harvest:
        lines.append(harvest)
    if summary.fields_without_area:
        lines.append(
            texts.text("reports.summary_no_area", fields=", ".join(summary.fields_without_area))
        )
    lines.append(
        texts.text(
            leveled(texts, "reports.summary_operations", voice),
            done=summary.operations_done,
            fields=worked,
        )
    )
    pct = summary.completion_pct
    if pct is None:
        lines.append(texts.text("reports.summary_no_plan"))
    else:
        lines.append(
            texts.text(
                leveled(texts, "reports.summary_plan", voice),
                pct=format_number(pct, texts.lang),
                matched=summary.matched,
                planned=summary.planned,
            )
        )
    return "\n".join(lines)
