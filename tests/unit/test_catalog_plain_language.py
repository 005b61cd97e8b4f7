"""Plain language everywhere a person reads (issue 16 point 3).

Every catalog entry is rendered in Ukrainian with sample values in its placeholders;
the test fails on a Latin-script word outside the allowed list (units, product and
service names, /commands and the operators' command syntax), and, in what a farmer
reads, on an internal id (``tg:``, ``field:``, ``crop:``, ``farm:``), JSON or a
trace id."""

from __future__ import annotations

import re
from typing import Any

import pytest

from pipeline.language.catalog import Catalog
from tests.shared import catalog as shared_catalog

CATALOG = shared_catalog()

#: Latin words a Ukrainian text may carry, each for a reason.
ALLOWED_LATIN = frozenset(
    {
        # Units, formats and chemistry as people write them.
        "ha",
        "mm",
        "kg",
        "l",
        "g",
        "t",
        "pH",
        # The growth-stage scale, as agronomists and the knowledge cards write it.
        "BBCH",
        "NPK",
        "N",
        "P",
        "K",
        "S",
        "CaCO",
        "UTC",
        "CSV",
        # Formats an operator or an integrator types (CSV in UTF-8, ISO 8601 times, the
        # HTTP API); a farmer's report is «звіт в Excel», never «XLSX», and the sensors are
        # «датчики», never «IoT» (issue 30 point 2).
        "UTF",
        "ISO",
        "Excel",
        "HTTP",
        # A key on the keyboard (the terminal chat's intro).
        "Ctrl",
        "D",
        # Products, services and peer agents named as their makers write them.
        "Telegram",
        "farmOS",
        "ThingsBoard",
        "Helion",
        "Nutra",
        "Druid",
        "GreenFood",
        "DAARWIZZ",
        # The forecast's source, named in every weather answer (docs/weather.md).
        "Open",
        "Meteo",
        "Europe",
        "Kyiv",
        "IANA",
        # Roman numerals in knowledge cards (growth stages, quarters).
        "I",
        "II",
        "III",
        "IV",
        "V",
        "VI",
        "VII",
        "VIII",
        "IX",
        "X",
    }
)

#: Catalog sections only operators read: their command syntax (``set``, ``update``,
#: the keys an operator types) may show there; a farmer never sees these.
OPERATOR_SECTIONS = (
    "admin.",
    "terms.",
    "status.",
    "stats.",
    "overlay.",
    "nightly.",
    "cards.",
    # The debug line under an operator's own replies (issue 11: trace code and crew).
    "level.operator_",
)
#: What a sensor integrator reads: the CSV columns and the HTTP API they call.
INTEGRATION_KEYS = (
    "sensors.csv_missing_columns",
    "sensors.token_issued",
    "sensors.error_naive_datetime",
    "voice.off_operator",
)
INTEGRATION_SYNTAX = frozenset(
    {
        "sensor_id",
        "sensor_type",
        "value",
        "measured_at",
        "unit",
        "field_id",
        "POST",
        "Authorization",
        "Bearer",
        "Z",
        # The settings that switch voice messages on (docs/voice.md), for operators.
        "STEPAN_STT_MODEL",
        "STEPAN_STT_BASE_URL",
        "OpenAI",
    }
)
#: The operators' command syntax: words they type after a command.
COMMAND_SYNTAX = frozenset(
    {
        "set",
        "update",
        "rollback",
        "stepan",
        "migrate",
        "approve",
        "reject",
        "phase",
        "timezone",
        "region",
        "expertise_level",
        "preferred_style",
        "current_phase",
        "soil_moisture_min",
        "temperature_min",
        "temperature_max",
        "novice",
        "intermediate",
        "expert",
        "brief",
        "detailed",
        "conversational",
        "sowing",
        "planning",
        "growing",
        "harvest",
        "post_harvest",
        "dormant",
        "id",
        "d",
        "h",
        "w",
        "m",
        # Canonical ids an operator types for /approve («field:hora»).
        "field",
        "crop",
        "hora",
    }
)

#: A Latin word, not a /command, not «°C».
_LATIN = re.compile(r"(?<![/\w@=°-])[A-Za-z][A-Za-z_]*")
_IDS = re.compile(r"\b(?:tg|field|crop|farm):")
_JSON = re.compile(r"[{\[]\s*\"")
_TRACE = re.compile(r"\b[0-9a-f]{8,}\b")


class _Samples(dict[str, Any]):
    """A sample for any placeholder: numbers for counts and measures, else a word."""

    NUMBERS = ("count", "ms", "times", "rows", "pct", "days", "value", "area", "code", "id")

    def __missing__(self, key: str) -> Any:
        if any(part in key for part in self.NUMBERS):
            return 3
        return "Північне"


def _render(template: str) -> str:
    try:
        return template.format_map(_Samples())
    except (ValueError, IndexError):
        return template  # a literal brace in a text that is not a template: as written


def _entries(catalog: Catalog) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for key in sorted(catalog.keys("uk")):
        for template in catalog.templates("uk", key):
            out.append((key, _render(template)))
    return out


ENTRIES = _entries(CATALOG)


def _operator(key: str) -> bool:
    return key.startswith(OPERATOR_SECTIONS)


def test_every_entry_is_rendered() -> None:
    assert len(ENTRIES) > 500


@pytest.mark.parametrize(("key", "text"), ENTRIES, ids=[k for k, _ in ENTRIES])
def test_no_english_in_ukrainian_text(key: str, text: str) -> None:
    allowed = ALLOWED_LATIN | (COMMAND_SYNTAX if _operator(key) else frozenset())
    if key in INTEGRATION_KEYS:
        allowed |= INTEGRATION_SYNTAX
    latin = [w for w in _LATIN.findall(text) if w not in allowed]
    assert not latin, f"{key}: {latin} in {text!r}"


@pytest.mark.parametrize(
    ("key", "text"),
    [(k, t) for k, t in ENTRIES if not _operator(k)],
)
def test_no_internals_in_what_a_farmer_reads(key: str, text: str) -> None:
    assert not _IDS.search(text), f"{key}: an id in {text!r}"
    assert not _JSON.search(text), f"{key}: JSON in {text!r}"
    assert not _TRACE.search(text), f"{key}: a trace id in {text!r}"
