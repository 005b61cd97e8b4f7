"""The season summary in words: numbers, units, products, water and harvest in the
user's language (the figures themselves come from ``pipeline/farm/reports/summary.py``)."""

from __future__ import annotations

from pipeline.farm.reports.summary import (
    MAX_PRODUCTS_IN_TEXT,
    ProductAmount,
    SeasonSummary,
)
from pipeline.farm.slugs import natural
from pipeline.language.catalog import Catalog
from pipeline.replies.voice import INTERMEDIATE, leveled
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


def _unit_text(unit: str, per_ha: bool, lang: Language, catalog: Catalog) -> str:
    key = f"reports.unit.{unit}"
    name = catalog.text(lang, key) if unit and catalog.has(lang, key) else unit
    return catalog.text(lang, "reports.unit.per_ha", unit=name) if per_ha else name


def _amount(value: float, unit: str, per_ha: bool, lang: Language, catalog: Catalog) -> str:
    return f"{format_number(value, lang)} {_unit_text(unit, per_ha, lang, catalog)}".strip()


def _product_text(item: ProductAmount, lang: Language, catalog: Catalog) -> str:
    """What was spent: the total where it is known, with the dose per hectare."""
    if item.total > 0:
        amount = _amount(item.total, item.unit, False, lang, catalog)
        if item.per_ha is not None:
            per_ha = _amount(item.per_ha, item.unit, True, lang, catalog)
            amount = catalog.text(lang, "reports.summary_amount_dose", amount=amount, dose=per_ha)
    elif item.rate_unknown_area is not None:
        dose = _amount(item.rate_unknown_area, item.unit, True, lang, catalog)
        amount = catalog.text(lang, "reports.summary_dose_only", dose=dose)
    else:
        amount = _amount(item.total, item.unit, False, lang, catalog)
    return catalog.text(lang, "reports.summary_product_item", product=item.product, amount=amount)


def _water_text(summary: SeasonSummary, lang: Language, catalog: Catalog) -> str:
    """Depths per field: the depths of different fields are not added up."""
    if not summary.water_mm_by_field:
        return catalog.text(lang, "reports.summary_no_water")
    names = summary.field_names
    ordered = sorted(
        summary.water_mm_by_field.items(), key=lambda kv: natural(names.get(kv[0], kv[0]))
    )
    items = "; ".join(
        catalog.text(
            lang,
            "reports.summary_field_water",
            field=names.get(field_id, field_id.partition(":")[2] or field_id),
            mm=format_number(mm, lang),
        )
        for field_id, mm in ordered
    )
    if summary.water_m3 is None:
        return catalog.text(lang, "reports.summary_water", items=items)
    m3 = format_number(summary.water_m3, lang)
    return catalog.text(lang, "reports.summary_water_volume", items=items, m3=m3)


def _products_text(summary: SeasonSummary, lang: Language, catalog: Catalog) -> str:
    if not summary.products:
        return catalog.text(lang, "reports.summary_no_products")
    # The biggest applications first; the text stays short, the agent has the list.
    ranked = sorted(summary.products, key=lambda item: -item.total)[:MAX_PRODUCTS_IN_TEXT]
    items = "; ".join(_product_text(item, lang, catalog) for item in ranked)
    return catalog.text(lang, "reports.summary_products", items=items)


def _crop_name(
    summary: SeasonSummary, crop_id: str | None, lang: Language, catalog: Catalog
) -> str:
    if crop_id is None:
        return catalog.text(lang, "reports.summary_no_crop")
    return summary.crop_names.get(crop_id) or crop_id.partition(":")[2].replace("-", " ")


def _harvest_text(summary: SeasonSummary, lang: Language, catalog: Catalog) -> str | None:
    if not summary.harvest:
        return None
    items = []
    for item in summary.harvest[:MAX_PRODUCTS_IN_TEXT]:
        parts = []
        if item.total_t is not None:
            parts.append(
                f"{format_number(item.total_t, lang)} {_unit_text('t', False, lang, catalog)}"
            )
        if item.yield_t_ha is not None:
            parts.append(
                f"{format_number(item.yield_t_ha, lang)} {_unit_text('t', True, lang, catalog)}"
            )
        crop = _crop_name(summary, item.crop_id, lang, catalog)
        items.append(f"{crop} — {', '.join(parts)}")
    return catalog.text(lang, "reports.summary_harvest", items="; ".join(items))


def summary_text(
    summary: SeasonSummary, lang: Language, catalog: Catalog, voice: str = INTERMEDIATE
) -> str:
    """A few short lines a farmer reads in a chat: period, water per field, products
    spent, harvest, fields lacking an area, work, plan; the period, work and plan
    lines in the reader's voice (pipeline/replies/voice.py)."""
    worked = sum(1 for item in summary.operations_by_field if item.done and item.field_id)
    lines = [
        catalog.text(
            lang,
            leveled(catalog, lang, "reports.summary_period", voice),
            start=summary.start.strftime("%d.%m.%Y"),
            end=summary.end.strftime("%d.%m.%Y"),
        ),
        _water_text(summary, lang, catalog),
        _products_text(summary, lang, catalog),
    ]
    harvest = _harvest_text(summary, lang, catalog)
    if harvest:
        lines.append(harvest)
    if summary.fields_without_area:
        lines.append(
            catalog.text(
                lang, "reports.summary_no_area", fields=", ".join(summary.fields_without_area)
            )
        )
    lines.append(
        catalog.text(
            lang,
            leveled(catalog, lang, "reports.summary_operations", voice),
            done=summary.operations_done,
            fields=worked,
        )
    )
    pct = summary.completion_pct
    if pct is None:
        lines.append(catalog.text(lang, "reports.summary_no_plan"))
    else:
        lines.append(
            catalog.text(
                lang,
                leveled(catalog, lang, "reports.summary_plan", voice),
                pct=format_number(pct, lang),
                matched=summary.matched,
                planned=summary.planned,
            )
        )
    return "\n".join(lines)
