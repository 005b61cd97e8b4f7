"""CrewAI phones home (telemetry, tracing) unless told not to, and reads the switches
when it is first imported. Call :func:`silence_crewai` before anything imports it."""

from __future__ import annotations

import os

_SWITCHES = {
    "CREWAI_DISABLE_TELEMETRY": "true",
    "CREWAI_DISABLE_TRACKING": "true",
    "OTEL_SDK_DISABLED": "true",
    "CREWAI_TRACING_ENABLED": "false",
}


def silence_crewai() -> None:
    for name, value in _SWITCHES.items():
        os.environ[name] = value
