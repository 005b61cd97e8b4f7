"""A rotation card as a farmer reads it, asked either way round.

"Після чого сіяти пшеницю?", "коли можна повернути ріпак на те саме поле?": the
crop's own card, its return interval, good and poor predecessors and what follows it.
"Що сіяти після кукурудзи?" (``Lookup.mode == "after"``): the predecessor's card,
what follows it first. "Пшениця після соняшнику?" (``Lookup.predecessor``): first a
verdict on that pair, from the crop's lists, else from the predecessor's own.
"""

from __future__ import annotations

from collections.abc import Mapping

from pipeline.knowledge.lookup import Lookup
from pipeline.knowledge.model import Card, Rotation, Text
from pipeline.knowledge.render import ValueText

__all__ = ["rotation_lines", "verdict"]


def _name(crop: str, names: Mapping[str, Text], lang: str) -> str:
    name = names.get(crop)
    return name.get("en" if lang == "en" else "uk") if name is not None else crop


def _years(card: Card, key: str, out: ValueText) -> str | None:
    value = card.value(key)
    if value is None:
        return None
    span = value.span(None)
    return out.span(*span, value.unit) if span is not None else None


def _judge(
    crop: str, predecessors: tuple[str, ...], cards: Mapping[str, Rotation], own: Rotation
) -> str | None:
    """ "good", "bad" or None: the crop's own lists first, then the predecessor's."""
    for before in predecessors:
        if before in own.good:
            return "good"
        if before in own.bad:
            return "bad"
    for before in predecessors:
        theirs = cards.get(before)
        if theirs is not None and crop in theirs.next:
            return "good"
        if theirs is not None and crop in theirs.avoid:
            return "bad"
    return None


def verdict(
    card: Card,
    predecessors: tuple[str, ...],
    rotations: Mapping[str, Rotation],
    names: Mapping[str, Text],
    out: ValueText,
) -> str:
    """One line on the pair the question names: ``predecessors`` (the crop named after
    "після" and the forms it stands for) before the card's crop."""
    assert card.crop is not None and card.rotation is not None
    crop = _name(card.crop, names, out.lang)
    if card.crop in predecessors:
        again = _years(card, "repeat_years", out)
        if again is not None:
            return out.text("knowledge.rotation.verdict_same_ok", crop=crop, years=again)
        years = _years(card, "return_years", out) or ""
        return out.text("knowledge.rotation.verdict_same", crop=crop, years=years)
    before = _name(predecessors[0], names, out.lang)
    if out.lang == "en":
        # Inside an English sentence: "as a predecessor of winter wheat, sunflower ...".
        crop, before = crop[:1].lower() + crop[1:], before[:1].lower() + before[1:]
    judged = _judge(card.crop, predecessors, rotations, card.rotation)
    key = {"good": "verdict_good", "bad": "verdict_bad"}.get(judged or "", "verdict_none")
    return out.text(f"knowledge.rotation.{key}", crop=crop, predecessor=before)


def rotation_lines(
    card: Card, lookup: Lookup, out: ValueText, heading: str, values: list[str]
) -> list[str]:
    """The card's section: its heading, the return interval (``values``, already
    rendered) and the lists, in the order the question asks them."""
    rotation = card.rotation
    assert rotation is not None and card.crop is not None
    lists = {
        key: out.text(
            f"knowledge.rotation.{key}", text=getattr(rotation, f"{key}_text").get(out.lang)
        )
        for key in ("good", "bad", "next", "avoid")
    }
    if lookup.mode == "after":
        return [heading, lists["next"], lists["avoid"], *values]
    return [heading, *values, lists["good"], lists["bad"], lists["next"], lists["avoid"]]
