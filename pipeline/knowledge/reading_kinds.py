"""What kind of question a reading is (pipeline/knowledge/reader.py's ``Reading``):
pure checks the knowledge base's lookup and its classifier probes share."""

from __future__ import annotations

from typing import Literal

from pipeline.knowledge.reader import Reading
from pipeline.text import is_number

__all__ = ["SOWING_TOPICS", "answer_mode", "names_a_subject", "told"]

#: The sowing topics: a question about today, a day or a temperature is «sow now».
SOWING_TOPICS = ("sowing_window", "soil_temperature")


def answer_mode(
    reading: Reading, topic: str | None, after_topic: str | None
) -> Literal["answer", "sow_now", "after"]:
    """ "sow_now" for a sowing question about today, a day or a temperature; "after"
    for a rotation question naming only the predecessor ("що сіяти після кукурудзи")."""
    if topic is not None and topic == after_topic and reading.after_crops and not reading.crops:
        return "after"
    if topic in SOWING_TOPICS and (
        reading.today or reading.can or reading.temperature_c is not None or reading.day
    ):
        return "sow_now"
    return "answer"


def names_a_subject(reading: Reading) -> bool:
    """A crop, a pest, weed or disease, or a field: what a follow-up changes."""
    return bool(reading.crops or reading.keywords or reading.field_words)


def told(reading: Reading) -> bool:
    """An operation told with its field, day or amount ("полив 20 мм на полі 3")."""
    return bool(
        reading.field_words
        or reading.today
        or reading.dated
        or reading.day
        or any(is_number(token) for token in reading.tokens)
    )
